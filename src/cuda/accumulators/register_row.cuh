// SPDX-License-Identifier: Apache-2.0
// The accumulator of rows with few terms (configs/bins.hpp's sort bins): all
// of a row's terms in one warp's registers, K per lane; element i = k * 32 +
// lane is register k of lane `lane`, term p of the row is element p.
//
// Summing: within each register, the terms of one column are summed in lane
// order (combine_in_lane_order, accumulators/ordered_add.cuh) by the lowest
// lane holding the column, its representative; with K > 1 the registers'
// sums are then added in register order in a warp's slots of shared memory.
// The order depends only on the row's structure, so it is deterministic,
// and it does not depend on where the column lands in C: the first numeric
// phase and the later ones (which find the columns in C already) give the
// same bits. write_row_of_terms, below, adds in the same order after the
// sort.
//
// Placing: a column's place in C's row is its rank among the row's columns.
// The first numeric phase sorts (a bitonic network, sorting/warp_bitonic.cuh).
// With K = 1, 2 and columns that leave room (kPackedColumns), each key
// carries its element's index below the column, so the sorted element
// fetches its sum itself: with K = 1 the representatives are sorted (the
// columns being distinct, a lane is its column's rank); with K = 2 the terms
// are sorted before any combining, a column's terms come out adjacent and
// the first adds them in the combining's order (write_row_of_terms, which
// such rows take in the later phases too: kernels/numeric/sort_rows.cuh).
// Otherwise only the representatives' columns are sorted and ranked, and
// each representative finds its column by a binary search over the sorted
// elements through shuffles, as later phases do in C's columns (which they
// take as they are if they still hold, kernels/known_columns.cuh's rule).
#pragma once

#include "cuda/accumulators/ordered_add.cuh"
#include "cuda/sorting/warp_bitonic.cuh"
#include "cuda/warp_shuffle.cuh"

#include <climits>

namespace spgemm::cuda {

// The key of elements without a column: larger than any column, sorts last.
inline constexpr int kNoColumn = INT_MAX;

// Warp-collective: element i (lane's own i, in [0, 32K)) of x.
template <int K>
__device__ __forceinline__ int element(const int (&x)[K], int i) {
  int v = __shfl_sync(kFullWarp, x[0], i & 31);
#pragma unroll
  for (int k = 1; k < K; ++k) {
    const int other = __shfl_sync(kFullWarp, x[k], i & 31);  // every lane shuffles
    if ((i >> 5) == k) v = other;
  }
  return v;
}

// Warp-collective: the last i whose element of the ascending `sorted` is at
// most key (0 if none is).
template <int K>
__device__ __forceinline__ int last_at_most(const int (&sorted)[K], int key) {
  int at = 0;
#pragma unroll
  for (int step = 16 * K; step > 0; step /= 2)
    if (element(sorted, at + step) <= key) at += step;  // at + step < 32K
  return at;
}

// Warp-collective: the key after element k * 32 + lane (kNoColumn after the
// last).
template <int K>
__device__ __forceinline__ int next_key(const int (&keys)[K], int k) {
  const int down = shfl(kFullWarp, keys[k], (lane_id() + 1) & 31);
  const int first_after = k + 1 < K ? shfl(kFullWarp, keys[k + 1 < K ? k + 1 : k], 0) : kNoColumn;
  return lane_id() == 31 ? first_after : down;
}

// Warp-collective: whether element k * 32 + lane of the ascending `sorted`
// is its column's first (a column, and not the element before's).
template <int K>
__device__ __forceinline__ bool starts_column(const int (&sorted)[K], int k) {
  const int lane = lane_id();
  const int up = __shfl_up_sync(kFullWarp, sorted[k], 1);
  const int last_before = __shfl_sync(kFullWarp, sorted[k > 0 ? k - 1 : 0], 31);
  const int previous = lane > 0 ? up : (k > 0 ? last_before : -1);
  return sorted[k] != kNoColumn && sorted[k] != previous;
}

// A row's terms after combining: representative[k] marks the lanes whose
// sums[k] is the sum of register k's terms of cols[k].
template <int K, class Value>
struct RegisterRow {
  int cols[K];
  Value sums[K];
  bool representative[K];

