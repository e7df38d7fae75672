// SPDX-License-Identifier: Apache-2.0
// Numeric phase: the sorted columns and the values of every row of C.
// Compiled once per value type, so that the types build in parallel:
// CMakeLists.txt makes a source file per type from numeric_instance.cu.in.
#pragma once

#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/direct_row.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/ranked_row.cuh"
#include "cuda/accumulators/register_row.cuh"
#include "cuda/accumulators/thread_row.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/configs/launch.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/known_columns.cuh"
#include "cuda/kernels/lane_terms.cuh"
#include "cuda/kernels/ordered_loop.cuh"
#include "cuda/sorting/bitonic.cuh"
#include "cuda/sorting/block_compact.cuh"
#include "cuda/sorting/mask_rank.cuh"
#include "cuda/sorting/rank_scatter.cuh"
#include "cuda/sorting/warp_compact.cuh"
#include "cuda/sorting/warp_packed_sort.cuh"

#include "core/values.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace spgemm::cuda {

namespace {

// The kernels below are compiled with and without an addend D (the loop
// over D's entries, even when skipped at run time, slows the warp kernels by
// 40%: `spgemm-bench G3_circuit.mtx.gz`, num), and with the terms added in
// a fixed order (Ordered: kernels/ordered_loop.cuh, the default) or with
// shared-memory atomics in whatever order they come.

// One group per row: accumulate in a shared hash map, put it in column
// order (sorting/), copy out; or, where the row's columns span at most its
// table (all of B's columns do, or B's rows are sorted and the row's do),
// accumulate in direct slots, already in order
// (accumulators/direct_row.cuh). reuse: C's column indices may hold
// the row's columns already (kernels/known_columns.cuh); rows where they do
// only get their values.
// MaxThreads, MinBlocks: the __launch_bounds__ (configs/bins.hpp's
// numeric_min_blocks and kLeanBlockThreads).
template <Group G, bool Addend, bool Ordered, class Value, class Offset, class Col,
          int MaxThreads = max_block_threads(G), int MinBlocks = numeric_min_blocks(G)>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    hash_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, int log2_table,
                        int lanes, bool reuse) {
  extern __shared__ __align__(16) unsigned char smem[];
  const auto group = make_group<G>();
  const int per_block = groups_per_block<G>();
  const int slot = group_in_block<G>();
  const int table = 1 << log2_table;
  int* keys = reinterpret_cast<int*>(smem) + slot * table;
  Value* values = reinterpret_cast<Value*>(smem + sizeof(int) * per_block * table) + slot * table;
  // one int per row behind the tables, then for blocks the ordered adds'
  // scratch (configs/configs.cu sizes both)
  const size_t table_bytes = (sizeof(int) + sizeof(Value)) * per_block * table;
  int* counter = reinterpret_cast<int*>(smem + table_bytes) + slot;
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  const SharedHashMap<Value> map{keys, values, log2_table};
  long long* partial = nullptr;  // blocks: group_collectives.cuh's scratch
  if constexpr (G == Group::block) {
    __shared__ long long block_partial[32];
    partial = block_partial;
  }
  ChunkScratch<Offset> scratch{};
  if constexpr (Ordered && G == Group::warp) {  // blocks of a fixed size: static
    scratch = chunk_scratch<max_block_threads(G), Offset>();
    scratch.start += slot * threads;
    scratch.b_begin += slot * threads;
  } else if constexpr (Ordered) {
    scratch = chunk_scratch_at<Offset>(smem + scratch_offset(table_bytes + sizeof(int)), threads);
  }
  auto clear = [&] {
    for (int s = rank; s < table; s += threads) {
      keys[s] = kEmptyKey;
      values[s] = Value(0);
    }
    group.sync();
  };
  // The lean instance (configs/bins.hpp's kLeanBlockThreads) alone takes
  // the one-step chunks of ordered blocks (ordered_loop.cuh's
  // add_one_step_entries: see accumulate_row); the regular one alone sums
  // reused block rows at their ranks (below).
  constexpr bool kLean = MaxThreads <= kLeanBlockThreads;
  auto accumulate = [&](int row, auto&& locate) {
    accumulate_row<Addend, Ordered, G == Group::block, false, kLean>(
        args, row, rank, threads, lanes, scratch, locate, values);
    group.sync();
  };
  // reuse: whether C's columns are the row's (its values are written then)
  auto reuse_known_columns = [&](int row, Offset out, int len) {
    auto all_found = [&](auto&& find) {
      bool missing = false;
      accumulate(row, [&](int col) {
        const int at = find(col);
        missing |= at < 0;
        return at;
      });
      return !group_any<G>(missing);
    };
    // at their ranks where the range's mask fits the keys; only in the
    // regular instance: in the lean one it slows down even the first numeric
    // phase, which never takes them (`spgemm-bench bcsstk33.mtx.gz`, num and
    // num2)
    if constexpr (G == Group::block && !kLean) {
      RankedColumns ranked{};
      if (known_ranks_fit(args, out, len, reinterpret_cast<uint32_t*>(keys), table, table,
                          ranked)) {
        const bool known =
            rank_known_columns(args, out, len, ranked, values) &&
            all_found([&](int col) { return ranked.rank(col); });
        if (known) write_ranked_values(args, out, len, values);
        return known;
      }
    }
    clear();
    const bool known = claim_known_columns<G>(args, out, len, rank, threads, map) &&
                       all_found([&](int col) { return map.find(col); });
    if (known) write_known_values<G>(args, out, len, rank, threads, map);
    return known;
  };

  const RowSet::View rows = row_set.view();
  const RowTurns<G == Group::block> turns{rows, static_cast<int>(blockIdx.x) * per_block + slot,
                                          static_cast<int>(gridDim.x) * per_block};
  for (int i = turns.first(); i >= 0; i = turns.next(i)) {
    const int row = rows[i];
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    if (reuse && reuse_known_columns(row, out, len)) {
      group.sync();  // the table is reused by the next row
      continue;
    }
    // (rejected columns, claimed part way, or missing terms: the table
    // holds columns that are not the row's)
    clear();
    // the row's columns' range: all of B's where they fit the table (no
    // pass over the row: lp_ship04l, 402 columns), else where B's rows are
    // sorted the ends of those the row takes
    int lo = 0, hi = -1;
    if (args.B.num_cols <= table)
      hi = args.B.num_cols - 1;
    else if (args.b_rows_sorted())
      sorted_row_range<Addend>(args, row, rank, threads, partial, lo, hi);
    if (hi >= lo && hi - lo < table) {
      const DirectRow<Value> acc{reinterpret_cast<uint32_t*>(keys), values, lo, table};
      accumulate(row, [&](int col) { return acc.claim(col); });
      write_direct_row(acc, hi - lo + 1, rank, threads, args, out, len, partial);
    } else {
      accumulate(row, [&](int col) { return map.claim(col); });
      // a block's ordered scratch is free now: the table may be sorted where
      // it is (sorting/mask_rank.cuh)
      if constexpr (Ordered && G == Group::block) {
        const MaskSpace space =
            space_at(scratch.start, ordered_scratch_bytes(threads, sizeof(Offset)));
        if (scatter_sorted_by_mask(group, keys, values, table, space, 1, len, args.c_base,
                                   args.c_cols + out, args.c_values + out, partial)) {
          group.sync();  // the table and the scratch are reused by the next row
          continue;
        }
      }
      int sort_length;
      if constexpr (G == Group::warp) {
        sort_length = compact_warp_table(group, keys, values, table);
      } else {
        sort_length = compact_block_table(group, keys, values, table, args.c_cols + out,
                                          args.c_values + out, len, counter);
      }
      if (sort_length <= kRankSortMaxEntries) {
        scatter_sorted_by_rank(group, keys, values, sort_length, len, args.c_base,
                               args.c_cols + out, args.c_values + out);
      } else if (!scatter_sorted_by_mask(group, keys, values, sort_length,
                                         space_past(keys, values, sort_length, table),
                                         G == Group::block ? kMaskSortMaxWindows : 1, len,
                                         args.c_base, args.c_cols + out, args.c_values + out,
                                         partial)) {
        if constexpr (G == Group::warp) {
          if (warp_scatter_sorted_packed(keys, values, sort_length, args.B.num_cols, len,
                                         args.c_base, args.c_cols + out, args.c_values + out)) {
            group.sync();  // the table is reused by the next row
            continue;
          }
        }
        bitonic_sort_pairs(group, keys, values, sort_length);
        for (int s = rank; s < len && s < sort_length; s += threads) {
          args.c_cols[out + s] = static_cast<Col>(keys[s] + args.c_base);
          args.c_values[out + s] = values[s];
        }
      }
    }
    group.sync();  // the table is reused by the next row
  }
}

