// SPDX-License-Identifier: Apache-2.0
// Every status the C API can return without a GPU, on host-memory
// descriptors. Each check changes one thing in an otherwise valid call, so
// the status can only come from that one thing.
#include <spgemm/spgemm.h>

#include <catch2/catch.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "generators.hpp"
#include "host_api.hpp"

using namespace spgemm_test;

namespace {

struct MatDeleter {
  void operator()(spgemmMatrix* m) const { spgemmDestroyMatrix(m); }
};
struct PlanDeleter {
  void operator()(spgemmPlanObject* p) const { spgemmPlanDestroy(p); }
};
struct HandleDeleter {
  void operator()(spgemmContext* h) const { spgemmDestroy(h); }
};
using Mat = std::unique_ptr<spgemmMatrix, MatDeleter>;
using Plan = std::unique_ptr<spgemmPlanObject, PlanDeleter>;
using Handle = std::unique_ptr<spgemmContext, HandleDeleter>;

Handle make_handle() {
  spgemmHandle_t h = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&h));
  return Handle(h);
}

struct CsrArgs {
  int64_t rows = 0, cols = 0, nnz = 0;
  void *offsets = nullptr, *cols_ptr = nullptr, *values = nullptr;
  spgemmIndexType_t offset_type = SPGEMM_INDEX_32I, index_type = SPGEMM_INDEX_32I;
  spgemmIndexBase_t base = SPGEMM_INDEX_BASE_ZERO;
  cudaDataType value_type = CUDA_R_64F;
  spgemmMemoryType_t memory = SPGEMM_MEMORY_HOST;
};

Mat make_mat(const CsrArgs& a) {
  spgemmMatDescr_t m = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreateCsr(&m, a.rows, a.cols, a.nnz, a.offsets, a.cols_ptr, a.values,
                                    a.offset_type, a.index_type, a.base, a.value_type));
  SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(m, a.memory));
  return Mat(m);
}

spgemmStatus_t try_create(const CsrArgs& a) {
  spgemmMatDescr_t m = nullptr;
  const spgemmStatus_t s = spgemmCreateCsr(&m, a.rows, a.cols, a.nnz, a.offsets, a.cols_ptr,
                                           a.values, a.offset_type, a.index_type, a.base,
                                           a.value_type);
  if (s == SPGEMM_STATUS_SUCCESS) spgemmDestroyMatrix(m);
  return s;
}

// A (2 x 3) * B (3 x 2) = C (2 x 2):
//   A = [1 0 2; 0 3 0], B = [4 0; 0 5; 0 6]  ->  C = [4 12; 0 15]
// Every array is stored as int32 / int64 / double as the descriptor says, so
// a library that reads arrays while validating reads valid memory.
struct Problem {
  std::vector<int32_t> a_off{0, 2, 3}, a_col{0, 2, 1};
  std::vector<int32_t> b_off{0, 1, 2, 3}, b_col{0, 1, 1};
  std::vector<double> a_val{1, 2, 3}, b_val{4, 5, 6};
  std::vector<int32_t> c_off = std::vector<int32_t>(3, -1), c_col = std::vector<int32_t>(3, -1);
  std::vector<double> c_val = std::vector<double>(3, -1);

  CsrArgs a_args() {
    CsrArgs a;
    a.rows = 2, a.cols = 3, a.nnz = 3;
    a.offsets = a_off.data(), a.cols_ptr = a_col.data(), a.values = a_val.data();
    return a;
  }
  CsrArgs b_args() {
    CsrArgs b;
    b.rows = 3, b.cols = 2, b.nnz = 3;
    b.offsets = b_off.data(), b.cols_ptr = b_col.data(), b.values = b_val.data();
    return b;
  }
  // C before symbolic: no arrays yet except, when asked, its row offsets.
  CsrArgs c_args(bool with_offsets = true) {
    CsrArgs c;
    c.rows = 2, c.cols = 2;
    c.offsets = with_offsets ? c_off.data() : nullptr;
    return c;
  }
};

spgemmStatus_t try_plan(spgemmHandle_t h, const Mat& a, const Mat& b, const Mat& c,
                        cudaDataType compute = CUDA_R_64F,
                        spgemmOperation_t op_a = SPGEMM_OPERATION_NON_TRANSPOSE,
                        spgemmOperation_t op_b = SPGEMM_OPERATION_NON_TRANSPOSE) {
  spgemmPlan_t p = nullptr;
  const spgemmStatus_t s = spgemmPlanCreate(h, &p, op_a, op_b, a.get(), b.get(), c.get(), compute);
  if (s == SPGEMM_STATUS_SUCCESS) spgemmPlanDestroy(p);
  return s;
}

Plan make_plan(spgemmHandle_t h, const Mat& a, const Mat& b, const Mat& c) {
  spgemmPlan_t p = nullptr;
  SPGEMM_REQUIRE_OK(spgemmPlanCreate(h, &p, SPGEMM_OPERATION_NON_TRANSPOSE,
                                     SPGEMM_OPERATION_NON_TRANSPOSE, a.get(), b.get(), c.get(),
                                     CUDA_R_64F));
  return Plan(p);
}

bool no_usable_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) != cudaSuccess || count == 0;
}

}  // namespace

