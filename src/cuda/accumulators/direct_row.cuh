// SPDX-License-Identifier: Apache-2.0
// A direct-mapped accumulator for a numeric row whose columns span no more
// slots than its hash table has: column c goes to slot c - first, with no
// hashing and no probing, and the row comes out in column order, with no
// sorting (the hash path's compaction and sort are most of the first
// numeric phase's extra cost over a later one). The occupancy is a bitmask
// laid over the start of the table's keys, a set bit for a free slot, so
// that the keys' cleared state (kEmptyKey, all ones) is an empty row.
#pragma once

#include "cuda/group_collectives.cuh"
#include "cuda/kernels/kernels.hpp"

#include <cstdint>

namespace spgemm::cuda {

template <class Value>
struct DirectRow {
  uint32_t* free_bits;  // over the table's keys: slots / 32 words
  Value* values;
  int first;  // the column of slot 0
  int slots;

  // The slot of col, marked used; -1 outside the row's range (only if the
  // inputs changed behind the plan).
  __device__ __forceinline__ int claim(int col) const {
    const int s = col - first;
    if (s < 0 || s >= slots) return -1;
    const uint32_t bit = 1u << (s & 31);
    if (free_bits[s >> 5] & bit) atomicAnd(&free_bits[s >> 5], ~bit);
    return s;
  }
};

// The smallest and largest column of `row`'s terms, for B whose rows are
// sorted: the two ends of each referenced row of B, and D's entries (Addend).
// lo > hi for a row without terms. `partial`: group_collectives.cuh's.
// Group-collective.
template <bool Addend, class Value, class Offset, class Col>
__device__ void sorted_row_range(const NumericArgs<Value, Offset, Col>& args, int row, int rank,
                                 int threads, long long* partial, int& lo, int& hi) {
  lo = 0x7fffffff;
  hi = -1;
  for_each_range_end<Addend>(args.A, args.B, args.D, row, rank, threads, [&](int col) {
    lo = min(lo, col);
    hi = max(hi, col);
  });
  group_min_max(lo, hi, rank, threads, partial);
}

// Writes the used slots of the first `width` in column order as C's row
// (len entries from `out`; more are dropped). Each warp takes a contiguous
// run of the mask's words, a word (32 slots) per step, placed by a prefix
// sum of the warps' counts. Group-collective.
template <class Value, class Offset, class Col>
__device__ void write_direct_row(const DirectRow<Value>& acc, int width, int rank, int threads,
                                 const NumericArgs<Value, Offset, Col>& args, Offset out, int len,
                                 long long* partial) {
  const int lane = rank & 31;
  const int warps = threads / 32;
  const int words = (width + 31) / 32;
  const int per_warp = (words + warps - 1) / warps;
  const int first = min(words, rank / 32 * per_warp);
  const int last = min(words, first + per_warp);
  int mine = 0;
  for (int w = first + lane; w < last; w += 32) mine += __popc(~acc.free_bits[w]);
  mine = __reduce_add_sync(kFullWarp, mine);
  long long total;
  int position = static_cast<int>(
      group_exclusive_sum(lane == 0 ? mine : 0, rank, threads, partial, total));
  position = __shfl_sync(kFullWarp, position, 0);
  const uint32_t below = (1u << lane) - 1;
  for (int w = first; w < last; ++w) {
    const uint32_t used = ~acc.free_bits[w];
    const int at = position + __popc(used & below);
    if ((used >> lane & 1u) && at < len) {
      const int s = w * 32 + lane;
      args.c_cols[out + at] = static_cast<Col>(acc.first + s + args.c_base);
      args.c_values[out + at] = acc.values[s];
    }
    position += __popc(used);
  }
}

}  // namespace spgemm::cuda
