// SPDX-License-Identifier: Apache-2.0
// The analysis's and the symbolic phase's tuning: numbered and deferred
// products in blocks, column ranges, the mask cap, the analysis's runs.
#pragma once

#include "core/context.hpp"
#include "cuda/configs/bin_table.hpp"
#include "cuda/configs/numeric_policy.hpp"

namespace spgemm::cuda {

// A value's line gives its reason in brief; its full reason and the
// spgemm-bench command that chose it: docs/tuning.md, "SymbolicPolicy".
struct SymbolicPolicy {
  // warps count rows of at most this many terms by __match_any_sync, with no table
  static constexpr int matched_max_terms = 32;
  // the last hash bin defers long rows of B where a row of A names at most a warp's lanes' worth
  static constexpr int deferred_b_rows = 32;
  // blocks number their products where B's rows take at most this many lanes
  static constexpr int numbered_max_lanes = 8;
  // column ranges only for C of more rows an SM: with fewer, smaller bins cost more
  static constexpr int span_min_rows_per_sm = NumericPolicy::block_rows_per_sm;
  // the mask cap for C of at least this many rows an SM: fewer in small blocks idle the device
  static constexpr int mask_cap_rows_per_sm = 32;
  // percent of L1 / shared memory as shared memory: the rest keeps the thread rows' gathers
  static constexpr int thread_row_carveout = 58;
};

// The same for the analysis (analysis.cu). Its full reasons: docs/tuning.md,
// "AnalysisPolicy".
struct AnalysisPolicy {
  // runs of rows of this many entries on average are counted row by row, shorter 32 at a time
  static constexpr int rowwise_entries = 64;
};

// Rows of A whose terms one warp of the analysis counts together
// (analysis.cu's run_terms), a power of two up to 32: at least as many as
// fill a warp's 32 lanes with A's average row, more while every warp the
// device holds still gets a run of its own (docs/tuning.md, "AnalysisPolicy").
int analysis_rows_per_warp(long long rows, long long nnz, const DeviceLimits& limits);

}  // namespace spgemm::cuda
