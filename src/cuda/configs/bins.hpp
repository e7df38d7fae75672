// SPDX-License-Identifier: Apache-2.0
// The GPU engine's tuning data: the bins and every threshold, each with the
// measurement that chose it. The choices made from them live in one place,
// dispatch/choice.hpp.
//
// A row of C is put in a bin by its size: in the symbolic phase the number of
// terms (products, plus D's entries: an upper bound of its nnz), in the
// numeric phase its exact nnz. In the numeric phase, rows of at most
// kSortBinTerms terms go to a sort bin (their terms fit a warp's registers;
// the first may give each row a thread, kThreadRowTerms, as does the
// symbolic phase's thread bin for C of many rows).
// Other rows that fit a shared-memory hash table go to the first hash bin
// whose max_size holds them; longer rows go to the dense-window bin.
// Everything that depends on the device (which bins fit its shared memory,
// how many blocks are resident, the dense window width) is derived at run
// time from the queried DeviceLimits, never compiled in.
//
// A tuning value's comment names the spgemm-bench run that chose it (fp64,
// one H100 or H200; NAME.mtx.gz from ../shared/matrices) and the columns
// compared: ana, sym, num (the numeric phase), num2 (numeric again on the
// same plan), unordered (numeric again with spgemmSetDeterministic(0)),
// lib total.
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

// The numeric phase hashes rows of at most this many nnz (of the bins above
// that fit the device); longer rows go to the dense-window kernel. A lower
// cap speeds up the first numeric phase and slows down every later one
// (`spgemm-bench --gen rmat:16:16`, num and num2).
inline constexpr int kNumericHashMaxNnz = 8192;

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

// The blocks of a warp-group numeric hash kernel an SM is to hold at least
// (its __launch_bounds__; blocks get none): 5 of 256 threads keep it within
// 48 registers, where ptxas would give some instances 63-64 registers and
// so 4 blocks an SM (`spgemm-bench --gen banded:200000:16`, unordered).
inline constexpr int kWarpNumericMinBlocks = 5;

// The numeric hash kernel's __launch_bounds__ minimum of blocks an SM: 0
// for blocks is none at all (a minimum of 1 is not the same: it takes their
// unordered kernels from 52 to 59 registers; `spgemm-bench bcsstk33.mtx.gz`,
// unordered).
constexpr int numeric_min_blocks(Group group) {
  return group == Group::block ? 0 : kWarpNumericMinBlocks;
}
// ... and bound for 1024 threads, blocks may take 64 registers: 8 blocks of
// 128 threads an SM. Blocks of at most kLeanBlockThreads threads also have a
// lean instance, kLeanBlockMinBlocks blocks an SM (40 registers, 12 blocks
// of 128): always taken unordered (it spills nothing there); ordered it
// spills stashed steps (kOrderedStash), so it is taken only where the
// runtime finds more of its blocks resident and the bin has rows for all of
// them (dispatch/choice.hpp's lean_block_pays). 32 registers and blocks of
// 512 are slower. Chosen by `spgemm-bench bcsstk33.mtx.gz astro-ph.mtx.gz
// landmark.mtx.gz polblogs.mtx.gz --gen hub:60000:30000:3000:8`, num, num2
// and unordered.
inline constexpr int kLeanBlockThreads = 256;
inline constexpr int kLeanBlockMinBlocks = 6;

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
// bitmask of the columns a row, then a flag a row and the counter the
// blocks draw from, which must read zero before the launch. Byte offsets
// from its start; `end` its size.
struct SplitRowsLayout {
  size_t masks, flags, draws, end;
  SplitRowsLayout(long long rows, long long width, size_t value_bytes)
      : masks(static_cast<size_t>(rows * width) * value_bytes),
        flags(masks + sizeof(uint32_t) * static_cast<size_t>(rows * mask_words(width))),
        draws(flags + sizeof(int) * static_cast<size_t>(rows)),
        end(draws + sizeof(unsigned)) {}
  size_t zeroed_bytes() const { return end - flags; }
  // A row's mask words over `width` columns.
  __host__ __device__ static constexpr long long mask_words(long long width) {
    return (width + 31) / 32;
  }
};

