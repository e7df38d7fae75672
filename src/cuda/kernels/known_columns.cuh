// SPDX-License-Identifier: Apache-2.0
// Structure reuse in the numeric phase. From the second spgemmNumeric of a
// plan on, C's column indices are normally the ones the previous numeric
// phase wrote there (sorted, same arrays), so a row's accumulator can be
// keyed by them before any term arrives: no sorting, no column writes, only
// the values. Nothing is taken on trust. A row's columns are used only if
// they are in range and strictly ascending and every term of the row finds
// its column among them; the row has as many entries as its terms have
// distinct columns (the symbolic phase counted them), so those checks make
// them exactly the row's columns. Any other row (its columns overwritten or
// poisoned by the caller, say) is computed in full, as the first time. Hash
// rows of blocks and dense rows mark them in a bitmask over their range and
// sum each term at its column's rank where that fits; other hash rows claim
// them in their table; sort-bin rows of 32 terms hold them in registers and
// search them (rows of 64 are summed from their sorted terms every time,
// accumulators/register_row.cuh, which is faster).
#pragma once

#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/ranked_row.cuh"
#include "cuda/accumulators/register_row.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/kernels/kernels.hpp"

namespace spgemm::cuda {

// Whether p holds on any thread of the group; the group's shared-memory
// writes before it are seen by all after it. Group-collective.
template <Group G>
__device__ __forceinline__ bool group_any(bool p) {
  if constexpr (G == Group::block) {
    return __syncthreads_or(p) != 0;
  } else {
    __syncwarp();
    return __any_sync(0xffffffffu, p) != 0;
  }
}

// Column j of C's row (from `out`), zero-based, in 64 bits so that any value
// a caller may have left there can be range-checked.
template <class Value, class Offset, class Col>
__device__ __forceinline__ long long c_column(const NumericArgs<Value, Offset, Col>& args,
                                              Offset out, int j) {
  return static_cast<long long>(args.c_cols[out + j]) - args.c_base;
}

// Columns of C a group's threads load at once (configs/bins.hpp's
// NumericPolicy::known_columns_batch for blocks; warps one at a time).
template <Group G>
__device__ constexpr int known_columns_batch() {
  return G == Group::block ? NumericPolicy::known_columns_batch : 1;
}

// f(j, col, next) for each of the row's columns in C (len entries from
// `out`), j from rank on by `threads`: col is C's column j, next (Next) its
// column j + 1 or `after` past the last. Each thread loads Batch columns
// (with Next, their successors too) before it calls f on any.
template <int Batch, bool Next, class Value, class Offset, class Col, class F>
__device__ __forceinline__ void for_each_known_column(const NumericArgs<Value, Offset, Col>& args,
                                                      Offset out, int len, int rank, int threads,
                                                      long long after, F&& f) {
  for (int j0 = rank; j0 < len; j0 += Batch * threads) {
    long long col[Batch], next[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const int j = j0 + u * threads;
      col[u] = j < len ? c_column(args, out, j) : 0;
      if constexpr (Next) next[u] = j + 1 < len ? c_column(args, out, j + 1) : after;
    }
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const int j = j0 + u * threads;
      if (j >= len) break;
      f(j, col[u], Next ? next[u] : after);
    }
  }
}

// Claims C's columns of the row (len entries from `out`) in map; returns,
// group-uniformly, whether they are in [0, cols of C) and strictly
// ascending. Group-collective.
template <Group G, class Value, class Offset, class Col>
__device__ bool claim_known_columns(const NumericArgs<Value, Offset, Col>& args, Offset out,
                                    int len, int rank, int threads,
                                    const SharedHashMap<Value>& map) {
  bool bad = false;
  for_each_known_column<known_columns_batch<G>(), true>(
      args, out, len, rank, threads, args.B.num_cols, [&](int, long long col, long long next) {
        if (col < 0 || col >= next) bad = true;
        else map.claim(static_cast<int>(col));
      });
  return !group_any<G>(bad);
}

// C's values of a row whose columns claim_known_columns accepted and whose
// terms all found them. Group-collective.
template <Group G, class Value, class Offset, class Col>
__device__ void write_known_values(const NumericArgs<Value, Offset, Col>& args, Offset out,
                                   int len, int rank, int threads,
                                   const SharedHashMap<Value>& map) {
  for_each_known_column<known_columns_batch<G>(), false>(
      args, out, len, rank, threads, 0, [&](int j, long long col, long long) {
        args.c_values[out + j] = map.values[map.find(static_cast<int>(col))];
      });
}

