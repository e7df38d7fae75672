// SPDX-License-Identifier: Apache-2.0
// Collectives of a row's group of threads (a warp, or the whole block:
// `threads` == 32 or blockDim.x) that cooperative groups do not offer for
// a block of run-time size: a prefix sum and a range. Blocks go through
// `partial`, 32 entries of shared memory, free again when they return.
#pragma once

#include "cuda/warp_shuffle.cuh"

namespace spgemm::cuda {

__device__ __forceinline__ void group_sync(int threads) {
  if (threads == 32) __syncwarp();
  else __syncthreads();
}

// Exclusive prefix sum over the group (a warp, or the whole block); total
// gets the sum of all. Group-collective.
__device__ __forceinline__ long long group_exclusive_sum(long long x, int rank, int threads,
                                                         long long* partial, long long& total) {
  const int lane = rank & 31;
  long long inclusive = x;
  for (int offset = 1; offset < 32; offset *= 2) {
    const long long up = __shfl_up_sync(kFullWarp, inclusive, offset);
    if (lane >= offset) inclusive += up;
  }
  const long long warp_total = __shfl_sync(kFullWarp, inclusive, 31);
  if (threads == 32) {
    total = warp_total;
    return inclusive - x;
  }
  const int warp = rank / 32;
  const int warps = threads / 32;
  if (lane == 31) partial[warp] = warp_total;
  __syncthreads();
  long long before = 0;
  total = 0;
  for (int w = 0; w < warps; ++w) {  // at most 32 broadcast reads
    const long long t = partial[w];
    if (w < warp) before += t;
    total += t;
  }
  __syncthreads();  // partial is reused by the next scan
  return before + inclusive - x;
}

// The smallest lo and the largest hi over the group, on every thread.
// Group-collective.
__device__ __forceinline__ void group_min_max(int& lo, int& hi, int rank, int threads,
                                              long long* partial) {
  lo = __reduce_min_sync(kFullWarp, lo);
  hi = __reduce_max_sync(kFullWarp, hi);
  if (threads == 32) return;
  if ((rank & 31) == 0)
    partial[rank / 32] =
        static_cast<long long>(static_cast<unsigned long long>(static_cast<uint32_t>(lo)) << 32 |
                               static_cast<uint32_t>(hi));
  __syncthreads();
  for (int w = 0; w < threads / 32; ++w) {  // at most 32 broadcast reads
    const auto both = static_cast<unsigned long long>(partial[w]);
    lo = min(lo, static_cast<int>(both >> 32));
    hi = max(hi, static_cast<int>(both & 0xffffffffu));
  }
  __syncthreads();  // partial may be written again
}

}  // namespace spgemm::cuda
