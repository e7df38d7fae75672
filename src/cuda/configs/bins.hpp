// SPDX-License-Identifier: Apache-2.0
// Kernel configurations: THE place where bins and their thresholds live.
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
#pragma once

#include "core/context.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spgemm::cuda {

// Threads that cooperate on one row: a warp, or the whole block. (Tiles
// smaller than a warp were tried and lost: tiles of one warp working on rows
// of different lengths diverge and run one after another; measured 3.3 ms vs
// the warp kernel's 1.2 ms for comparable rows of G3_circuit, H200.)
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
// that fit the device); longer rows go to the dense-window kernel. Lower
// caps were measured and lost (docs/performance.md, tenth session): 4096
// made rmat:16:16's first numeric phase faster (25.4 -> 21.9 ms, H100) but
// its numeric phase again slower (14.5 -> 18.4 ms).
inline constexpr int kNumericHashMaxNnz = 8192;

// Rules that follow from the tables' sizes rather than from tuning (H100
// fp64, docs/performance.md, thirteenth session, unless named):
// - Symbolic phase: where B's columns fit in a table's bits (a word per
//   slot) the table is a bitmask over all of them instead of a hash set
//   (kernels/symbolic.cu): symbolic rmat:16:16 5.04 -> 4.78 ms, landmark
//   1.83 -> 1.78, bcsstk33 0.199 -> 0.186.
// - Symbolic phase, warps: where they do not, a row whose columns' range
//   (the analysis's, for sorted rows of B) fits its table's bits gets a
//   bitmask over that range (symbolic banded:500000:16 1.97 -> 1.75 ms,
//   H200, twenty-sixth session). Blocks keep their hash sets: ranged too,
//   stencil27:64, landmark and rmat:16:16 were no faster.
// - Numeric phase: a hash row whose columns (from the ends of its rows of B,
//   where the analysis found those sorted) span at most its table's slots
//   maps them to slots directly and comes out sorted
//   (accumulators/direct_row.cuh): numeric banded:500000:16 5.24 -> 3.55
//   ms, landmark 12.7 -> 11.2, polblogs 0.179 -> 0.133, orani678 0.302 ->
//   0.243.
// - Numeric phase: a hash row of more than kRankSortMaxEntries entries
//   whose columns span at most 32 per free slot of its table (past the
//   compacted entries) is placed by a bitmask over that span
//   (sorting/mask_rank.cuh), not the bitonic network: numeric rmat:16:16
//   22.3 -> 15.8 ms, landmark 11.2 -> 6.46, astro-ph 0.567 -> 0.440,
//   bcsstk33 0.665 -> 0.600.
// The first numeric phase gave the dense windows rows of 2049-8192 nnz for
// a while (rmat:16:16 numeric 22.3 -> 18.0 ms): taken out, as the windows
// add a row's terms in another order than its hash bin in the later
// phases, which made the first phase's bits differ from theirs.

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
// 48 registers. Left alone, ptxas gave some instances 63-64 registers and
// so 4 blocks an SM, the unordered kernel among them once claims seek
// first (accumulators/hash_table.cuh): banded:200000:16's unordered numeric
// phase again 0.93 -> 1.05 ms, 0.98 with the bound (H200 fp64,
// docs/performance.md, forty-first session).
inline constexpr int kWarpNumericMinBlocks = 5;

// The numeric hash kernel's __launch_bounds__ minimum of blocks an SM: 0
// for blocks is none at all (a minimum of 1 is not the same: it took their
// unordered kernels from 52 to 59 registers, bcsstk33's unordered numeric
// phase 0.322 -> 0.347 ms).
constexpr int numeric_min_blocks(Group group) {
  return group == Group::block ? 0 : kWarpNumericMinBlocks;
}
// ... and bound for 1024 threads, blocks may take 64 registers: 8 blocks of
// 128 threads an SM. The kernel is also compiled for blocks of at most
// kLeanBlockThreads threads, kLeanBlockMinBlocks of them an SM: 40
// registers, 12 blocks of 128. The unordered mode's blocks of those bins
// always take it (it spills nothing there). The deterministic mode's
// spill some of the steps they stash (kOrderedStash) with it, which pays
// only for more blocks at once: they take it where the runtime finds more
// of their blocks resident with it than without (not where the table's
// shared memory bounds them) and the bin has rows for all of them. H200
// fp64, numeric phase / again / unordered, ms, against 18ae198 in one
// process (docs/performance.md, forty-second session): bcsstk33 (most of
// its 8,738 rows in 128-thread blocks) 0.342 / 0.299 / 0.318 -> 0.305 /
// 0.275 / 0.278, astro-ph unordered 0.244 -> 0.214, landmark unordered
// 3.44 -> 3.15. Taken by every such bin, it lost where it holds no more
// blocks (landmark, most rows in 256-thread blocks of 4096 slots, 4 an SM
// either way: 4.86 / 3.27 -> 5.24 / 3.50) and where the rows are fewer
// than it holds (polblogs, 1,490 rows: again 0.114 -> 0.121). 32
// registers (7 blocks of 256: bcsstk33's numeric phase 0.43 ms) and
// blocks of 512 threads (3 an SM: hub:60000:30000:3000:8's deterministic
// phase 4.25 -> 4.77) lost too.
inline constexpr int kLeanBlockThreads = 256;
inline constexpr int kLeanBlockMinBlocks = 6;
// Whether a bin of `rows` rows in blocks of at most kLeanBlockThreads
// threads (a row a block) takes that instance, which the device holds
// lean_blocks of at once against `blocks` of the other.
constexpr bool lean_block_pays(bool ordered, long long rows, int lean_blocks, int blocks) {
  return !ordered || (rows >= lean_blocks && lean_blocks > blocks);
}