// The length of the row of B that A's entry at `a` names.
template <class Value, class Offset, class Col>
__device__ __forceinline__ long long b_row_length(const NumericArgs<Value, Offset, Col>& args,
                                                  Offset a) {
  const int k = args.A.col(a);
  return static_cast<long long>(args.B.end(k) - args.B.begin(k));
}

// The share [first, last) of `row`'s entries of A that part `part` of
// `parts` takes (split_numeric_kernel): the entries whose first term falls
// in the part's equal share of the row's terms, `total`. Block-collective.
template <class Value, class Offset, class Col>
__device__ void part_entries(const NumericArgs<Value, Offset, Col>& args, int row, int part,
                             int parts, long long total, long long* partial, int& first,
                             int& last) {
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const Offset a_begin = args.A.begin(row);
  const int entries = static_cast<int>(args.A.end(row) - a_begin);
  first = 0;
  last = 0;
  long long carry = 0;
  for (int chunk = 0; chunk < entries; chunk += threads) {
    const int e = chunk + rank;
    long long in_chunk = 0;
    const long long before =
        carry + group_exclusive_sum(e < entries ? b_row_length(args, a_begin + e) : 0, rank,
                                    threads, partial, in_chunk);
    const long long share = e >= entries ? parts : before * parts / total;
    first += __syncthreads_count(share < part);
    last += __syncthreads_count(share < part + 1);
    carry += in_chunk;
  }
}

