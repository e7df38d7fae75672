// SPDX-License-Identifier: Apache-2.0
// Hostile input through the public C API, on either backend: descriptors
// that lie about nnz, C aliasing an operand, one descriptor as A and C, two
// plans sharing C, a plan used through a handle made where its destroyed
// handle was, and a product too large for C's offsets. Included by a test
// that defines `Memory` first (tests/host/test_hostile_input.cpp: host
// arrays that end at a guard page, so a read or write past one faults;
// tests/gpu/test_gpu_hostile_input.cpp: cudaMalloc'd arrays, which
// compute-sanitizer memcheck fences). Each case is named after what broke.
//
// Memory provides: kType (spgemmMemoryType_t); T* make<T>(const std::vector<T>&)
// (an array of exactly those elements, given back by release(void*));
// std::vector<T> read<T>(const T*, size_t); write<T>(T*, const std::vector<T>&).
#pragma once

#include <spgemm/spgemm.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "require_ok.hpp"

namespace spgemm_test::hostile {

// Every array a case made, released at its end.
struct Arrays {
  std::vector<void*> held;
  ~Arrays() {
    for (void* p : held) Memory::release(p);
  }
  template <class T>
  T* make(const std::vector<T>& host) {
    T* p = Memory::make(host);
    held.push_back(p);
    return p;
  }
};

// The status of a call that must fail, with its message for the report.
struct Refusal {
  spgemmStatus_t status;
  std::string message;
};

inline Refusal call(spgemmStatus_t status) {
  return {status, status == SPGEMM_STATUS_SUCCESS ? "" : spgemmGetLastErrorMessage()};
}

inline bool mentions(const Refusal& r, const std::string& text) {
  return r.message.find(text) != std::string::npos;
}

// A descriptor in Memory's memory over existing arrays.
template <class Offset, class Col>
spgemmMatDescr_t describe(int64_t rows, int64_t cols, int64_t nnz, Offset* offsets, Col* col_ind,
                          double* values) {
  constexpr auto offset_type = sizeof(Offset) == 4 ? SPGEMM_INDEX_32I : SPGEMM_INDEX_64I;
  constexpr auto index_type = sizeof(Col) == 4 ? SPGEMM_INDEX_32I : SPGEMM_INDEX_64I;
  spgemmMatDescr_t d = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreateCsr(&d, rows, cols, nnz, offsets, col_ind, values, offset_type,
                             index_type, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(d, Memory::kType));
  return d;
}

// A host CSR matrix, made into Memory's arrays by upload().
template <class Offset, class Col>
struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<Offset> offsets;
  std::vector<Col> col_ind;
  std::vector<double> values;

  // The n x n identity-like pattern with `extra` entries in row 0 (columns
  // 1..extra), sorted.
  static Csr diagonal(int64_t n, int extra = 0) {
    Csr m;
    m.rows = m.cols = n;
    m.offsets.push_back(0);
    for (int64_t r = 0; r < n; ++r) {
      m.col_ind.push_back(static_cast<Col>(r));
      if (r == 0)
        for (int e = 1; e <= extra && e < n; ++e) m.col_ind.push_back(static_cast<Col>(e));
      m.offsets.push_back(static_cast<Offset>(m.col_ind.size()));
    }
    m.values.assign(m.col_ind.size(), 1.0);
    return m;
  }

  spgemmMatDescr_t upload(Arrays& arrays, int64_t declared_nnz = -1) {
    return describe<Offset, Col>(rows, cols,
                                 declared_nnz >= 0 ? declared_nnz
                                                   : static_cast<int64_t>(col_ind.size()),
                                 arrays.make(offsets), arrays.make(col_ind),
                                 arrays.make(values));
  }
};

// C's descriptor of rows x cols, no arrays yet.
template <class Offset, class Col>
spgemmMatDescr_t empty_c(int64_t rows, int64_t cols) {
  return describe<Offset, Col>(rows, cols, 0, nullptr, nullptr, nullptr);
}

// The input checks' verdict on a plan's operands: from spgemmAnalyze, or,
// where the GPU leaves it to the symbolic phase's synchronization (small
// products), from spgemmSymbolic into C's row offsets `c_offsets`.
template <class Offset>
Refusal checks_verdict(spgemmHandle_t handle, spgemmPlan_t plan, spgemmMatDescr_t c,
                       Offset* c_offsets) {
  const Refusal analyzed = call(spgemmAnalyze(handle, plan));
  if (analyzed.status != SPGEMM_STATUS_SUCCESS) return analyzed;
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(c, c_offsets, nullptr, nullptr));
  int64_t nnz = -1;
  return call(spgemmSymbolic(handle, plan, &nnz));
}