// Rows of few terms are not hashed in the numeric phase: a warp holds all the
// terms of a row in registers, 32 * K of them (K = 1, 2), sums each column's
// terms in lane order and places the sums by ranking the columns, which a
// bitonic network of shuffles sorts (accumulators/register_row.cuh,
// sorting/warp_bitonic.cuh); later numeric phases find the columns in C
// instead of sorting. No table to clear, no atomics and no turns: the order
// of the adds follows from the structure, in either numeric mode. A row of
// G3_circuit (24 terms on average) took ~581 warp instructions through a
// hash table with ordered adds; the network takes 15 compare-exchange steps
// for 32 terms and 21 for 64 (numeric, H100 fp64: G3_circuit 1.65 -> 1.14
// ms and again 1.55 -> 0.93, poisson2d:700 0.57 -> 0.36, uniform:500000:8
// 2.00 -> 0.67, docs/performance.md). The symbolic phase keeps its hash sets for these rows: they
// only count, with no values or order to keep, and beat the network there
// (G3_circuit symbolic 0.50 ms with sets, 0.84 with the sort). Beyond 64
// terms the network's K registers per step grow faster than a table's work:
// a third bin of 128 terms (K = 4) was measured and left out (H100 fp64,
// numeric: delaunay_n15 -15%, but numeric again rmat:16:16 +19% and
// polblogs +9%; qh1484, small, no faster: its one kernel runs every row at
// the K of its longest).
inline constexpr int kSortBinTerms[] = {32, 64};
// ... and the symbolic phase's warps count rows of at most this many terms
// the same way, a term a lane, each column at the lowest lane holding it
// (`__match_any_sync`), without a table to clear, probe or count (H200,
// symbolic phase: poisson2d:700 224 -> 171 us; G3_circuit and
// rgg_n_2_15_s0 faster in one call, unchanged in the next; uniform:500000:8,
// whose rows never take this path, 306 -> 339: docs/performance.md,
// fifteenth session). Rows of up to 64 terms the same way, register 1's
// columns counted where a search of register 0's sorted ones misses them,
// lost: symbolic uniform:500000:8 0.350 -> 0.409 ms, rgg_n_2_15_s0 0.075 ->
// 0.082, polblogs 0.096 -> 0.109 (rmat:16:16 1.65 -> 1.53 gained; H200
// fp64, fifty-fourth session).
inline constexpr int kSymbolicMatchTerms = 32;
inline constexpr int kSortBinCount = sizeof(kSortBinTerms) / sizeof(kSortBinTerms[0]);
// ... but where C has many rows, a row of at most kThreadRowTerms terms
// gets a thread of its own, not a warp, in both phases (the thread bin: the
// numeric phase's first sort bin, the symbolic phase's only one;
// kernels/numeric.cuh's and kernels/symbolic.cu's thread_*_kernel). The
// thread keeps the row's columns in order in kThreadRowTerms slots of
// shared memory (accumulators/thread_row.cuh), each term put in place by a
// short scan; in the numeric phase the warp then writes its 32 rows one
// after the other, a column a lane. A warp's instructions serve 32 rows
// instead of one (a warp's network, ranking and combining cost G3_circuit
// ~340 instructions a row). Blocks of kThreadRowBlockThreads keep the slots
// (12 B each in fp64) to 24 KB. Only for C of at least kThreadRowsMinPerSM
// rows per SM: a thread walks its row's terms one after another, a chain of
// dependent loads several times a warp's, which only many rows in flight
// hide. H200 fp64 (docs/performance.md, thirty-eighth session), symbolic /
// numeric phase, ms: G3_circuit 0.563 / 0.854 -> 0.247 / 0.582,
// poisson2d:700 0.189 / 0.259 -> 0.095 / 0.165; but with the bin for every
// C, rgg_n_2_15_s0 (248 rows per SM) 0.074 / 0.122 -> 0.136 / 0.170, wing
// (470) numeric 0.036 -> 0.052, cryg2500 (19) numeric 0.010 -> 0.023.
// The slots bound the numeric blocks an SM holds (27% of its warps), yet
// twice the warps did not pay: rows of at most 16 nnz in a bin of their
// own, 16 slots a thread in blocks of 128 (53% of the warps), took
// G3_circuit's numeric phase 0.554 -> 0.622 ms (H200) and 0.573 -> 0.642
// (H100), poisson2d:700's 0.166 -> 0.176 (H100; docs/performance.md,
// thirty-ninth session).
inline constexpr int kThreadRowTerms = 32;
inline constexpr int kThreadRowBlockThreads = 64;
inline constexpr int kThreadRowsMinPerSM = 1024;
// A thread's walk (kernels/lane_terms.cuh's for_row_terms) loads a row of
// B's columns and values kRowOfBBatch at a time, all before the batch's
// first add. One at a time, each term waited for its own load: numeric
// phase G3_circuit 0.518 -> 0.484 ms, poisson2d:700 0.146 -> 0.141 (H200
// fp64). Loading the next entry's batch during the current entry's adds
// as well was slower: G3_circuit 0.481 -> 0.506 (docs/performance.md,
// fiftieth session).
inline constexpr int kRowOfBBatch = 8;
// The thread kernels' loads are gathers, a row of B for each thread, whose
// lines the SM's L1 keeps only if shared memory leaves it room: with all
// the shared memory their blocks can use, G3_circuit's numeric thread
// kernel hit L1 for 18% of its sectors (81% with 44% of it, at half the
// warps, which lost). They ask for this share of the SM's unified L1 /
// shared memory as shared memory (kernel_facts' carveout), found by
// sweeping the shares the SM's configurations give (H200 fp64, symbolic /
// numeric phase against all of it, ms: G3_circuit 0.245 -> 0.230 / 0.541
// -> 0.529, poisson2d:520 0.075 -> 0.067 / 0.092 -> 0.087,
// uniform:1000000:4 symbolic 0.354 -> 0.294; docs/performance.md,
// thirty-ninth session).
inline constexpr int kThreadSymbolicCarveout = 58;
inline constexpr int kThreadNumericCarveout = 72;
// ... and in the numeric phase only where C's products are at least this
// many times its nnz: a row whose terms rarely share columns puts nearly
// every term in a new slot, moving the slots above it, and comes from
// operands without locality, where each of the thread's loads misses
// (uniform:300000:4, products / nnz = 1.0: numeric 0.13 -> 0.23 ms with a
// thread a row; G3_circuit 1.77 and poisson2d:700 1.92 gained, as above).
inline constexpr double kThreadRowMinCompression = 1.5;
inline constexpr int kSortBlockThreads = 256;  // a row per warp

