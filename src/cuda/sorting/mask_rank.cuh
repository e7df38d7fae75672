// Sorting a hash table's entries by a bitmask over the row's column range,
// for rows whose range is too wide for direct slots
// (accumulators/direct_row.cuh) but narrow enough for the mask: every key
// sets its bit, a prefix sum of the words' population counts gives each
// word its first position in the row, and an entry's position is its word's
// plus the set bits below its own. Entries are written straight to C (like
// rank_scatter.cuh): O(n + range / 32) work and five barriers, against the
// bitonic network's log2(n)^2 / 2 passes with a barrier each (91 for 8192
// entries).
//
// The mask and the words' positions go in a MaskSpace: either the table past
// the n compacted entries (sorting/*_compact.cuh: a power of two, at most
// half the table), the mask in the keys' slots and the positions in the
// values' (as ints: values are at least 4 bytes); or, for a block of the
// ordered numeric phase, its scratch (kernels/ordered_loop.cuh), free once
// the row's terms are added, which lets the table be sorted where it is,
// without compacting it first. Positions at or past len (only possible if
// the inputs changed behind the plan) are not written. Columns get the
// output's index base.
#pragma once

#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/group_collectives.cuh"

#include <cstdint>

namespace spgemm::cuda {

// Room for the mask and the words' positions: `words` of each.
struct MaskSpace {
  uint32_t* mask;
  int* first;
  int words;
};

// The table past its n compacted entries.
template <class Value>
__device__ __forceinline__ MaskSpace space_past(int* keys, Value* values, int n, int table) {
  return {reinterpret_cast<uint32_t*>(keys + n), reinterpret_cast<int*>(values + n), table - n};
}

// `bytes` of shared memory at `at` (4-byte aligned).
__device__ __forceinline__ MaskSpace space_at(void* at, size_t bytes) {
  const int words = static_cast<int>(bytes / (sizeof(uint32_t) + sizeof(int)));
  auto* mask = static_cast<uint32_t*>(at);
  return {mask, reinterpret_cast<int*>(mask + words), words};
}

// Writes the entries among the first n slots (empty keys skipped) to C in
// column order. Returns false, with nothing written, where the range needs
// more words than `space` has; then another sort must do. `partial`:
// group_collectives.cuh's. Group-collective.
template <class GroupT, class Value, class Index>
__device__ bool scatter_sorted_by_mask(const GroupT& group, const int* keys, const Value* values,
                                       int n, const MaskSpace& space, int len, int base,
                                       Index* out_cols, Value* out_values, long long* partial) {
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
  if (words > space.words) return false;
  uint32_t* mask = space.mask;
  int* first = space.first;
  for (int w = rank; w < words; w += threads) mask[w] = 0;
  group.sync();
  for (int s = rank; s < n; s += threads) {
    const int key = keys[s];
    if (key != kEmptyKey) WindowBitmask{mask}.set(key - lo);
  }
  group.sync();
  // each thread a contiguous run of words
  const int per_thread = (words + threads - 1) / threads;
  const int begin = min(words, rank * per_thread);
  const int end = min(words, begin + per_thread);
  int mine = 0;
  for (int w = begin; w < end; ++w) mine += __popc(mask[w]);
  long long total;
  int position = static_cast<int>(group_exclusive_sum(mine, rank, threads, partial, total));
  for (int w = begin; w < end; ++w) {
    first[w] = position;
    position += __popc(mask[w]);
  }
  group.sync();
  for (int s = rank; s < n; s += threads) {
    const int key = keys[s];
    if (key == kEmptyKey) continue;
    const int offset = key - lo;
    const int w = offset >> 5;
    const int at = first[w] + __popc(mask[w] & ((1u << (offset & 31)) - 1));
    if (at < len) {
      out_cols[at] = static_cast<Index>(key + base);
      out_values[at] = values[s];
    }
  }
  return true;
}

}  // namespace spgemm::cuda
