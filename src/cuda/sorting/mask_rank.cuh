// SPDX-License-Identifier: Apache-2.0
// Sorting a hash table's entries by a bitmask over the row's column range,
// for rows whose range is too wide for direct slots
// (accumulators/direct_row.cuh): every key sets its bit, a prefix sum of the
// words' population counts gives each word its first position in the row,
// and an entry's position is its word's plus the set bits below its own.
// Entries are written straight to C (like rank_scatter.cuh): O(n + range /
// 32) work and five barriers, against the bitonic network's log2(n)^2 / 2
// passes with a barrier each (91 for 8192 entries). A range wider than the
// mask the space holds is taken in windows of that many words, one after
// another, each placing its entries after those of the windows before: a
// pass over the n keys and five barriers a window, up to the caller's
// `max_windows` (configs/bins.hpp's NumericPolicy::mask_sort_max_windows).
//
// The mask and the words' positions (16-bit: a row of a table has fewer
// than 2^16 entries) go in a MaskSpace: either the table past the n
// compacted entries (sorting/*_compact.cuh: a power of two, at most half the
// table), the mask in the values' slots and the positions in the keys'; or,
// for a block of the ordered numeric phase, its scratch
// (kernels/ordered_loop.cuh), free once the row's terms are added, which
// lets the table be sorted where it is, without compacting it first.
// Positions at or past len (only possible if the inputs changed behind the
// plan) are not written. Columns get the output's index base.
#pragma once

#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/group_collectives.cuh"

#include <cstdint>

namespace spgemm::cuda {

// Room for the mask and the words' positions: `words` of each.
struct MaskSpace {
  uint32_t* mask;
  uint16_t* first;
  int words;
};

// The table past its n compacted entries: the mask in the values' free
// slots, the positions (two to a key's slot) in the keys'.
template <class Value>
__device__ __forceinline__ MaskSpace space_past(int* keys, Value* values, int n, int table) {
  constexpr int kWordsPerSlot = sizeof(Value) / sizeof(uint32_t) < 2 ? 1 : 2;
  return {reinterpret_cast<uint32_t*>(values + n), reinterpret_cast<uint16_t*>(keys + n),
          (table - n) * kWordsPerSlot};
}

// `bytes` of shared memory at `at` (4-byte aligned).
__device__ __forceinline__ MaskSpace space_at(void* at, size_t bytes) {
  const int words = static_cast<int>(bytes / (sizeof(uint32_t) + sizeof(uint16_t)));
  auto* mask = static_cast<uint32_t*>(at);
  return {mask, reinterpret_cast<uint16_t*>(mask + words), words};
}

// Writes the entries among the first n slots (empty keys skipped) to C in
// column order. Returns false, with nothing written, where the range needs
// more than `max_windows` masks of the space's words; then another sort
// must do. `partial`: group_collectives.cuh's. Group-collective.
template <class GroupT, class Value, class Index>
__device__ bool scatter_sorted_by_mask(const GroupT& group, const int* keys, const Value* values,
                                       int n, const MaskSpace& space, int max_windows, int len,
                                       int base, Index* out_cols, Value* out_values,
                                       long long* partial) {
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  int lo = 0x7fffffff, hi = -1;
  for (int s = rank; s < n; s += threads) {
    const int key = keys[s];
    if (key == kEmptyKey) continue;
    lo = min(lo, key);
    hi = max(hi, key);
  }
  group_min_max(lo, hi, rank, threads, partial);
  if (hi < lo) return true;  // no entries
  const int words = ((hi - lo) >> 5) + 1;
  if (words > static_cast<long long>(max_windows) * space.words) return false;
  uint32_t* mask = space.mask;
  uint16_t* first = space.first;
  int placed = 0;  // the row's entries in the windows before
  for (int window = 0; window < words; window += space.words) {
    const int span = min(space.words, words - window);
    const int from = lo + 32 * window;  // the window's first column
    const auto in_window = [&](int key) {
      return key != kEmptyKey && static_cast<unsigned>(key - from) < 32u * span;
    };
    for (int w = rank; w < span; w += threads) mask[w] = 0;
    group.sync();
    for (int s = rank; s < n; s += threads) {
      const int key = keys[s];
      if (in_window(key)) WindowBitmask{mask}.set(key - from);
    }
    group.sync();
    // each thread a contiguous run of words
    const int per_thread = (span + threads - 1) / threads;
    const int begin = min(span, rank * per_thread);
    const int end = min(span, begin + per_thread);
    int mine = 0;
    for (int w = begin; w < end; ++w) mine += __popc(mask[w]);
    long long total;
    int position = static_cast<int>(group_exclusive_sum(mine, rank, threads, partial, total));
    for (int w = begin; w < end; ++w) {
      first[w] = static_cast<uint16_t>(position);
      position += __popc(mask[w]);
    }
    group.sync();
    for (int s = rank; s < n; s += threads) {
      const int key = keys[s];
      if (!in_window(key)) continue;
      const int offset = key - from;
      const int w = offset >> 5;
      const int at = placed + first[w] + __popc(mask[w] & ((1u << (offset & 31)) - 1));
      if (at < len) {
        out_cols[at] = static_cast<Index>(key + base);
        out_values[at] = values[s];
      }
    }
    placed += static_cast<int>(total);
    if (window + span < words) group.sync();  // the next window reuses the space
  }
  return true;
}

}  // namespace spgemm::cuda