inline constexpr int kMaxBins = kHashBinCount + 1 + kSortBinCount;

// In the numeric phase a row's table is sized by its nnz, but its work is
// its terms: a row of few columns and many terms (ex6: 127 nnz from 1118
// terms on average, 1651 rows) would have one warp step through all its
// terms, and with few such rows the device holds a dozen warps per SM.
// Rows of at least kBlockRowTerms terms whose nnz picks a warp bin go to the
// first block bin instead: the same work spread over a block (H100 fp64
// numeric: ex6 0.23 -> 0.14 ms, bcsstk13 0.45 -> 0.30, bcsstk33 1.11 ->
// 0.90, astro-ph 1.26 -> 1.14). Only for C with at most kBlockRowsPerSM rows
// per SM: with more, warps of their own already fill the device and the
// block's turns cost more than they spread (banded:500000:16, 500000 rows of
// 1089 terms: 6.95 -> 11.0 ms).
inline constexpr int kBlockRowTerms = 1024;
inline constexpr int kBlockRowsPerSM = 256;
// ... and for C of few rows and products, where the kernels are as long as
// their longest rows' chains of loads and not as their work, rows of 128
// terms or more go there (a warp's four steps of 32): C of at most
// kFewProductsRowsPerWarp rows for each warp the device holds (128 per SM
// on sm_90) and kFewProductsPerSM products per SM, where the host knows
// them (C of at most kSmallMaxRows rows). H200 fp64, numeric phase (us,
// 1024 -> 128 terms; rows and products per SM): ca-GrQc (40, 3.7 K) 80 ->
// 55, wb-cs-stanford (75, 5.4 K) 85 -> 54, powerlaw:12000 (91, 1.9 K) 74 ->
// 68, rmat:12:8 (31, 17 K) 146 -> 137, bcsstk13 (15, 34 K) 110 -> 104; but
// rmat:13:8 (62, 48 K) 221 -> 226, astro-ph (127, 83 K) 390 -> 431 and
// rgg_n_2_15_s0 (248, 26 K) 126 -> 146 lost: the device already full of
// rows' warps or of work (docs/performance.md, twenty-eighth session; 65
// and 96 terms were no better than 128).
inline constexpr int kFewProductsBlockTerms = 128;
inline constexpr int kFewProductsRowsPerWarp = 2;
inline constexpr long long kFewProductsPerSM = 40000;

// A row of very many terms and few enough nnz for a hash table keeps its
// block busy long after the others are done when C has few such rows:
// orani678's 8 rows of 67 K terms and 2332 nnz each took one 512-thread
// block apiece in the 4096 bin, 386 us, most of the numeric phase. Rows of
// at least kHeavyRowTerms terms go to the last hash bin (the largest
// blocks; its larger table costs little beside that many terms). H100
// fp64, numeric: orani678 0.359 -> 0.299 ms, again 0.295 -> 0.241; whole
// pipeline, none of the 14 other inputs measured slower by more than 1%
// but hub:60000:30000:3000:8 (8.39 ms, against 8.62 and 8.09 in two runs
// without the move; docs/performance.md, twelfth session); at 32768 terms
// orani678 gained the same. Where that bin has few rows they are split
// among blocks by their entries of A (split_row_parts below); splitting
// them among up to 16 blocks by their columns (a slice each, written
// behind the columns the slices before it published) was tried and
// dropped: orani678's numeric
// phase 0.229 -> 0.207 ms at best, the kernel 241 -> 108 us, each slice
// still walking all the row's entries of A (a search for its ends in each
// row of B), and rows of many entries over short rows of B lost
// (longrows:4000:12:2000:4 0.069 -> 0.114; docs/performance.md, fortieth
// session).
inline constexpr int kHeavyRowTerms = 16384;

