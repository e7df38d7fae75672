#include "core/error.hpp"
#include "cuda/binning/binning.cuh"

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int size_of(const RowSizes& s, int row) {
  if (s.sizes) {
    const int size = s.sizes[row];
    return s.spans && *s.b_disorder == 0 ? min(size, s.spans[row]) : size;
  }
  if (s.offsets32) return s.offsets32[row + 1] - s.offsets32[row];
  return static_cast<int>(s.offsets64[row + 1] - s.offsets64[row]);
}

// -1 for rows that are dropped.
__device__ __forceinline__ int bin_of(const RowSizes& s, int row, const BinThresholds& t) {
  const int size = size_of(s, row);
  if (size == 0) return -1;
  const int terms = s.terms[row];
  // the sort bins as configs/bins.hpp's BinLayout::sort_bin_for numbers them
  for (int b = 0; b < t.sort_bins; ++b)
    if (terms <= t.sort_terms[b]) return t.hash_bins + 1 + b;
  for (int b = 0; b < t.hash_bins; ++b)
    if (size <= t.max_size[b]) {
      if (terms >= t.heavy_terms) return t.hash_bins - 1;
      return b < t.block_bin && terms >= t.block_terms ? t.block_bin : b;
    }
  return t.hash_bins;
}

__global__ void count_kernel(RowSizes sizes, int rows, BinThresholds thresholds,
                             BinCounts* counts) {
  __shared__ int local[kMaxBins];
  for (int b = threadIdx.x; b < kMaxBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const int bin = bin_of(sizes, row, thresholds);
    if (bin >= 0) atomicAdd(&local[bin], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < thresholds.bins(); b += blockDim.x)
    if (local[b] > 0) atomicAdd(&counts->count[b], local[b]);
}

__global__ void scatter_kernel(RowSizes sizes, int rows, BinThresholds thresholds,
                               BinCounts* counts, int* binned_rows) {
  __shared__ int local[kMaxBins];
  __shared__ int base[kMaxBins];
  for (int b = threadIdx.x; b < kMaxBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  int bin = -1;
  int rank = 0;
  if (row < rows) {
    bin = bin_of(sizes, row, thresholds);
    if (bin >= 0) rank = atomicAdd(&local[bin], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < thresholds.bins(); b += blockDim.x)
    if (local[b] > 0) base[b] = bin_begin(counts, b) + atomicAdd(&counts->cursor[b], local[b]);
  __syncthreads();
  if (bin >= 0) binned_rows[base[bin] + rank] = row;
}

}  // namespace

void bin_rows(RowSizes sizes, int rows, const BinThresholds& thresholds, BinCounts* counts,
              int* binned_rows, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kThreads - 1) / kThreads);
  count_kernel<<<blocks, kThreads, 0, stream>>>(sizes, rows, thresholds, counts);
  SPGEMM_CUDA_CHECK_LAUNCH();
  scatter_kernel<<<blocks, kThreads, 0, stream>>>(sizes, rows, thresholds, counts, binned_rows);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace spgemm::cuda
