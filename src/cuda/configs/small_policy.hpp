// SPDX-License-Identifier: Apache-2.0
// Small products and C of few rows, where launches and not work set the
// time: one kernel per phase, the speculative try, few launches.
// A value's comment names the spgemm-bench run that chose it (fp64, one
// H100 or H200; NAME.mtx.gz from ../shared/matrices) and the columns
// compared (configs/bins.hpp).
#pragma once

#include "cuda/configs/bin_table.hpp"

namespace spgemm::cuda {

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

}  // namespace spgemm::cuda