// Owns a handle and destroys everything a case created, in a valid order.
struct ScopedHandle {
  spgemmHandle_t handle = nullptr;
  std::vector<spgemmPlan_t> plans;
  std::vector<spgemmMatDescr_t> descriptors;
  ScopedHandle() { SPGEMM_REQUIRE_OK(spgemmCreate(&handle)); }
  ~ScopedHandle() {
    for (spgemmPlan_t p : plans) spgemmPlanDestroy(p);
    for (spgemmMatDescr_t d : descriptors) spgemmDestroyMatrix(d);
    spgemmDestroy(handle);
  }
  spgemmMatDescr_t keep(spgemmMatDescr_t d) {
    descriptors.push_back(d);
    return d;
  }
  Refusal plan(spgemmPlan_t* out, spgemmMatDescr_t a, spgemmMatDescr_t b, spgemmMatDescr_t c) {
    *out = nullptr;
    const Refusal r = call(spgemmPlanCreate(handle, out, SPGEMM_OPERATION_NON_TRANSPOSE,
                                            SPGEMM_OPERATION_NON_TRANSPOSE, a, b, c, CUDA_R_64F));
    if (*out) plans.push_back(*out);
    return r;
  }
};

TEST_CASE("a descriptor whose nnz exceeds its row offsets is refused before its columns are read",
          "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int64_t, int64_t>;
  M a = M::diagonal(64);
  a.col_ind.resize(7);  // 7 entries held, the offsets end at 7
  a.values.resize(7);
  for (int64_t r = 0; r <= 64; ++r) a.offsets[static_cast<size_t>(r)] = r < 7 ? r : 7;
  int64_t* c_offsets = arrays.make(std::vector<int64_t>(65, 0));
  SECTION("nnz = 2^36 declared") {
    spgemmMatDescr_t da = s.keep(a.upload(arrays, int64_t{1} << 36));
    spgemmMatDescr_t dc = s.keep(empty_c<int64_t, int64_t>(64, 64));
    spgemmPlan_t plan;
    SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
    const Refusal r = checks_verdict(s.handle, plan, dc, c_offsets);
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "rowOffsets[rows=64] is 7"));
  }
  SECTION("nnz = 7 declared, 6 entries held") {
    a.col_ind.resize(6);
    a.values.resize(6);
    a.offsets.back() = 6;
    for (int64_t r = 6; r <= 64; ++r) a.offsets[static_cast<size_t>(r)] = 6;
    spgemmMatDescr_t da = s.keep(a.upload(arrays, 7));
    spgemmMatDescr_t dc = s.keep(empty_c<int64_t, int64_t>(64, 64));
    spgemmPlan_t plan;
    SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
    const Refusal r = checks_verdict(s.handle, plan, dc, c_offsets);
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "rowOffsets[rows=64] is 6"));
  }
}

TEST_CASE("C's row offsets in A's row offsets are refused, A untouched", "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int32_t, int32_t>;
  M a = M::diagonal(16, 3);
  int32_t* a_offsets = arrays.make(a.offsets);
  spgemmMatDescr_t da = s.keep(describe<int32_t, int32_t>(
      16, 16, static_cast<int64_t>(a.col_ind.size()), a_offsets, arrays.make(a.col_ind),
      arrays.make(a.values)));
  spgemmMatDescr_t dc = s.keep(describe<int32_t, int32_t>(16, 16, 0, a_offsets, nullptr, nullptr));
  spgemmPlan_t plan;
  SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
  int64_t nnz = -1;
  const Refusal r = call(spgemmSymbolic(s.handle, plan, &nnz));
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "C's rowOffsets overlaps A's rowOffsets"));
  CHECK(Memory::read(a_offsets, a.offsets.size()) == a.offsets);
}