// *p read from L2, past the SM's L1 (written by other blocks): __ldcg on
// the value's bytes, complex values too.
template <class Value>
__device__ __forceinline__ Value load_past_l1(const Value* p) {
  using Word = std::conditional_t<sizeof(Value) == 4, unsigned,
                                  std::conditional_t<sizeof(Value) == 8, unsigned long long, uint4>>;
  static_assert(sizeof(Word) == sizeof(Value) && alignof(Value) >= alignof(Word));
  const Word word = __ldcg(reinterpret_cast<const Word*>(p));
  Value value;
  memcpy(&value, &word, sizeof(Value));
  return value;
}

// The last hash bin's rows split among blocks (dispatch/choice.hpp's
// Choices::split_parts), deterministic mode, without D, B's columns all in the
// table's direct slots. Item i of rows * parts is part i % parts of the
// set's row i / parts; blocks draw the items in order, so the part a block
// waits for is always held by a running block. A row takes as many of its
// parts as it has kSplitRowsPartTerms terms, at least one; each sums the
// products of its share of the row's entries of A (part_entries) in direct
// slots in the bin's order (add_entries_in_order). Then, once the parts
// before it are done (the row's flag), a part adds its sums to the row's
// dense array in device memory and its columns to the row's mask (the
// first writes both whole), kSplitRowsAddBatch columns a thread at a time;
// the last adds them to its own slots instead and writes C's row from
// there. The same cut and the same order of adds in every numeric phase,
// so the same bits (the row is computed anew each time: C's known columns
// are not needed).
template <class Value, class Offset, class Col>
__global__ void __launch_bounds__(max_block_threads(Group::block), 1)
    split_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, SplitRows split) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ long long partial[32];
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const int width = split.width;
  const int words = split.words();
  // the hash kernel's layout (the bin's ordered_smem_bytes: the table, an
  // int, the ordered adds' scratch), the table's keys as the slots' bitmask
  const int table = split.table;
  const DirectRow<Value> acc{reinterpret_cast<uint32_t*>(smem),
                             reinterpret_cast<Value*>(smem + sizeof(int) * table), 0, width};
  const size_t table_bytes = (sizeof(int) + sizeof(Value)) * table;
  const ChunkScratch<Offset> scratch =
      chunk_scratch_at<Offset>(smem + scratch_offset(table_bytes + sizeof(int)), threads);
  const RowSet::View rows = row_set.view();
  for (int i = draw_row(split.draws, rows.size * split.parts); i >= 0;
       i = draw_row(split.draws, rows.size * split.parts)) {
    const int r = i / split.parts;
    const int part = i % split.parts;
    const int row = rows[r];
    const Offset a_begin = args.A.begin(row);
    long long mine = 0, total = 0;
    for (Offset a = a_begin + rank; a < args.A.end(row); a += threads)
      mine += b_row_length(args, a);
    group_exclusive_sum(mine, rank, threads, partial, total);
    const int parts = static_cast<int>(
        min(static_cast<long long>(split.parts), max(1LL, total / kSplitRowsPartTerms)));
    if (part >= parts) continue;  // (block-uniform)
    for (int c = rank; c < width; c += threads) acc.values[c] = Value(0);
    for (int w = rank; w < words; w += threads) acc.free_bits[w] = ~0u;
    int first, last;
    part_entries(args, row, part, parts, total, partial, first, last);  // (orders the clearing)
    add_entries_in_order<true>(args, a_begin + first, last - first, rank, threads, scratch,
                               ColumnWindow{}, args.b_rows_sorted(),
                               [&](int col, int& slot) { return (slot = acc.claim(col)) >= 0; },
                               acc.values);
    __syncthreads();
    Value* dense = static_cast<Value*>(split.dense) + static_cast<long long>(r) * width;
    uint32_t* mask = split.masks + static_cast<long long>(r) * words;
    ::cuda::atomic_ref<int, ::cuda::thread_scope_device> flag(split.flags[r]);
    if (part > 0) {
      if (rank == 0) {
        while (flag.load(::cuda::memory_order_acquire) != part) __nanosleep(64);
        __threadfence();
      }
      __syncthreads();
    }
    const bool to_c = part + 1 == parts;  // (else into the row's arrays)
    if (part > 0 || !to_c) {
      // (the first part writes every column, 0 where it has nothing; a
      // later one those it has, and the last takes the others' sums as
      // they are)
      for (int c0 = rank; c0 < width; c0 += kSplitRowsAddBatch * threads) {
        bool own[kSplitRowsAddBatch];
        Value before[kSplitRowsAddBatch];
#pragma unroll
        for (int j = 0; j < kSplitRowsAddBatch; ++j) {
          const int c = c0 + j * threads;
          own[j] = c < width && (part == 0 || !(acc.free_bits[c >> 5] >> (c & 31) & 1u));
          before[j] = part > 0 && c < width && (own[j] || to_c) ? load_past_l1(dense + c)
                                                                : Value(0);
        }
#pragma unroll
        for (int j = 0; j < kSplitRowsAddBatch; ++j) {
          const int c = c0 + j * threads;
          if (own[j] && to_c) acc.values[c] = before[j] + acc.values[c];
          else if (own[j]) dense[c] = before[j] + acc.values[c];
          else if (to_c && c < width) acc.values[c] = before[j];
        }
      }
      __syncthreads();  // (the last part's own columns were read above)
      for (int w = rank; w < words; w += threads) {
        const uint32_t used = ~acc.free_bits[w];
        const uint32_t all = part > 0 ? load_past_l1(mask + w) | used : used;
        if (to_c) acc.free_bits[w] = ~all;
        else mask[w] = all;
      }
    }
    if (!to_c) {
      __threadfence();
      __syncthreads();
      if (rank == 0) flag.store(part + 1, ::cuda::memory_order_release);
      continue;  // (draw_row's barrier frees the slots)
    }
    __syncthreads();
    const Offset out = args.c_begin(row);
    write_direct_row(acc, width, rank, threads, args, out, static_cast<int>(args.c_end(row) - out),
                     partial);
  }
}

