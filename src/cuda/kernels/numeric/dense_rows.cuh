// SPDX-License-Identifier: Apache-2.0
// The numeric phase's dense bin: a block per row beyond every table, its
// terms summed at their columns' ranks or in dense windows of its range.
// (kernels/numeric.cuh launches it.)
#pragma once

#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/ranked_row.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/known_columns.cuh"
#include "cuda/kernels/ordered_loop.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace spgemm::cuda {

namespace {

// One block per long row (taken from a work counter: binning.cuh's RowQueue). A row whose
// column range is wider than one window of dense values, but whose values
// fit beside a bitmask over the range (accumulators/ranked_row.cuh), has
// its columns marked first (or read from C: reuse) and its terms summed at
// their columns' ranks in one pass; any other row takes a dense value array
// with a bitmask over windows of its range, each window numbering its own
// terms anew and compacted in column order. Which of the two a row takes
// follows from its length and range, the same in every numeric phase, and
// so do the bits. reuse: the range may also be read from C's first and last
// column (known_columns.cuh).
template <bool Addend, class Value, class Offset, class Col>
__global__ void __launch_bounds__(BinPolicy::dense_block_threads)
    dense_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, int window,
                         int lanes, bool reuse) {
  using BlockReduce = cub::BlockReduce<int, BinPolicy::dense_block_threads>;
  using BlockScan = cub::BlockScan<int, BinPolicy::dense_block_threads>;
  __shared__ union {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } temp;
  extern __shared__ __align__(16) unsigned char smem[];
  const DenseWindow<Value> acc{reinterpret_cast<Value*>(smem),
                               {reinterpret_cast<uint32_t*>(smem + sizeof(Value) * window)}};
  const ChunkScratch<Offset> scratch = chunk_scratch<BinPolicy::dense_block_threads, Offset>();

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
      accumulate_row<Addend, true, false>(
          args, row, threadIdx.x, blockDim.x, scratch,
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
    accumulate_row<Addend, true, false>(
        args, row, threadIdx.x, blockDim.x, scratch,
        [&](int col) {
          const int at = ranked.rank(col);
          missing |= at < 0;
          return at;
        },
        values, ColumnWindow{}, NumericPolicy::ranked_whole_rows_min_use);
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
  const RowQueue<true> queue{rows, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
  for (int i = queue.first(); i >= 0; i = queue.next(i)) {
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

}  // namespace

}  // namespace spgemm::cuda
