// SPDX-License-Identifier: Apache-2.0
// THE place where the GPU engine chooses how a product is computed. Every
// decision of which kernel computes which rows of C is made here, from the
// phase, the rows' statistics, the device's limits and the handle's options;
// the values it reads are the tuning data of configs/bins.hpp, the policy
// structs (each value's measurement: docs/tuning.md). The engine
// (cuda_engine.cu) asks, the launchers (kernels/symbolic.cu,
// kernels/numeric.cuh) launch what it says.
//
// A row's way to its kernel:
//  1. The product's path. A small product (Choices::small_bin,
//     Choices::speculative) runs one kernel per phase over all its rows; any
//     other is binned.
//  2. Its bin. The binning kernels put every row in the bin that
//     BinThresholds::bin_for gives its size and terms, with the thresholds
//     chosen for the phase (Choices::symbolic_thresholds,
//     Choices::numeric_thresholds) over the bins that fit the device
//     (BinLayout, make_bin_layout).
//  3. The bin's kernel (Choices::symbolic_kernel, Choices::numeric_kernel).
//  4. Within a kernel, a row's accumulator and output order follow from its
//     own length and column range (docs/design.md, "The GPU pipeline").
//
// A test may override the choices where both ways compute the same product
// (SPGEMM_TEST_GPU_CHOICE, ChoiceOverride) and record every kernel chosen
// (SPGEMM_TEST_GPU_CHOICE_LOG): tests/gpu/test_gpu_kernel_choices.cpp runs
// every kernel in every value type and index layout that way.
#pragma once

#include "core/context.hpp"
#include "cuda/configs/bins.hpp"

#include <climits>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spgemm::cuda {

// Sizes at which rows change bins, passed to the binning kernels by value.
// Bins are numbered hash bins first, then the dense bin, then the sort bins.
struct BinThresholds {
  int hash_bins = 0;              // bins [0, hash_bins) are hash bins
  int max_size[kHashBinCount]{};  // bin hash_bins is dense
  int sort_bins = 0;              // bins hash_bins + 1 + s: at most sort_terms[s] terms
  int sort_terms[kSortBinCount]{};
  int block_bin = -1;        // rows of a warp bin (below it) with at least
  int block_terms = INT_MAX;  // block_terms terms go there (NumericPolicy::block_row_terms)
  int heavy_terms = INT_MAX;  // rows of a hash bin with at least this many terms go to the
                              // last hash bin (NumericPolicy::heavy_row_terms)

  __host__ __device__ int bins() const { return hash_bins + 1 + sort_bins; }