// One block per long row (drawn, binning.cuh's RowTurns). A row whose
// column range is wider than one window of dense values, but whose values
// fit beside a bitmask over the range (accumulators/ranked_row.cuh), has
// its columns marked first (or read from C: reuse) and its terms summed at
// their columns' ranks in one pass; any other row takes a dense value array
// with a bitmask over windows of its range, each window numbering its own
// terms anew and compacted in column order. Which of the two a row takes
// follows from its length and range, the same in every numeric phase, and
// so do the bits. reuse: the range may also be read from C's first and last
// column (known_columns.cuh).
template <bool Addend, bool Ordered, class Value, class Offset, class Col>
__global__ void __launch_bounds__(kDenseBlockThreads)
    dense_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, int window,
                         int lanes, bool reuse) {
  using BlockReduce = cub::BlockReduce<int, kDenseBlockThreads>;
  using BlockScan = cub::BlockScan<int, kDenseBlockThreads>;
  __shared__ union {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } temp;
  extern __shared__ __align__(16) unsigned char smem[];
  const DenseWindow<Value> acc{reinterpret_cast<Value*>(smem),
                               {reinterpret_cast<uint32_t*>(smem + sizeof(Value) * window)}};
  ChunkScratch<Offset> scratch{};
  if constexpr (Ordered) scratch = chunk_scratch<kDenseBlockThreads, Offset>();

  // The row's entries in columns [lo, hi], window by window; returns how
  // many the row has there (block-uniform).
  auto fill_windows = [&](int row, Offset out, int len, int lo, int hi) {
    // more than one window: each numbers only its own terms (ColumnWindow)
    const bool windows = hi - lo >= window;
    int written = 0;
    for (long long w0 = lo; w0 <= hi && written < len; w0 += window) {
      // only the part of the window the row's column span reaches
      const long long reach = hi - w0 + 1;
      const int span = reach < window ? static_cast<int>(reach) : window;
      const int words = (span + 31) / 32;
      for (int s = threadIdx.x; s < span; s += blockDim.x) acc.values[s] = Value(0);
      for (int w = threadIdx.x; w < words; w += blockDim.x) acc.mask.words[w] = 0;
      __syncthreads();
      accumulate_row<Addend, Ordered, true, true, false>(
          args, row, threadIdx.x, blockDim.x, lanes, scratch,
          [&](int col) {
            const long long offset = col - w0;
            if (offset < 0 || offset >= window) return -1;
            acc.mask.set(static_cast<int>(offset));
            return static_cast<int>(offset);
          },
          acc.values, windows ? ColumnWindow{w0, w0 + window} : ColumnWindow{});
      __syncthreads();
      int window_total;
      const WordRun run = word_run<BlockScan>(acc.mask.words, words, temp.scan, window_total);
      for_each_set_bit(acc.mask.words, run, [&](int place, int offset) {
        if (written + place < len) {
          args.c_cols[out + written + place] = static_cast<Col>(w0 + offset + args.c_base);
          args.c_values[out + written + place] = acc.values[offset];
        }
      });
      written += window_total;
      __syncthreads();
    }
    return written;
  };

  // The row at its columns' ranks over [lo, hi]: C's columns if `known`
  // (then only the values are written), else the terms'. Block-uniform.
  enum class Ranked { done, windows, rejected };  // rejected: C's columns are not the row's
  auto fill_ranked = [&](int row, Offset out, int len, int lo, int hi, bool known) {
    const int words = static_cast<int>((static_cast<long long>(hi) - lo + 32) / 32);
    if (hi - lo < window || len == 0 ||
        kRankedBytesPer32Columns * words + sizeof(Value) * len >
            sizeof(Value) * window + window / 8)  // launch_bins' size
      return Ranked::windows;
    Value* values = reinterpret_cast<Value*>(smem);
    const RankedColumns ranked{{reinterpret_cast<uint32_t*>(values + len)},
                               reinterpret_cast<int*>(values + len) + words, lo, hi - lo + 1};
    WordRun run{};
    if (known) {  // (the counts from C's ranks, no scan)
      if (!rank_known_columns(args, out, len, ranked, values)) return Ranked::rejected;
    } else {
      for (int w = threadIdx.x; w < words; w += blockDim.x) ranked.mask.words[w] = 0;
      for (int s = threadIdx.x; s < len; s += blockDim.x) values[s] = Value(0);
      __syncthreads();
      for_each_column_in_block<Addend>(args.A, args.B, args.D, row,
                                       [&](int col) { ranked.mark(col); });
      __syncthreads();
      int total;
      run = word_run<BlockScan>(ranked.mask.words, words, temp.scan, total);
      for (int w = run.first, before = run.before; w < run.last; ++w) {
        ranked.before[w] = before;
        before += __popc(ranked.mask.words[w]);
      }
      // (terms in more columns than C's offsets give the row: the windows,
      // which write no more than the row holds)
      if (__syncthreads_or(total != len)) return Ranked::windows;
    }
    // every term must find its column among C's (C's len columns then are
    // the row's len distinct ones)
    bool missing = false;
    accumulate_row<Addend, Ordered, true, true, false>(
        args, row, threadIdx.x, blockDim.x, lanes, scratch,
        [&](int col) {
          const int at = ranked.rank(col);
          missing |= at < 0;
          return at;
        },
        values, ColumnWindow{}, kRankedWholeRowsMinUse);
    if (__syncthreads_or(missing)) return Ranked::rejected;
    write_ranked_values(args, out, len, values);
    if (!known) {
      for_each_set_bit(ranked.mask.words, run, [&](int place, int offset) {
        args.c_cols[out + place] = static_cast<Col>(lo + offset + args.c_base);
      });
    }
    __syncthreads();
    return Ranked::done;
  };

  const RowSet::View rows = row_set.view();
  const bool b_sorted = args.b_rows_sorted();
  const RowTurns<true> turns{rows, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
  for (int i = turns.first(); i >= 0; i = turns.next(i)) {
    const int row = rows[i];
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    int lo, hi;
    if (reuse && known_column_range(args, out, len, lo, hi)) {
      const Ranked r = fill_ranked(row, out, len, lo, hi, true);
      // a range from C's columns that missed terms leaves the row short
      if (r == Ranked::done ||
          (r == Ranked::windows && fill_windows(row, out, len, lo, hi) == len))
        continue;
    }
    product_column_range<Addend, Offset, Col, BlockReduce>(args.A, args.B, args.D, row, lanes,
                                                           window, b_sorted, temp.reduce, lo, hi);
    if (fill_ranked(row, out, len, lo, hi, false) != Ranked::done)
      fill_windows(row, out, len, lo, hi);
  }
}

// A warp per row of at most 32 * K terms (configs/bins.hpp's sort bins): the
// terms in registers, summed per column (accumulators/register_row.cuh),
// C's row written in column order. reuse: C's columns may hold the row's
// columns already; if they do, only the values are written (rows of 32
// terms, and of 64 whose keys do not pack). Deterministic in
// either mode, with the same bits in the first numeric phase and the later
// ones.
template <int K, bool Addend, class Value, class Offset, class Col>
__global__ void __launch_bounds__(kSortBlockThreads)
    sort_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, bool reuse) {
  // the warps' slots (RegisterRow: values for K > 1, keys for K = 1), raw:
  // Value may have a constructor
  constexpr size_t kSlotBytes = kSortBlockThreads * K * sizeof(Value);
  __shared__ __align__(16) unsigned char slot_bytes[kSlotBytes];
  Value* slots = reinterpret_cast<Value*>(slot_bytes) + (threadIdx.x / 32) * 32 * K;
  const int warps = blockDim.x / 32;
  const RowSet::View rows = row_set.view();
  using Row = RegisterRow<K, Value>;
  // (keys that carry their element's index: K = 1's representatives, or
  // K = 2's terms, write_row_of_terms)
  const bool packed = args.B.num_cols <= Row::kPackedColumns;
  for (int i = blockIdx.x * warps + threadIdx.x / 32; i < rows.size; i += gridDim.x * warps) {
    const int row = rows[i];
    int cols[K];
    Value terms[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      cols[k] = kNoColumn;
      terms[k] = Value(0);
    }
    for_lane_terms<K, Addend>(
        args.A, args.B, args.D, row,
        [&](int k, int col, Offset a, Offset b) {
          cols[k] = col;
          terms[k] = args.product(a, b);
        },
        [&](int k, int col, Offset d) {
          cols[k] = col;
          terms[k] = args.addend(d);
        });
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    // (places at or past len: C's offsets disagree with the terms)
    auto store_value = [&](int j, Value v) {
      if (j < len) args.c_values[out + j] = v;
    };
    auto store_col = [&](int j, int col) {
      if (j < len) args.c_cols[out + j] = static_cast<Col>(col + args.c_base);
    };
    if constexpr (K == 2) {
      // Rows of 64 terms whose keys pack are written from their sorted
      // terms in every phase: faster than finding their columns among C's
      // (`spgemm-bench --gen uniform:500000:8`, num2).
      if (packed) {
        write_row_of_terms(cols, terms, slots, store_col, store_value);
        continue;
      }
    }
    const Row acc(cols, terms);
    int known[K];
    if (reuse && load_known_columns(args, out, len, known) &&
        acc.write_values(known, len, slots, store_value))
      continue;
    acc.write_row(packed, slots, store_col, store_value);
  }
}

