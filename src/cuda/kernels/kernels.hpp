// SPDX-License-Identifier: Apache-2.0
// Host-side launchers of the symbolic and numeric kernels, one launch per bin.
#pragma once

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "cuda/binning/binning.cuh"
#include "cuda/binning/row_offsets.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/dispatch/choice.hpp"
#include "cuda/kernels/row_loop.cuh"

#include <cuda/std/complex>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace spgemm::cuda {

// Calls f(std::true_type{}) or f(std::false_type{}): kernels are compiled
// for both values of a run-time option (an addend D, the order of adds)
// rather than testing it in their inner loops.
template <class F>
void with_flag(bool flag, F&& f) {
  if (flag) f(std::true_type{});
  else f(std::false_type{});
}

// Calls f(std::integral_constant<int, K>{}) for the registers per lane K of
// a sort bin (configs/bins.hpp), K = 1 or 2: the only ones kSortBinTerms may
// ask for, or rows of more terms would have their excess dropped.
constexpr bool sort_bins_have_kernels() {
  for (const int terms : kSortBinTerms)
    if (terms != 32 && terms != 64) return false;
  return true;
}
static_assert(sort_bins_have_kernels(), "with_sort_registers instantiates K = 1 and 2 only");
template <class F>
void with_sort_registers(int k, F&& f) {
  if (k == 1) f(std::integral_constant<int, 1>{});
  else f(std::integral_constant<int, 2>{});
}

// The last hash bin's rows split among blocks in the numeric phase
// (dispatch/choice.hpp's Choices::split_parts; numeric/split_rows.cuh's split_numeric_kernel),
// and their scratch (configs/bins.hpp's SplitRowsLayout): parts 0
// where they are not split.
struct SplitRows {
  int parts = 0;
  int width = 0;                // B's columns
  int table = 0;                // the slots of the bin's table (>= width)
  void* dense = nullptr;        // [rows][width] values
  uint32_t* masks = nullptr;    // [rows][words()]: the columns the parts found
  int* flags = nullptr;         // [rows]: the parts that have added theirs (zeroed)
  unsigned* work_counter = nullptr;  // the items the blocks have taken (zeroed)

  __host__ __device__ int words() const {
    return static_cast<int>(SplitRowsLayout::mask_words(width));
  }
  // The scratch at `at` (`layout`'s end bytes) for its rows.
  static SplitRows of(unsigned char* at, int parts, int width, int table,
                      const SplitRowsLayout& layout) {
    SplitRows s{parts, width, table};
    s.dense = at;
    s.masks = reinterpret_cast<uint32_t*>(at + layout.masks);
    s.flags = reinterpret_cast<int*>(at + layout.flags);
    s.work_counter = reinterpret_cast<unsigned*>(at + layout.work_counter);
    return s;
  }
};

// Which kernels run on which rows of C: the bins of binned_rows (bin counts
// on the device, and on the host too where host_counts is set: then empty
// bins are skipped and grids are exact; otherwise every bin is launched with
// a grid sized for all rows and its kernels read their count themselves), or,
// for small products (single_bin >= 0), all rows in order through that one
// bin's kernel, without any row lists (RowSet::all).
struct Schedule {
  const BinCounts* counts = nullptr;
  const int* binned_rows = nullptr;
  const BinCounts* host_counts = nullptr;
  int single_bin = -1;
  unsigned* work_counters = nullptr;  // binned: a row counter per bin (next_row), zeroed
  // without host counts: no row has more terms, and bins that cannot hold
  // such rows (BinThresholds::may_hold) are not launched (INT_MAX: any row)
  int most_terms = INT_MAX;
  // binned: the warp bins in one launch (the symbolic phase of C of few
  // rows, configs/bins.hpp's SmallPolicy::few_launches_rows)
  bool one_warp_launch = false;
  // binned: the thresholds the rows were binned with where they are not
  // the layout's (Choices::symbolic_thresholds: no thread bin for C of few rows)
  const BinThresholds* thresholds = nullptr;
  // numeric: the thread bin's rows take a thread each, else a warp's
  // registers each (Choices::numeric_thread_rows)
  bool thread_rows = false;
  // numeric: the last hash bin's rows split among blocks where parts > 0
  SplitRows split;
};