  // The first sort bin for rows of `terms` terms; -1 if none takes them.
  // (This and bin_for loop to the arrays' compile-time sizes and test the
  // counts inside: unrolled, each threshold is then a kernel parameter at a
  // fixed place. Looping to the counts would make every step a run-time
  // indexed constant load, about a hundred instructions a row.)
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

// Symbolic tables that hold B's columns as a bitmask (kernels/symbolic.cu)
// need no more words than B has columns / 32, whatever a row's terms: sizes
// are at most cap (the first block bin whose table holds them). Rows of more
// than `beyond` (more than any table holds) get the cap bin's small blocks
// only where at least `many` of them (*rows_beyond, from the analysis) keep
// the device busy; otherwise `beyond`, the largest table and blocks
// (configs/bins.hpp's SymbolicPolicy::mask_cap_rows_per_sm).
struct MaskCap {
  int cap = INT_MAX;
  int beyond = INT_MAX;
  const int* rows_beyond = nullptr;
  int many = 0;
};

struct HashBinLaunch {
  HashBinSpec spec;
  // tables and a counter per row; numeric blocks: then the ordered adds'
  // scratch (warps keep theirs in a static array)
  size_t smem_bytes;
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
  // (BinPolicy::thread_row_terms) rather than a warp's registers.
  bool thread_bin(int bin) const {
    return thresholds.sort_terms[bin - dense_bin() - 1] <= BinPolicy::thread_row_terms;
  }
  // K, the terms per lane, of sort bin `bin` (> dense_bin()).
  int sort_registers(int bin) const { return thresholds.sort_terms[bin - dense_bin() - 1] / 32; }
};

enum class Phase { symbolic, numeric };
BinLayout make_bin_layout(const DeviceLimits& limits, Phase phase, size_t entry_bytes,
                          size_t offset_bytes);

// The symbolic phase's kernels (kernels/symbolic.cu).
enum class SymbolicKernel : int {
  small_warp,               // a small product's one launch, a warp a row
  small_block,              // ... a block a row (few rows)
  thread_row,               // the thread bin: a thread a row
  warp_hash,                // a warp's hash set a row
  warp_hash_matched,        // ... rows of few terms counted by __match_any_sync
  warp_range_mask,          // ... or a bitmask over the row's column range
  warp_range_mask_matched,  // both
  block_hash,               // a block's hash set (or B's bitmask) a row
  block_numbered,           // ... the row's products numbered over the block
  block_deferred,           // ... long rows of B put aside for the whole block
  dense_window,             // rows beyond every table: windows of a bitmask
  count
};

// The numeric phase's kernels (kernels/numeric/).
enum class NumericKernel : int {
  thread_row,       // the thread bin: a thread a row
  sort_row_1,       // a warp's registers, 1 term a lane
  sort_row_2,       // ... 2 terms a lane
  warp_hash,        // a warp's hash table a row
  block_hash,       // a block's hash table a row (bound for 1024 threads)
  block_hash_lean,  // ... the instance for blocks of at most NumericPolicy::lean_block_threads
  split_row,        // the last hash bin's rows, each split among blocks
  dense_window,     // rows beyond every table: dense windows or ranked rows
  count
};

const char* name_of(SymbolicKernel k);
const char* name_of(NumericKernel k);

// Where a test overrides a choice: `automatic` leaves it to the rules,
// `always` and `never` force it where both ways compute the product (a row
// never goes to a kernel that cannot hold it). Read from
// SPGEMM_TEST_GPU_CHOICE, a comma-separated list of knob=value:
//   small=never                 no small-product path: every product binned
//   thread_rows=always|never    the thread bins, in both phases
//   lean=always|never           the numeric block kernel's lean instance
//   split=always|never          the last hash bin's rows split among blocks
//   ranges=always|never         the symbolic rows' column ranges measured
//   few_launches=never          C of few rows launched as any other
//   matched=never               no __match_any_sync counting
//   symbolic_block=numbered|deferred|hash
enum class Force : unsigned char { automatic, always, never };
struct ChoiceOverride {
  Force small = Force::automatic;
  Force thread_rows = Force::automatic;
  Force lean = Force::automatic;
  Force split = Force::automatic;
  Force ranges = Force::automatic;
  Force few_launches = Force::automatic;
  Force matched = Force::automatic;
  SymbolicKernel symbolic_block = SymbolicKernel::count;  // count: automatic

  // Parsed from `text` (nullptr or empty: none); a knob or value it does
  // not know is an INVALID_VALUE error.
  static ChoiceOverride parse(const char* text);
};

// What a symbolic launch covers: its bin (of a launch of several warp bins,
// the last), the first bin of the launch, and what the product offers.
struct SymbolicLaunch {
  int bin = 0;
  int first_bin = 0;
  bool small = false;   // a small product's one launch over all rows
  bool ranges = false;  // the analysis measured the rows' column ranges
  bool terms = false;   // the analysis's term counts are at hand
  long long b_cols = 0;
  int lanes = 1;
};

// What a numeric launch covers.
struct NumericLaunch {
  int bin = 0;
  long long rows = 0;        // in the launch
  bool thread_rows = false;  // the schedule's (Choices::numeric_thread_rows)
  bool split = false;        // the last hash bin's rows are split (Choices::split_parts)
};

// Blocks of a numeric kernel resident on the whole device (the occupancy
// query of the instance the launcher would launch for the bin).
using ResidentBlocks = std::function<int(NumericKernel)>;

// The choices of one engine (a value type and index layout on one device).
class Choices {
 public:
  Choices(const DeviceLimits& limits, size_t value_bytes, size_t offset_bytes,
          std::string type_name);
  ~Choices();
  Choices(const Choices&) = delete;
  Choices& operator=(const Choices&) = delete;

  const DeviceLimits& limits() const { return limits_; }
  const BinLayout& layout(Phase phase) const {
    return phase == Phase::symbolic ? symbolic_ : numeric_;
  }
  const ChoiceOverride& forced() const { return forced_; }

