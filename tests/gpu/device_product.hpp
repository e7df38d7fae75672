// SPDX-License-Identifier: Apache-2.0
// Runs one product through the public C API on the GPU and brings C back.
// Outputs are poisoned before every phase so that unwritten entries show.
// Every copy, poisoning and wait goes to the handle's stream, so products on
// other threads' streams run on undisturbed (and a library that strays from
// its handle's stream shows up as wrong results).
#pragma once

#include "csr_host.hpp"
#include "cuda_data_type.hpp"
#include "status_check.hpp"

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

// A handle for the length of a scope.
struct Handle {
  spgemmHandle_t h = nullptr;
  Handle() { spgemm_ok(spgemmCreate(&h), "spgemmCreate"); }
  virtual ~Handle() { spgemmDestroy(h); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t count = 0;
  explicit DeviceArray(size_t n) : count(n) {
    if (n) cuda_ok(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceArray(const std::vector<T>& host, cudaStream_t stream = nullptr)
      : DeviceArray(host.size()) {
    upload(host, stream);
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  // Upload and download return once the copy is complete.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    if (host.size() != count) throw std::invalid_argument("DeviceArray::upload: size mismatch");
    if (!count) return;
    cuda_ok(cudaMemcpyAsync(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice, stream),
            "upload");
    cuda_ok(cudaStreamSynchronize(stream), "upload");
  }
  std::vector<T> download(cudaStream_t stream = nullptr) const {
    std::vector<T> host(count);
    if (!count) return host;
    cuda_ok(cudaMemcpyAsync(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
            "download");
    cuda_ok(cudaStreamSynchronize(stream), "download");
    return host;
  }
  // 0xFF bytes: -1 for indices, NaN for floating point. Ordered on stream.
  void poison(cudaStream_t stream = nullptr) {
    if (count) cuda_ok(cudaMemsetAsync(ptr, 0xFF, count * sizeof(T), stream), "poison");
  }
};

template <class V>
struct DeviceCsr {
  int64_t rows, cols;
  DeviceArray<int32_t> offsets, cols_;
  DeviceArray<V> values;
  spgemmMatDescr_t descr = nullptr;

  explicit DeviceCsr(const HostCsr<V>& h, cudaStream_t stream = nullptr)
      : rows(h.rows),
        cols(h.cols),
        offsets(h.row_offsets, stream),
        cols_(h.col_ind, stream),
        values(h.values, stream) {
    spgemm_ok(spgemmCreateCsr(&descr, rows, cols, h.nnz(), offsets.ptr, cols_.ptr, values.ptr,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                              cuda_data_type<V>()),
              "spgemmCreateCsr");
  }
  ~DeviceCsr() { spgemmDestroyMatrix(descr); }
};

inline cudaStream_t stream_of(spgemmHandle_t handle) {
  cudaStream_t stream = nullptr;
  spgemm_ok(spgemmGetStream(handle, &stream), "spgemmGetStream");
  return stream;
}

// A product kept alive across numeric calls (structure reuse), on the
// handle's stream.
template <class V>
class DeviceProduct {
 public:
  DeviceProduct(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B)
      : handle_(handle),
        stream_(stream_of(handle)),
        A_(A, stream_),
        B_(B, stream_),
        c_offsets_(static_cast<size_t>(A.rows) + 1) {
    c_offsets_.poison(stream_);
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

  // Poisons C's values, and its column indices too unless keep_columns
  // (then they are what the last numeric phase or edit_columns left there).
  HostCsr<V> numeric(V alpha, bool keep_columns = false) {
    if (!keep_columns) c_cols_->poison(stream_);
    c_values_->poison(stream_);
    spgemm_ok(spgemmNumeric(handle_, plan_, &alpha), "spgemmNumeric");
    cuda_ok(cudaStreamSynchronize(stream_), "numeric");
    HostCsr<V> C;
    C.rows = A_.rows;
    C.cols = B_.cols;
    C.row_offsets = c_offsets_.download(stream_);
    C.col_ind = c_cols_->download(stream_);
    C.values = c_values_->download(stream_);
    return C;
  }

  // edit(row_offsets, cols) changes C's column indices in place.
  template <class Edit>
  void edit_columns(Edit&& edit) {
    std::vector<int32_t> cols = c_cols_->download(stream_);
    edit(c_offsets_.download(stream_), cols);
    c_cols_->upload(cols, stream_);
  }

  // New values, same structure.
  void set_values(const HostCsr<V>& A, const HostCsr<V>& B) {
    A_.values.upload(A.values, stream_);
    B_.values.upload(B.values, stream_);
  }
  int64_t nnz() const { return nnz_; }
  spgemmPlan_t plan() const { return plan_; }

 private:
  spgemmHandle_t handle_;
  cudaStream_t stream_;  // declared before the arrays it uploads them on
  DeviceCsr<V> A_, B_;
  DeviceArray<int32_t> c_offsets_;
  std::unique_ptr<DeviceArray<int32_t>> c_cols_;
  std::unique_ptr<DeviceArray<V>> c_values_;
  spgemmMatDescr_t C_ = nullptr;
  spgemmPlan_t plan_ = nullptr;
  int64_t nnz_ = 0;
};

// The GPU side of a memory-type-generic test (HostBackend's twin, in
// tests/support/host_memory_product.hpp): a ThreadHandle is the handle one
// thread owns, on its own non-blocking stream.
struct DeviceBackend {
  static constexpr const char* kName = "GPU";
  // Deterministic by default (spgemmSetDeterministic): the same bits on every
  // thread and run.
  static constexpr bool kBitwiseReproducible = true;
  template <class V>
  using Product = DeviceProduct<V>;

  class ThreadHandle {
   public:
    ThreadHandle() {
      cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      spgemmStatus_t status = spgemmCreate(&handle_);
      if (status == SPGEMM_STATUS_SUCCESS) status = spgemmSetStream(handle_, stream_);
      if (status != SPGEMM_STATUS_SUCCESS) {
        spgemmDestroy(handle_);
        cudaStreamDestroy(stream_);
      }
      spgemm_ok(status, "spgemmCreate / spgemmSetStream");
    }
    // The handle goes before the stream it uses.
    ~ThreadHandle() {
      cudaStreamSynchronize(stream_);
      spgemmDestroy(handle_);
      cudaStreamDestroy(stream_);
    }
    ThreadHandle(const ThreadHandle&) = delete;
    ThreadHandle& operator=(const ThreadHandle&) = delete;
    spgemmHandle_t handle() const { return handle_; }

   private:
    cudaStream_t stream_ = nullptr;
    spgemmHandle_t handle_ = nullptr;
  };
};

inline const char* gpu_skip_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return "no usable CUDA device (cudaGetDeviceCount failed)";
  if (count == 0) return "no CUDA device";
  return nullptr;
}

}  // namespace spgemm_test
