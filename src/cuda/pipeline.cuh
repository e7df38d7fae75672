// SPDX-License-Identifier: Apache-2.0
// What the GPU engine's phases (cuda_engine.cu) hand each other. analyze
// returns an Analysis: the path of the product (gated, small or binned) and
// what its symbolic phase needs; the symbolic phase returns a Structure:
// what the numeric phase needs. The device writes a Summary for the host
// to read back; AnalysisBuffers holds it with the rows' counts and bins, and
// BinFork the side streams that a phase's bins run on.
#pragma once

#include "core/arena.hpp"
#include "core/context.hpp"
#include "core/csr_checks.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/matrix.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/dispatch/choice.hpp"
#include "cuda/kernels/kernels.hpp"
#include "cuda/post.cuh"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <utility>

namespace spgemm::cuda {

// Everything the device computes about a product that the host may need.
struct Summary {
  BinCounts symbolic;
  BinCounts numeric;
  long long nnz;
  ProductStats products;  // C with <= SmallPolicy::max_rows rows: statistics and gate
  int longest_row;        // small products: nnz of C's longest row
  unsigned long long b_disorder;  // examined: nonzero where a row of B repeats or lowers a column
  int rows_beyond;        // with a mask cap: rows beyond every symbolic table (MaskCap)
  int gate_shut;          // small products tried behind the gate: nonzero once a row has shut it
  unsigned int symbolic_blocks_done;  // small products: finished blocks (row_offsets.cuh)
  unsigned int work_counters[kMaxBins];  // a row counter per bin (binning.cuh's next_row)
  CsrDefects checks[kMaxCheckedOperands];  // analyze's input checks (~position; 0: none)
};

static_assert(sizeof(Summary) % sizeof(uint32_t) == 0, "the summary is posted in words");
static_assert(sizeof(Summary) <= Context::kZeroedBytes &&
                  sizeof(Summary) / sizeof(uint32_t) <= kPostZeroWordsPerThread * 32,
              "a gated small product's counters fit the handle's zeroed memory and its post");

// The input checks whose verdict a gated product's symbolic phase reads
// back: copies of the descriptors as analyze saw them, to name the defect.
struct DeferredChecks {
  MatrixDesc matrices[kMaxCheckedOperands];
  const char* names[kMaxCheckedOperands] = {};
  int count = 0;
  void keep(const CheckedOperand* checks, int n) {
    for (count = 0; count < n; ++count) {
      matrices[count] = *checks[count].m;
      names[count] = checks[count].name;
    }
  }
  std::array<CheckedOperand, kMaxCheckedOperands> operands() const {
    std::array<CheckedOperand, kMaxCheckedOperands> out{};
    for (int i = 0; i < count; ++i) out[i] = {&matrices[i], names[i]};
    return out;
  }
};

// How a product's symbolic phase runs.
enum class Path {
  // One kernel over all rows behind the gate (ProductStats::small_rows),
  // which also runs the analysis: analyze did not synchronize. Its verdict
  // makes the path small (the gate opened: the phase is done) or what
  // analyze would otherwise have chosen.
  gated,
  small,   // one kernel over all rows (the small-product pipeline)
  binned,  // the rows by bins (the binned pipeline)
};

// What analyze found: the symbolic phase's input.
struct Analysis {
  Path path = Path::binned;
  int lanes = 1;                   // lanes_for(B)
  bool b_order_examined = false;   // b_order_worth_examining, or as counted
  MaskCap mask_cap;                // the symbolic binning's
  long long known_products = -1;   // C's products where analyze or a shut gate read them back
  long long checked_products = -1; // C's products where analyze's input checks read them back
  // gated, small: the one bin of all rows
  int bin = -1;
  // gated: the most terms a row may have for the gate to open; the input
  // checks left to the symbolic phase; where its kernel counts (the
  // handle's zeroed memory, Context::zeroed_counters; nullptr: the plan's
  // summary)
  int gate_max_row_terms = 0;
  DeferredChecks deferred;
  Summary* counters = nullptr;
  // After a gated kernel that counted in the handle's zeroed memory: what
  // it posted, which the plan's summary, never zeroed, lacks until
  // restore_counts (before any kernel counts there).
  std::optional<Summary> posted;
  // binned: the thresholds the rows were binned with, the bins' counts
  // where analyze read them back, and otherwise the most terms of a row
  // where known (bins that cannot hold it are not launched)
  BinThresholds thresholds{};
  std::optional<BinCounts> counts;
  int most_terms = INT_MAX;
};

// What the symbolic phase found: the numeric phase's input.
struct Structure {
  bool b_sorted = false;     // B's order examined and its rows strictly increasing
  int bin = -1;              // small: the one numeric bin of all rows; -1: binned
  BinCounts counts{};        // binned: the numeric bins' counts
  bool thread_rows = false;  // binned: Choices::numeric_thread_rows
};

// analyze's buffers, carved from one allocation (each pool allocation costs
// the host about a microsecond, which small products feel): the summary, the
// rows of both phases' bins, the terms of every row of C (the analysis
// counts them; both phases bin by them) and, only where the analysis finds
// them, the width and first column of their columns' range
// (TermCount::spans, span_firsts; the symbolic phase's binning and its
// bitmasks over ranges use them).
class AnalysisBuffers {
 public:
  Summary* summary = nullptr;
  int* symbolic_rows = nullptr;
  int* numeric_rows = nullptr;
  int* terms = nullptr;
  int* spans = nullptr;        // nullptr: not allocated
  int* span_firsts = nullptr;  // nullptr: not allocated

