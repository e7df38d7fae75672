// SPDX-License-Identifier: Apache-2.0
// The numeric phase's tuning: the hash kernels' instances, the moves of
// rows between bins, split rows, the ordered adds, the output order.
// A value's comment names the spgemm-bench run that chose it (fp64, one
// H100 or H200; NAME.mtx.gz from ../shared/matrices) and the columns
// compared (configs/bins.hpp).
#pragma once

#include "cuda/configs/bin_table.hpp"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

// The numeric phase hashes rows of at most this many nnz (of the bins above
// that fit the device); longer rows go to the dense-window kernel. A lower
// cap speeds up the first numeric phase and slows down every later one
// (`spgemm-bench --gen rmat:16:16`, num and num2).
inline constexpr int kNumericHashMaxNnz = 8192;

// The blocks of a warp-group numeric hash kernel an SM is to hold at least
// (its __launch_bounds__; blocks get none): 5 of 256 threads keep it within
// 48 registers, where ptxas would give some instances 63-64 registers and
// so 4 blocks an SM (`spgemm-bench --gen banded:200000:16`, num; all 24
// instances at 48: docs/data/suite-h100-19a3b79.txt).
inline constexpr int kWarpNumericMinBlocks = 5;

// The numeric hash kernel's __launch_bounds__ minimum of blocks an SM: 0
// for blocks is none at all (their bound of 1024 threads alone caps them at
// 64 registers).
constexpr int numeric_min_blocks(Group group) {
  return group == Group::block ? 0 : kWarpNumericMinBlocks;
}
// ... and bound for 1024 threads, blocks may take 64 registers: 8 blocks of
// 128 threads an SM. Blocks of at most kLeanBlockThreads threads also have a
// lean instance, kLeanBlockMinBlocks blocks an SM (40 registers, 12 blocks
// of 128). It spills stashed steps (kOrderedStash), so it is taken only where the
// runtime finds more of its blocks resident and the bin has rows for all of
// them (dispatch/choice.hpp's lean_block_pays). 32 registers and blocks of
// 512 are slower. Chosen by `spgemm-bench bcsstk33.mtx.gz astro-ph.mtx.gz
// landmark.mtx.gz polblogs.mtx.gz --gen hub:60000:30000:3000:8`, num and
// num2; its gain: docs/performance.md, "Kernel instances".
inline constexpr int kLeanBlockThreads = 256;
inline constexpr int kLeanBlockMinBlocks = 6;

// In the numeric phase a row's table is sized by its nnz, but its work is
// its terms: a row of few columns and many terms (ex6: 127 nnz from 1118
// terms on average) would have one warp step through all its terms.
// Rows of at least kBlockRowTerms terms whose nnz picks a warp bin go to the
// first block bin instead: the same work spread over a block. Only for C
// with at most kBlockRowsPerSM rows per SM: with more, warps of their own
// already fill the device and the block's turns cost more than they spread.
// Chosen by `spgemm-bench --gen banded:500000:16 ex6.mtx.gz bcsstk13.mtx.gz
// bcsstk33.mtx.gz astro-ph.mtx.gz`, num.
inline constexpr int kBlockRowTerms = 1024;
inline constexpr int kBlockRowsPerSM = 256;
// ... and for C of few rows and products, where the kernels are as long as
// their longest rows' chains of loads and not as their work, rows of 128
// terms or more go there (a warp's four steps of 32): C of at most
// kFewProductsRowsPerWarp rows for each warp the device holds (128 per SM
// on sm_90) and kFewProductsPerSM products per SM, where the host knows
// them (C of at most kSmallMaxRows rows). Beyond those bounds the device is
// already full of rows' warps or of work. Chosen by `spgemm-bench --gen
// powerlaw:12000 --gen rmat:12:8 --gen rmat:13:8 ca-GrQc.mtx.gz
// wb-cs-stanford.mtx.gz astro-ph.mtx.gz rgg_n_2_15_s0.mtx.gz`, num.
inline constexpr int kFewProductsBlockTerms = 128;
inline constexpr int kFewProductsRowsPerWarp = 2;
inline constexpr long long kFewProductsPerSM = 40000;

// A row of very many terms and few enough nnz for a hash table keeps its
// block busy long after the others are done when C has few such rows
// (orani678: 8 rows of 67 K terms and 2332 nnz). Rows of at least
// kHeavyRowTerms terms go to the last hash bin (the largest blocks; its
// larger table costs little beside that many terms); where that bin has few
// rows they are split among blocks by their entries of A
// (dispatch/choice.hpp's split_row_parts). Chosen by `spgemm-bench
// orani678.mtx.gz --gen hub:60000:30000:3000:8`, num and num2.
inline constexpr int kHeavyRowTerms = 16384;

