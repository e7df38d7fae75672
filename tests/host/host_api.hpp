// SPDX-License-Identifier: Apache-2.0
// Driving the C API on host memory from Catch2 tests.
#pragma once

#include <spgemm/spgemm.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>

#include "csr_host.hpp"
#include "cuda_data_type.hpp"
#include "require_ok.hpp"

namespace spgemm_test {

// A host-memory descriptor over a HostCsr's arrays (not a copy: the matrix
// must outlive the descriptor).
template <class V>
spgemmMatDescr_t host_descriptor(HostCsr<V>& m) {
  spgemmMatDescr_t d = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreateCsr(&d, m.rows, m.cols, m.nnz(), m.row_offsets.data(),
                                    m.col_ind.empty() ? nullptr : m.col_ind.data(),
                                    m.values.empty() ? nullptr : m.values.data(), SPGEMM_INDEX_32I,
                                    SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, cuda_data_type<V>()));
  SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(d, SPGEMM_MEMORY_HOST));
  return d;
}

// One C = alpha * A * B through the whole API, on its own handle. Owns its
// copies of A and B so a test can change their values between numeric
// calls; with share_arrays, B's descriptor points at A's arrays (A * A with
// one copy, as a user squaring a matrix would do).
template <class V>
class HostProduct {
 public:
  HostProduct(HostCsr<V> a, HostCsr<V> b, bool share_arrays = false) : a_(std::move(a)), b_(std::move(b)) {
    SPGEMM_REQUIRE_OK(spgemmCreate(&handle_));
    da_ = host_descriptor(a_);
    db_ = host_descriptor(share_arrays ? a_ : b_);
    c_.rows = a_.rows;
    c_.cols = share_arrays ? a_.cols : b_.cols;
    SPGEMM_REQUIRE_OK(spgemmCreateCsr(&dc_, c_.rows, c_.cols, 0, nullptr, nullptr, nullptr,
                                      SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                      cuda_data_type<V>()));
    SPGEMM_REQUIRE_OK(spgemmCsrSetMemoryType(dc_, SPGEMM_MEMORY_HOST));
    SPGEMM_REQUIRE_OK(spgemmPlanCreate(handle_, &plan_, SPGEMM_OPERATION_NON_TRANSPOSE,
                                       SPGEMM_OPERATION_NON_TRANSPOSE, da_, db_, dc_,
                                       cuda_data_type<V>()));
  }
  ~HostProduct() {
    spgemmPlanDestroy(plan_);
    spgemmDestroyMatrix(da_);
    spgemmDestroyMatrix(db_);
    spgemmDestroyMatrix(dc_);
    spgemmDestroy(handle_);
  }
  HostProduct(const HostProduct&) = delete;
  HostProduct& operator=(const HostProduct&) = delete;

  // Garbage in every output slot, so an entry the library forgets to write
  // shows up as a mismatch (0x7f7f7f7f offsets/columns are out of range, NaN
  // values fail any comparison).
  void poison_values() {
    for (V& v : c_.values) v = std::numeric_limits<V>::quiet_NaN();
  }

  int64_t symbolic(bool call_analyze) {
    c_.row_offsets.assign(static_cast<size_t>(c_.rows) + 1, 0);
    std::memset(c_.row_offsets.data(), 0x7f, c_.row_offsets.size() * sizeof(int32_t));
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc_, c_.row_offsets.data(), nullptr, nullptr));
    if (call_analyze) SPGEMM_REQUIRE_OK(spgemmAnalyze(handle_, plan_));
    int64_t nnz = -1;
    SPGEMM_REQUIRE_OK(spgemmSymbolic(handle_, plan_, &nnz));
    REQUIRE(nnz >= 0);
    int64_t described = -1;
    SPGEMM_REQUIRE_OK(spgemmCsrGet(dc_, nullptr, nullptr, &described, nullptr, nullptr, nullptr,
                                   nullptr, nullptr, nullptr, nullptr));
    REQUIRE(described == nnz);
    c_.col_ind.assign(static_cast<size_t>(nnz), 0);
    std::memset(c_.col_ind.data(), 0x7f, c_.col_ind.size() * sizeof(int32_t));
    c_.values.assign(static_cast<size_t>(nnz), V(0));
    poison_values();
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc_, c_.row_offsets.data(),
                                           nnz ? c_.col_ind.data() : nullptr,
                                           nnz ? c_.values.data() : nullptr));
    return nnz;
  }

  void numeric(V alpha) { SPGEMM_REQUIRE_OK(spgemmNumeric(handle_, plan_, &alpha)); }

  spgemmHandle_t handle() const { return handle_; }
  HostCsr<V>& a() { return a_; }
  HostCsr<V>& b() { return b_; }
  const HostCsr<V>& c() const { return c_; }
  // C's column indices, for a test that edits them between numeric calls.
  std::vector<int32_t>& c_columns() { return c_.col_ind; }

 private:
  HostCsr<V> a_, b_, c_;
  spgemmHandle_t handle_ = nullptr;
  spgemmMatDescr_t da_ = nullptr, db_ = nullptr, dc_ = nullptr;
  spgemmPlan_t plan_ = nullptr;
};

}  // namespace spgemm_test