// Where the last hash bin holds so few rows that most SMs would idle beside
// them (at most half as many as SMs), the deterministic numeric phase
// splits each of its rows among up to `parts` blocks (numeric.cuh's
// split_numeric_kernel), a part for each kSplitRowsPartTerms of the row's
// terms: each takes a contiguous share of the row's entries of A (equal
// shares of its terms), sums them in direct slots in the bin's order, and
// once the parts before it are done adds its sums to a dense array of the
// row in device memory, in the parts' order, kSplitRowsAddBatch columns a
// thread at a time (their loads in flight together); the last adds them to
// its own slots and writes the row. So each column's terms are summed part
// by part, the same way in every numeric phase. The fortieth session's
// split by columns (see kHeavyRowTerms) had each slice walk all of the
// row's entries; here a part walks only its own, and waits only to add.
// At most kSplitRowsMaxParts parts a row: each part's adds wait for the
// part before. For B whose columns fit the bin's table (direct slots) and
// a scratch of at most kSplitRowsMaxShareOfC of C's bytes. H200 fp64,
// numeric phase: orani678 0.227 -> 0.171 ms, again 0.228 -> 0.150, its
// last bin's kernel 241 -> 69 us; longrows:4000:12:2000:4 (12 rows of ~20 K
// terms: 2 parts) 0.068 -> 0.067. Through a hash table, the adds a chain
// of dependent loads per slot, the parts cost ~12 us each: that kernel 115
// us, and that longrows 0.065 -> 0.120 with 8 parts a row
// (docs/performance.md, forty-fifth session).
inline constexpr int kSplitRowsMaxParts = 8;
inline constexpr long long kSplitRowsPartTerms = 8192;
inline constexpr int kSplitRowsAddBatch = 4;
inline constexpr double kSplitRowsMaxShareOfC = 0.15;

// The parts each of the last hash bin's rows_in_bin rows is split into on a
// device of sm_count SMs, or 0: not split.
inline int split_row_parts(long long rows_in_bin, int sm_count) {
  if (rows_in_bin <= 0 || 2 * rows_in_bin > sm_count) return 0;
  return static_cast<int>(std::min<long long>(kSplitRowsMaxParts, sm_count / rows_in_bin));
}

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

// Rows of B of at least as many entries as the block has threads, which a
// block's sub-group of `lanes` threads would step through alone while the
// block's others are done, wait for the whole block, which numbers their
// terms (kernels/row_loop.cuh's for_each_product), where a row of A names at
// most this many (a warp's lanes number them; with more, every sub-group
// has its share of them). Only in the symbolic phase's last hash bin and the
// numeric phase's dense kernel (unordered), the kernels of the rows of most
// terms: in every block kernel of the symbolic phase they took 40 registers
// instead of 32 and rows of few terms paid for the barriers (H200 fp64,
// symbolic phase: stencil27:64 1.13 -> 1.98 ms, bcsstk33 0.12 -> 0.20). In
// the last bin alone: longrows:20000 0.50 -> 0.20 ms; hub:20000, whose rows
// there put nothing aside, 0.27 / 0.26 -> 0.27 / 0.28 (docs/performance.md,
// thirty-second session).
inline constexpr int kDeferredBRows = 32;

// Where B's rows are this short on average (lanes_for gives sub-groups of at
// most this many lanes), the symbolic phase's blocks number their rows'
// products instead (kernels/row_loop.cuh's for_each_numbered_column, a
// kernel of its own): each sub-group would take its entries of A one after
// the other, a chain of three dependent loads each, about half its lanes
// idle on B's short rows, while one with a long row of B holds the block.
// One H200, fp64, symbolic phase, ms (docs/performance.md, forty-ninth
// session): powerlaw:100000 0.126 -> 0.105, powerlaw:20000 0.170 -> 0.162,
// but hub:20000 0.263 -> 0.287 (its 1,000 rows of one 10,000-entry row of
// B and three short ones, in the last bin, whose deferring kernel already
// gave that long row to the whole block; not looked into further); inputs
// of longer rows of B unchanged. Numbered in every block kernel for up to 16
// lanes instead (forty-sixth session): powerlaw:100000 0.126 -> 0.106, but
// rmat:16:16 1.49 -> 2.69 and astro-ph 0.100 -> 0.129 (16 lanes: each
// term's search over 256 entries' starts costs more than their sub-groups'
// chains), and bcsstk33 0.113 -> 0.127, stencil27:64 1.17 -> 1.37, which
// never took it (the other loop in the same kernel).
inline constexpr int kSymbolicNumberedMaxLanes = 8;

// The symbolic phase sizes a row's table by the width of its columns' range
// where that is less than its terms (binning.cuh's RowSizes): a smaller
// table, and often a warp instead of a block (the move above does not
// apply: the ranges are only found for C of many rows). The analysis finds
// the ranges at two more loads per entry of A, and only for C with more
// than this many rows per SM: with fewer, the smaller bins' fewer threads
// per row cost more than the smaller tables save (H100 fp64, symbolic phase:
// banded:500000:16 2.55 -> 1.93 ms, landmark 2.19 -> 1.80, bcsstk33 0.20
// -> 0.17, but orani678, 2529 rows, 0.12 -> 0.15; analysis of rmat:16:16,
// whose ranges span all columns, 0.28 -> 0.42 ms).
inline constexpr int kSpanMinRowsPerSM = kBlockRowsPerSM;

