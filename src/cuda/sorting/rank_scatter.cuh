// SPDX-License-Identifier: Apache-2.0
// Sorting small compacted hash tables by counting: the output position of
// an entry is the number of keys among the n in keys[0, n) smaller than its
// own (keys of a row are distinct; empty slots hold kEmptyKey = -1, which
// compares as the largest unsigned value and so never counts). Every entry is
// written straight to its place in C: no exchange passes and no barriers,
// and the reads of the key array are broadcasts (all threads read the same
// keys). Cost n^2 compares per row; it beats the bitonic network
// of bitonic.cuh up to NumericPolicy::rank_sort_max_entries (configs/bins.hpp). Positions at
// or past len (only possible if the inputs changed behind the plan) are not
// written. Columns are written with the output's index base added.
#pragma once

#include <cstdint>

namespace spgemm::cuda {

template <class GroupT, class Value, class Index>
__device__ __forceinline__ void scatter_sorted_by_rank(const GroupT& group, const int* keys,
                                                       const Value* values, int n, int len,
                                                       int base, Index* out_cols,
                                                       Value* out_values) {
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  const int4* keys4 = reinterpret_cast<const int4*>(keys);  // tables are 16-byte aligned
  for (int s = rank; s < n; s += threads) {
    const uint32_t key = static_cast<uint32_t>(keys[s]);
    if (key == static_cast<uint32_t>(-1)) continue;
    int position = 0;
    for (int j = 0; j < n / 4; ++j) {
      const int4 k = keys4[j];
      position += (static_cast<uint32_t>(k.x) < key) + (static_cast<uint32_t>(k.y) < key) +
                  (static_cast<uint32_t>(k.z) < key) + (static_cast<uint32_t>(k.w) < key);
    }
    for (int j = n / 4 * 4; j < n; ++j) position += static_cast<uint32_t>(keys[j]) < key;
    if (position < len) {
      out_cols[position] = static_cast<Index>(key + base);
      out_values[position] = values[s];
    }
  }
}

}  // namespace spgemm::cuda
