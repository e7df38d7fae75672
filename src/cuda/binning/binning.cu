// SPDX-License-Identifier: Apache-2.0
#include "core/error.hpp"
#include "cuda/binning/binning.cuh"
#include "cuda/configs/launch.cuh"

#include <algorithm>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

// Blocks take tiles of kThreads rows, tile blockIdx.x and every gridDim.x-th
// after it (a grid of at most what is resident at once: a block per tile
// made inputs of millions of rows pay for launching thousands of blocks).

__global__ void count_kernel(RowSizes sizes, int rows, BinThresholds thresholds,
                             BinCounts* counts) {
  __shared__ int local[kMaxBins];
  for (int b = threadIdx.x; b < kMaxBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const int bin = bin_of(sizes, static_cast<int>(r), thresholds);
    if (bin >= 0) atomicAdd(&local[bin], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < thresholds.bins(); b += blockDim.x)
    if (local[b] > 0) atomicAdd(&counts->count[b], local[b]);
}

// Each block counts its rows per bin, reserves one range per bin, then
// writes its rows there.
__global__ void scatter_kernel(RowSizes sizes, int rows, BinThresholds thresholds,
                               BinCounts* counts, int* binned_rows) {
  __shared__ int local[kMaxBins];
  __shared__ int base[kMaxBins];
  for (int b = threadIdx.x; b < kMaxBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = first; r < rows; r += stride) {
    const int bin = bin_of(sizes, static_cast<int>(r), thresholds);
    if (bin >= 0) atomicAdd(&local[bin], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < thresholds.bins(); b += blockDim.x) {
    if (local[b] > 0) base[b] = bin_begin(counts, b) + atomicAdd(&counts->cursor[b], local[b]);
    local[b] = 0;
  }
  __syncthreads();
  for (long long r = first; r < rows; r += stride) {
    const auto row = static_cast<int>(r);
    const int bin = bin_of(sizes, row, thresholds);
    if (bin >= 0) binned_rows[base[bin] + atomicAdd(&local[bin], 1)] = row;
  }
}

}  // namespace

void bin_rows(const DeviceLimits& limits, RowSizes sizes, int rows,
              const BinThresholds& thresholds, BinCounts* counts, int* binned_rows,
              cudaStream_t stream) {
  if (rows == 0) return;
  const int resident = std::max(1, limits.sm_count * (limits.max_threads_per_sm / kThreads));
  const auto blocks = static_cast<unsigned>(std::min((rows + kThreads - 1) / kThreads, resident));
  launch(count_kernel, blocks, kThreads, 0, stream, sizes, rows, thresholds, counts);
  launch(scatter_kernel, blocks, kThreads, 0, stream, sizes, rows, thresholds, counts, binned_rows);
}

}  // namespace spgemm::cuda