// A symbolic table never needs more words than B has columns / 32: it is
// then a bitmask over all of them (kernels/symbolic.cu). So a row of many
// terms goes no further than the first block bin whose table holds that
// bitmask (rows of 4096-8192 terms used to get 1024 threads and 64 KB each,
// two rows in flight per SM), for C with at least this many rows per SM: fewer
// rows in smaller blocks leave the device idle (orani678, 19 rows per SM:
// whole pipeline 0.41 -> 0.54 ms with the cap). Rows of more terms than any
// table holds (which took the dense windows) take that bin too where the
// analysis counts at least this many of them per SM, and the last (largest)
// bin otherwise: always the first, longrows:20000's 79 such rows took 1.49
// ms of symbolic phase against 0.54; always the last, rmat:16:16's 9,876
// took 2.4 ms against 1.6 (binning.cuh's MaskCap). H100 fp64, two calls,
// symbolic phase before -> with both (docs/performance.md, eighteenth
// session): rmat:16:16 4.75 -> 1.6 ms, landmark 1.76 -> 0.78, bcsstk33 0.18 ->
// 0.12, hub:60000:30000:3000:8 2.46 -> 0.91, hub:20000 0.23 -> 0.17,
// longrows:20000 0.54 -> 0.52; whole pipeline rmat:16:16 20.3 -> 17.1 ms,
// landmark 7.0 -> 6.0, bcsstk33 0.66 -> 0.58.
inline constexpr int kSymbolicMaskCapRowsPerSM = 32;

// Steps of its terms a warp stashes in registers (slots found, values
// multiplied) before it waits for its turn to add them in the deterministic
// numeric phase (kernels/ordered_loop.cuh): more steps mean fewer turns and
// more of the loads overlapped with the other warps' adds, at 2 + the value's
// size in 4-byte registers per step and thread. Blocks that take rows of B
// whole (the second order below) gather as many steps before their adds and
// barriers (bcsstk33 numeric again 445 -> 333 us, H100 fp64; only 4 was
// measured; docs/performance.md, seventeenth session).
inline constexpr int kOrderedStash = 4;
// ... and a warp's numbered terms in the hash kernels, this many steps (the
// same order of the adds: a warp alone adds its steps one after the other
// whatever the stash, which sets only the loads in flight and the
// registers). H200 fp64, numeric phase, ms, stash 4 / 2 for every group
// (docs/performance.md, fortieth session): rgg_n_2_15_s0 0.122 / 0.113,
// delaunay_n15 0.061 / 0.058, but blocks lost: orani678 0.227 / 0.251,
// bcsstk33 0.398 / 0.419, rmat:15:16 4.01 / 4.11. 8 for every group lost
// on nearly all (stencil27:40 0.437 / 0.577, rgg_n_2_15_s0 0.123 / 0.160).
inline constexpr int kOrderedWarpStash = 2;

// Columns of C a block's thread loads at once where a later numeric phase
// reuses a row's columns (kernels/known_columns.cuh): a hash block claiming
// them and writing the values behind them, and the dense kernel marking a
// ranked row's, each waited on one load at a time (landmark's block rows,
// H200 fp64: 18% of the stall samples of its numeric phase again; 3.56 ->
// 3.47 ms with 4; rmat:16:16's ranked rows 7.26 -> 7.20). Warps load one at
// a time: with 4 their kernels were slower even where nothing is reused
// (stencil27:64's numeric phase 1.89 -> 2.10 ms; docs/performance.md,
// thirty-fifth session).
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
// (banded:500000:16, rows of B of 33 entries, half the lanes of the second
// step idle: numeric again 6.18 -> 3.37 ms; H100 fp64).
inline constexpr int kWholeRowsMinBAverage = 8;
inline constexpr double kWholeRowsMinUse = 0.4;
// The unordered mode's warps take that order too, instead of their
// shared-memory atomics, where its steps keep at least this share of the
// lanes busy: far faster for banded:500000:16's rows of B of 33 entries
// (0.52; numeric 3.92 -> 2.34 ms) and stencil27:64's 27 (0.84; 1.60 ->
// 1.16), slower for rgg_n_2_15_s0's of 10-20 (mostly 0.4-0.5; 0.069 ms
// with atomics, 0.075 from 0.4 on, 0.072 from 0.5 on; H200 fp64,
// docs/performance.md, thirty-fourth session).
inline constexpr double kUnorderedWholeRowsMinUse = 0.5;
// The same for the dense kernel's rows summed at their columns' ranks in one
// pass (kernels/numeric.cuh, accumulators/ranked_row.cuh): rows of 1024
// threads whose terms the other order would number, search, combine and
// add in 32 turns per batch. H100 fp64, rmat:16:16 (rows of B of ~400
// entries there): numeric again 10.4 ms at 0.4, 8.1 at 0.2, 9.7-10.0 at
// 0.1; 0.2 for every kernel cost stencil27:64 again 1.47 -> 1.55 ms
// (nineteenth session, docs/performance.md).
inline constexpr double kRankedWholeRowsMinUse = 0.2;

