// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: error checks, owning buffers, timers and RAII wrappers.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <spgemm/spgemm.h>

#include "host_util.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

// A failed CUDA / cuSPARSE / libspgemm call, or an allocation that failed.
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A cuSPARSE call that returned CUSPARSE_STATUS_NOT_SUPPORTED: the inputs are
// valid, cuSPARSE does not take them (an index layout, a value type).
struct CusparseUnsupported : BenchError {
  using BenchError::BenchError;
};

// Each throws BenchError naming the call and the error (check_cusparse:
// CusparseUnsupported for CUSPARSE_STATUS_NOT_SUPPORTED).
void check_cuda(cudaError_t err, const char* what);
void check_cusparse(cusparseStatus_t status, const char* what);
void check_spgemm(spgemmStatus_t status, const char* what);

std::string format_bytes(double bytes);  // "12.3 MB"

// ---- index layout -------------------------------------------------------------

// Bytes per row offset and per column index of a CSR matrix's arrays: 4/4,
// 8/4 or 8/8 (the layouts libspgemm takes).
struct IndexWidths {
  int offsets = 4;
  int columns = 4;
};
inline spgemmIndexType_t spgemm_index_type(int bytes) {
  return bytes == 8 ? SPGEMM_INDEX_64I : SPGEMM_INDEX_32I;
}
inline cusparseIndexType_t cusparse_index_type(int bytes) {
  return bytes == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
}

// ---- memory ------------------------------------------------------------------

// host_huge: host memory advised to huge pages (advise_huge_pages).
enum class MemKind { host, host_huge, device_malloc, device_pool };

// Where and how buffers are allocated.
struct MemCtx {
  MemKind kind = MemKind::host;
  cudaStream_t stream = nullptr;  // device_pool: the stream allocations are ordered on
  cudaMemPool_t pool = nullptr;   // device_pool only
};

// An owning, move-only buffer (at least one byte, so it is never null).
// device_pool: cudaMallocFromPoolAsync / cudaFreeAsync on the stream;
// device_malloc: cudaMalloc / cudaFree; host: malloc / free (not touched);
// host_huge: malloc / free, advise_huge_pages (not touched).
class Buffer {
 public:
  Buffer() = default;
  static Buffer allocate(const MemCtx& mem, size_t bytes, const char* what);
  ~Buffer() { reset(); }
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer(std::move(other)).swap(*this);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void reset() noexcept;
  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void swap(Buffer& other) noexcept;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  MemKind kind_ = MemKind::host;
  cudaStream_t stream_ = nullptr;
};

// ---- timing ------------------------------------------------------------------

// Marks points of a pipeline: CUDA events recorded on a stream (device) or
// std::chrono::steady_clock (host). finish() waits for the last mark.
class Timeline {
 public:
  static constexpr int kMarks = 6;
  Timeline(bool device, cudaStream_t stream);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  void mark(int i);
  void finish(int last);
  double ms(int from, int to) const;
  // Off: only the first and the last mark are recorded, so that a total is
  // not lengthened by the phase marks (an event record costs the host ~1.4
  // us, H100, which is on the critical path of a product of tens of us).
  void set_phases(bool on) { phases_ = on; }

 private:
  bool device_;
  bool phases_ = true;
  cudaStream_t stream_;
  std::array<cudaEvent_t, kMarks> events_{};
  std::array<std::chrono::steady_clock::time_point, kMarks> times_{};
};

// ---- RAII for library objects --------------------------------------------------

struct SpgemmHandleDeleter {
  void operator()(spgemmHandle_t h) const noexcept { spgemmDestroy(h); }
};
struct SpgemmMatDeleter {
  void operator()(spgemmMatDescr_t m) const noexcept { spgemmDestroyMatrix(m); }
};
struct SpgemmPlanDeleter {
  void operator()(spgemmPlan_t p) const noexcept { spgemmPlanDestroy(p); }
};
using SpgemmHandle = std::unique_ptr<spgemmContext, SpgemmHandleDeleter>;
using SpgemmMat = std::unique_ptr<spgemmMatrix, SpgemmMatDeleter>;
using SpgemmPlan = std::unique_ptr<spgemmPlanObject, SpgemmPlanDeleter>;

struct CusparseHandleDeleter {
  void operator()(cusparseHandle_t h) const noexcept { cusparseDestroy(h); }
};
struct CusparseMatDeleter {
  void operator()(cusparseSpMatDescr_t m) const noexcept { cusparseDestroySpMat(m); }
};
struct CusparseSpgemmDeleter {
  void operator()(cusparseSpGEMMDescr_t d) const noexcept { cusparseSpGEMM_destroyDescr(d); }
};
using CusparseHandle =
    std::unique_ptr<std::remove_pointer_t<cusparseHandle_t>, CusparseHandleDeleter>;
using CusparseMat =
    std::unique_ptr<std::remove_pointer_t<cusparseSpMatDescr_t>, CusparseMatDeleter>;
using CusparseSpgemm =
    std::unique_ptr<std::remove_pointer_t<cusparseSpGEMMDescr_t>, CusparseSpgemmDeleter>;

// C's arrays for the nnz that cuSPARSE's SpGEMM computed into `c` (rows + 1
// row offsets and nnz column indices of the widths given; nnz values of
// value_bytes), from `mem`, set on `c` for its copy; returns nnz(C).
int64_t allocate_c_arrays(cusparseSpMatDescr_t c, int64_t rows, IndexWidths widths,
                          size_t value_bytes, const MemCtx& mem, Buffer& row_offsets,
                          Buffer& col_ind, Buffer& values);

}  // namespace bench