TEST_CASE("version and status strings", "[api]") {
  CHECK(spgemmGetVersion(nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  int version = -1;
  REQUIRE(spgemmGetVersion(&version) == SPGEMM_STATUS_SUCCESS);
  CHECK(version == SPGEMM_VERSION);

  std::set<std::string> names, strings;
  for (int s = 0; s <= 9; ++s) {
    INFO("status " << s);
    const char* name = spgemmGetErrorName(static_cast<spgemmStatus_t>(s));
    const char* text = spgemmGetErrorString(static_cast<spgemmStatus_t>(s));
    REQUIRE(name != nullptr);
    REQUIRE(text != nullptr);
    CHECK(std::strlen(name) > 0);
    CHECK(std::strlen(text) > 0);
    names.insert(name);
    strings.insert(text);
  }
  CHECK(names.size() == 10);
  CHECK(strings.size() == 10);

  for (int unknown : {10, 12345, -1}) {
    INFO("status " << unknown);
    const char* name = spgemmGetErrorName(static_cast<spgemmStatus_t>(unknown));
    const char* text = spgemmGetErrorString(static_cast<spgemmStatus_t>(unknown));
    REQUIRE(name != nullptr);
    REQUIRE(text != nullptr);
    CHECK(std::strlen(name) > 0);
    CHECK(std::strlen(text) > 0);
  }
}

TEST_CASE("handles: creation without a GPU, null arguments", "[api]") {
  CHECK(spgemmCreate(nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  spgemmHandle_t h = nullptr;
  REQUIRE(spgemmCreate(&h) == SPGEMM_STATUS_SUCCESS);
  CHECK(h != nullptr);

  cudaStream_t stream = nullptr;
  size_t current = 0, peak = 0;
  CHECK(spgemmSetStream(nullptr, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetStream(nullptr, &stream) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetStream(h, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmGetMemoryUsage(nullptr, &current, &peak) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmResetPeakMemoryUsage(nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);

  CHECK(spgemmDestroy(h) == SPGEMM_STATUS_SUCCESS);
  CHECK(spgemmDestroy(nullptr) == SPGEMM_STATUS_SUCCESS);
  CHECK(spgemmDestroyMatrix(nullptr) == SPGEMM_STATUS_SUCCESS);
  CHECK(spgemmPlanDestroy(nullptr) == SPGEMM_STATUS_SUCCESS);
}

TEST_CASE("the last error message belongs to the calling thread", "[api]") {
  REQUIRE(spgemmCreate(nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  const char* here = spgemmGetLastErrorMessage();
  REQUIRE(here != nullptr);
  CHECK(std::strlen(here) > 0);

  std::string before, after;
  std::thread other([&] {
    const char* m = spgemmGetLastErrorMessage();
    before = m ? m : "<null>";
    spgemmGetVersion(nullptr);
    m = spgemmGetLastErrorMessage();
    after = m ? m : "<null>";
  });
  other.join();
  CHECK(before == "");  // this thread's failure is not visible there
  CHECK(after != "");
  CHECK(after != "<null>");
  CHECK(std::strlen(spgemmGetLastErrorMessage()) > 0);
}

TEST_CASE("spgemmCreateCsr validates its arguments", "[api][descriptor]") {
  std::vector<int32_t> off{0, 1}, col{0};
  std::vector<double> val{1.0};
  CsrArgs ok;
  ok.rows = 1, ok.cols = 1, ok.nnz = 1;
  ok.offsets = off.data(), ok.cols_ptr = col.data(), ok.values = val.data();
  REQUIRE(try_create(ok) == SPGEMM_STATUS_SUCCESS);

  CHECK(spgemmCreateCsr(nullptr, 1, 1, 1, off.data(), col.data(), val.data(), SPGEMM_INDEX_32I,
                        SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F) ==
        SPGEMM_STATUS_INVALID_VALUE);

  SECTION("negative sizes") {
    CsrArgs a = ok;
    a.rows = -1;
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.cols = -1;
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.nnz = -1;
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("unknown enum values") {
    CsrArgs a = ok;
    a.offset_type = static_cast<spgemmIndexType_t>(7);
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.index_type = static_cast<spgemmIndexType_t>(7);
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.index_type = static_cast<spgemmIndexType_t>(0);
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.base = static_cast<spgemmIndexBase_t>(5);
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
    a = ok, a.value_type = static_cast<cudaDataType>(999);
    CHECK(try_create(a) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("null arrays are allowed at creation") {
    CsrArgs a;
    a.rows = 4, a.cols = 5, a.nnz = 10;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
  }
  SECTION("valid but unimplemented types are accepted here") {
    CsrArgs a = ok;
    a.offset_type = SPGEMM_INDEX_64I;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
    a = ok, a.index_type = SPGEMM_INDEX_64I;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
    a = ok, a.base = SPGEMM_INDEX_BASE_ONE;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
    a = ok, a.value_type = CUDA_C_64F;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
    a = ok, a.value_type = CUDA_R_16F;
    CHECK(try_create(a) == SPGEMM_STATUS_SUCCESS);
  }
}

TEST_CASE("descriptors report what was set", "[api][descriptor]") {
  int32_t dummy[6] = {};
  spgemmMatDescr_t m = nullptr;
  REQUIRE(spgemmCreateCsr(&m, 4, 5, 6, &dummy[0], &dummy[1], &dummy[2], SPGEMM_INDEX_64I,
                          SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ONE, CUDA_R_32F) ==
          SPGEMM_STATUS_SUCCESS);
  const Mat owner(m);

  int64_t rows = -1, cols = -1, nnz = -1;
  void *off = nullptr, *col = nullptr, *val = nullptr;
  spgemmIndexType_t off_type{}, idx_type{};
  spgemmIndexBase_t base{};
  cudaDataType value_type{};
  REQUIRE(spgemmCsrGet(m, &rows, &cols, &nnz, &off, &col, &val, &off_type, &idx_type, &base,
                       &value_type) == SPGEMM_STATUS_SUCCESS);
  CHECK(rows == 4);
  CHECK(cols == 5);
  CHECK(nnz == 6);
  CHECK(off == &dummy[0]);
  CHECK(col == &dummy[1]);
  CHECK(val == &dummy[2]);
  CHECK(off_type == SPGEMM_INDEX_64I);
  CHECK(idx_type == SPGEMM_INDEX_32I);
  CHECK(base == SPGEMM_INDEX_BASE_ONE);
  CHECK(value_type == CUDA_R_32F);

  // Any output may be skipped.
  CHECK(spgemmCsrGet(m, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                     nullptr, nullptr) == SPGEMM_STATUS_SUCCESS);
  cols = -1;
  CHECK(spgemmCsrGet(m, nullptr, &cols, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                     nullptr, nullptr) == SPGEMM_STATUS_SUCCESS);
  CHECK(cols == 5);

  REQUIRE(spgemmCsrSetPointers(m, &dummy[3], &dummy[4], &dummy[5]) == SPGEMM_STATUS_SUCCESS);
  REQUIRE(spgemmCsrGet(m, nullptr, nullptr, nullptr, &off, &col, &val, nullptr, nullptr, nullptr,
                       nullptr) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == &dummy[3]);
  CHECK(col == &dummy[4]);
  CHECK(val == &dummy[5]);

  spgemmMemoryType_t memory = SPGEMM_MEMORY_HOST;
  REQUIRE(spgemmCsrGetMemoryType(m, &memory) == SPGEMM_STATUS_SUCCESS);
  CHECK(memory == SPGEMM_MEMORY_DEVICE);  // the default
  REQUIRE(spgemmCsrSetMemoryType(m, SPGEMM_MEMORY_HOST) == SPGEMM_STATUS_SUCCESS);
  REQUIRE(spgemmCsrGetMemoryType(m, &memory) == SPGEMM_STATUS_SUCCESS);
  CHECK(memory == SPGEMM_MEMORY_HOST);
  CHECK(spgemmCsrSetMemoryType(m, static_cast<spgemmMemoryType_t>(5)) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmCsrGetMemoryType(m, nullptr) == SPGEMM_STATUS_INVALID_VALUE);

  CHECK(spgemmCsrGet(nullptr, &rows, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                     nullptr, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmCsrSetPointers(nullptr, &dummy[0], &dummy[1], &dummy[2]) ==
        SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmCsrSetMemoryType(nullptr, SPGEMM_MEMORY_HOST) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmCsrGetMemoryType(nullptr, &memory) == SPGEMM_STATUS_NOT_INITIALIZED);
}

TEST_CASE("replicas: set, replaced, removed, at most SPGEMM_MAX_DEVICES", "[api][descriptor]") {
  int32_t dummy[6] = {};
  spgemmMatDescr_t m = nullptr;
  REQUIRE(spgemmCreateCsr(&m, 4, 5, 6, &dummy[0], &dummy[1], &dummy[2], SPGEMM_INDEX_32I,
                          SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F) ==
          SPGEMM_STATUS_SUCCESS);
  const Mat owner(m);
  void *off = &dummy[0], *col = &dummy[0], *val = &dummy[0];
  REQUIRE(spgemmCsrGetReplica(m, 3, &off, &col, &val) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == nullptr);  // none
  CHECK(col == nullptr);
  CHECK(val == nullptr);
  REQUIRE(spgemmCsrSetReplica(m, 3, &dummy[3], &dummy[4], &dummy[5]) == SPGEMM_STATUS_SUCCESS);
  REQUIRE(spgemmCsrGetReplica(m, 3, &off, &col, &val) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == &dummy[3]);
  CHECK(col == &dummy[4]);
  CHECK(val == &dummy[5]);
  REQUIRE(spgemmCsrSetReplica(m, 3, &dummy[1], &dummy[2], &dummy[3]) == SPGEMM_STATUS_SUCCESS);
  REQUIRE(spgemmCsrGetReplica(m, 3, &off, &col, &val) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == &dummy[1]);  // replaced
  REQUIRE(spgemmCsrGetReplica(m, 2, &off, &col, &val) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == nullptr);  // another device's: none
  REQUIRE(spgemmCsrSetReplica(m, 3, nullptr, nullptr, nullptr) == SPGEMM_STATUS_SUCCESS);
  REQUIRE(spgemmCsrGetReplica(m, 3, &off, &col, &val) == SPGEMM_STATUS_SUCCESS);
  CHECK(off == nullptr);  // removed

  CHECK(spgemmCsrSetReplica(m, -1, &dummy[3], &dummy[4], &dummy[5]) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmCsrSetReplica(m, 1, &dummy[3], nullptr, &dummy[5]) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmCsrSetReplica(m, 1, &dummy[3], &dummy[4], nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  for (int d = 0; d < SPGEMM_MAX_DEVICES; ++d)
    REQUIRE(spgemmCsrSetReplica(m, d, &dummy[3], &dummy[4], &dummy[5]) == SPGEMM_STATUS_SUCCESS);
  CHECK(spgemmCsrSetReplica(m, SPGEMM_MAX_DEVICES, &dummy[3], &dummy[4], &dummy[5]) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmCsrSetReplica(m, 0, &dummy[0], &dummy[1], &dummy[2]) == SPGEMM_STATUS_SUCCESS);
  CHECK(spgemmCsrGetReplica(m, 0, nullptr, &col, &val) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmCsrSetReplica(nullptr, 0, &dummy[0], &dummy[1], &dummy[2]) ==
        SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmCsrGetReplica(nullptr, 0, &off, &col, &val) == SPGEMM_STATUS_NOT_INITIALIZED);
}

TEST_CASE("spgemmPlanCreate validates the problem", "[api][plan]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args()), C = make_mat(p.c_args());
  REQUIRE(try_plan(h, A, B, C) == SPGEMM_STATUS_SUCCESS);

  SECTION("null arguments") {
    spgemmPlan_t plan = nullptr;
    const auto non = SPGEMM_OPERATION_NON_TRANSPOSE;
    CHECK(spgemmPlanCreate(nullptr, &plan, non, non, A.get(), B.get(), C.get(), CUDA_R_64F) ==
          SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanCreate(h, nullptr, non, non, A.get(), B.get(), C.get(), CUDA_R_64F) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(spgemmPlanCreate(h, &plan, non, non, nullptr, B.get(), C.get(), CUDA_R_64F) ==
          SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanCreate(h, &plan, non, non, A.get(), nullptr, C.get(), CUDA_R_64F) ==
          SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanCreate(h, &plan, non, non, A.get(), B.get(), nullptr, CUDA_R_64F) ==
          SPGEMM_STATUS_NOT_INITIALIZED);
  }
  SECTION("operations") {
    // Square, so that the dimensions fit with and without transposes (the
    // rectangular cases run in test_host_layouts).
    std::vector<int32_t> off{0, 2, 3}, col{0, 1, 1}, c_off(3, 0);
    std::vector<double> val{1, 2, 3};
    CsrArgs sq;
    sq.rows = 2, sq.cols = 2, sq.nnz = 3, sq.offsets = off.data(), sq.cols_ptr = col.data(),
    sq.values = val.data();
    CsrArgs c = sq;
    c.nnz = 0, c.offsets = c_off.data(), c.cols_ptr = nullptr, c.values = nullptr;
    const Mat S1 = make_mat(sq), S2 = make_mat(sq), SC = make_mat(c);
    REQUIRE(try_plan(h, S1, S2, SC) == SPGEMM_STATUS_SUCCESS);
    const auto non = SPGEMM_OPERATION_NON_TRANSPOSE;
    for (const auto op : {SPGEMM_OPERATION_TRANSPOSE, SPGEMM_OPERATION_CONJUGATE_TRANSPOSE}) {
      INFO("operation " << op);
      CHECK(try_plan(h, S1, S2, SC, CUDA_R_64F, op, non) == SPGEMM_STATUS_SUCCESS);
      CHECK(try_plan(h, S1, S2, SC, CUDA_R_64F, non, op) == SPGEMM_STATUS_SUCCESS);
    }
    const auto unknown = static_cast<spgemmOperation_t>(9);
    CHECK(try_plan(h, S1, S2, SC, CUDA_R_64F, unknown, non) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(try_plan(h, S1, S2, SC, CUDA_R_64F, non, unknown) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("value and compute types must agree") {
    CHECK(try_plan(h, A, B, C, CUDA_R_32F) == SPGEMM_STATUS_NOT_SUPPORTED);
    // float descriptors over arrays big enough for either type.
    CsrArgs a32 = p.a_args(), b32 = p.b_args(), c32 = p.c_args();
    a32.value_type = b32.value_type = c32.value_type = CUDA_R_32F;
    const Mat A32 = make_mat(a32), B32 = make_mat(b32), C32 = make_mat(c32);
    REQUIRE(try_plan(h, A32, B32, C32, CUDA_R_32F) == SPGEMM_STATUS_SUCCESS);
    CHECK(try_plan(h, A32, B, C) == SPGEMM_STATUS_NOT_SUPPORTED);
    CHECK(try_plan(h, A, B32, C) == SPGEMM_STATUS_NOT_SUPPORTED);
    CHECK(try_plan(h, A, B, C32) == SPGEMM_STATUS_NOT_SUPPORTED);
    CHECK(try_plan(h, A32, B32, C32, CUDA_R_64F) == SPGEMM_STATUS_NOT_SUPPORTED);
  }
  SECTION("dimensions must agree") {
    std::vector<int32_t> b4_off{0, 1, 2, 3, 3};  // B with 4 rows (A has 3 columns)
    CsrArgs b4 = p.b_args();
    b4.rows = 4, b4.offsets = b4_off.data();
    CHECK(try_plan(h, A, make_mat(b4), C) == SPGEMM_STATUS_INVALID_VALUE);
    std::vector<int32_t> c_off3(4, 0);
    CsrArgs c3 = p.c_args();
    c3.rows = 3, c3.offsets = c_off3.data();
    CHECK(try_plan(h, A, B, make_mat(c3)) == SPGEMM_STATUS_INVALID_VALUE);
    c3 = p.c_args(), c3.cols = 3;
    CHECK(try_plan(h, A, B, make_mat(c3)) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("memory types must agree") {
    CsrArgs dev = p.b_args();
    dev.memory = SPGEMM_MEMORY_DEVICE;
    CHECK(try_plan(h, A, make_mat(dev), C) == SPGEMM_STATUS_INVALID_VALUE);
    dev = p.c_args(), dev.memory = SPGEMM_MEMORY_DEVICE;
    CHECK(try_plan(h, A, B, make_mat(dev)) == SPGEMM_STATUS_INVALID_VALUE);
    dev = p.a_args(), dev.memory = SPGEMM_MEMORY_DEVICE;
    CHECK(try_plan(h, make_mat(dev), B, C) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("A and B need their arrays") {
    CsrArgs a = p.a_args();
    a.offsets = nullptr;
    CHECK(try_plan(h, make_mat(a), B, C) == SPGEMM_STATUS_INVALID_VALUE);
    a = p.a_args(), a.cols_ptr = nullptr;
    CHECK(try_plan(h, make_mat(a), B, C) == SPGEMM_STATUS_INVALID_VALUE);
    a = p.a_args(), a.values = nullptr;
    CHECK(try_plan(h, make_mat(a), B, C) == SPGEMM_STATUS_INVALID_VALUE);
    CsrArgs b = p.b_args();
    b.offsets = nullptr;
    CHECK(try_plan(h, A, make_mat(b), C) == SPGEMM_STATUS_INVALID_VALUE);
    b = p.b_args(), b.cols_ptr = nullptr;
    CHECK(try_plan(h, A, make_mat(b), C) == SPGEMM_STATUS_INVALID_VALUE);
    b = p.b_args(), b.values = nullptr;
    CHECK(try_plan(h, A, make_mat(b), C) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("an A without rows needs no arrays") {
    CsrArgs a0;
    a0.rows = 0, a0.cols = 3;
    CsrArgs c0 = p.c_args();
    c0.rows = 0;
    CHECK(try_plan(h, make_mat(a0), B, make_mat(c0)) == SPGEMM_STATUS_SUCCESS);
  }
}

TEST_CASE("spgemmPlanCreate: index layouts", "[api][plan]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();

  SECTION("64-bit offsets with 64- or 32-bit indices; not 32-bit offsets with 64-bit indices") {
    // The same problem with int64 arrays, so a library that looks at them
    // reads what the descriptor promises.
    std::vector<int64_t> a_off{0, 2, 3}, a_col{0, 2, 1}, b_off{0, 1, 2, 3}, b_col{0, 1, 1},
        c_off(3, 0);
    std::vector<double> a_val{1, 2, 3}, b_val{4, 5, 6};
    for (const auto& [offsets, indices, expected] :
         {std::tuple{SPGEMM_INDEX_64I, SPGEMM_INDEX_64I, SPGEMM_STATUS_SUCCESS},
          std::tuple{SPGEMM_INDEX_64I, SPGEMM_INDEX_32I, SPGEMM_STATUS_SUCCESS},
          std::tuple{SPGEMM_INDEX_32I, SPGEMM_INDEX_64I, SPGEMM_STATUS_NOT_SUPPORTED}}) {
      CsrArgs a, b, c;
      a.rows = 2, a.cols = 3, a.nnz = 3, a.offsets = a_off.data(), a.cols_ptr = a_col.data(),
      a.values = a_val.data();
      b.rows = 3, b.cols = 2, b.nnz = 3, b.offsets = b_off.data(), b.cols_ptr = b_col.data(),
      b.values = b_val.data();
      c.rows = 2, c.cols = 2, c.offsets = c_off.data();
      a.offset_type = b.offset_type = c.offset_type = offsets;
      a.index_type = b.index_type = c.index_type = indices;
      INFO("offsets " << offsets << ", indices " << indices);
      CHECK(try_plan(h, make_mat(a), make_mat(b), make_mat(c)) == expected);
    }
  }
  SECTION("one-based indices, and layouts that differ between A, B and C") {
    std::vector<int32_t> a_off{1, 3, 4}, a_col{1, 3, 2}, b_off{1, 2, 3, 4}, b_col{1, 2, 2}, c_off(3, 0);
    std::vector<double> a_val{1, 2, 3}, b_val{4, 5, 6};
    CsrArgs a, b, c;
    a.rows = 2, a.cols = 3, a.nnz = 3, a.offsets = a_off.data(), a.cols_ptr = a_col.data(),
    a.values = a_val.data();
    b.rows = 3, b.cols = 2, b.nnz = 3, b.offsets = b_off.data(), b.cols_ptr = b_col.data(),
    b.values = b_val.data();
    c.rows = 2, c.cols = 2, c.offsets = c_off.data();
    a.base = b.base = c.base = SPGEMM_INDEX_BASE_ONE;
    CHECK(try_plan(h, make_mat(a), make_mat(b), make_mat(c)) == SPGEMM_STATUS_SUCCESS);
    c.base = SPGEMM_INDEX_BASE_ZERO;
    CHECK(try_plan(h, make_mat(a), make_mat(b), make_mat(c)) == SPGEMM_STATUS_NOT_SUPPORTED);
    c.base = SPGEMM_INDEX_BASE_ONE;
    b.offset_type = SPGEMM_INDEX_64I;
    CHECK(try_plan(h, make_mat(a), make_mat(b), make_mat(c)) == SPGEMM_STATUS_NOT_SUPPORTED);
  }
}

TEST_CASE("spgemmPlanCreate: valid but unimplemented value types", "[api][plan]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();
  SECTION("half values (complex ones are supported)") {
    std::vector<int32_t> a_off{0, 2, 3}, a_col{0, 2, 1}, b_off{0, 1, 2, 3}, b_col{0, 1, 1}, c_off(3, 0);
    std::vector<double> a_val(6, 1.0), b_val(6, 1.0);  // room for 3 complex doubles
    for (const cudaDataType type : {CUDA_R_16F, CUDA_C_16F, CUDA_R_16BF}) {
      CsrArgs a, b, c;
      a.rows = 2, a.cols = 3, a.nnz = 3, a.offsets = a_off.data(), a.cols_ptr = a_col.data(),
      a.values = a_val.data();
      b.rows = 3, b.cols = 2, b.nnz = 3, b.offsets = b_off.data(), b.cols_ptr = b_col.data(),
      b.values = b_val.data();
      c.rows = 2, c.cols = 2, c.offsets = c_off.data();
      a.value_type = b.value_type = c.value_type = type;
      INFO("cudaDataType " << type);
      CHECK(try_plan(h, make_mat(a), make_mat(b), make_mat(c), type) == SPGEMM_STATUS_NOT_SUPPORTED);
    }
  }
}

TEST_CASE("device descriptors without a GPU", "[api][plan]") {
  if (!no_usable_gpu()) {
    WARN("a GPU is present: the NO_DEVICE path is not reachable here");
    return;
  }
  const Handle handle = make_handle();
  Problem p;
  CsrArgs a = p.a_args(), b = p.b_args(), c = p.c_args();
  a.memory = b.memory = c.memory = SPGEMM_MEMORY_DEVICE;
  CHECK(try_plan(handle.get(), make_mat(a), make_mat(b), make_mat(c)) == SPGEMM_STATUS_NO_DEVICE);
}

TEST_CASE("phases: arguments and order", "[api][phases]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args());
  const double alpha = 1.0;
  int64_t nnz = -1;

  SECTION("null handle, plan or output") {
    const Mat C = make_mat(p.c_args());
    const Plan plan = make_plan(h, A, B, C);
    CHECK(spgemmAnalyze(nullptr, plan.get()) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmAnalyze(h, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmSymbolic(nullptr, plan.get(), &nnz) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmSymbolic(h, nullptr, &nnz) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmSymbolic(h, plan.get(), nullptr) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(spgemmNumeric(nullptr, plan.get(), &alpha) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmNumeric(h, nullptr, &alpha) == SPGEMM_STATUS_NOT_INITIALIZED);
  }
  SECTION("symbolic needs C's row offsets") {
    const Mat C = make_mat(p.c_args(/*with_offsets=*/false));
    const Plan plan = make_plan(h, A, B, C);
    CHECK(spgemmSymbolic(h, plan.get(), &nnz) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("symbolic needs C's row offsets even for a C without rows") {
    CsrArgs a0, b0, c0;  // 0 x 0 all round, no arrays at all
    const Mat A0 = make_mat(a0), B0 = make_mat(b0), C0 = make_mat(c0);
    const Plan plan = make_plan(h, A0, B0, C0);
    CHECK(spgemmSymbolic(h, plan.get(), &nnz) == SPGEMM_STATUS_INVALID_VALUE);
  }
  SECTION("operands without rows need no arrays: the product runs, C has no entries") {
    const int checks = GENERATE(1, 0);  // with and without input checks
    SPGEMM_REQUIRE_OK(spgemmSetInputChecks(h, checks));
    CsrArgs a0, b0, c0;  // A 0 x 0 and B 0 x 3 without arrays; C 0 x 3
    b0.cols = c0.cols = 3;
    int32_t c_offsets[1] = {-1};
    c0.offsets = c_offsets;
    const Mat A0 = make_mat(a0), B0 = make_mat(b0), C0 = make_mat(c0);
    const Plan plan = make_plan(h, A0, B0, C0);
    SPGEMM_REQUIRE_OK(spgemmAnalyze(h, plan.get()));
    SPGEMM_REQUIRE_OK(spgemmSymbolic(h, plan.get(), &nnz));
    CHECK(nnz == 0);
    CHECK(c_offsets[0] == 0);
    SPGEMM_REQUIRE_OK(spgemmNumeric(h, plan.get(), &alpha));
  }
  SECTION("numeric before symbolic") {
    const Mat C = make_mat(p.c_args());
    REQUIRE(spgemmCsrSetPointers(C.get(), p.c_off.data(), p.c_col.data(), p.c_val.data()) ==
            SPGEMM_STATUS_SUCCESS);
    const Plan plan = make_plan(h, A, B, C);
    CHECK(spgemmNumeric(h, plan.get(), &alpha) == SPGEMM_STATUS_INVALID_STATE);
    REQUIRE(spgemmAnalyze(h, plan.get()) == SPGEMM_STATUS_SUCCESS);
    CHECK(spgemmNumeric(h, plan.get(), &alpha) == SPGEMM_STATUS_INVALID_STATE);
  }
  SECTION("symbolic without analyze, then numeric") {
    const Mat C = make_mat(p.c_args());
    const Plan plan = make_plan(h, A, B, C);
    SPGEMM_REQUIRE_OK(spgemmSymbolic(h, plan.get(), &nnz));
    REQUIRE(nnz == 3);
    int64_t described = -1;
    REQUIRE(spgemmCsrGet(C.get(), nullptr, nullptr, &described, nullptr, nullptr, nullptr, nullptr,
                         nullptr, nullptr, nullptr) == SPGEMM_STATUS_SUCCESS);
    CHECK(described == nnz);
    CHECK(p.c_off == std::vector<int32_t>{0, 2, 3});

    // C's arrays still unset: nnz(C) > 0 needs both.
    CHECK(spgemmNumeric(h, plan.get(), &alpha) == SPGEMM_STATUS_INVALID_VALUE);
    REQUIRE(spgemmCsrSetPointers(C.get(), p.c_off.data(), nullptr, p.c_val.data()) ==
            SPGEMM_STATUS_SUCCESS);
    CHECK(spgemmNumeric(h, plan.get(), &alpha) == SPGEMM_STATUS_INVALID_VALUE);
    REQUIRE(spgemmCsrSetPointers(C.get(), p.c_off.data(), p.c_col.data(), nullptr) ==
            SPGEMM_STATUS_SUCCESS);
    CHECK(spgemmNumeric(h, plan.get(), &alpha) == SPGEMM_STATUS_INVALID_VALUE);

    REQUIRE(spgemmCsrSetPointers(C.get(), p.c_off.data(), p.c_col.data(), p.c_val.data()) ==
            SPGEMM_STATUS_SUCCESS);
    CHECK(spgemmNumeric(h, plan.get(), nullptr) == SPGEMM_STATUS_INVALID_VALUE);
    SPGEMM_REQUIRE_OK(spgemmNumeric(h, plan.get(), &alpha));
    CHECK(p.c_col == std::vector<int32_t>{0, 1, 1});
    CHECK(p.c_val == std::vector<double>{4, 12, 15});
  }
}

// Regression: a plan kept a reference to its handle's context, so destroying
// the handle first and then the plan was a use-after-free.
TEST_CASE("a plan outlives the handle it was created with", "[api][phases]") {
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args()), C = make_mat(p.c_args());
  Handle handle = make_handle();
  Plan plan = make_plan(handle.get(), A, B, C);
  int64_t nnz = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(handle.get(), plan.get(), &nnz));
  CHECK(nnz == 3);
  handle.reset();
  CHECK(spgemmPlanDestroy(plan.release()) == SPGEMM_STATUS_SUCCESS);
}

TEST_CASE("the memory type may not change behind a plan", "[api][phases]") {
  const Handle handle = make_handle();
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args()), C = make_mat(p.c_args());
  const Plan plan = make_plan(handle.get(), A, B, C);
  REQUIRE(spgemmCsrSetMemoryType(A.get(), SPGEMM_MEMORY_DEVICE) == SPGEMM_STATUS_SUCCESS);
  int64_t nnz = -1;
  CHECK(spgemmSymbolic(handle.get(), plan.get(), &nnz) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("memory type") != std::string::npos);
}

TEST_CASE("workspace size and buffer of a host-memory plan", "[api][workspace]") {
  const Handle handle = make_handle(), other = make_handle();
  spgemmHandle_t h = handle.get();
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args()), C = make_mat(p.c_args());
  const Plan plan = make_plan(h, A, B, C);
  size_t bytes = 1;

  SECTION("no device workspace: the size is 0, also with transposes and an addend") {
    SPGEMM_REQUIRE_OK(spgemmPlanGetWorkspaceSize(h, plan.get(), &bytes));
    CHECK(bytes == 0);
    spgemmPlan_t transposed = nullptr;  // A * A^T, 2 x 2 like C
    SPGEMM_REQUIRE_OK(spgemmPlanCreate(h, &transposed, SPGEMM_OPERATION_NON_TRANSPOSE,
                                       SPGEMM_OPERATION_TRANSPOSE, A.get(), A.get(), C.get(),
                                       CUDA_R_64F));
    const Plan transposed_owner(transposed);
    bytes = 1;
    SPGEMM_REQUIRE_OK(spgemmPlanGetWorkspaceSize(h, transposed, &bytes));
    CHECK(bytes == 0);
    const Mat D = make_mat(p.c_args());  // C's shape, no entries
    spgemmPlan_t with_d = nullptr;
    SPGEMM_REQUIRE_OK(spgemmPlanCreateWithAddend(h, &with_d, SPGEMM_OPERATION_NON_TRANSPOSE,
                                                 SPGEMM_OPERATION_NON_TRANSPOSE, A.get(), B.get(),
                                                 D.get(), C.get(), CUDA_R_64F));
    const Plan with_d_owner(with_d);
    bytes = 1;
    SPGEMM_REQUIRE_OK(spgemmPlanGetWorkspaceSize(h, with_d, &bytes));
    CHECK(bytes == 0);
  }
  SECTION("null and foreign arguments") {
    alignas(256) static unsigned char buffer[512];
    CHECK(spgemmPlanGetWorkspaceSize(nullptr, plan.get(), &bytes) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanGetWorkspaceSize(h, nullptr, &bytes) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanGetWorkspaceSize(h, plan.get(), nullptr) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(spgemmPlanGetWorkspaceSize(other.get(), plan.get(), &bytes) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(bytes == 1);  // a failed call leaves its output alone
    CHECK(spgemmPlanSetWorkspace(nullptr, plan.get(), buffer, 512) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanSetWorkspace(h, nullptr, buffer, 512) == SPGEMM_STATUS_NOT_INITIALIZED);
    CHECK(spgemmPlanSetWorkspace(other.get(), plan.get(), buffer, 512) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(spgemmPlanSetWorkspace(h, plan.get(), nullptr, 512) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(std::string(spgemmGetLastErrorMessage()).find("NULL") != std::string::npos);
    CHECK(spgemmPlanSetWorkspace(h, plan.get(), buffer + 8, 256) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(std::string(spgemmGetLastErrorMessage()).find("aligned to 256 bytes") !=
          std::string::npos);
  }
  SECTION("accepted before the analysis, unused, refused after it") {
    alignas(256) static unsigned char buffer[512];
    SPGEMM_REQUIRE_OK(spgemmPlanSetWorkspace(h, plan.get(), buffer, sizeof buffer));
    SPGEMM_REQUIRE_OK(spgemmPlanSetWorkspace(h, plan.get(), nullptr, 0));  // back to the pool
    SPGEMM_REQUIRE_OK(spgemmPlanSetWorkspace(h, plan.get(), buffer, 0));   // 0 bytes suffice
    SPGEMM_REQUIRE_OK(spgemmAnalyze(h, plan.get()));
    CHECK(spgemmPlanSetWorkspace(h, plan.get(), buffer, sizeof buffer) ==
          SPGEMM_STATUS_INVALID_STATE);
    CHECK(spgemmPlanSetWorkspace(h, plan.get(), nullptr, 0) == SPGEMM_STATUS_INVALID_STATE);
    int64_t nnz = -1;
    SPGEMM_REQUIRE_OK(spgemmSymbolic(h, plan.get(), &nnz));
    REQUIRE(nnz == 3);
    REQUIRE(spgemmCsrSetPointers(C.get(), p.c_off.data(), p.c_col.data(), p.c_val.data()) ==
            SPGEMM_STATUS_SUCCESS);
    const double alpha = 1.0;
    SPGEMM_REQUIRE_OK(spgemmNumeric(h, plan.get(), &alpha));
    CHECK(p.c_val == std::vector<double>{4, 12, 15});
    SPGEMM_REQUIRE_OK(spgemmPlanGetWorkspaceSize(h, plan.get(), &bytes));
    CHECK(bytes == 0);
  }
  SECTION("spgemmSymbolic analyzes a plan never analyzed: too late after it too") {
    int64_t nnz = -1;
    SPGEMM_REQUIRE_OK(spgemmSymbolic(h, plan.get(), &nnz));
    CHECK(spgemmPlanSetWorkspace(h, plan.get(), nullptr, 0) == SPGEMM_STATUS_INVALID_STATE);
  }
}

TEST_CASE("addend D: arguments", "[api][addend]") {
  spgemm_test::HostCsr<double> a = spgemm_test::uniform_random(6, 5, 2, 1);
  spgemm_test::HostCsr<double> b = spgemm_test::uniform_random(5, 4, 2, 2);
  spgemm_test::HostCsr<double> d = spgemm_test::uniform_random(6, 4, 2, 3);
  spgemm_test::HostCsr<double> wrong = spgemm_test::uniform_random(4, 6, 2, 4);
  spgemm_test::HostCsr<double> c;
  c.rows = 6;
  c.cols = 4;
  c.row_offsets.assign(7, 0);
  spgemmHandle_t h = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&h));
  spgemmMatDescr_t A = spgemm_test::host_descriptor(a), B = spgemm_test::host_descriptor(b),
                   D = spgemm_test::host_descriptor(d), W = spgemm_test::host_descriptor(wrong),
                   C = spgemm_test::host_descriptor(c);
  const auto N = SPGEMM_OPERATION_NON_TRANSPOSE;
  spgemmPlan_t plan = nullptr;
  CHECK(spgemmPlanCreateWithAddend(h, &plan, N, N, A, B, nullptr, C, CUDA_R_64F) ==
        SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmPlanCreateWithAddend(h, &plan, N, N, A, B, C, C, CUDA_R_64F) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanCreateWithAddend(h, &plan, N, N, A, B, W, C, CUDA_R_64F) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(plan == nullptr);
  SPGEMM_REQUIRE_OK(spgemmPlanCreateWithAddend(h, &plan, N, N, A, B, D, C, CUDA_R_64F));
  int64_t nnz = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(h, plan, &nnz));
  std::vector<int32_t> cols(static_cast<size_t>(nnz));
  std::vector<double> values(static_cast<size_t>(nnz));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(C, c.row_offsets.data(), cols.data(), values.data()));
  const double alpha = 2, beta = 3;
  CHECK(spgemmNumeric(h, plan, &alpha) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("spgemmNumericWithAddend") !=
        std::string::npos);
  CHECK(spgemmNumericWithAddend(h, plan, &alpha, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  SPGEMM_REQUIRE_OK(spgemmNumericWithAddend(h, plan, &alpha, &beta));
  spgemmPlanDestroy(plan);
  for (spgemmMatDescr_t m : {A, B, D, W, C}) spgemmDestroyMatrix(m);
  spgemmDestroy(h);
}

TEST_CASE("sizes beyond the kernels' int and misaligned complex values", "[api][plan]") {
  spgemm_test::HostCsr<double> a = spgemm_test::uniform_random(6, 5, 2, 1);
  spgemm_test::HostCsr<double> c;
  c.rows = 6;
  c.cols = 5;
  c.row_offsets.assign(7, 0);
  spgemmHandle_t h = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&h));
  const auto N = SPGEMM_OPERATION_NON_TRANSPOSE;
  spgemmPlan_t plan = nullptr;
  {  // more than INT32_MAX columns, even with 64-bit offsets and indices
    std::vector<int64_t> off{0, 0}, col;
    std::vector<double> val;
    spgemmMatDescr_t wide = nullptr, wide_c = nullptr, tall = nullptr;
    const int64_t big = int64_t{INT32_MAX} + 1;
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&wide, 1, big, 0, off.data(), nullptr, nullptr,
                                      SPGEMM_INDEX_64I, SPGEMM_INDEX_64I, SPGEMM_INDEX_BASE_ZERO,
                                      CUDA_R_64F));
    std::vector<int64_t> tall_off(2, 0);
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&tall, 1, 1, 0, tall_off.data(), nullptr, nullptr,
                                      SPGEMM_INDEX_64I, SPGEMM_INDEX_64I, SPGEMM_INDEX_BASE_ZERO,
                                      CUDA_R_64F));
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&wide_c, 1, big, 0, off.data(), nullptr, nullptr,
                                      SPGEMM_INDEX_64I, SPGEMM_INDEX_64I, SPGEMM_INDEX_BASE_ZERO,
                                      CUDA_R_64F));
    for (spgemmMatDescr_t m : {wide, tall, wide_c}) SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(m, SPGEMM_MEMORY_HOST));
    CHECK(spgemmPlanCreate(h, &plan, N, N, tall, wide, wide_c, CUDA_R_64F) ==
          SPGEMM_STATUS_INDEX_OVERFLOW);
    CHECK(std::string(spgemmGetLastErrorMessage()).find("2^31 - 1 rows or columns") !=
          std::string::npos);
    for (spgemmMatDescr_t m : {wide, tall, wide_c}) spgemmDestroyMatrix(m);
  }
  {  // complex double values 8 bytes off their 16-byte alignment
    std::vector<double> storage(2 * static_cast<size_t>(a.nnz()) + 2, 0.5);
    double* misaligned = storage.data();
    if (reinterpret_cast<uintptr_t>(misaligned) % 16 == 0) ++misaligned;
    spgemmMatDescr_t A = nullptr, C = spgemm_test::host_descriptor(c);
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&A, a.rows, a.cols, a.nnz(), a.row_offsets.data(),
                                      a.col_ind.data(), misaligned, SPGEMM_INDEX_32I,
                                      SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_C_64F));
    SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(A, SPGEMM_MEMORY_HOST));
    spgemmMatDescr_t B = nullptr;
    std::vector<int32_t> b_off{0, 1, 2, 3, 4, 5}, b_col{0, 1, 2, 3, 4};
    std::vector<std::complex<double>> b_val(5, {1.0, -1.0});
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&B, 5, 5, 5, b_off.data(), b_col.data(), b_val.data(),
                                      SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                      CUDA_C_64F));
    SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(B, SPGEMM_MEMORY_HOST));
    spgemmMatDescr_t Cc = nullptr;
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&Cc, 6, 5, 0, c.row_offsets.data(), nullptr, nullptr,
                                      SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                      CUDA_C_64F));
    SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(Cc, SPGEMM_MEMORY_HOST));
    CHECK(spgemmPlanCreate(h, &plan, N, N, A, B, Cc, CUDA_C_64F) == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(std::string(spgemmGetLastErrorMessage()).find("aligned to 16 bytes") != std::string::npos);
    for (spgemmMatDescr_t m : {A, B, C, Cc}) spgemmDestroyMatrix(m);
  }
  spgemmDestroy(h);
}

TEST_CASE("several devices: arguments, and host plans run whole", "[api][devices]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();
  const int devices[2] = {0, 0};
  int count = -1, got[2] = {-1, -1};
  CHECK(spgemmSetDevices(nullptr, 0, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmSetDevices(h, -1, devices) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmSetDevices(h, SPGEMM_MAX_DEVICES + 1, devices) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmSetDevices(h, 2, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  const int missing[1] = {1 << 20};
  CHECK(spgemmSetDevices(h, 1, missing) ==
        (no_usable_gpu() ? SPGEMM_STATUS_NO_DEVICE : SPGEMM_STATUS_INVALID_VALUE));
  CHECK(std::string(spgemmGetLastErrorMessage()).find("spgemmSetDevices") == 0);
  const int negative[1] = {-2};
  CHECK(spgemmSetDevices(h, 1, negative) != SPGEMM_STATUS_SUCCESS);
  const int two_hosts[2] = {SPGEMM_HOST_DEVICE, SPGEMM_HOST_DEVICE};
  CHECK(spgemmSetDevices(h, 2, two_hosts) ==
        (no_usable_gpu() ? SPGEMM_STATUS_NO_DEVICE : SPGEMM_STATUS_INVALID_VALUE));
  SPGEMM_REQUIRE_OK(spgemmSetDevices(h, 0, nullptr));
  CHECK(spgemmGetDevices(h, 0, nullptr, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmGetDevices(h, 1, nullptr, &count) == SPGEMM_STATUS_INVALID_VALUE);
  SPGEMM_REQUIRE_OK(spgemmGetDevices(h, 2, got, &count));
  CHECK(count == 0);
  CHECK(got[0] == -1);

  // shares: one per device, >= 0, finite, not all 0; none set here
  const double one[1] = {1.0};
  CHECK(spgemmSetPartitionShares(nullptr, 0, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmSetPartitionShares(h, 1, one) == SPGEMM_STATUS_INVALID_VALUE);
  SPGEMM_REQUIRE_OK(spgemmSetPartitionShares(h, 0, nullptr));
  SPGEMM_REQUIRE_OK(spgemmSetPartitionMinProducts(h, 0));
  CHECK(spgemmSetPartitionMinProducts(nullptr, 0) == SPGEMM_STATUS_NOT_INITIALIZED);

  // a host-memory plan: one part, the host, all rows, cost not computed
  Problem p;
  const Mat A = make_mat(p.a_args()), B = make_mat(p.b_args()), C = make_mat(p.c_args());
  const Plan plan = make_plan(h, A, B, C);
  int parts = -1, device = 7;
  int64_t first = -1, rows = -1, products = 0;
  float ms = 0;
  CHECK(spgemmPlanGetPartition(h, plan.get(), 1, &parts, &device, &first, &rows, &products,
                               &ms) == SPGEMM_STATUS_INVALID_STATE);  // before analysis
  SPGEMM_REQUIRE_OK(spgemmAnalyze(h, plan.get()));
  CHECK(spgemmPlanGetPartition(h, plan.get(), 1, nullptr, nullptr, nullptr, nullptr, nullptr,
                               nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetPartition(h, plan.get(), -1, &parts, nullptr, nullptr, nullptr, nullptr,
                               nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetPartition(nullptr, plan.get(), 1, &parts, nullptr, nullptr, nullptr,
                               nullptr, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  SPGEMM_REQUIRE_OK(
      spgemmPlanGetPartition(h, plan.get(), 1, &parts, &device, &first, &rows, &products, &ms));
  CHECK(parts == 1);
  CHECK(device == -1);
  CHECK(first == 0);
  CHECK(rows == 2);
  CHECK(products == -1);
  CHECK(ms == -1.0f);

  // C left distributed: a setting of the handle; a host plan's C is not
  int on = -1;
  SPGEMM_REQUIRE_OK(spgemmGetOutputDistributed(h, &on));
  CHECK(on == 0);  // the default
  SPGEMM_REQUIRE_OK(spgemmSetOutputDistributed(h, 2));
  SPGEMM_REQUIRE_OK(spgemmGetOutputDistributed(h, &on));
  CHECK(on == 1);
  CHECK(spgemmSetOutputDistributed(nullptr, 1) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetOutputDistributed(nullptr, &on) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetOutputDistributed(h, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  const Plan later = make_plan(h, A, B, C);
  int64_t nnz = 0;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(h, later.get(), &nnz));
  spgemmRowBlock_t block{};
  CHECK(spgemmPlanGetRowBlocks(h, later.get(), 1, &block, nullptr) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetRowBlocks(h, later.get(), 1, nullptr, &count) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetRowBlocks(h, later.get(), -1, &block, &count) ==
        SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetRowBlocks(nullptr, later.get(), 1, &block, &count) ==
        SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmPlanGetRowBlocks(h, later.get(), 1, &block, &count) ==
        SPGEMM_STATUS_INVALID_STATE);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("not distributed") != std::string::npos);
}

TEST_CASE("C in host memory with A and B on the device: the chunk setting", "[api][out-of-core]") {
  const Handle handle = make_handle();
  spgemmHandle_t h = handle.get();
  size_t bytes = 1;
  SPGEMM_REQUIRE_OK(spgemmGetOutputChunkBytes(h, &bytes));
  CHECK(bytes == 0);  // the default
  SPGEMM_REQUIRE_OK(spgemmSetOutputChunkBytes(h, 12345));
  SPGEMM_REQUIRE_OK(spgemmGetOutputChunkBytes(h, &bytes));
  CHECK(bytes == 12345);
  CHECK(spgemmSetOutputChunkBytes(nullptr, 1) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetOutputChunkBytes(nullptr, &bytes) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetOutputChunkBytes(h, nullptr) == SPGEMM_STATUS_INVALID_VALUE);

  // device operands with C on the host: a valid request, which needs a GPU
  Problem p;
  CsrArgs a = p.a_args(), b = p.b_args(), c = p.c_args();
  a.memory = b.memory = SPGEMM_MEMORY_DEVICE;
  const spgemmStatus_t status = try_plan(h, make_mat(a), make_mat(b), make_mat(c));
  CHECK(status == (no_usable_gpu() ? SPGEMM_STATUS_NO_DEVICE : SPGEMM_STATUS_SUCCESS));
}