// Shared memory of the deterministic numeric hash kernels behind a block's
// tables, from the first 16-byte boundary on (kernels/ordered_loop.cuh's
// ChunkScratch): per thread where its entry of A's chunk starts and where
// that entry's row of B begins, per block the 32 warp totals of a scan.
// Block groups take it behind their tables, sized by the bin's block (a
// static array for the largest block kept 12 KB for the 128 threads of the
// first block bin and halved its blocks per SM; H100 fp64 numeric: landmark
// 18.2 -> 15.8 ms, orani678 0.79 -> 0.75); the blocks of warp groups have
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
// compares against 21 passes of an exchange per thread. (Ranking the whole
// table before compacting it had most lanes idle on empty slots, 8.5 of 32
// threads active on qh1484 per ncu; compacting first made no difference
// beyond noise on the bench, H100.)
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
// threads (half the turns per batch of the ordered adds), with 4, 8 or 16
// stashed steps, lost on every long-row input measured, as did two blocks
// of 512 per SM with half the window each (numeric rmat:16:16 22.3 ms here
// against 24.9-27.5; H100, docs/performance.md, eleventh session).
inline constexpr int kDenseBlockThreads = 1024;

// Small products, where launches and not work set the time (every code in
// ../shared/matrices spends 100-500 us on products of a few microseconds of
// work). If the total of products is at most kSmallMaxProducts and the
// longest row fits a hash table, the rows are not binned: each phase runs one
// kernel over all rows in order (the bin of the longest row; in the numeric
// phase the sort bin of the row of most terms if one holds it), and C's row
// offsets come from the symbolic kernel's last block
// (binning/row_offsets.cuh). That drops the two binning passes of each
// phase, the launches of empty bins and CUB's scan. Every row then clears and
// sorts a table of the longest row's size, so rows * table slots may be at
// most kSmallMaxTableSlots: comparable to the products' own work. The
// statistics come from a readback in analyze for C with at most
// kSmallMaxRows rows; where the product also looks small (estimated from
// nnz(A) and B's average row length, at most kSmallSpeculateProducts), the
// mode is tried before they are known instead (cuda_engine.cu: analyze does
// not synchronize), in the largest warp bin whose tables fit (for few rows
// the first block bin, kSmallBlockRowsShare), behind a gate the analysis
// sets on the device. Measured (H200 fp64, whole pipeline, us,
// docs/performance.md, fourteenth session):
// - the mode's bound from 2^20 to 2^22 products: ex6 (1.8 M products,
//   1651 rows) 213 -> 135, delaunay_n15 (1.2 M) 186 -> 140; wing (0.96 M,
//   62,032 rows, small before) 176 -> 114 with C's offsets in coalesced
//   tiles (binning/row_offsets.cuh);
// - the estimate's bound lower than the mode's, since an estimate that
//   misses costs a gated launch and a second readback, more than analyze's
//   readback: bcsstk13 (estimated 3.5 M, 4.55 M products, not small) lost
//   ~50 us with it at 2^22; from 2^20 to 2^21, ex6 (estimated 1.45 M) 126
//   -> 113, delaunay_n15 (1.17 M) 140 -> 121.
inline constexpr int kSmallMaxRows = 1 << 16;
inline constexpr long long kSmallMaxProducts = 1 << 22;
inline constexpr long long kSmallMaxTableSlots = 4 * kSmallMaxProducts;
inline constexpr long long kSmallSpeculateProducts = 1 << 21;
// The speculative bin's gate lets rows of up to this share of its table's
// slots in terms through, beyond the bin's max_size (load <= 1/2), where the
// numeric layout takes rows of that many: a small product's few longest rows
// then probe a fuller table (linear probing at load 3/4: ~2.5 probes per hit,
// ~8.5 per miss) instead of costing the product a second launch and
// readback. lp_ship04l's longest row has 258 terms, the largest warp table
// 512 slots (symbolic phase 24 -> 17 us, whole pipeline 70 -> 67 us, H100).
inline constexpr double kSmallGateLoad = 0.75;
// Where that bin's gate takes fewer terms than this many times the average
// row's expected terms, the product is tried in the first larger bin whose
// gate takes that many (or else the largest that takes its rows): its
// longest rows would shut the gate (ex6: 1,651 rows expected to average ~900
// terms, longest over 2,048, tried in warps whose gate took 384: a wasted
// launch and readback before the block bin of 8,192 slots, ~20 us of its
// ~125; reading the statistics back in analyze instead cost more, its
// analysis, binning and readback; H200, docs/performance.md, thirty-first
// session).
inline constexpr double kSmallSpeculateRowMargin = 4.0;
// A small product takes as long as its longest row, one chain of dependent
// loads for the group that works on it; where its rows are so few that
// their blocks of the first block bin take at most this share of the
// device's resident threads, each row gets such a block instead of a warp,
// in both phases (lp_ship04l, 402 rows, longest 84 entries and 258 terms:
// symbolic kernel 15.3 -> 10.4 us, numeric 29 -> 14.5; qh1484, 1484 rows
// of at most 68 terms, was no faster in blocks; H100).
inline constexpr double kSmallBlockRowsShare = 0.5;
// C of other products with at most this many rows, where the host's calls
// and not the kernels set the symbolic phase's time (ca-GrQc: twenty-odd
// launches, memsets and stream forks for ~40 us of kernels, H200), makes
// fewer launches: the warp bins run in one (kernels/symbolic.cu, each row
// in its own bin's table), and C's row offsets come from one block
// (binning/row_offsets.cuh, as a small product's do) instead of CUB's scan,
// which makes two launches, a scratch allocation and an occupancy query.
// H100 fp64, symbolic phase (us; docs/performance.md, twenty-eighth
// session): ca-GrQc 117 -> 95, polblogs 126 -> 103 with the one launch;
// with the bound at 2^15 instead, rgg_n_2_15_s0 (32,768 rows) 79 -> 89 and
// powerlaw:20000 130 -> 140, the same at 2^16.
inline constexpr int kFewLaunchesRows = 1 << 14;