// The streams a schedule's launches go to: the first to `main`, the others
// in turn to `side` streams, which the caller forks from main before and
// joins to it after (cuda_engine.cu), so that the bins' kernels run at once.
struct LaunchStreams {
  cudaStream_t main = nullptr;
  const cudaStream_t* side = nullptr;
  int sides = 0;
  cudaStream_t of(int launch) const {
    return launch == 0 || sides == 0 ? main : side[(launch - 1) % sides];
  }
};

// Whether a binned schedule launches bin `bin`: one with rows, where the
// host knows the counts; else one that can hold the rows (BinThresholds::may_hold).
inline bool launches_bin(const BinLayout& layout, const Schedule& s, int bin) {
  if (s.host_counts) return s.host_counts->count[bin] > 0;
  return (s.thresholds ? *s.thresholds : layout.thresholds).may_hold(bin, s.most_terms);
}

// The last bin of the one launch of the warp bins (Schedule::one_warp_launch)
// that runs: bins 0 .. it go to that launch; -1: none does.
inline int last_warp_bin(const BinLayout& layout, const Schedule& s) {
  int last = std::min(kWarpBins, layout.dense_bin()) - 1;
  while (last >= 0 && !launches_bin(layout, s, last)) --last;
  return last;
}

// Calls f(bin, RowSet, rows in the set, stream) for every launch of the
// schedule; bin layout.dense_bin() is the dense-window bin, those after it
// the sort bins; a set of several bins (one_warp_launch) comes with its
// last. The bins of the longest rows come first (the dense bin, then the
// hash bins from the largest down, then the sort bins): few rows of much
// work each, which the many short rows of the others then run beside.
template <class F>
void for_each_scheduled_bin(const BinLayout& layout, int rows, const Schedule& s,
                            const LaunchStreams& streams, F&& f) {
  if (s.single_bin >= 0) {
    f(s.single_bin, RowSet::all(rows), rows, streams.main);
    return;
  }
  int launch = 0;
  const int warps_last = s.one_warp_launch ? last_warp_bin(layout, s) : -1;
  auto visit = [&](int bin) {
    if (bin < warps_last) return;  // (in the launch of warps_last)
    if (bin == warps_last) {  // bins 0 .. warps_last at once
      int n = rows;
      if (s.host_counts)
        for (int b = n = 0; b <= warps_last; ++b) n += s.host_counts->count[b];
      if (n > 0)
        f(bin, RowSet::of_bins(s.counts, 0, warps_last + 1, s.binned_rows), n,
          streams.of(launch++));
      return;
    }
    const int n = s.host_counts ? s.host_counts->count[bin] : rows;
    unsigned* counter = s.work_counters ? s.work_counters + bin : nullptr;
    if (n > 0 && launches_bin(layout, s, bin))
      f(bin, RowSet::of_bin(s.counts, bin, s.binned_rows, counter), n, streams.of(launch++));
  };
  for (int bin = layout.dense_bin(); bin >= 0; --bin) visit(bin);
  for (int bin = layout.dense_bin() + 1; bin < layout.bins(); ++bin) visit(bin);
}

// The number of launches for_each_scheduled_bin makes.
inline int scheduled_launches(const BinLayout& layout, const Schedule& s) {
  if (s.single_bin >= 0) return 1;
  const int warps_last = s.one_warp_launch ? last_warp_bin(layout, s) : -1;
  int launches = warps_last >= 0;
  for (int bin = warps_last + 1; bin < layout.bins(); ++bin)
    launches += launches_bin(layout, s, bin);
  return launches;
}

// The rows whose columns the symbolic phase may mark in a bitmask over
// their range instead of a hash set, where the range fits the bits of their
// table: firsts[row] and widths[row], the range as the analysis measured it
// (TermCount::span_firsts, spans), exact where B's rows are sorted
// (*b_disorder == 0). widths nullptr: none.
struct SymbolicRanges {
  const int* widths = nullptr;
  const int* firsts = nullptr;
  const unsigned long long* b_disorder = nullptr;
};

