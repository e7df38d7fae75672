// SPDX-License-Identifier: Apache-2.0
// The bins, which both phases share: the hash bins' table, the sort and
// thread bins, the dense bin's blocks, the bins' counts.
// A value's comment names the spgemm-bench run that chose it (fp64, one
// H100 or H200; NAME.mtx.gz from ../shared/matrices) and the columns
// compared (configs/bins.hpp).
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

// Threads that cooperate on one row: a warp, or the whole block. No tiles
// smaller than a warp: tiles of one warp on rows of different lengths
// diverge and run one after another (`spgemm-bench G3_circuit.mtx.gz`, num).
enum class Group : int { warp = 32, block = 0 };

struct HashBinSpec {
  int max_size;       // rows with size <= max_size (and > previous bin's)
  int table_size;     // slots, a power of two, >= 2 * max_size: load factor <= 0.5
  Group group;        // threads per row
  int block_threads;  // threads per block
};

// Tuning table. Why these values:
// - load factor <= 0.5 keeps linear-probing chains short (expected probes
//   ~1.5 for hits, ~2.5 for misses, Knuth's analysis of linear probing);
// - short rows get a warp each, 8 rows per block; their bins double in size
//   so a row's table is never more than 4x its size (clearing, compaction
//   and sorting all scale with the table, not the row);
// - from 512 slots on a row gets a whole block, growing with the table so
//   the clearing and sorting passes stay ~16 slots per thread;
// - the last bin needs 16384 * 12 B = 192 KB in the fp64 numeric phase, which
//   fits Hopper's 227 KB opt-in limit; devices with less drop it at run time.
inline constexpr HashBinSpec kHashBins[] = {
    // max_size  table  group          block
    {16, 32, Group::warp, 256},
    {32, 64, Group::warp, 256},
    {64, 128, Group::warp, 256},
    {128, 256, Group::warp, 256},
    {256, 512, Group::warp, 256},
    {512, 1024, Group::block, 128},
    {1024, 2048, Group::block, 256},
    {2048, 4096, Group::block, 256},
    {4096, 8192, Group::block, 512},
    {8192, 16384, Group::block, 1024},
};
inline constexpr int kHashBinCount = sizeof(kHashBins) / sizeof(kHashBins[0]);

// Rules that follow from the tables' sizes rather than from tuning
// (`spgemm-bench --gen rmat:16:16 --gen banded:500000:16 landmark.mtx.gz
// bcsstk33.mtx.gz polblogs.mtx.gz orani678.mtx.gz astro-ph.mtx.gz`, sym, num):
// - symbolic: a table whose bits hold all of B's columns, or in a warp the
//   row's column range (the analysis's, for sorted rows of B), is a bitmask
//   over them, not a hash set (kernels/symbolic.cu);
// - numeric: a hash row whose columns span at most its table's slots maps
//   them to slots directly, in order (accumulators/direct_row.cuh); one of
//   more than kRankSortMaxEntries entries whose columns span at most 32 per
//   free slot is placed by a bitmask over that span (sorting/mask_rank.cuh);
// - the dense windows take no row that fits a hash bin, in any numeric
//   phase: they add a row's terms in another order, and every numeric phase
//   must give the same bits.

// Loops over a table stride by the group size with every lane taking part
// (ballots in sorting/), so tables must be multiples of their groups.
constexpr bool tables_fit_groups() {
  for (const HashBinSpec& b : kHashBins) {
    const int group = b.group == Group::block ? b.block_threads : static_cast<int>(b.group);
    if (b.table_size % group != 0 || b.table_size < 32) return false;
  }
  return true;
}
static_assert(tables_fit_groups(), "every table must be a multiple of its group size");

// The warp bins come first, each table twice the one before: a launch of
// several (kFewLaunchesRows) finds a row's table from its bin's position.
constexpr int warp_bin_count() {
  int warps = 0;
  while (warps < kHashBinCount && kHashBins[warps].group == Group::warp) ++warps;
  return warps;
}
constexpr bool warp_bins_lead_and_double() {
  for (int b = warp_bin_count(); b < kHashBinCount; ++b)
    if (kHashBins[b].group == Group::warp) return false;
  for (int b = 1; b < warp_bin_count(); ++b)
    if (kHashBins[b].table_size != 2 * kHashBins[b - 1].table_size) return false;
  return true;
}
static_assert(warp_bins_lead_and_double(), "warp bins first, their tables doubling");
inline constexpr int kWarpBins = warp_bin_count();

// The largest block a kernel for rows of this group is launched with (its
// __launch_bounds__, so that the compiler keeps it within the register file).
constexpr int max_block_threads(Group group) {
  int most = 32;
  for (const HashBinSpec& b : kHashBins)
    if (b.group == group && b.block_threads > most) most = b.block_threads;
  return most;
}