// A thread per row of at most kThreadRowTerms terms (configs/bins.hpp's
// thread bin): the row's columns in order and their sums in the thread's
// slots (accumulators/thread_row.cuh), then each of the warp's rows written
// by the whole warp, a column a lane, from slots staggered across the banks
// (ThreadRow::stagger; read in place, a row's slots share one bank:
// `spgemm-bench G3_circuit.mtx.gz --gen poisson2d:700`, num). Later numeric
// phases do the same (finding the row's columns in C and writing only the
// values is slower, `spgemm-bench G3_circuit.mtx.gz`, num2), so the bits
// are the same in all.
template <bool Addend, class Value, class Offset, class Col>
__global__ void __launch_bounds__(kThreadRowBlockThreads)
    thread_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set) {
  constexpr int kThreads = kThreadRowBlockThreads, kSlots = kThreadRowTerms;
  __shared__ int col_slots[kSlots * kThreads];
  // raw: Value may have a constructor
  __shared__ __align__(16) unsigned char value_bytes[kSlots * kThreads * sizeof(Value)];
  const int lane = lane_id();
  const int warp_first = static_cast<int>(threadIdx.x) - lane;  // the warp's thread 0
  const RowSet::View rows = row_set.view();
  for (int first = static_cast<int>(blockIdx.x) * kThreads + warp_first; first < rows.size;
       first += static_cast<int>(gridDim.x) * kThreads) {  // (warp-uniform)
    using Row = ThreadRow<kSlots, kThreads, Value>;
    Row acc{col_slots + threadIdx.x, reinterpret_cast<Value*>(value_bytes) + threadIdx.x};
    Offset out = 0;
    int len = 0;
    if (first + lane < rows.size) {
      const int row = rows[first + lane];
      out = args.c_begin(row);
      len = static_cast<int>(args.c_end(row) - out);
      for_row_terms<Addend>(
          args.A, args.B, args.D, row, [&](Offset a) { return args.a_values[a]; },
          [&](Offset b) { return args.b_values[b]; },
          [&](int col, Value a_ik, Value b_kj) { return acc.add(col, args.term(a_ik, b_kj)); },
          [&](int col, Offset d) { return acc.add(col, args.addend(d)); });
    }
    // the warp's rows one after the other, a column a lane (at most len of
    // them: C's offsets may disagree with the terms)
    const int written = acc.count < len ? acc.count : len;
    // Reconverges the warp after its lanes' rows of different lengths, so
    // that stagger's collectives start from a converged warp; without it the
    // kernel runs markedly slower on G3_circuit and poisson2d:700 (bench/
    // device_ab.sh with and without this line).
    __syncwarp();
    acc.stagger(lane, written);
    for (int r = 0; r < 32; ++r) {
      const int n = __shfl_sync(kFullWarp, written, r);
      const Offset at = shfl(kFullWarp, out, r) + lane;
      if (lane < n) {
        const int slot = warp_first + Row::staggered(r, lane);
        args.c_cols[at] = static_cast<Col>(col_slots[slot] + args.c_base);
        args.c_values[at] = reinterpret_cast<const Value*>(value_bytes)[slot];
      }
    }
    __syncwarp();  // the slots are reused by the warp's next rows
  }
}

