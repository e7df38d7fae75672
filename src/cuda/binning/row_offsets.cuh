// C's row offsets from its row counts for small products (configs/bins.hpp),
// computed by the last block of the symbolic kernel to finish: what the
// general path does with CUB (a 64-bit total, then an exclusive scan in
// place), and also the longest row, which picks the numeric phase's kernel.
// No launch of its own and no CUB scratch: for small products the launches
// are the cost (3.8 us of host time each, H100).
#pragma once

#include "cuda/post.cuh"

namespace spgemm::cuda {

// Where the last block of a single-bin symbolic launch writes its results,
// and what it posts to the host after them (also when the gate kept the
// rows out).
template <class Offset>
struct SmallFinish {
  int rows;
  Offset base;
  long long* total;            // nnz(C)
  int* longest;                // the largest row count
  unsigned int* blocks_done;   // zero before the first launch; left zero after each
  DevicePost post;
};

// Block-collective (blockDim.x a multiple of 32): offsets[0, rows) holds the
// row counts on entry; on exit offsets[0, rows] are C's row offsets starting
// at `base`, *total the 64-bit nnz(C) and *longest the largest count. Each
// thread takes a contiguous run of rows: sums it, a block scan of the sums
// places the run, then the thread rewrites its run as offsets.
template <class Offset>
__device__ void block_row_offsets(Offset* offsets, const SmallFinish<Offset>& f) {
  __shared__ long long warp_sums[32];
  __shared__ int warp_most[32];
  const int threads = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int lane = t & 31, warp = t / 32;
  const int per_thread = (f.rows + threads - 1) / threads;
  const int first = min(f.rows, t * per_thread);
  const int last = min(f.rows, first + per_thread);
  long long sum = 0;
  int most = 0;
  for (int r = first; r < last; ++r) {
    const auto count = static_cast<long long>(offsets[r]);
    sum += count;
    most = max(most, static_cast<int>(count));
  }
  long long inclusive = sum;
  for (int d = 1; d < 32; d *= 2) {
    const long long up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  for (int d = 16; d > 0; d /= 2) most = max(most, __shfl_xor_sync(0xffffffffu, most, d));
  if (lane == 31) warp_sums[warp] = inclusive;
  if (lane == 0) warp_most[warp] = most;
  __syncthreads();
  long long before = 0, all = 0;
  int block_most = 0;
  for (int w = 0; w < threads / 32; ++w) {
    if (w < warp) before += warp_sums[w];
    all += warp_sums[w];
    block_most = max(block_most, warp_most[w]);
  }
  long long running = before + inclusive - sum + f.base;
  for (int r = first; r < last; ++r) {
    const auto count = static_cast<long long>(offsets[r]);
    offsets[r] = static_cast<Offset>(running);
    running += count;
  }
  if (t == 0) {
    offsets[f.rows] = static_cast<Offset>(all + f.base);
    *f.total = all;
    *f.longest = block_most;
  }
}

}  // namespace spgemm::cuda