TEST_CASE("C's column indices or values in an operand's arrays are refused", "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int32_t, int32_t>;
  M a = M::diagonal(16, 3);
  int32_t* a_cols = arrays.make(a.col_ind);
  double* a_values = arrays.make(a.values);
  spgemmMatDescr_t da = s.keep(describe<int32_t, int32_t>(
      16, 16, static_cast<int64_t>(a.col_ind.size()), arrays.make(a.offsets), a_cols, a_values));
  spgemmMatDescr_t dc = s.keep(empty_c<int32_t, int32_t>(16, 16));
  spgemmPlan_t plan;
  SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
  int32_t* c_offsets = arrays.make(std::vector<int32_t>(17, 0));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, nullptr, nullptr));
  int64_t nnz = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(s.handle, plan, &nnz));
  REQUIRE(nnz == static_cast<int64_t>(a.col_ind.size()));  // (A * A, A's pattern)
  int32_t* c_cols = arrays.make(std::vector<int32_t>(static_cast<size_t>(nnz), -1));
  double* c_values = arrays.make(std::vector<double>(static_cast<size_t>(nnz), 0.0));
  const double alpha = 1.0;
  SECTION("C's values are A's") {
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, c_cols, a_values));
    const Refusal r = call(spgemmNumeric(s.handle, plan, &alpha));
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "C's values overlaps A's values"));
    CHECK(Memory::read(a_values, a.values.size()) == a.values);
  }
  SECTION("C's column indices are A's") {
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, a_cols, c_values));
    const Refusal r = call(spgemmNumeric(s.handle, plan, &alpha));
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "C's colInd overlaps A's colInd"));
  }
  SECTION("C's column indices are C's row offsets") {
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, reinterpret_cast<int32_t*>(c_offsets),
                                    c_values));
    const Refusal r = call(spgemmNumeric(s.handle, plan, &alpha));
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "C's colInd overlaps C's rowOffsets"));
  }
  SECTION("distinct arrays: computed") {
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, c_cols, c_values));
    SPGEMM_REQUIRE_OK(spgemmNumeric(s.handle, plan, &alpha));
    CHECK(Memory::read(c_cols, static_cast<size_t>(nnz)) == a.col_ind);
  }
}

TEST_CASE("one descriptor as A and as C is refused", "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int32_t, int32_t>;
  M a = M::diagonal(8, 2);
  spgemmMatDescr_t da = s.keep(a.upload(arrays));
  spgemmMatDescr_t db = s.keep(a.upload(arrays));
  spgemmPlan_t plan;
  Refusal r = s.plan(&plan, da, db, da);
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "C must not be A or B"));
  r = s.plan(&plan, da, db, db);
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "C must not be A or B"));
}

TEST_CASE("two plans sharing C's descriptor: the one whose nnz C no longer has is refused",
          "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int32_t, int32_t>;
  M big = M::diagonal(8, 2);    // nnz(big * big) = 10: row 0 has 3 entries
  M small = M::diagonal(8, 0);  // the identity: nnz 8
  spgemmMatDescr_t d_big = s.keep(big.upload(arrays));
  spgemmMatDescr_t d_small = s.keep(small.upload(arrays));
  spgemmMatDescr_t dc = s.keep(empty_c<int32_t, int32_t>(8, 8));
  spgemmPlan_t first, second;
  SPGEMM_REQUIRE_OK(s.plan(&first, d_big, d_big, dc).status);
  SPGEMM_REQUIRE_OK(s.plan(&second, d_small, d_small, dc).status);
  int32_t* c_offsets = arrays.make(std::vector<int32_t>(9, 0));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, nullptr, nullptr));
  int64_t nnz_first = -1, nnz_second = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(s.handle, first, &nnz_first));
  SPGEMM_REQUIRE_OK(spgemmSymbolic(s.handle, second, &nnz_second));
  REQUIRE(nnz_first == 10);
  REQUIRE(nnz_second == 8);
  // C sized for the second plan's product, arrays that end where C ends
  int32_t* c_cols = arrays.make(std::vector<int32_t>(8, -1));
  double* c_values = arrays.make(std::vector<double>(8, 0.0));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, c_cols, c_values));
  const double alpha = 2.0;
  const Refusal r = call(spgemmNumeric(s.handle, first, &alpha));
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "shared with another plan"));
  SPGEMM_REQUIRE_OK(spgemmNumeric(s.handle, second, &alpha));
  CHECK(Memory::read(c_values, 8) == std::vector<double>(8, 2.0));
}

