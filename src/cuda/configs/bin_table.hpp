// SPDX-License-Identifier: Apache-2.0
// The bins, which both phases share: the hash bins' table, the sort and
// thread bins, the dense bin's blocks, the bins' counts. Why each value,
// and the spgemm-bench command that chose it: docs/tuning.md, "Bins" and
// "BinPolicy".
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

// Threads that cooperate on one row: a warp, or the whole block (no tiles
// smaller than a warp: on rows of different lengths they diverge).
enum class Group : int { warp = 32, block = 0 };

struct HashBinSpec {
  int max_size;       // rows with size <= max_size (and > previous bin's)
  int table_size;     // slots, a power of two, >= 2 * max_size: load factor <= 0.5
  Group group;        // threads per row
  int block_threads;  // threads per block
};

// Load factor <= 0.5; a warp a row up to 256 terms, tables doubling; a
// block a row from 512 slots, ~16 slots a thread; the last bin (192 KB in
// fp64) is dropped at run time where it does not fit.
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

// Rules that follow from the tables' sizes rather than from tuning (bitmask
// tables, direct slots, ranking by a bitmask, no hashed row in the dense
// windows): docs/tuning.md, "Bins".

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
// several (SmallPolicy::few_launches_rows) finds a row's table from its bin's position.
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

// Numeric rows of at most 32 * K terms (K = 1, 2) are summed and ranked in
// a warp's registers (accumulators/register_row.cuh), not hashed; for K = 4
// the registers grow faster than a table's work.
inline constexpr int kSortBinTerms[] = {32, 64};
inline constexpr int kSortBinCount = sizeof(kSortBinTerms) / sizeof(kSortBinTerms[0]);
inline constexpr int kSortBlockThreads = 256;  // a row per warp

// The thread bin (accumulators/thread_row.cuh, the thread_*_kernels) and the
// dense bin, in both phases. A value's line gives its reason in brief; its
// full reason and the spgemm-bench command that chose it: docs/tuning.md,
// "BinPolicy".
struct BinPolicy {
  // a row of at most this many terms gets a thread: a warp's instructions serve 32 rows
  static constexpr int thread_row_terms = 32;
  // keeps a block's thread rows' slots to 24 KB; more warps an SM are slower
  static constexpr int thread_row_block_threads = 64;
  // the thread bin for C of at least this many rows an SM: only they hide a thread's loads
  static constexpr int thread_rows_min_per_sm = 1024;
  // a row of B loaded this many entries before the first add: no term waits for its load
  static constexpr int row_of_b_batch = 8;
  // a row a block, all its shared memory for the window: half the threads are slower
  static constexpr int dense_block_threads = 1024;
};

inline constexpr int kMaxBins = kHashBinCount + 1 + kSortBinCount;

// The mask sort's word positions are 16-bit: every table must have fewer
// than 2^16 slots.
constexpr bool tables_fit_mask_positions() {
  for (const HashBinSpec& b : kHashBins)
    if (b.table_size >= 65536) return false;
  return true;
}
static_assert(tables_fit_mask_positions(), "mask positions (sorting/mask_rank.cuh) are 16-bit");

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