// The column range of a dense-window row from its first and last column in
// C; false (compute it from the terms) if they are not a valid range. A range
// that misses some of the row's terms leaves the row with fewer entries than
// its length, which the dense kernel checks.
template <class Value, class Offset, class Col>
__device__ bool known_column_range(const NumericArgs<Value, Offset, Col>& args, Offset out,
                                   int len, int& lo, int& hi) {
  if (len == 0) return false;
  const long long first = c_column(args, out, 0), last = c_column(args, out, len - 1);
  if (first < 0 || first > last || last >= args.B.num_cols) return false;
  lo = static_cast<int>(first);
  hi = static_cast<int>(last);
  return true;
}

// A block's reused row whose mask and counts over the range of C's columns
// (accumulators/ranked_row.cuh; from C's first and last column, [lo, hi])
// fit `words` 4-byte words at `at`, and its values (at their ranks) fit
// `value_slots`: ranked is set and true (block-uniform) if they do. Hash
// rows take the table's keys for the words and its first len values: a
// column's rank instead of a hashed slot, so no claims, no probing, and
// the values go out in C's order.
template <class Value, class Offset, class Col>
__device__ bool known_ranks_fit(const NumericArgs<Value, Offset, Col>& args, Offset out, int len,
                                uint32_t* at, int words, int value_slots, RankedColumns& ranked) {
  int lo, hi;
  if (len > value_slots || !known_column_range(args, out, len, lo, hi)) return false;
  const int needed = (hi - lo) / 32 + 1;
  if (2 * static_cast<long long>(needed) > words) return false;
  ranked = RankedColumns{{at}, reinterpret_cast<int*>(at) + needed, lo, hi - lo + 1};
  return true;
}

// Marks C's known columns of a row (len entries from `out`) in ranked's
// mask, with each word's count the rank of its first column, and zeroes
// the row's values at their ranks; returns, block-uniformly, whether the
// columns are strictly ascending within ranked's range (then the mask holds
// exactly len of them). Block-collective.
template <class Value, class Offset, class Col>
__device__ bool rank_known_columns(const NumericArgs<Value, Offset, Col>& args, Offset out,
                                   int len, const RankedColumns& ranked, Value* values) {
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (int w = rank; w < ranked.words(); w += threads) ranked.mask.words[w] = 0;
  __syncthreads();
  const long long after = static_cast<long long>(ranked.lo) + ranked.span;
  bool bad = false;
  for_each_known_column<NumericPolicy::known_columns_batch, true>(
      args, out, len, rank, threads, after, [&](int j, long long col, long long next) {
        if (col < ranked.lo || col >= next) {  // (the last is below `after`)
          bad = true;
          return;
        }
        ranked.mark(static_cast<int>(col));
        values[j] = Value(0);
        const unsigned word = ranked.offset_of(static_cast<int>(col)) / 32;
        if (j == 0) ranked.before[word] = 0;
        // (a column past the range is not ascending, and rejected)
        if (next < after) {
          const unsigned next_word = ranked.offset_of(static_cast<int>(next)) / 32;
          if (next_word != word) ranked.before[next_word] = j + 1;
        }
      });
  return __syncthreads_or(bad) == 0;
}

// C's values of a block's row summed at its columns' ranks (`values`, len
// of them, in C's order). Block-collective.
template <class Value, class Offset, class Col>
__device__ __forceinline__ void write_ranked_values(const NumericArgs<Value, Offset, Col>& args,
                                                    Offset out, int len, const Value* values) {
  for (int j = threadIdx.x; j < len; j += blockDim.x) args.c_values[out + j] = values[j];
}

// A sort-bin row's columns in C (len entries from `out`) as the elements of
// a register row (accumulators/register_row.cuh; kNoColumn past the end);
// false (warp-uniform) unless they are in range and strictly ascending.
// Warp-collective.
template <int K, class Value, class Offset, class Col>
__device__ __forceinline__ bool load_known_columns(const NumericArgs<Value, Offset, Col>& args,
                                                   Offset out, int len, int (&known)[K]) {
  bool bad = len > 32 * K;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = k * 32 + lane_id();
    known[k] = kNoColumn;
    if (j < len && !bad) {
      const long long col = c_column(args, out, j);
      if (col < 0 || col >= args.B.num_cols) bad = true;
      else known[k] = static_cast<int>(col);
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int next = next_key(known, k);  // (every lane shuffles)
    if (known[k] != kNoColumn && next <= known[k]) bad = true;
  }
  return !__any_sync(kFullWarp, bad);
}

}  // namespace spgemm::cuda