// Several devices (src/multi/): products of fewer products than this run
// whole on the handle's device instead of being split. A split costs a pass
// that counts every row's products with a readback, then per part a host
// thread, its own analysis and symbolic readback, and copies; at 2^24
// products (about 0.3-1 ms on one H100, docs/performance.md) that is a
// small share. A first setting, to be refined by docs/scaling.md's runs.
inline constexpr long long kPartitionMinProducts = 1LL << 24;

// The CPU+GPU hybrid's cost model (multi/cost_model.hpp), until the handle
// has measured its own: products per second of one GPU part (H100, fp64:
// 2.8e10 on rmat:16:16, the slowest large family, docs/scaling.md) and of one
// host thread (the host backend, fp64), bytes per second copied between
// device and pinned host memory (PCIe 5: 55e9 measured one way, less when
// both ways and small), and the host part's fixed cost per numeric phase
// (its synchronizations and copy launches).
inline constexpr double kHybridGpuProductsPerSecond = 3e10;
inline constexpr double kHybridHostProductsPerSecondPerThread = 5e7;
inline constexpr double kHybridCopyBytesPerSecond = 2e10;
inline constexpr double kHybridHostOverheadSeconds = 2e-4;
// ... and the least share it gives the host. On one H100 with 16 host
// threads the model put the host at 0.05-1.5% of the products and the host
// part measured 1-3x slower than it predicted (a prefix of rmat's rows holds
// its heaviest, least parallel rows; docs/scaling.md): a gain that small is
// within the model's error.
inline constexpr double kHybridMinHostShare = 0.05;

// Shares learned from measures (src/multi/shares.hpp): two measures of a
// device-list entry fit a line (seconds against products) where their
// products differ by at least this share of the total; closer ones count as
// one cut measured again.
inline constexpr double kShareFitMinGap = 0.005;
// ... and the step of such a line from the newest cut is at most this many
// times the step of shares in proportion to the newest rates: measured
// times vary by a few percent from run to run, and a line through two cuts
// close together can be nearly flat (rmat:17:16 on two H200s: a fit without
// this bound gave one GPU 9% of the products and a spread of 7).
inline constexpr double kShareFitMaxStep = 2.0;

// C in host memory (src/multi/chunked_engine.cpp): by default the chunks of
// C on the device (two at once) take at most this share of the device's
// memory (spgemmSetOutputChunkBytes sets another bound). Chunks of C copied
// to the host over PCIe are bound by the copy, not by their size: a few
// hundred MB already keep the copy engine busy.
inline constexpr double kOutputChunkShare = 1.0 / 8;

// C in host memory: up to this many chunks keep their analysis and symbolic
// state (O(rows of the chunk) each, and a few KB) from one numeric phase to
// the next, which then only computes and copies. More chunks (small chunk
// bytes) redo both per chunk at every numeric phase. Bounds the plan's
// workspace (workspace_bytes) by a constant number of chunks.
inline constexpr int kKeptOutputChunks = 64;

// Sizes at which rows change bins, passed to the binning kernels by value.
// Bins are numbered hash bins first, then the dense bin, then the sort bins.
struct BinThresholds {
  int hash_bins = 0;              // bins [0, hash_bins) are hash bins
  int max_size[kHashBinCount]{};  // bin hash_bins is dense
  int sort_bins = 0;              // bins hash_bins + 1 + s: at most sort_terms[s] terms
  int sort_terms[kSortBinCount]{};
  int block_bin = -1;        // rows of a warp bin (below it) with at least
  int block_terms = INT_MAX;  // block_terms terms go there (kBlockRowTerms)
  int heavy_terms = INT_MAX;  // rows of a hash bin with at least this many terms go to the
                              // last hash bin (kHeavyRowTerms)

  __host__ __device__ int bins() const { return hash_bins + 1 + sort_bins; }

  // The first sort bin for rows of `terms` terms; -1 if none takes them.
  // (This and bin_for loop to the arrays' compile-time sizes and test the
  // counts inside: unrolled, each threshold is then a kernel parameter at a
  // fixed place. Looping to the counts made every step a run-time indexed
  // constant load, about a hundred instructions a row.)
  __host__ __device__ int sort_bin(int terms) const {
    for (int s = 0; s < kSortBinCount; ++s)
      if (s < sort_bins && terms <= sort_terms[s]) return hash_bins + 1 + s;
    return -1;
  }

  // THE rule (binning.cu's bin_of applies it to every row on the device):
  // the bin of a row of `size` > 0 (at most its `terms`). A sort bin by its
  // terms; else the first hash bin that holds its size, unless its terms
  // send it to the last hash bin (heavy_terms) or from a warp bin to the
  // block bin (block_terms); else the dense bin.
  __host__ __device__ int bin_for(int size, int terms) const {
    const int sort = sort_bin(terms);
    if (sort >= 0) return sort;
    for (int b = 0; b < kHashBinCount; ++b)
      if (b < hash_bins && size <= max_size[b]) {
        if (terms >= heavy_terms) return hash_bins - 1;
        return b < block_bin && terms >= block_terms ? block_bin : b;
      }
    return hash_bins;
  }