// The block kernels of the rows of most terms (the symbolic phase's last
// hash bin, the unordered dense kernel) put aside rows of B of at least as
// many entries as the block has threads and number their terms over the
// whole block (kernels/row_loop.cuh's for_each_product), where a row of A
// names at most this many of them (a warp's lanes number them). In the other
// block kernels that costs registers (40 instead of 32) and barriers that
// rows of few terms pay for. Chosen by `spgemm-bench --gen longrows:20000
// --gen hub:20000 --gen stencil27:64 bcsstk33.mtx.gz`, sym.
inline constexpr int kDeferredBRows = 32;

// Where B's rows are this short on average (lanes_for gives sub-groups of at
// most this many lanes), the symbolic phase's blocks number their rows'
// products (kernels/row_loop.cuh's for_each_numbered_column) instead of
// having each sub-group walk its entries of A, a chain of three dependent
// loads each with half its lanes idle; at 16 lanes each term's search costs
// more than that. Chosen by `spgemm-bench --gen powerlaw:100000 --gen
// powerlaw:20000 --gen hub:20000 --gen rmat:16:16 astro-ph.mtx.gz`, sym.
inline constexpr int kSymbolicNumberedMaxLanes = 8;

// The symbolic phase sizes a row's table by the width of its columns' range
// where that is less than its terms (binning.cuh's RowSizes): a smaller
// table, and often a warp instead of a block (the move above does not
// apply: the ranges are only found for C of many rows). The analysis finds
// the ranges at two more loads per entry of A, and only for C with more
// than this many rows per SM: with fewer, the smaller bins' fewer threads
// per row cost more than the smaller tables save. Chosen by `spgemm-bench
// --gen banded:500000:16 --gen rmat:16:16 landmark.mtx.gz bcsstk33.mtx.gz
// orani678.mtx.gz`, ana and sym.
inline constexpr int kSpanMinRowsPerSM = kBlockRowsPerSM;

// A symbolic table never needs more words than B has columns / 32: it is
// then a bitmask over all of them (kernels/symbolic.cu). So a row of many
// terms goes no further than the first block bin whose table holds that
// bitmask, for C with at least this many rows per SM: fewer rows in smaller
// blocks leave the device idle. Rows of more terms than any table holds
// take that bin too where the analysis counts at least this many of them
// per SM, and the last (largest) bin otherwise (dispatch/choice.hpp's
// MaskCap).
// Chosen by `spgemm-bench --gen rmat:16:16 --gen longrows:20000 --gen
// hub:60000:30000:3000:8 --gen hub:20000 landmark.mtx.gz bcsstk33.mtx.gz
// orani678.mtx.gz`, sym and lib total.
inline constexpr int kSymbolicMaskCapRowsPerSM = 32;

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
// The unordered mode's warps take that order too, instead of their
// shared-memory atomics, where its steps keep at least this share of the
// lanes busy: far faster for rows of B of 27-33 entries, slower for rows of
// 10-20, which keep 0.4-0.5 of the lanes busy (`spgemm-bench --gen
// banded:500000:16 --gen stencil27:64 rgg_n_2_15_s0.mtx.gz`, unordered).
inline constexpr double kUnorderedWholeRowsMinUse = 0.5;
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

