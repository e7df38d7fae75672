// SPDX-License-Identifier: Apache-2.0
// Putting a warp's compacted hash table in column order in registers, for
// tables of more entries than rank counting takes (NumericPolicy::rank_sort_max_entries) and
// at most 256: each entry's column and slot packed in one int (column << 8 |
// slot), sorted by warp_bitonic_sort (shuffles and min/max, K per lane), and
// each lane writes its sorted entries to C, the value read from its slot.
// The shared-memory network (bitonic.cuh) moves keys and values through the
// table with a warp barrier per pass: there, stencil27:64's first numeric
// phase, whose rows of 125 entries sort 128 slots, spends 28% of its
// instructions and a third of its stall samples (Nsight Compute's source
// counters). B must have fewer than kPackedSortMaxColumns columns, so that
// every packed key stays below INT_MAX, which marks an empty slot and sorts
// last (column 2^23 - 1 in slot 255 would pack to INT_MAX itself).
#pragma once

#include "cuda/accumulators/hash_table.cuh"
#include "cuda/sorting/warp_bitonic.cuh"

#include <climits>

namespace spgemm::cuda {

inline constexpr int kPackedSortSlotBits = 8;  // slots < 256: at most 8 registers a lane
inline constexpr long long kPackedSortMaxColumns = 1LL << (31 - kPackedSortSlotBits);

// Warp-collective: the entries among the first n slots (a power of two,
// n <= 32 * K; slots past n read as empty) written to C in column order,
// positions at or past len (inputs changed behind the plan) left out.
template <int K, class Value, class Index>
__device__ __forceinline__ void warp_sort_packed(const int* keys, const Value* values, int n,
                                                 int len, int base, Index* out_cols,
                                                 Value* out_values) {
  constexpr int kSlotMask = (1 << kPackedSortSlotBits) - 1;
  const int lane = lane_id();
  int packed[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int slot = k * 32 + lane;
    const int key = slot < n ? keys[slot] : kEmptyKey;
    packed[k] = key == kEmptyKey ? INT_MAX : key << kPackedSortSlotBits | slot;
  }
  warp_bitonic_sort<K>(packed, n);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int at = k * 32 + lane;
    if (packed[k] != INT_MAX && at < len) {
      out_cols[at] = static_cast<Index>((packed[k] >> kPackedSortSlotBits) + base);
      out_values[at] = values[packed[k] & kSlotMask];
    }
  }
}

// The same where it applies (n <= 256, fewer columns than kPackedSortMaxColumns);
// false, with nothing written, where it does not.
template <class Value, class Index>
__device__ __forceinline__ bool warp_scatter_sorted_packed(const int* keys, const Value* values,
                                                           int n, long long columns, int len,
                                                           int base, Index* out_cols,
                                                           Value* out_values) {
  if (columns >= kPackedSortMaxColumns || n > 8 * 32) return false;
  if (n <= 4 * 32)
    warp_sort_packed<4>(keys, values, n, len, base, out_cols, out_values);
  else
    warp_sort_packed<8>(keys, values, n, len, base, out_cols, out_values);
  return true;
}

}  // namespace spgemm::cuda