  // Whether bin_for may give bin `bin` to a row of at most most_terms terms
  // (INT_MAX: any row); where not, its launch is skipped. A hash bin beyond
  // the first gets only a row longer than the bin before it, or one moved
  // by block_terms or heavy_terms; the dense bin only a row longer than the
  // last hash bin. Rows of few terms that the sort bins take are not told
  // apart: true for the sort bins there are and the first hash bin, false
  // only where no row can come (tests/host/test_bins.cpp checks both
  // against bin_for, row by row).
  bool may_hold(int bin, int most_terms) const {
    if (bin > hash_bins) return bin <= hash_bins + sort_bins;
    if (most_terms == INT_MAX) return true;
    if (bin == hash_bins) return most_terms > max_size[hash_bins - 1];
    return bin == 0 || most_terms > max_size[bin - 1] ||
           (bin == block_bin && most_terms >= block_terms) ||
           (bin == hash_bins - 1 && most_terms >= heavy_terms);
  }
};

// Per-bin row counts and scatter cursors, kept in device memory.
struct BinCounts {
  int count[kMaxBins];
  int cursor[kMaxBins];
};

struct HashBinLaunch {
  HashBinSpec spec;
  size_t smem_bytes;          // tables and a counter per row
  size_t ordered_smem_bytes;  // the same for the ordered numeric kernels (blocks: + scratch)
  int rows_per_block;
};

// The bins usable on this device for slots of entry_bytes each (4 in the
// symbolic phase: keys; 4 + sizeof(Value) in the numeric phase, where the
// ordered adds' scratch for row offsets of offset_bytes must fit beside the
// tables); in the numeric phase with the sort bins and the move of rows of
// many terms to a block.
struct BinLayout {
  std::vector<HashBinLaunch> hash;
  BinThresholds thresholds;  // with the sort bins' terms
  int dense_bin() const { return static_cast<int>(hash.size()); }
  int bins() const { return thresholds.bins(); }
  // Whether sort bin `bin` (> dense_bin()) takes a thread per row
  // (kThreadRowTerms) rather than a warp's registers.
  bool thread_bin(int bin) const {
    return thresholds.sort_terms[bin - dense_bin() - 1] <= kThreadRowTerms;
  }
  // K, the terms per lane, of sort bin `bin` (> dense_bin()).
  int sort_registers(int bin) const { return thresholds.sort_terms[bin - dense_bin() - 1] / 32; }
};

// The thresholds of the numeric binning of a C with `rows` rows and
// `products` products (-1: not known on the host): without the move to a
// block bin for C of many rows (kBlockRowsPerSM), with it from fewer terms
// for C of few rows and products (kFewProductsRowsPerWarp, kFewProductsPerSM).
inline BinThresholds numeric_thresholds(const BinLayout& layout, int rows, long long products,
                                        const DeviceLimits& limits) {
  BinThresholds t = layout.thresholds;
  const long long sms = limits.sm_count;
  const long long warps = sms * (limits.max_threads_per_sm / 32);
  if (rows > kBlockRowsPerSM * sms)
    t.block_bin = -1;
  else if (rows <= kFewProductsRowsPerWarp * warps && products >= 0 &&
           products <= kFewProductsPerSM * sms)
    t.block_terms = kFewProductsBlockTerms;
  return t;
}

// Whether C of `rows` rows takes the thread bin (kThreadRowsMinPerSM).
inline bool thread_rows(int rows, const DeviceLimits& limits) {
  return rows >= static_cast<long long>(kThreadRowsMinPerSM) * limits.sm_count;
}

// The thresholds of the symbolic binning of a C with `rows` rows: without
// the thread bin where C has too few rows for it (thread_rows).
inline BinThresholds symbolic_thresholds(const BinLayout& layout, int rows,
                                         const DeviceLimits& limits) {
  BinThresholds t = layout.thresholds;
  if (!thread_rows(rows, limits)) t.sort_bins = 0;
  return t;
}

enum class Phase { symbolic, numeric };
BinLayout make_bin_layout(const DeviceLimits& limits, Phase phase, size_t entry_bytes,
                          size_t offset_bytes);

// Threads per row of B in the product loops (row_loop.cuh, "lanes", a power
// of two up to 32): matched to its average row length, so that short rows
// do not leave most of a warp idle and long ones do not serialize.
int lanes_for(long long rows, long long nnz);

// Rows of A whose terms one warp of the analysis counts together
// (analysis.cu's run_terms), a power of two up to 32: at least as many as
// fill a warp's 32 lanes with A's average row, more while every warp the
// device holds still gets a run of its own. Large inputs then fill every
// lane with an entry (G3_circuit, 1.58 M rows of 4.8 entries: 32 rows a
// warp, analysis 202 -> 161 us against 8 lanes a row; H200), small ones keep
// their parallelism without more blocks than rows need: each block ends
// with atomics on the statistics' few addresses, and a warp a row gave
// cryg2500's 2500 rows 313 blocks, its analysis 13 -> 15 us (H200).
int analysis_rows_per_warp(long long rows, long long nnz, const DeviceLimits& limits);

// A run of rows whose entries average at least this many a row is counted
// row by row, the warp striding over each; shorter ones 32 entries at a
// time whatever row each is in (analysis.cu's run_terms). With the entries'
// loads batched, banded:500000:16's 33 entries a row count faster 32 at a
// time (analysis kernel 284 -> 261 us, H100); bcsstk33's 68 stay row by row.
inline constexpr int kAnalysisRowwiseEntries = 64;

}  // namespace spgemm::cuda