// Small products, where launches and not work set the time: at most
// kSmallMaxProducts products, a longest row that fits a hash table, and rows
// * table slots at most kSmallMaxTableSlots (every row clears and sorts a
// table of the longest row's size) run one kernel per phase over all rows,
// unbinned (dispatch/choice.hpp's Choices::small_symbolic_bin). Their
// statistics come from a readback in analyze for C of at most kSmallMaxRows
// rows; a product estimated at most
// kSmallSpeculateProducts runs before they are known, behind a gate. A
// missed estimate costs a gated launch and a second readback, more than
// analyze's readback, hence the lower bound. Chosen by `spgemm-bench
// ex6.mtx.gz delaunay_n15.mtx.gz wing.mtx.gz bcsstk13.mtx.gz`, lib total.
inline constexpr int kSmallMaxRows = 1 << 16;
inline constexpr long long kSmallMaxProducts = 1 << 22;
inline constexpr long long kSmallMaxTableSlots = 4 * kSmallMaxProducts;
inline constexpr long long kSmallSpeculateProducts = 1 << 21;
// The speculative bin's gate lets rows of up to this share of its table's
// slots in terms through, beyond the bin's max_size (load <= 1/2), where the
// numeric layout takes rows of that many: a small product's few longest rows
// then probe a fuller table (linear probing at load 3/4: ~2.5 probes per hit,
// ~8.5 per miss) instead of costing the product a second launch and
// readback (`spgemm-bench lp_ship04l.mtx.gz`, longest row 258 terms, the
// largest warp table 512 slots; sym and lib total).
inline constexpr double kSmallGateLoad = 0.75;
// Where that bin's gate takes fewer terms than this many times the average
// row's expected terms, the product is tried in the first larger bin whose
// gate takes that many (or else the largest that takes its rows): its
// longest rows would shut the gate, and a shut gate costs a launch and a
// readback (`spgemm-bench ex6.mtx.gz`: rows of ~900 terms on average, the
// longest over 2,048; lib total).
inline constexpr double kSmallSpeculateRowMargin = 4.0;
// A small product takes as long as its longest row, one chain of dependent
// loads for the group that works on it; where its rows are so few that
// their blocks of the first block bin take at most this share of the
// device's resident threads, each row gets such a block instead of a warp,
// in both phases (`spgemm-bench lp_ship04l.mtx.gz qh1484.mtx.gz`, sym and
// num).
inline constexpr double kSmallBlockRowsShare = 0.5;
// C of other products with at most this many rows, where the host's calls
// and not the kernels set the symbolic phase's time (ca-GrQc: some 20
// launches, memsets and stream forks for ~40 us of kernels), makes
// fewer launches: the warp bins run in one (kernels/symbolic.cu, each row
// in its own bin's table), and C's row offsets come from one block
// (binning/row_offsets.cuh, as a small product's do) instead of CUB's scan,
// which makes two launches, a scratch allocation and an occupancy query.
// Chosen by `spgemm-bench ca-GrQc.mtx.gz polblogs.mtx.gz
// rgg_n_2_15_s0.mtx.gz --gen powerlaw:20000`, sym.
inline constexpr int kFewLaunchesRows = 1 << 14;

// Per-bin row counts and scatter cursors, kept in device memory.
struct BinCounts {
  int count[kMaxBins];
  int cursor[kMaxBins];
};

// Threads per row of B in the product loops (row_loop.cuh, "lanes", a power
// of two up to 32): matched to its average row length, so that short rows
// do not leave most of a warp idle and long ones do not serialize.
int lanes_for(long long rows, long long nnz);

// Rows of A whose terms one warp of the analysis counts together
// (analysis.cu's run_terms), a power of two up to 32: at least as many as
// fill a warp's 32 lanes with A's average row, more while every warp the
// device holds still gets a run of its own. Large inputs then fill every
// lane with an entry (G3_circuit, 1.58 M rows of 4.8 entries: 32 rows a
// warp), small ones keep their parallelism without more blocks than rows
// need: each block ends with atomics on the statistics' few addresses
// (`spgemm-bench G3_circuit.mtx.gz cryg2500.mtx.gz`, ana).
int analysis_rows_per_warp(long long rows, long long nnz, const DeviceLimits& limits);

// A run of rows whose entries average at least this many a row is counted
// row by row, the warp striding over each; shorter ones 32 entries at a
// time whatever row each is in (analysis.cu's run_terms). With the entries'
// loads batched, rows of 33 entries count faster 32 at a time and rows of
// 68 row by row (`spgemm-bench --gen banded:500000:16 bcsstk33.mtx.gz`, ana).
inline constexpr int kAnalysisRowwiseEntries = 64;

}  // namespace spgemm::cuda