// Numeric rows of at most 32 * K terms (K = 1, 2) are not hashed: a warp
// holds their terms in registers, sums each column's terms in lane order and
// ranks the columns by a bitonic network of shuffles
// (accumulators/register_row.cuh): 15 or 21 compare-exchange steps, where a
// hash row of G3_circuit takes ~580 warp instructions; no atomics and no
// turns in either numeric mode. Beyond 64 terms the network's registers grow
// faster than a table's work (K = 4 is slower on rmat:16:16 and polblogs).
// The symbolic phase, which only counts, keeps its hash sets for these rows.
// Chosen by `spgemm-bench --gen poisson2d:700 --gen uniform:500000:8 --gen
// rmat:16:16 G3_circuit.mtx.gz polblogs.mtx.gz delaunay_n15.mtx.gz`, sym,
// num and num2.
inline constexpr int kSortBinTerms[] = {32, 64};
// ... and the symbolic phase's warps count rows of at most this many terms
// the same way, a term a lane, each column at the lowest lane holding it
// (`__match_any_sync`), without a table to clear, probe or count. Rows of
// up to 64 terms counted this way are slower (`spgemm-bench --gen
// poisson2d:700 --gen uniform:500000:8 polblogs.mtx.gz`, sym).
inline constexpr int kSymbolicMatchTerms = 32;
inline constexpr int kSortBinCount = sizeof(kSortBinTerms) / sizeof(kSortBinTerms[0]);
// ... but where C has at least kThreadRowsMinPerSM rows per SM, a row of at
// most kThreadRowTerms terms gets a thread of its own, in both phases (the
// thread bin: accumulators/thread_row.cuh, the thread_*_kernels), so that a
// warp's instructions serve 32 rows: a thread's walk is a chain of dependent
// loads several times a warp's, which only many rows in flight hide. Blocks
// of kThreadRowBlockThreads keep the slots (12 B each in fp64) to 24 KB;
// more warps an SM (16 slots a thread, blocks of 128) are slower. Chosen by
// `spgemm-bench --gen poisson2d:700 G3_circuit.mtx.gz rgg_n_2_15_s0.mtx.gz
// wing.mtx.gz cryg2500.mtx.gz`, sym and num.
inline constexpr int kThreadRowTerms = 32;
inline constexpr int kThreadRowBlockThreads = 64;
inline constexpr int kThreadRowsMinPerSM = 1024;
// A thread's walk (kernels/lane_terms.cuh's for_row_terms) loads a row of
// B's columns and values kRowOfBBatch at a time, all before the batch's
// first add, so that a term does not wait for its own load (`spgemm-bench
// --gen poisson2d:700 G3_circuit.mtx.gz`, num).
inline constexpr int kRowOfBBatch = 8;
// The thread kernels' loads are gathers, a row of B for each thread, whose
// lines the SM's L1 keeps only if shared memory leaves it room. They ask
// for this share (percent) of the SM's unified L1 / shared memory as shared
// memory (kernel_facts' carveout): the best of the shares the SM's
// configurations give (`spgemm-bench --gen poisson2d:520 --gen
// uniform:1000000:4 G3_circuit.mtx.gz`, sym and num).
inline constexpr int kThreadSymbolicCarveout = 58;
inline constexpr int kThreadNumericCarveout = 72;
// ... and in the numeric phase only where C's products are at least this
// many times its nnz: a row whose terms rarely share columns puts nearly
// every term in a new slot, moving the slots above it, and comes from
// operands without locality, where each of the thread's loads misses
// (`spgemm-bench --gen uniform:300000:4`, products / nnz = 1.0, num).
inline constexpr double kThreadRowMinCompression = 1.5;
inline constexpr int kSortBlockThreads = 256;  // a row per warp

inline constexpr int kMaxBins = kHashBinCount + 1 + kSortBinCount;

// The mask sort's word positions are 16-bit: every table must have fewer
// than 2^16 slots.
constexpr bool tables_fit_mask_positions() {
  for (const HashBinSpec& b : kHashBins)
    if (b.table_size >= 65536) return false;
  return true;
}
static_assert(tables_fit_mask_positions(), "mask positions (sorting/mask_rank.cuh) are 16-bit");

// Threads per block of the dense-window (long row) kernels: one row per
// block, all of the block's shared memory for the window. Half as many
// threads (half the turns per batch of the ordered adds, with 4, 8 or 16
// stashed steps) and two blocks of 512 per SM with half the window each are
// slower on every long-row input (`spgemm-bench --gen rmat:16:16`, num).
inline constexpr int kDenseBlockThreads = 1024;

// Per-bin row counts and scatter cursors, kept in device memory.
struct BinCounts {
  int count[kMaxBins];
  int cursor[kMaxBins];
};

// Threads per row of B in the product loops (row_loop.cuh, "lanes", a power
// of two up to 32): matched to its average row length, so that short rows
// do not leave most of a warp idle and long ones do not serialize.
int lanes_for(long long rows, long long nnz);

}  // namespace spgemm::cuda