  // ---- the product's path ----
  // The hash bin that takes all `rows` rows of a small product whose
  // longest row has `size` terms (or nnz) in `phase`, -1 if none may
  // (configs/bins.hpp's SmallPolicy::max_table_slots): the first that holds the row,
  // from the block bins on for few rows.
  int small_bin(Phase phase, int rows, int size) const;
  // A small product's symbolic bin for C of `rows` rows, `total` products
  // and a longest row of `most` terms, if it is one (SmallPolicy::max_products, and
  // both phases have a bin for its rows); -1 otherwise.
  int small_symbolic_bin(int rows, long long total, int most) const;
  // A small product's numeric bin: the sort bin of its row of `most_terms`
  // terms, or else the hash bin of its longest row (`longest` nnz).
  int small_numeric_bin(int rows, int most_terms, int longest) const;
  // The bin a product is tried in before its statistics are known, and the
  // most terms a row may have for the gate to open; bin -1: not tried.
  struct Speculative {
    int bin = -1;
    int gate_max_row = 0;
  };
  Speculative speculative(int rows, double estimated_products) const;

  // ---- the binning ----
  // Whether the analysis measures the rows' column ranges (C of `rows`
  // rows, B's order examined; SymbolicPolicy::span_min_rows_per_sm).
  bool measure_ranges(long long rows, bool b_examined) const;
  // The symbolic binning's cap for C of `rows` rows and B of `b_cols`
  // columns (SymbolicPolicy::mask_cap_rows_per_sm); none for C of few rows.
  MaskCap mask_cap(long long rows, long long b_cols, const int* rows_beyond) const;
  // The thresholds of the symbolic binning of a C with `rows` rows: without
  // the thread bin where C has too few rows for it (BinPolicy::thread_rows_min_per_sm).
  BinThresholds symbolic_thresholds(int rows) const;
  // The thresholds of the numeric binning of a C with `rows` rows and
  // `products` products (-1: not known on the host): without the move to a
  // block bin for C of many rows (NumericPolicy::block_rows_per_sm), with it from fewer terms
  // for C of few rows and products (NumericPolicy::few_products_rows_per_warp,
  // NumericPolicy::few_products_per_sm).
  BinThresholds numeric_thresholds(int rows, long long products) const;
  // Whether C of `rows` rows makes few launches (SmallPolicy::few_launches_rows): the
  // warp bins' symbolic kernels in one, C's offsets and the numeric binning
  // from one block.
  bool few_launches(int rows) const;
  // Whether the numeric thread bin's rows take a thread each (else a warp's
  // registers): C of many rows (BinPolicy::thread_rows_min_per_sm) whose `products` are
  // at least NumericPolicy::thread_row_min_compression times its nnz.
  bool numeric_thread_rows(int rows, double products, long long nnz) const;
  // The parts each of the last hash bin's `rows` rows is split into in the
  // numeric phase (NumericPolicy::split_rows_max_parts...), or 0: not split. Only without
  // D, for B whose `b_cols` columns fit the bin's table, and a scratch of
  // `scratch_bytes` at most NumericPolicy::split_rows_max_share_of_c of C's `c_bytes`.
  int split_parts(bool addend, long long b_cols, int rows, double scratch_bytes,
                  double c_bytes) const;

  // ---- the bins' kernels ----
  SymbolicKernel symbolic_kernel(const SymbolicLaunch& launch) const;
  NumericKernel numeric_kernel(const NumericLaunch& launch, const ResidentBlocks& resident) const;
  // Shared memory of a block_numbered launch of hash bin `bin`: its tables,
  // then the scratch of the numbering.
  size_t numbered_symbolic_smem(int bin) const;

 private:
  struct Log;
  void record(const char* phase, const char* kernel) const;

  DeviceLimits limits_;
  size_t offset_bytes_;
  BinLayout symbolic_;
  BinLayout numeric_;
  ChoiceOverride forced_;
  std::string type_name_;
  std::unique_ptr<Log> log_;  // SPGEMM_TEST_GPU_CHOICE_LOG; nullptr: none
};

// The parts of the last hash bin's rows (rows_in_bin of them) on a device of
// sm_count SMs, or 0: not split (NumericPolicy::split_rows_max_parts,
// NumericPolicy::split_rows_part_terms).
int split_row_parts(long long rows_in_bin, int sm_count);

// Whether a numeric bin of `rows` rows in blocks of at most
// NumericPolicy::lean_block_threads threads (a row a block) takes the lean instance, which
// the device holds lean_blocks of at once against `blocks` of the other:
// only where more of it are resident and the bin has rows for all of them.
constexpr bool lean_block_pays(long long rows, int lean_blocks, int blocks) {
  return rows >= lean_blocks && lean_blocks > blocks;
}

}  // namespace spgemm::cuda
