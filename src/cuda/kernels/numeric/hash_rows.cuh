// SPDX-License-Identifier: Apache-2.0
// The numeric phase's hash bins: a warp or a block per row, its terms summed
// in a shared-memory hash table or direct slots, put in column order.
// (kernels/numeric.cuh launches it.)
#pragma once

#include "cuda/accumulators/direct_row.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/ranked_row.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/known_columns.cuh"
#include "cuda/kernels/ordered_loop.cuh"
#include "cuda/sorting/bitonic.cuh"
#include "cuda/sorting/block_compact.cuh"
#include "cuda/sorting/mask_rank.cuh"
#include "cuda/sorting/rank_scatter.cuh"
#include "cuda/sorting/warp_compact.cuh"
#include "cuda/sorting/warp_packed_sort.cuh"

namespace spgemm::cuda {

namespace {

// One group per row: accumulate in a shared hash map, put it in column
// order (sorting/), copy out; or, where the row's columns span at most its
// table (all of B's columns do, or B's rows are sorted and the row's do),
// accumulate in direct slots, already in order
// (accumulators/direct_row.cuh). reuse: C's column indices may hold
// the row's columns already (kernels/known_columns.cuh); rows where they do
// only get their values.
// MaxThreads, MinBlocks: the __launch_bounds__ (configs/bins.hpp's
// numeric_min_blocks and NumericPolicy::lean_block_threads).
template <Group G, bool Addend, class Value, class Offset, class Col,
          int MaxThreads = max_block_threads(G), int MinBlocks = numeric_min_blocks(G)>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    hash_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, int log2_table,
                        bool reuse) {
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
  if constexpr (G == Group::warp) {  // blocks of a fixed size: static
    scratch = chunk_scratch<max_block_threads(G), Offset>();
    scratch.start += slot * threads;
    scratch.b_begin += slot * threads;
  } else {
    scratch = chunk_scratch_at<Offset>(smem + scratch_offset(table_bytes + sizeof(int)), threads);
  }
  auto clear = [&] {
    for (int s = rank; s < table; s += threads) {
      keys[s] = kEmptyKey;
      values[s] = Value(0);
    }
    group.sync();
  };
  // The lean instance (configs/bins.hpp's NumericPolicy::lean_block_threads) alone takes
  // the one-step chunks of ordered blocks (ordered_loop.cuh's
  // add_one_step_entries: see accumulate_row); the regular one alone sums
  // reused block rows at their ranks (below).
  constexpr bool kLean = MaxThreads <= NumericPolicy::lean_block_threads;
  auto accumulate = [&](int row, auto&& locate) {
    accumulate_row<Addend, G == Group::block, kLean>(args, row, rank, threads, scratch, locate,
                                                     values);
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
  const RowQueue<G == Group::block> queue{rows, static_cast<int>(blockIdx.x) * per_block + slot,
                                          static_cast<int>(gridDim.x) * per_block};
  for (int i = queue.first(); i >= 0; i = queue.next(i)) {
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
      if constexpr (G == Group::block) {
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
      if (sort_length <= NumericPolicy::rank_sort_max_entries) {
        scatter_sorted_by_rank(group, keys, values, sort_length, len, args.c_base,
                               args.c_cols + out, args.c_values + out);
      } else if (!scatter_sorted_by_mask(
                     group, keys, values, sort_length, space_past(keys, values, sort_length, table),
                     G == Group::block ? NumericPolicy::mask_sort_max_windows : 1, len, args.c_base,
                     args.c_cols + out, args.c_values + out, partial)) {
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

}  // namespace

}  // namespace spgemm::cuda
