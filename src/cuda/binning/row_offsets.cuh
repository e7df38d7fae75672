// SPDX-License-Identifier: Apache-2.0
// C's row offsets from its row counts for small products (configs/bins.hpp),
// computed by the last block of the symbolic kernel to finish: what the
// general path does with CUB (a 64-bit total, then an exclusive scan in
// place), and also the longest row, which picks the numeric phase's kernel.
// No launch of its own and no CUB scratch: for small products the launches
// are the cost (about 4 us of host time each).
#pragma once

#include "cuda/analysis/analysis.cuh"
#include "cuda/binning/block_binning.cuh"
#include "cuda/post.cuh"

#include <climits>

namespace spgemm::cuda {

// The sizes of the arrays a small product's symbolic kernel reads: it may
// run before the input checks' verdict is known (SmallFinish::gate), so it
// tests every position and row of B it follows against them.
struct OperandExtents {
  long long a_nnz;
  long long b_rows;
  long long b_nnz;
  long long d_nnz;  // 0 without D
};

// A single-bin symbolic launch over all rows of a small product: where its
// rows' counts go, where its last block writes C's offsets and the other
// results from them, and what that block posts to the host after them. With
// a gate (analysis.cuh's ProductStats::small_rows) the rows are counted
// while the analysis's pass checks the operands in the launch's last
// analysis_blocks blocks: each row's terms go to `sizes` (the rows of
// more than beyond_terms to *rows_beyond, the blocks' totals and longest to
// *stats), rows of more than max_row_terms terms are skipped, and the last
// block sets the gate from the statistics and the checks
// (analysis_pass.cuh's small_product_gate) and writes C's offsets only if
// it is open.
template <class Offset>
struct SmallFinish {
  int rows;
  Offset base;
  long long* total;            // nnz(C)
  int* longest;                // the largest row count
  unsigned int* blocks_done;   // zero before the first launch; left zero after each
  DevicePost post;
  int* counts = nullptr;       // the rows' counts (workspace)
  ProductStats* stats = nullptr;  // nullptr: no gate (the verdict was known at the launch)
  int* sizes = nullptr;        // with a gate: each row's terms (TermCount::sizes)
  int* rows_beyond = nullptr;  // with a gate, if asked (TermCount::rows_beyond)
  int beyond_terms = INT_MAX;
  int* shut = nullptr;         // with a gate: nonzero once a row has shut it
  int max_row_terms = INT_MAX;  // with a gate: the most terms it lets through
  OperandExtents extents{};
  int analysis_blocks = 0;     // set by the launch
};

// Block-collective (blockDim.x a multiple of 32, at most 1024): counts[0,
// rows) holds the row counts (counts may be offsets itself); on exit
// offsets[0, rows] are C's row offsets starting at `base`, *total the
// 64-bit nnz(C) and *longest the largest count. The block goes through the
// rows in tiles of kOffsetsPerThread per thread, each warp a run of 32 *
// kOffsetsPerThread: loads and stores coalesced (register j of lane l is
// row 32 j + l of the run), the next tile loaded while this one is
// scanned, the run's 32-row scans side by side. A thread per contiguous
// run of rows instead would make every load and store touch a sector of
// its own, from one SM: ~100 us for wing's 62,032 rows, longer than the
// rest of its symbolic phase (`spgemm-bench wing.mtx.gz`, sym).
// The 32-row scans are of Count: int where nnz(C) is known to fit (a small
// product's is at most its terms, SmallPolicy::max_products), else 64-bit; the sums
// across runs are 64-bit.
inline constexpr int kOffsetsPerThread = 8;

template <class Count, class In, class Offset>
__device__ void block_row_offsets(const In* counts, Offset* offsets,
                                  const SmallFinish<Offset>& f) {
  constexpr int J = kOffsetsPerThread;
  __shared__ long long warp_sums[2][32];  // by tile parity: one barrier per tile
  __shared__ Count warp_most[32];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  const int tile = static_cast<int>(blockDim.x) * J;
  auto load = [&](int tile_start, Count (&x)[J]) {
    const int run = tile_start + warp * 32 * J + lane;
#pragma unroll
    for (int j = 0; j < J; ++j)
      x[j] = run + 32 * j < f.rows ? static_cast<Count>(counts[run + 32 * j]) : 0;
  };
  long long carry = f.base;
  Count most = 0;
  Count next[J];
  load(0, next);
  for (int tile_start = 0, parity = 0; tile_start < f.rows; tile_start += tile, parity ^= 1) {
    Count count[J], scan[J];
#pragma unroll
    for (int j = 0; j < J; ++j) {
      count[j] = next[j];
      scan[j] = count[j];
      most = max(most, count[j]);
    }
    if (tile_start + tile < f.rows) load(tile_start + tile, next);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const Count up = __shfl_up_sync(0xffffffffu, scan[j], d);
        if (lane >= d) scan[j] += up;
      }
    }
    long long run_total = 0;
#pragma unroll
    for (int j = 0; j < J; ++j) run_total += __shfl_sync(0xffffffffu, scan[j], 31);
    if (lane == 0) warp_sums[parity][warp] = run_total;
    __syncthreads();
    long long before = carry, all = 0;
    for (int w = 0; w < warps; ++w) {
      const long long sum = warp_sums[parity][w];
      if (w < warp) before += sum;
      all += sum;
    }
    const int run = tile_start + warp * 32 * J + lane;
    // (the 32-row totals are shuffled again here rather than kept from
    // above, so that J fewer 64-bit values stay in registers; the two forms
    // were not compared)
#pragma unroll
    for (int j = 0; j < J; ++j) {  // before: the rows ahead of register j's 32
      if (run + 32 * j < f.rows)
        offsets[run + 32 * j] = static_cast<Offset>(before + scan[j] - count[j]);
      before += __shfl_sync(0xffffffffu, scan[j], 31);
    }
    carry += all;
  }
  for (int d = 16; d > 0; d /= 2) most = max(most, __shfl_xor_sync(0xffffffffu, most, d));
  if (lane == 0) warp_most[warp] = most;
  __syncthreads();
  if (threadIdx.x == 0) {
    Count block_most = 0;
    for (int w = 0; w < warps; ++w) block_most = max(block_most, warp_most[w]);
    offsets[f.rows] = static_cast<Offset>(carry);
    *f.total = carry - f.base;
    *f.longest = static_cast<int>(block_most);  // (a row's count is an int)
  }
}

// The numeric phase's binning of C's rows by their sizes (block_binning.cuh).
struct NumericBinning {
  RowSizes sizes;
  BinThresholds thresholds;
  BinCounts* counts;
  int* binned_rows;
};

// The same as a launch of one block, after the bins' kernels of a binned
// symbolic phase for C of few rows (configs/bins.hpp's SmallPolicy::few_launches_rows;
// f.blocks_done unused), which then also bins C's rows for the numeric
// phase and posts f.post (if set) after that.
inline constexpr int kOffsetsBlockThreads = 1024;
template <class Offset>
__global__ void __launch_bounds__(kOffsetsBlockThreads)
    row_offsets_kernel(Offset* offsets, SmallFinish<Offset> f, NumericBinning bins) {
  block_row_offsets<long long>(offsets, offsets, f);
  __syncthreads();  // C's offsets, which give the rows' sizes, are all written
  block_bin_rows(bins.sizes, f.rows, bins.thresholds, bins.counts, bins.binned_rows);
  if (f.post.words > 0) post_to_host(f.post);
}

}  // namespace spgemm::cuda