TEST_CASE("a plan is refused by a handle made where its destroyed handle was", "[hostile]") {
  Arrays arrays;
  using M = Csr<int32_t, int32_t>;
  M a = M::diagonal(8, 1);
  spgemmHandle_t first = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&first));
  spgemmMatDescr_t da = a.upload(arrays);
  spgemmMatDescr_t dc = empty_c<int32_t, int32_t>(8, 8);
  spgemmPlan_t plan = nullptr;
  SPGEMM_REQUIRE_OK(spgemmPlanCreate(first, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                              SPGEMM_OPERATION_NON_TRANSPOSE, da, da, dc, CUDA_R_64F));
  SPGEMM_REQUIRE_OK(spgemmAnalyze(first, plan));
  const void* was = first;
  SPGEMM_REQUIRE_OK(spgemmDestroy(first));
  // new handles until one lands at the destroyed one's address (the
  // allocator's free list gives it back at once in practice)
  std::vector<spgemmHandle_t> made;
  spgemmHandle_t reused = nullptr;
  for (int i = 0; i < 64 && !reused; ++i) {
    spgemmHandle_t h = nullptr;
    SPGEMM_REQUIRE_OK(spgemmCreate(&h));
    made.push_back(h);
    if (static_cast<const void*>(h) == was) reused = h;
  }
  INFO("a new handle at the destroyed handle's address: " << (reused ? "yes" : "no"));
  for (spgemmHandle_t h : made) {
    const Refusal r = call(spgemmAnalyze(h, plan));
    CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(mentions(r, "created with a different handle"));
  }
  for (spgemmHandle_t h : made) spgemmDestroy(h);
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(da);
  spgemmDestroyMatrix(dc);
}

TEST_CASE("a product whose nnz(C) cannot fit 32-bit offsets is refused before its symbolic phase",
          "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  using M = Csr<int32_t, int32_t>;
  constexpr int64_t n = 2000000;  // (n x 1)(1 x n): n^2 = 4e12 entries
  M a;
  a.rows = n;
  a.cols = 1;
  for (int64_t r = 0; r <= n; ++r) a.offsets.push_back(static_cast<int32_t>(r));
  a.col_ind.assign(static_cast<size_t>(n), 0);
  a.values.assign(static_cast<size_t>(n), 1.0);
  M b;
  b.rows = 1;
  b.cols = n;
  b.offsets = {0, static_cast<int32_t>(n)};
  for (int64_t c = 0; c < n; ++c) b.col_ind.push_back(static_cast<int32_t>(c));
  b.values.assign(static_cast<size_t>(n), 1.0);
  spgemmMatDescr_t da = s.keep(a.upload(arrays));
  spgemmMatDescr_t db = s.keep(b.upload(arrays));
  spgemmMatDescr_t dc = s.keep(empty_c<int32_t, int32_t>(n, n));
  spgemmPlan_t plan;
  SPGEMM_REQUIRE_OK(s.plan(&plan, da, db, dc).status);
  int32_t* c_offsets = arrays.make(std::vector<int32_t>(static_cast<size_t>(n) + 1, 0));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, nullptr, nullptr));
  const auto start = std::chrono::steady_clock::now();
  int64_t nnz = -1;
  const Refusal r = call(spgemmSymbolic(s.handle, plan, &nnz));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.status == SPGEMM_STATUS_INDEX_OVERFLOW);
  CHECK(mentions(r, "nnz(C) is at least 4000000000000"));
  // counting the entries would take minutes to hours; the bound is one
  // pass over A
  CHECK(seconds < 10.0);
}

TEST_CASE("a column index changed after analyze is refused by the symbolic phase under "
          "structure verification",
          "[hostile]") {
  Arrays arrays;
  ScopedHandle s;
  SPGEMM_REQUIRE_OK(spgemmSetStructureVerification(s.handle, 1));
  using M = Csr<int32_t, int32_t>;
  M a = M::diagonal(64, 5);
  int32_t* a_cols = arrays.make(a.col_ind);
  spgemmMatDescr_t da = s.keep(describe<int32_t, int32_t>(
      64, 64, static_cast<int64_t>(a.col_ind.size()), arrays.make(a.offsets), a_cols,
      arrays.make(a.values)));
  spgemmMatDescr_t dc = s.keep(empty_c<int32_t, int32_t>(64, 64));
  spgemmPlan_t plan;
  SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
  SPGEMM_REQUIRE_OK(spgemmAnalyze(s.handle, plan));
  std::vector<int32_t> changed = a.col_ind;
  changed[3] = 1 << 30;  // far outside B's rows
  Memory::write(a_cols, changed);
  int32_t* c_offsets = arrays.make(std::vector<int32_t>(65, 0));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, nullptr, nullptr));
  int64_t nnz = -1;
  const Refusal r = call(spgemmSymbolic(s.handle, plan, &nnz));
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "changed since spgemmAnalyze"));
}

}  // namespace spgemm_test::hostile
