// SPDX-License-Identifier: Apache-2.0
// The numeric phase's tuning: the hash kernels' instances, the moves of
// rows between bins, split rows, the ordered adds, the output order.
#pragma once

#include "cuda/configs/bin_table.hpp"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

// A value's line gives its reason in brief; its full reason and the
// spgemm-bench command that chose it: docs/tuning.md, "NumericPolicy".
struct NumericPolicy {
  // longer rows go to dense windows: a lower cap speeds up the first phase, slows the later ones
  static constexpr int hash_max_nnz = 8192;
  // 5 blocks of 256 an SM hold every warp instance to 48 registers (else 63-64, 4 blocks)
  static constexpr int warp_min_blocks = 5;
  // blocks of at most this many threads also get the lean instance, taken where it pays
  static constexpr int lean_block_threads = 256;
  // the lean instance's blocks an SM: 40 registers, 12 blocks of 128 instead of 8
  static constexpr int lean_block_min_blocks = 6;
  // a row of this many terms whose nnz picks a warp bin goes to a block: its work spread wider
  static constexpr int block_row_terms = 1024;
  // ... for C of at most this many rows an SM: with more, warps fill the device already
  static constexpr int block_rows_per_sm = 256;
  // C of few rows and products: rows of a warp's four steps of terms go to a block
  static constexpr int few_products_block_terms = 128;
  // ... for C of at most this many rows for each warp the device holds
  static constexpr int few_products_rows_per_warp = 2;
  // ... and at most this many products an SM: beyond, the device is full of work
  static constexpr long long few_products_per_sm = 40000;
  // rows of this many terms go to the last hash bin, whose few rows are split among blocks
  static constexpr int heavy_row_terms = 16384;
  // a split row's most parts: more parts wait longer for the ones before
  static constexpr int split_rows_max_parts = 8;
  // a part of a split row per this many terms
  static constexpr long long split_rows_part_terms = 8192;
  // columns a thread adds at a time through the split rows' dense array
  static constexpr int split_rows_add_batch = 4;
  // split rows only where their scratch is at most this share of C's bytes
  static constexpr double split_rows_max_share_of_c = 0.15;
  // steps a block's thread stashes before its turn: fewer turns, more loads in flight
  static constexpr int ordered_stash = 4;
  // ... and a warp's, which adds its steps in order whatever the stash: 8 is slower
  static constexpr int ordered_warp_stash = 2;
  // C's columns a block's thread loads at once where a later phase reuses them
  static constexpr int known_columns_batch = 4;
  // B's average row from which its rows may be taken whole: shorter leave threads idle
  static constexpr int whole_rows_min_b_average = 8;
  // whole rows of B where they keep this share of threads busy: numbering costs ~2x a term
  static constexpr double whole_rows_min_use = 0.4;
  // ... in the dense kernel's rows at their columns' ranks: the best of 0.1-0.4
  static constexpr double ranked_whole_rows_min_use = 0.2;
  // rank counting up to this many entries: n^2/32 compares against the network's passes
  static constexpr int rank_sort_max_entries = 64;
  // a block's mask sort takes up to this many windows: about the network's barriers
  static constexpr int mask_sort_max_windows = 8;
  // percent of L1 / shared memory as shared memory: the rest keeps the thread rows' gathers
  static constexpr int thread_row_carveout = 72;
  // thread rows only for products >= this * nnz(C): else each term moves the slots above
  static constexpr double thread_row_min_compression = 1.5;
};

// The numeric hash kernel's __launch_bounds__ minimum of blocks an SM: 0
// for blocks is none at all (their bound of 1024 threads alone caps them at
// 64 registers).
constexpr int numeric_min_blocks(Group group) {
  return group == Group::block ? 0 : NumericPolicy::warp_min_blocks;
}

// The scratch of `rows` split rows of `width` columns (split_numeric_kernel;
// kernels.hpp's SplitRows::of lays it out): a dense array of values and a
// bitmask of the columns a row, then a flag a row and the work counter the
// blocks take items from, which must read zero before the launch. Byte offsets
// from its start; `end` its size.
struct SplitRowsLayout {
  size_t masks, flags, work_counter, end;
  SplitRowsLayout(long long rows, long long width, size_t value_bytes)
      : masks(static_cast<size_t>(rows * width) * value_bytes),
        flags(masks + sizeof(uint32_t) * static_cast<size_t>(rows * mask_words(width))),
        work_counter(flags + sizeof(int) * static_cast<size_t>(rows)),
        end(work_counter + sizeof(unsigned)) {}
  size_t zeroed_bytes() const { return end - flags; }
  // A row's mask words over `width` columns.
  __host__ __device__ static constexpr long long mask_words(long long width) {
    return (width + 31) / 32;
  }
};

// Shared memory of the deterministic numeric hash kernels behind a block's
// tables, from the first 16-byte boundary on (kernels/ordered_loop.cuh's
// ChunkScratch): per thread where its entry of A's chunk starts and where
// that entry's row of B begins, per block the 32 warp totals of a scan.
// Block groups take it behind their tables, sized by the bin's block (a
// static array for the largest block would take 12 KB for the 128 threads
// of the first block bin and halve its blocks per SM: `spgemm-bench
// landmark.mtx.gz orani678.mtx.gz`, num); the blocks of warp groups have
// one size, their scratch is static.
__host__ __device__ constexpr size_t ordered_scratch_bytes(int threads, size_t offset_bytes) {
  return static_cast<size_t>(threads) * (sizeof(long long) + offset_bytes) +
         32 * sizeof(long long);
}
__host__ __device__ constexpr size_t scratch_offset(size_t table_bytes) {
  return (table_bytes + 15) / 16 * 16;
}

}  // namespace spgemm::cuda