  // Warp-collective: combines the terms of (cols, terms); kNoColumn: none.
  __device__ __forceinline__ RegisterRow(const int (&term_cols)[K], const Value (&terms)[K]) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      cols[k] = term_cols[k];
      sums[k] = terms[k];
      representative[k] = cols[k] != kNoColumn;
      combine_in_lane_order<CombineSteps::warp>(representative[k], cols[k], sums[k]);
    }
  }

  // Keys that carry their element's index below the column (K = 1, 2):
  // (col << kIndexBits) | element, below kNoColumn for every column below
  // kPackedColumns.
  static constexpr int kIndexBits = K == 1 ? 5 : 6;
  static constexpr long long kPackedColumns = (1LL << (31 - kIndexBits)) - 1;

  // Warp-collective: C's row from scratch, in column order: store_col(j,
  // col) and store_value(j, value) for every column j of the row. packed:
  // every column is below kPackedColumns (which K = 1 uses; K = 2's rows
  // with such columns go to write_row_of_terms below).
  template <class StoreCol, class StoreValue>
  __device__ __forceinline__ void write_row(bool packed, Value* slots, StoreCol&& store_col,
                                            StoreValue&& store_value) const {
    const int lane = lane_id();
    if constexpr (K == 1) {
      if (packed) {
        // the key of each representative carries its lane; its column's
        // rank is where it lands, as the columns of K = 1 differ. The keys
        // are gathered in the first lanes (through the warp's 32 slots), so
        // the network sorts only as many elements as the row has columns,
        // rounded up to a power of two (G3_circuit: 13 on average)
        int* gathered = reinterpret_cast<int*>(slots);
        const unsigned reps = __ballot_sync(kFullWarp, representative[0]);
        const int count = __popc(reps);
        if (representative[0])
          gathered[__popc(reps & ((1u << lane) - 1))] =
              static_cast<int>(static_cast<unsigned>(cols[0]) << 5 | lane);
        __syncwarp();
        int key[1] = {lane < count ? gathered[lane] : kNoColumn};
        __syncwarp();  // the slots are reused by the next row
        warp_bitonic_sort(key, count <= 2 ? 2 : 1 << (32 - __clz(count - 1)));
        const Value sum = shfl(kFullWarp, sums[0], key[0] & 31);
        if (key[0] != kNoColumn) {
          store_col(lane, key[0] >> 5);
          store_value(lane, sum);
        }
        return;
      }
    }
    int sorted[K];
#pragma unroll
    for (int k = 0; k < K; ++k) sorted[k] = representative[k] ? cols[k] : kNoColumn;
    warp_bitonic_sort(sorted);
    // rank[k]: the place in C's row of sorted element k * 32 + lane's column
    const unsigned up_to_lane = 0xffffffffu >> (31 - lane);
    int rank[K];
    int count = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const bool first = starts_column(sorted, k);
      const unsigned firsts = __ballot_sync(kFullWarp, first);
      rank[k] = count + __popc(firsts & up_to_lane) - 1;
      if (first) store_col(rank[k], sorted[k]);
      count += __popc(firsts);
    }
    int place[K];
#pragma unroll
    for (int k = 0; k < K; ++k) place[k] = element(rank, last_at_most(sorted, cols[k]));
    add_values(place, count, slots, store_value);
  }

  // Warp-collective: C's row given its columns `known` (ascending, kNoColumn
  // past the row's end), if every representative's column is among them:
  // then store_value(j, value) for every column j, and true; otherwise
  // nothing (warp-uniform false).
  template <class StoreValue>
  __device__ __forceinline__ bool write_values(const int (&known)[K], int count, Value* slots,
                                               StoreValue&& store_value) const {
    int place[K];
    bool missing = false;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      place[k] = last_at_most(known, cols[k]);
      const int found = element(known, place[k]);  // (every lane shuffles)
      missing |= representative[k] && found != cols[k];
    }
    if (__any_sync(kFullWarp, missing)) return false;
    add_values(place, count, slots, store_value);
    return true;
  }

 private:
  // The representatives' sums to their places, register after register
  // (through the warp's 32K slots when K > 1).
  template <class StoreValue>
  __device__ __forceinline__ void add_values(const int (&place)[K], int count, Value* slots,
                                             StoreValue&& store_value) const {
    if constexpr (K == 1) {
      if (representative[0]) store_value(place[0], sums[0]);
    } else {
      const int lane = lane_id();
      for (int j = lane; j < count; j += 32) slots[j] = Value(0);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (representative[k]) slots[place[k]] += sums[k];
        __syncwarp();
      }
      for (int j = lane; j < count; j += 32) store_value(j, slots[j]);
      __syncwarp();  // the slots are reused by the next row
    }
  }
};

