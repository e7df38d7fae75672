// SPDX-License-Identifier: Apache-2.0
// The binning of bin_rows (binning.cuh) by one block, for C of few rows
// (configs/bins.hpp's SmallPolicy::few_launches_rows): after the symbolic phase, the
// block that writes C's row offsets also bins C's rows for the numeric
// phase (row_offsets.cuh), which saves a memset and bin_rows' two launches
// on the way to the phase's readback.
#pragma once

#include "cuda/binning/binning.cuh"

namespace spgemm::cuda {

// Block-collective (blockDim.x a multiple of 32; rows at most
// kBlockBinningRows, the size of the shared array of the rows' bins: the
// caller's SmallPolicy::few_launches_rows test keeps it so). Writes counts->count for
// all kMaxBins bins (no zeroing before; the cursors are not used) and the
// binned rows, each bin's rows in no fixed order (as bin_rows). The first
// pass keeps each row's bin in shared memory for the second; a warp adds
// the rows it has of one bin at once (`__match_any_sync`): rows mostly of
// one bin would otherwise queue a shared atomic each on one counter.
inline constexpr int kBlockBinningRows = SmallPolicy::few_launches_rows;
static_assert(kMaxBins <= 127, "a row's bin is kept in a signed char");

__device__ __forceinline__ void block_bin_rows(const RowSizes& sizes, int rows,
                                               const BinThresholds& thresholds,
                                               BinCounts* counts, int* binned_rows) {
  constexpr int J = 4;  // rows a thread bins at once: their loads overlap
  __shared__ int next[kMaxBins];  // rows per bin, then where its next rows go
  __shared__ signed char bin_of_row[kBlockBinningRows];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const unsigned lanes_before = (1u << lane) - 1u;
  const int step = static_cast<int>(blockDim.x);
  for (int b = threadIdx.x; b < kMaxBins; b += step) next[b] = 0;
  __syncthreads();
  // (every loop's trip count is the same for the whole block: whole warps
  // reach each __match_any_sync)
  for (int first = 0; first < rows; first += J * step) {
    int bin[J];
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int row = first + j * step + static_cast<int>(threadIdx.x);
      bin[j] = row < rows ? bin_of(sizes, row, thresholds) : -1;
    }
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int row = first + j * step + static_cast<int>(threadIdx.x);
      if (row < rows) bin_of_row[row] = static_cast<signed char>(bin[j]);
      const unsigned peers = __match_any_sync(0xffffffffu, bin[j]);
      if (bin[j] >= 0 && (peers & lanes_before) == 0) atomicAdd(&next[bin[j]], __popc(peers));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int begin = 0;
    for (int b = 0; b < kMaxBins; ++b) {
      const int count = next[b];
      counts->count[b] = count;
      next[b] = begin;
      begin += count;
    }
  }
  __syncthreads();
  for (int first = 0; first < rows; first += step) {
    const int row = first + static_cast<int>(threadIdx.x);
    const int bin = row < rows ? bin_of_row[row] : -1;
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    const int leader = __ffs(peers) - 1;
    int at = 0;
    if (bin >= 0 && lane == leader) at = atomicAdd(&next[bin], __popc(peers));
    at = __shfl_sync(0xffffffffu, at, leader);
    if (bin >= 0) binned_rows[at + __popc(peers & lanes_before)] = row;
  }
}

}  // namespace spgemm::cuda