  // `ranges` arrays of the columns' ranges: 0, 1 (spans) or 2 (and firsts).
  static size_t bytes(int rows, int ranges) {
    return Arena::round_up(sizeof(Summary)) + (3 + ranges) * pitch(rows);
  }
  // Bytes from one array of rows to the next (terms, spans and span_firsts
  // follow each other: take_counts copies them at once).
  static size_t pitch(int rows) { return Arena::round_up(sizeof(int) * rows); }
  // Gives back the previous buffers first (never two at once).
  void reallocate(Context& ctx, int rows, int ranges) {
    block_.reallocate(ctx, bytes(rows, ranges));
    unsigned char* at = block_.get();
    summary = reinterpret_cast<Summary*>(at);
    at += Arena::round_up(sizeof(Summary));
    spans = span_firsts = nullptr;
    int** arrays[] = {&symbolic_rows, &numeric_rows, &terms, &spans, &span_firsts};
    for (int i = 0; i < 3 + ranges; ++i) {
      *arrays[i] = reinterpret_cast<int*>(at);
      at += pitch(rows);
    }
  }

 private:
  DeviceBuffer<unsigned char> block_;
};

// The side streams of one phase's bins (kernels.hpp's LaunchStreams):
// forked from the handle's stream for `launches` launches, joined to it
// again by done(), or on the way out if a launch threw.
class BinFork {
 public:
  BinFork(Context& ctx, int launches)
      : ctx_(ctx), sides_(std::min(std::max(launches - 1, 0), Context::kSideStreams)) {
    streams_.main = ctx.stream();
    if (sides_ > 0) streams_.side = ctx.fork(sides_);
    streams_.sides = sides_;
  }
  ~BinFork() {
    if (sides_ > 0) ctx_.join(sides_);
  }
  BinFork(const BinFork&) = delete;
  BinFork& operator=(const BinFork&) = delete;
  const LaunchStreams& streams() const { return streams_; }
  void done() {
    const int sides = std::exchange(sides_, 0);
    if (sides > 0) SPGEMM_CUDA_CHECK(ctx_.join(sides));
  }

 private:
  Context& ctx_;
  int sides_;
  LaunchStreams streams_;
};

}  // namespace spgemm::cuda
