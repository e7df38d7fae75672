// SPDX-License-Identifier: Apache-2.0
// The analysis's and the symbolic phase's tuning: numbered and deferred
// products in blocks, column ranges, the mask cap, the analysis's runs.
// A value's comment names the spgemm-bench run that chose it (fp64, one
// H100 or H200; NAME.mtx.gz from ../shared/matrices) and the columns
// compared (configs/bins.hpp).
#pragma once

#include "core/context.hpp"
#include "cuda/configs/bin_table.hpp"
#include "cuda/configs/numeric_policy.hpp"

namespace spgemm::cuda {

// The block kernel of the rows of most terms (the symbolic phase's last
// hash bin) puts aside rows of B of at least as many entries as the block
// has threads and numbers their terms over the
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
