// SPDX-License-Identifier: Apache-2.0
#include "util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace bench {

void check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  throw BenchError(
      fmt::format("{} failed: {} ({})", what, cudaGetErrorName(err), cudaGetErrorString(err)));
}

void check_cusparse(cusparseStatus_t status, const char* what) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  const std::string message = fmt::format("{} failed: {} ({})", what, cusparseGetErrorName(status),
                                          cusparseGetErrorString(status));
  if (status == CUSPARSE_STATUS_NOT_SUPPORTED) throw CusparseUnsupported(message);
  throw BenchError(message);
}

int64_t allocate_c_arrays(cusparseSpMatDescr_t c, int64_t rows, IndexWidths widths,
                          size_t value_bytes, const MemCtx& mem, Buffer& row_offsets,
                          Buffer& col_ind, Buffer& values) {
  int64_t r = 0, k = 0, nnz = 0;
  check_cusparse(cusparseSpMatGetSize(c, &r, &k, &nnz), "cusparseSpMatGetSize");
  const auto n = static_cast<size_t>(nnz);
  row_offsets = Buffer::allocate(mem, (static_cast<size_t>(rows) + 1) * widths.offsets,
                                 "C row offsets");
  col_ind = Buffer::allocate(mem, n * widths.columns, "C column indices");
  values = Buffer::allocate(mem, n * value_bytes, "C values");
  check_cusparse(cusparseCsrSetPointers(c, row_offsets.get(), col_ind.get(), values.get()),
                 "cusparseCsrSetPointers");
  return nnz;
}

void check_spgemm(spgemmStatus_t status, const char* what) {
  if (status == SPGEMM_STATUS_SUCCESS) return;
  const char* detail = spgemmGetLastErrorMessage();
  throw BenchError(fmt::format("{} failed: {} ({}){}{}", what, spgemmGetErrorName(status),
                               spgemmGetErrorString(status), (detail && *detail) ? ": " : "",
                               detail ? detail : ""));
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

// ---- Buffer --------------------------------------------------------------------

Buffer Buffer::allocate(const MemCtx& mem, size_t bytes, const char* what) {
  Buffer b;
  b.bytes_ = std::max<size_t>(bytes, 1);
  b.kind_ = mem.kind;
  b.stream_ = mem.stream;
  cudaError_t err = cudaSuccess;
  const char* call = "";
  switch (mem.kind) {
    case MemKind::host:
    case MemKind::host_huge:
      b.ptr_ = std::malloc(b.bytes_);
      if (!b.ptr_)
        throw BenchError(fmt::format("allocating {} ({}) failed", what, format_bytes(bytes)));
      if (mem.kind == MemKind::host_huge) advise_huge_pages(b.ptr_, b.bytes_);
      return b;
    case MemKind::device_malloc:
      call = "cudaMalloc";
      err = cudaMalloc(&b.ptr_, b.bytes_);
      break;
    case MemKind::device_pool:
      call = "cudaMallocFromPoolAsync";
      err = cudaMallocFromPoolAsync(&b.ptr_, b.bytes_, mem.pool, mem.stream);
      break;
  }
  if (err != cudaSuccess) {
    b.ptr_ = nullptr;
    cudaGetLastError();  // not sticky: clear it
    throw BenchError(fmt::format("{} of {} ({}) failed: {} ({})", call, what, format_bytes(bytes),
                                 cudaGetErrorName(err), cudaGetErrorString(err)));
  }
  return b;
}

void Buffer::reset() noexcept {
  if (!ptr_) return;
  switch (kind_) {
    case MemKind::host:
    case MemKind::host_huge:
      std::free(ptr_);
      break;
    case MemKind::device_malloc:
      cudaFree(ptr_);
      break;
    case MemKind::device_pool:
      cudaFreeAsync(ptr_, stream_);
      break;
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

void Buffer::swap(Buffer& other) noexcept {
  std::swap(ptr_, other.ptr_);
  std::swap(bytes_, other.bytes_);
  std::swap(kind_, other.kind_);
  std::swap(stream_, other.stream_);
}

// ---- Timeline ------------------------------------------------------------------

Timeline::Timeline(bool device, cudaStream_t stream) : device_(device), stream_(stream) {
  if (!device_) return;
  for (auto& e : events_) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
}

Timeline::~Timeline() {
  for (auto e : events_)
    if (e) cudaEventDestroy(e);
}

void Timeline::mark(int i) {
  if (!phases_ && i != 0 && i != kMarks - 1) return;
  if (device_)
    check_cuda(cudaEventRecord(events_[i], stream_), "cudaEventRecord");
  else
    times_[i] = std::chrono::steady_clock::now();
}

void Timeline::finish(int last) {
  if (device_) check_cuda(cudaEventSynchronize(events_[last]), "cudaEventSynchronize");
}

double Timeline::ms(int from, int to) const {
  if (!device_) return std::chrono::duration<double, std::milli>(times_[to] - times_[from]).count();
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, events_[from], events_[to]), "cudaEventElapsedTime");
  return ms;
}

}  // namespace bench
