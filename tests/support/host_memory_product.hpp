// SPDX-License-Identifier: Apache-2.0
// One product through the public C API on host memory (the host backend),
// with the interface of DeviceProduct (tests/gpu/device_product.hpp) so that
// a test can be written once for both memory types (random_campaign.hpp,
// concurrency_campaign.hpp). Errors throw instead of asserting, so it can run
// on any thread. Outputs are poisoned before every phase.
#pragma once

#include <spgemm/spgemm.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "csr_host.hpp"
#include "cuda_data_type.hpp"
#include "status_check.hpp"

namespace spgemm_test {

template <class V>
class HostMemoryProduct {
 public:
  // Copies A and B; C's arrays are owned here too.
  HostMemoryProduct(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B)
      : handle_(handle), a_(A), b_(B) {
    c_.rows = A.rows;
    c_.cols = B.cols;
    c_.row_offsets.assign(static_cast<size_t>(A.rows) + 1, 0);
    // 0x7f7f7f7f: an offset or column far out of range.
    std::memset(c_.row_offsets.data(), 0x7f, c_.row_offsets.size() * sizeof(int32_t));
    try {
      da_ = describe(a_);
      db_ = describe(b_);
      spgemm_ok(spgemmCreateCsr(&dc_, c_.rows, c_.cols, 0, c_.row_offsets.data(), nullptr, nullptr,
                                SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                cuda_data_type<V>()),
                "spgemmCreateCsr(C)");
      spgemm_ok(spgemmCsrSetMemoryType(dc_, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType(C)");
      spgemm_ok(
          spgemmPlanCreate(handle_, &plan_, SPGEMM_OPERATION_NON_TRANSPOSE,
                           SPGEMM_OPERATION_NON_TRANSPOSE, da_, db_, dc_, cuda_data_type<V>()),
          "spgemmPlanCreate");
      spgemm_ok(spgemmAnalyze(handle_, plan_), "spgemmAnalyze");
      spgemm_ok(spgemmSymbolic(handle_, plan_, &nnz_), "spgemmSymbolic");
      if (nnz_ < 0) throw std::runtime_error("spgemmSymbolic: negative nnz(C)");
      c_.col_ind.assign(static_cast<size_t>(nnz_), 0);
      c_.values.assign(static_cast<size_t>(nnz_), V(0));
      spgemm_ok(spgemmCsrSetPointers(dc_, c_.row_offsets.data(), nnz_ ? c_.col_ind.data() : nullptr,
                                     nnz_ ? c_.values.data() : nullptr),
                "spgemmCsrSetPointers(C)");
    } catch (...) {
      release();
      throw;
    }
  }
  ~HostMemoryProduct() { release(); }
  HostMemoryProduct(const HostMemoryProduct&) = delete;
  HostMemoryProduct& operator=(const HostMemoryProduct&) = delete;

  // C = alpha * A * B on poisoned outputs; returns a copy of C.
  HostCsr<V> numeric(V alpha) {
    if (!c_.col_ind.empty())
      std::memset(c_.col_ind.data(), 0x7f, c_.col_ind.size() * sizeof(int32_t));
    for (V& v : c_.values) v = std::numeric_limits<V>::quiet_NaN();
    spgemm_ok(spgemmNumeric(handle_, plan_, &alpha), "spgemmNumeric");
    return c_;
  }

  // New values, same structure (the descriptors keep pointing at them).
  void set_values(const HostCsr<V>& A, const HostCsr<V>& B) {
    if (A.values.size() != a_.values.size() || B.values.size() != b_.values.size())
      throw std::invalid_argument("HostMemoryProduct::set_values: structure changed");
    std::copy(A.values.begin(), A.values.end(), a_.values.begin());
    std::copy(B.values.begin(), B.values.end(), b_.values.begin());
  }
  int64_t nnz() const { return nnz_; }

 private:
  static spgemmMatDescr_t describe(HostCsr<V>& m) {
    spgemmMatDescr_t d = nullptr;
    spgemm_ok(spgemmCreateCsr(&d, m.rows, m.cols, m.nnz(), m.row_offsets.data(),
                              m.col_ind.empty() ? nullptr : m.col_ind.data(),
                              m.values.empty() ? nullptr : m.values.data(), SPGEMM_INDEX_32I,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, cuda_data_type<V>()),
              "spgemmCreateCsr");
    const spgemmStatus_t status = spgemmCsrSetMemoryType(d, SPGEMM_MEMORY_HOST);
    if (status != SPGEMM_STATUS_SUCCESS) spgemmDestroyMatrix(d);
    spgemm_ok(status, "spgemmCsrSetMemoryType");
    return d;
  }
  void release() noexcept {
    spgemmPlanDestroy(plan_);
    spgemmDestroyMatrix(da_);
    spgemmDestroyMatrix(db_);
    spgemmDestroyMatrix(dc_);
    plan_ = nullptr;
    da_ = db_ = dc_ = nullptr;
  }

  spgemmHandle_t handle_;
  HostCsr<V> a_, b_, c_;
  spgemmMatDescr_t da_ = nullptr, db_ = nullptr, dc_ = nullptr;
  spgemmPlan_t plan_ = nullptr;
  int64_t nnz_ = 0;
};

// The host side of a memory-type-generic test: a ThreadHandle, the handle one
// thread owns, and the product type to run on it.
struct HostBackend {
  static constexpr const char* kName = "host";
  // The host backend sums each entry in one fixed order: results are
  // bitwise identical from run to run, whatever the threads.
  static constexpr bool kBitwiseReproducible = true;
  template <class V>
  using Product = HostMemoryProduct<V>;

  class ThreadHandle {
   public:
    ThreadHandle() { spgemm_ok(spgemmCreate(&handle_), "spgemmCreate"); }
    ~ThreadHandle() { spgemmDestroy(handle_); }
    ThreadHandle(const ThreadHandle&) = delete;
    ThreadHandle& operator=(const ThreadHandle&) = delete;
    spgemmHandle_t handle() const { return handle_; }

   private:
    spgemmHandle_t handle_ = nullptr;
  };
};

}  // namespace spgemm_test