// write_row_of_terms where some column has more than one term: the sorted
// terms (term) go through the warp's 64 slots, and the first of each
// column's adds the others, register 0's from zero, then register 1's
// (those that come from key's register 1) summed apart if they are two or
// more after some of register 0's (bit 5 of a key is its element's
// register). Warp-collective.
template <class Value>
__device__ __forceinline__ void add_repeated_terms(const int (&key)[2], unsigned long long firsts,
                                                   Value* slots, Value (&term)[2]) {
  const int lane = lane_id();
  unsigned long long held = 0, highs = 0;  // bit i: sorted element i holds a term, from register 1
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const bool holds = key[k] != kNoColumn;
    held |= static_cast<unsigned long long>(__ballot_sync(kFullWarp, holds)) << (32 * k);
    highs |= static_cast<unsigned long long>(__ballot_sync(kFullWarp, holds && (key[k] & 32)))
             << (32 * k);
    slots[k * 32 + lane] = term[k];
  }
  __syncwarp();
  const int count = __popcll(held);  // (the held elements come first)
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int i = k * 32 + lane;
    Value sum = Value(0) + term[k];
    if ((firsts >> i) & 1) {
      const unsigned long long later = i < 63 ? firsts >> (i + 1) : 0;
      const int length = (later ? i + __ffsll(static_cast<long long>(later)) : count) - i;
      const unsigned long long run = length < 64 ? (1ull << length) - 1 : ~0ull;
      const int low = length - __popcll((highs >> i) & run);  // register 0's terms
      const bool apart = low > 0 && length - low >= 2;
      Value high_sum = Value(0);
      for (int step = 1; step < length; ++step) {
        const Value next = slots[i + step];
        if (apart && step >= low)
          high_sum += next;
        else
          sum += next;
      }
      if (apart) sum += high_sum;
    }
    term[k] = sum;
  }
  __syncwarp();  // the slots are reused by the next row
}

// Warp-collective, K = 2 with packed keys (every column below
// RegisterRow<2, Value>::kPackedColumns): C's row from scratch, from the
// row's terms as they are, not combined first. Each term's key carries its
// element's index below the column, so after the sort a column's terms
// are adjacent, in element order: register 0's in lane order, then register
// 1's. The first of them adds them up in the order RegisterRow's combining
// and add_values take: register 0's from zero, then register 1's sum added,
// which is the lone term itself or register 1's terms summed from zero.
// (Zero plus a sum from zero is that sum: only -0 + -0 gives -0.) So the
// bits are RegisterRow's, with no __match_any_sync per register. Where
// columns repeat, the sorted terms go through the warp's 64 slots; a warp
// whose columns all differ (most rows of uniform:500000:8) does not touch
// them.
template <class Value, class StoreCol, class StoreValue>
__device__ __forceinline__ void write_row_of_terms(const int (&term_cols)[2],
                                                   const Value (&terms)[2], Value* slots,
                                                   StoreCol&& store_col, StoreValue&& store_value) {
  constexpr int kIndexBits = RegisterRow<2, Value>::kIndexBits;
  const int lane = lane_id();
  int key[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
    key[k] =
        term_cols[k] != kNoColumn
            ? static_cast<int>(static_cast<unsigned>(term_cols[k]) << kIndexBits | (k * 32 + lane))
            : kNoColumn;
  warp_bitonic_sort(key);
  // sorted element i = k * 32 + lane: its column and term, and (bit i of
  // 64) whether it begins its column
  int col[2];
  Value sum[2];
  unsigned long long firsts = 0;
  bool repeats = false;  // some column has more than one term
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    col[k] = key[k] == kNoColumn ? kNoColumn : key[k] >> kIndexBits;
    const int from = key[k] & 31;  // (every lane shuffles)
    const Value low = shfl(kFullWarp, terms[0], from), high = shfl(kFullWarp, terms[1], from);
    sum[k] = (key[k] & 32) ? high : low;
  }
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const bool first = starts_column(col, k);
    firsts |= static_cast<unsigned long long>(__ballot_sync(kFullWarp, first)) << (32 * k);
    repeats |= col[k] != kNoColumn && !first;
  }
  if (__any_sync(kFullWarp, repeats)) {
    add_repeated_terms(key, firsts, slots, sum);
  } else {
#pragma unroll
    for (int k = 0; k < 2; ++k) sum[k] = Value(0) + sum[k];
  }
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int i = k * 32 + lane;
    if (!((firsts >> i) & 1)) continue;
    const int rank = __popcll(firsts & ((1ull << i) - 1));
    store_col(rank, col[k]);
    store_value(rank, sum[k]);
  }
}

}  // namespace spgemm::cuda
