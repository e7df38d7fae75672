// SPDX-License-Identifier: Apache-2.0
// A long row of C whose entries fit in shared memory beside a bitmask over
// its column range: the mask marks the row's columns, a count per word of
// the bits before it turns a column into its place in C's row (its rank),
// and the row's terms are summed at their ranks. One pass over the terms,
// where the dense windows (dense_window.cuh) take one per window of the
// range; the values come out in C's order and, where C's columns are known
// (kernels/known_columns.cuh), go out without any column being written.
#pragma once

#include "cuda/accumulators/dense_window.cuh"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

// Bytes of shared memory per column of the range: a bit of the mask, and a
// 4-byte count per 32 of them.
inline constexpr size_t kRankedBytesPer32Columns = 2 * sizeof(uint32_t);

struct RankedColumns {
  WindowBitmask mask;  // bit c: column lo + c is one of the row's
  int* before;         // [words]: the row's columns in the words before each
  int lo;
  int span;            // columns in the range

  // The mask's words (and counts) over the range.
  __device__ __forceinline__ int words() const { return (span + 31) / 32; }
  // The column's place in the range, or at least span outside it (columns
  // and lo are non-negative, so the difference fits an int).
  __device__ __forceinline__ unsigned offset_of(int col) const {
    return static_cast<unsigned>(col - lo);
  }
  // (a column outside the range is left out: its terms then find no rank)
  __device__ __forceinline__ void mark(int col) const {
    const unsigned offset = offset_of(col);
    if (offset < static_cast<unsigned>(span)) mask.set(static_cast<int>(offset));
  }
  // The column's rank in the row; -1 if it is not one of the row's columns.
  __device__ __forceinline__ int rank(int col) const {
    const unsigned offset = offset_of(col);
    if (offset >= static_cast<unsigned>(span)) return -1;
    const uint32_t word = mask.words[offset >> 5];
    const uint32_t bit = 1u << (offset & 31);
    if ((word & bit) == 0) return -1;
    return before[offset >> 5] + __popc(word & (bit - 1));
  }
};

// A thread's contiguous run of a mask's words [first, last) and the bits set
// in the words before them (a block scan of each run's population count).
struct WordRun {
  int first;
  int last;
  int before;
};

// The calling thread's run of `words` mask words; total: the bits set in
// all of them. Block-collective (BlockScan: cub::BlockScan<int, threads>).
template <class BlockScan>
__device__ WordRun word_run(const uint32_t* mask, int words,
                            typename BlockScan::TempStorage& temp, int& total) {
  const int per_thread = (words + blockDim.x - 1) / blockDim.x;
  WordRun run{};
  run.first = min(words, static_cast<int>(threadIdx.x) * per_thread);
  run.last = min(words, run.first + per_thread);
  int mine = 0;
  for (int w = run.first; w < run.last; ++w) mine += __popc(mask[w]);
  BlockScan(temp).ExclusiveSum(mine, run.before, total);
  return run;
}

// Calls f(place, offset) for each set bit of the run's words in order:
// `offset` the bit's place in the mask, `place` its rank.
template <class F>
__device__ __forceinline__ void for_each_set_bit(const uint32_t* mask, const WordRun& run, F&& f) {
  int place = run.before;
  for (int w = run.first; w < run.last; ++w)
    for (uint32_t bits = mask[w]; bits != 0; bits &= bits - 1) f(place++, w * 32 + __ffs(bits) - 1);
}

}  // namespace spgemm::cuda