template <class Offset, class Col>
struct AnalysisPass;  // analysis/analysis_pass.cuh

// Writes the nnz of every row of C the schedule covers into row_nnz (rows
// left out have no products); with `small` (a single-bin schedule) its
// rows' counts go to small->counts and the kernel's last block turns them
// into C's offsets (binning/row_offsets.cuh), with `analysis` (where not
// nullptr) run by blocks of its own beside the rows. terms[row]: the row's
// terms as the analysis counted them (unused with `small`: that kernel
// counts them).
template <class Offset, class Col>
void launch_symbolic(const Choices& choices, Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                     Pattern<Offset, Col> D, int rows, int lanes, const int* terms,
                     SymbolicRanges ranges, const Schedule& schedule, Offset* row_nnz,
                     const SmallFinish<Offset>* small, const AnalysisPass<Offset, Col>* analysis,
                     const LaunchStreams& streams);

// x * y with every rounding spelled out as an intrinsic, which the compiler
// never fuses with a neighbouring add into an FMA. Plain `*` lets it fuse
// where it sees fit, differently in differently inlined copies of the same
// expression (complex products differed in the last bit between the kernels
// of the first and later numeric phases), and the numeric phase promises
// the same bits from whichever kernel computes a row.
__device__ __forceinline__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }
template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> mul_rn(::cuda::std::complex<Real> x,
                                                            ::cuda::std::complex<Real> y) {
  return {add_rn(mul_rn(x.real(), y.real()), -mul_rn(x.imag(), y.imag())),
          add_rn(mul_rn(x.real(), y.imag()), mul_rn(x.imag(), y.real()))};
}

// C's row offsets carry C's index base (c_begin / c_end take it off); its
// column indices are written with c_base added.
template <class Value, class Offset, class Col>
struct NumericArgs {
  Pattern<Offset, Col> A, B, D;  // D.offsets == nullptr: no addend
  const Value* a_values;
  const Value* b_values;
  const Value* d_values;
  Value alpha;
  Value beta;
  const Offset* c_offsets;
  int c_base;
  Col* c_cols;
  Value* c_values;
  // Whether B's rows were examined and found strictly increasing
  // (analysis.cuh's TermCount::b_disorder read 0, as the symbolic phase's
  // readback brought it): whole rows of B only then.
  bool b_sorted;

  __device__ __forceinline__ bool b_rows_sorted() const { return b_sorted; }
  __device__ __forceinline__ Offset c_begin(int row) const { return c_offsets[row] - c_base; }
  __device__ __forceinline__ Offset c_end(int row) const { return c_offsets[row + 1] - c_base; }
  // The term of product a_ik * b_kj (positions a and b, or the values),
  // also in two steps (the same bits): alpha * a_ik, then that times b_kj;
  // and of D's entry d.
  __device__ __forceinline__ Value scaled_a(Offset a) const { return mul_rn(alpha, a_values[a]); }
  __device__ __forceinline__ Value product_of(Value scaled, Offset b) const {
    return mul_rn(scaled, b_values[b]);
  }
  __device__ __forceinline__ Value product(Offset a, Offset b) const {
    return product_of(scaled_a(a), b);
  }
  __device__ __forceinline__ Value term(Value a_ik, Value b_kj) const {
    return mul_rn(mul_rn(alpha, a_ik), b_kj);
  }
  __device__ __forceinline__ Value addend(Offset d) const { return mul_rn(beta, d_values[d]); }
};

// Fills C's columns and values, adding each entry's terms in a fixed order
// (bitwise-reproducible results). `reuse`: C's column indices
// were written by the plan's previous numeric phase, rows whose columns are
// still intact only get new values (kernels/known_columns.cuh).
template <class Value, class Offset, class Col>
void launch_numeric(const Choices& choices, const NumericArgs<Value, Offset, Col>& args, int rows,
                    int lanes, bool reuse, const Schedule& schedule, const LaunchStreams& streams);

}  // namespace spgemm::cuda