// Where the last hash bin holds at most half as many rows as the device has
// SMs, the deterministic numeric phase splits each of its rows among up to
// kSplitRowsMaxParts blocks, a part per kSplitRowsPartTerms terms, which add
// their sums in turn through a dense array in device memory,
// kSplitRowsAddBatch columns a thread at a time (kernels/numeric/split_rows.cuh's
// split_numeric_kernel); more parts wait longer for the ones before. Only
// for B whose columns fit the bin's table (direct slots: through a hash
// table every add is a chain of dependent loads) and a scratch of at most
// kSplitRowsMaxShareOfC of C's bytes. Chosen by `spgemm-bench
// orani678.mtx.gz --gen longrows:4000:12:2000:4`, num and num2.
inline constexpr int kSplitRowsMaxParts = 8;
inline constexpr long long kSplitRowsPartTerms = 8192;
inline constexpr int kSplitRowsAddBatch = 4;
inline constexpr double kSplitRowsMaxShareOfC = 0.15;

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

// Steps of its terms a warp stashes in registers (slots found, values
// multiplied) before it waits for its turn to add them in the deterministic
// numeric phase (kernels/ordered_loop.cuh): more steps mean fewer turns and
// more of the loads overlapped with the other warps' adds, at 2 + the value's
// size in 4-byte registers per step and thread. Blocks that take rows of B
// whole (the second order below) gather as many steps before their adds and
// barriers (`spgemm-bench bcsstk33.mtx.gz`, num2).
inline constexpr int kOrderedStash = 4;
// ... and a warp's numbered terms in the hash kernels, this many steps (the
// same order of the adds: a warp alone adds its steps one after the other
// whatever the stash, which sets only the loads in flight and the
// registers). Blocks keep 4 (2 is slower for them), and 8 is slower for
// every group. Chosen by `spgemm-bench --gen stencil27:40 --gen rmat:15:16
// rgg_n_2_15_s0.mtx.gz delaunay_n15.mtx.gz orani678.mtx.gz
// bcsstk33.mtx.gz`, num.
inline constexpr int kOrderedWarpStash = 2;

// Columns of C a block's thread loads at once where a later numeric phase
// reuses a row's columns (kernels/known_columns.cuh): a hash block claiming
// them and writing the values behind them, and the dense kernel marking a
// ranked row's, would otherwise wait on one load at a time. Warps load one
// at a time: batched, their kernels are slower even where nothing is
// reused. Chosen by `spgemm-bench --gen rmat:16:16 --gen stencil27:64
// landmark.mtx.gz`, num and num2.
inline constexpr int kKnownColumnsBatch = 4;

// The deterministic numeric phase's second order (kernels/ordered_loop.cuh):
// a group takes A's entries one by one and each entry's row of B whole, a
// thread per term, with a barrier between entries. It needs rows of B whose
// columns strictly increase, which the analysis examines only where B's
// rows have at least kWholeRowsMinBAverage entries on average (shorter ones
// would leave most threads idle), and it is taken for a row of C where its
// steps keep at least kWholeRowsMinUse of the group's threads busy: the
// other order spends a binary search, a __match_any_sync and the combining
// of equal columns on every term, which cost about twice as much per term
// (`spgemm-bench --gen banded:500000:16`, rows of B of 33 entries, num2).
inline constexpr int kWholeRowsMinBAverage = 8;
inline constexpr double kWholeRowsMinUse = 0.4;
// The same for the dense kernel's rows summed at their columns' ranks in one
// pass (kernels/numeric/dense_rows.cuh, accumulators/ranked_row.cuh): rows of 1024
// threads whose terms the other order would number, search, combine and
// add in 32 turns per batch. The best of 0.1-0.4 for rmat:16:16's rows of B
// of ~400 entries; 0.2 for every kernel would slow down stencil27:64
// (`spgemm-bench --gen rmat:16:16 --gen stencil27:64`, num2).
inline constexpr double kRankedWholeRowsMinUse = 0.2;

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

// A numeric row's table, once compacted to its first entries (padded with
// empty keys to a power of two, sorting/*_compact.cuh), is put in order by
// rank counting (sorting/rank_scatter.cuh) up to this many entries, beyond
// by a bitmask over its columns' span (sorting/mask_rank.cuh) where that
// fits the table's free slots (a block's: in up to kMaskSortMaxWindows
// windows), else, in a warp's table of at most 256
// compacted slots, in registers (sorting/warp_packed_sort.cuh), else by a
// bitonic network in shared memory (sorting/bitonic.cuh). Rank counting costs n^2/32
// compares per thread of a warp against the network's log^2 passes of
// exchanges through shared memory: at 64 entries 128 broadcast-read
// compares against 21 passes of an exchange per thread. (The table is
// compacted before it is ranked: ranking all of it would leave most lanes
// idle on empty slots.)
inline constexpr int kRankSortMaxEntries = 64;

// The windows a block's mask sort (sorting/mask_rank.cuh) may take, one
// after another, where its row's column range is wider than the mask the
// table's free slots hold. A window costs a pass over the n entries and
// five barriers; the bitonic network it replaces log2(n) (log2(n) + 1) / 2
// barriers, each with n / (2 threads) exchanges: 55 for the 1024 entries of
// 256 threads, 45 for 512 of 128, the same order as 8 windows. Rows of 100 K
// columns (powerlaw:100000) need 4 windows of fp64 in the 512-entry bin, 2
// in the 1024-entry one.
inline constexpr int kMaskSortMaxWindows = 8;

}  // namespace spgemm::cuda