// A hash bin's launch of `kernel` (an instance of hash_numeric_kernel).
template <class Kernel, class Value, class Offset, class Col>
void launch_hash_bin(Kernel kernel, const DeviceLimits& limits, const HashBinLaunch& b,
                     size_t smem, RowSet set, int rows_in_set,
                     const NumericArgs<Value, Offset, Col>& args, int lanes, bool reuse,
                     cudaStream_t stream) {
  const int threads = b.spec.block_threads;
  const int grid =
      grid_for(rows_in_set, b.rows_per_block, resident_blocks(kernel, threads, smem, limits));
  const int group_threads = b.spec.group == Group::block ? threads : static_cast<int>(b.spec.group);
  launch(kernel, grid, threads, smem, stream, args, set, log2_of_pow2(b.spec.table_size),
         std::min(lanes, group_threads), reuse);
}

// The numeric phase's launches: for each of the schedule's launches the
// kernel that Choices::numeric_kernel names (dispatch/choice.hpp).
template <bool Addend, bool Ordered, class Value, class Offset, class Col>
void launch_bins(const Choices& choices, const NumericArgs<Value, Offset, Col>& args, int rows,
                 int lanes, bool reuse, const Schedule& s, const LaunchStreams& streams) {
  const DeviceLimits& limits = choices.limits();
  const BinLayout& layout = choices.layout(Phase::numeric);
  for_each_scheduled_bin(layout, rows, s, streams, [&](int bin, RowSet set, int rows_in_set,
                                                       cudaStream_t stream) {
    auto block = hash_numeric_kernel<Group::block, Addend, Ordered, Value, Offset, Col>;
    auto lean = hash_numeric_kernel<Group::block, Addend, Ordered, Value, Offset, Col,
                                    kLeanBlockThreads, kLeanBlockMinBlocks>;
    const HashBinLaunch* b = bin < layout.dense_bin() ? &layout.hash[bin] : nullptr;
    const size_t tables = b ? (Ordered ? b->ordered_smem_bytes : b->smem_bytes) : 0;
    const ResidentBlocks resident = [&](NumericKernel k) {
      return k == NumericKernel::block_hash_lean
                 ? resident_blocks(lean, b->spec.block_threads, tables, limits)
                 : resident_blocks(block, b->spec.block_threads, tables, limits);
    };
    const NumericLaunch q{bin, rows_in_set, s.thread_rows, s.split.parts > 0, Ordered};
    switch (choices.numeric_kernel(q, resident)) {
      case NumericKernel::dense_window: {
        auto kernel = dense_numeric_kernel<Addend, Ordered, Value, Offset, Col>;
        const size_t smem_limit = dynamic_smem_limit(kernel, limits);
        // window * sizeof(Value) bytes of values + window / 8 bytes of bitmask
        const int window = static_cast<int>(smem_limit * 8 / (8 * sizeof(Value) + 1)) / 32 * 32;
        const size_t smem = sizeof(Value) * window + window / 8;
        const int grid =
            grid_for(rows_in_set, 1, resident_blocks(kernel, kDenseBlockThreads, smem, limits));
        launch(kernel, grid, kDenseBlockThreads, smem, stream, args, set, window, lanes, reuse);
        return;
      }
      case NumericKernel::thread_row: {
        auto kernel = thread_numeric_kernel<Addend, Value, Offset, Col>;
        const int grid = grid_for(
            rows_in_set, kThreadRowBlockThreads,
            resident_blocks(kernel, kThreadRowBlockThreads, 0, limits, kThreadNumericCarveout));
        launch(kernel, grid, kThreadRowBlockThreads, 0, stream, args, set);
        return;
      }
      case NumericKernel::sort_row_1:
      case NumericKernel::sort_row_2:
        with_sort_registers(layout.sort_registers(bin), [&](auto k) {
          auto kernel = sort_numeric_kernel<k, Addend, Value, Offset, Col>;
          const int grid = grid_for(rows_in_set, kSortBlockThreads / 32,
                                    resident_blocks(kernel, kSortBlockThreads, 0, limits));
          launch(kernel, grid, kSortBlockThreads, 0, stream, args, set, reuse);
        });
        return;
      case NumericKernel::split_row:
        if constexpr (Ordered && !Addend) {  // (Choices::split_parts: only there)
          auto kernel = split_numeric_kernel<Value, Offset, Col>;
          const int threads = b->spec.block_threads;
          const size_t smem = b->ordered_smem_bytes;
          const int grid = grid_for(static_cast<long long>(rows_in_set) * s.split.parts, 1,
                                    resident_blocks(kernel, threads, smem, limits));
          launch(kernel, grid, threads, smem, stream, args, set, s.split);
          return;
        }
        break;
      case NumericKernel::warp_hash:
        launch_hash_bin(hash_numeric_kernel<Group::warp, Addend, Ordered, Value, Offset, Col>,
                        limits, *b, tables, set, rows_in_set, args, lanes, reuse, stream);
        return;
      case NumericKernel::block_hash:
        launch_hash_bin(block, limits, *b, tables, set, rows_in_set, args, lanes, reuse, stream);
        return;
      case NumericKernel::block_hash_lean:
        launch_hash_bin(lean, limits, *b, tables, set, rows_in_set, args, lanes, reuse, stream);
        return;
      case NumericKernel::count:
        break;
    }
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "no numeric kernel for the choice");
  });
}

}  // namespace

template <class Value, class Offset, class Col>
void launch_numeric(const Choices& choices, const NumericArgs<Value, Offset, Col>& args, int rows,
                    int lanes, bool ordered, bool reuse, const Schedule& schedule,
                    const LaunchStreams& streams) {
  with_flag(args.D.offsets != nullptr, [&](auto addend) {
    with_flag(ordered, [&](auto in_order) {
      launch_bins<addend, in_order>(choices, args, rows, lanes, reuse, schedule, streams);
    });
  });
}

// Instantiates launch_numeric for one value type and index layout.
#define SPGEMM_INSTANTIATE_NUMERIC(Value, Offset, Col)                                        \
  template void launch_numeric<Value, Offset, Col>(                                           \
      const Choices&, const NumericArgs<Value, Offset, Col>&, int, int, bool, bool,            \
      const Schedule&, const LaunchStreams&);

}  // namespace spgemm::cuda
