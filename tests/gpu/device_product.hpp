// Runs one product through the public C API on the GPU and brings C back.
// Outputs are poisoned before every phase so that unwritten entries show.
#pragma once

#include "csr_host.hpp"
#include "cuda_data_type.hpp"

#include <spgemm/spgemm.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spgemm_test {

inline void cuda_ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

inline void spgemm_ok(spgemmStatus_t status, const char* what) {
  if (status != SPGEMM_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + spgemmGetErrorName(status) + ": " +
                             spgemmGetLastErrorMessage());
}

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t count = 0;
  explicit DeviceArray(size_t n) : count(n) {
    if (n) cuda_ok(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<T>& host) {
    if (count)
      cuda_ok(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    if (count)
      cuda_ok(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
  // 0xFF bytes: -1 for indices, NaN for floating point.
  void poison() {
    if (count) cuda_ok(cudaMemset(ptr, 0xFF, count * sizeof(T)), "poison");
  }
};

template <class V>
struct DeviceCsr {
  int64_t rows, cols;
  DeviceArray<int32_t> offsets, cols_;
  DeviceArray<V> values;
  spgemmMatDescr_t descr = nullptr;

  explicit DeviceCsr(const HostCsr<V>& h)
      : rows(h.rows), cols(h.cols), offsets(h.row_offsets), cols_(h.col_ind), values(h.values) {
    spgemm_ok(spgemmCreateCsr(&descr, rows, cols, h.nnz(), offsets.ptr, cols_.ptr, values.ptr,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                              cuda_data_type<V>()),
              "spgemmCreateCsr");
  }
  ~DeviceCsr() { spgemmDestroyMatrix(descr); }
};

// A product kept alive across numeric calls (structure reuse).
template <class V>
class DeviceProduct {
 public:
  DeviceProduct(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B)
      : handle_(handle), A_(A), B_(B), c_offsets_(static_cast<size_t>(A.rows) + 1) {
    c_offsets_.poison();
    spgemm_ok(spgemmCreateCsr(&C_, A.rows, B.cols, 0, c_offsets_.ptr, nullptr, nullptr,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                              cuda_data_type<V>()),
              "spgemmCreateCsr(C)");
    spgemm_ok(spgemmPlanCreate(handle_, &plan_, SPGEMM_OPERATION_NON_TRANSPOSE,
                               SPGEMM_OPERATION_NON_TRANSPOSE, A_.descr, B_.descr, C_,
                               cuda_data_type<V>()),
              "spgemmPlanCreate");
    spgemm_ok(spgemmAnalyze(handle_, plan_), "spgemmAnalyze");
    spgemm_ok(spgemmSymbolic(handle_, plan_, &nnz_), "spgemmSymbolic");
    c_cols_ = std::make_unique<DeviceArray<int32_t>>(static_cast<size_t>(nnz_));
    c_values_ = std::make_unique<DeviceArray<V>>(static_cast<size_t>(nnz_));
    spgemm_ok(spgemmCsrSetPointers(C_, c_offsets_.ptr, c_cols_->ptr, c_values_->ptr),
              "spgemmCsrSetPointers");
  }
  ~DeviceProduct() {
    spgemmPlanDestroy(plan_);
    spgemmDestroyMatrix(C_);
  }

  HostCsr<V> numeric(V alpha) {
    c_cols_->poison();
    c_values_->poison();
    spgemm_ok(spgemmNumeric(handle_, plan_, &alpha), "spgemmNumeric");
    cuda_ok(cudaDeviceSynchronize(), "numeric");
    HostCsr<V> C;
    C.rows = A_.rows;
    C.cols = B_.cols;
    C.row_offsets = c_offsets_.download();
    C.col_ind = c_cols_->download();
    C.values = c_values_->download();
    return C;
  }

  // New values, same structure.
  void set_values(const HostCsr<V>& A, const HostCsr<V>& B) {
    A_.values.upload(A.values);
    B_.values.upload(B.values);
  }
  int64_t nnz() const { return nnz_; }

 private:
  spgemmHandle_t handle_;
  DeviceCsr<V> A_, B_;
  DeviceArray<int32_t> c_offsets_;
  std::unique_ptr<DeviceArray<int32_t>> c_cols_;
  std::unique_ptr<DeviceArray<V>> c_values_;
  spgemmMatDescr_t C_ = nullptr;
  spgemmPlan_t plan_ = nullptr;
  int64_t nnz_ = 0;
};

inline const char* gpu_skip_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return "no usable CUDA device (cudaGetDeviceCount failed)";
  if (count == 0) return "no CUDA device";
  return nullptr;
}

}  // namespace spgemm_test
