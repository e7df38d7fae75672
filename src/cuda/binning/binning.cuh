// SPDX-License-Identifier: Apache-2.0
// Global binning: groups the rows of C by size (configs/bins.hpp) into one
// array of row indices, bin after bin, without a host round trip. Rows of
// size 0 are dropped (their nnz is 0 and nothing needs computing).
//   pass 1 (count):   block-local histograms, one atomic per bin per block;
//   pass 2 (scatter): each block reserves one range per bin and writes its
//                     rows there. Rows within a bin are in no fixed order;
//                     every row is computed independently, so results do not
//                     depend on it.
#pragma once

#include "core/context.hpp"
#include "cuda/dispatch/choice.hpp"

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>

namespace spgemm::cuda {

// Where a row's size comes from: an array (the terms, symbolic phase), or
// C's row offsets (numeric phase); and its terms, which pick the sort bins.
// With spans (symbolic phase), a sizes[row] above spans[row] is taken as
// that where *b_disorder reads 0 (analysis.cuh's TermCount::spans): a row
// of many terms within few columns (banded:500000:16, 1089 terms within 65
// columns) then gets a table for its columns, not its terms. Sizes from the
// array then go through mask_cap.
struct RowSizes {
  const int* sizes = nullptr;          // sizes[row], or
  const int32_t* offsets32 = nullptr;  // offsets[row + 1] - offsets[row], or
  const int64_t* offsets64 = nullptr;  // the same with 64-bit offsets
  const int* terms = nullptr;          // terms[row]
  const int* spans = nullptr;
  const unsigned long long* b_disorder = nullptr;
  MaskCap mask_cap;
};
inline RowSizes sizes_from_terms(const int* terms, const int* spans = nullptr,
                                 const unsigned long long* b_disorder = nullptr) {
  return {terms, nullptr, nullptr, terms, spans, b_disorder};
}
inline RowSizes sizes_from_offsets(const int32_t* offsets, const int* terms) {
  return {nullptr, offsets, nullptr, terms};
}
inline RowSizes sizes_from_offsets(const int64_t* offsets, const int* terms) {
  return {nullptr, nullptr, offsets, terms};
}

__device__ __forceinline__ int size_of(const RowSizes& s, int row) {
  if (s.sizes) {
    int size = s.sizes[row];
    if (s.spans && *s.b_disorder == 0) size = min(size, s.spans[row]);
    const MaskCap& m = s.mask_cap;
    if (size > m.beyond) return *m.rows_beyond >= m.many ? m.cap : m.beyond;
    return min(size, m.cap);
  }
  if (s.offsets32) return s.offsets32[row + 1] - s.offsets32[row];
  return static_cast<int>(s.offsets64[row + 1] - s.offsets64[row]);
}

// A row's bin by BinThresholds::bin_for; -1 for rows that are dropped.
__device__ __forceinline__ int bin_of(const RowSizes& s, int row, const BinThresholds& t) {
  const int size = size_of(s, row);
  return size == 0 ? -1 : t.bin_for(size, s.terms[row]);
}

// counts must be zeroed before. Grids of at most what `limits`' device
// holds resident at once.
void bin_rows(const DeviceLimits& limits, RowSizes sizes, int rows,
              const BinThresholds& thresholds, BinCounts* counts, int* binned_rows,
              cudaStream_t stream);

// The rows of bin `bin` start at sum(count[0..bin)) in binned_rows; device
// code computes that itself so that kernels can be launched before the host
// knows the counts.
__device__ __forceinline__ int bin_begin(const BinCounts* counts, int bin) {
  int begin = 0;
  for (int b = 0; b < bin; ++b) begin += counts->count[b];
  return begin;
}

// The rows one kernel launch works on: bin `bin` of a binned row list
// (counts and list on the device), or bins bin .. bin + bins - 1, which
// follow each other in the list (the symbolic phase's warp bins in one
// launch, configs/bins.hpp's SmallPolicy::few_launches_rows), or, for small products that
// skip the binning (configs/bins.hpp), all rows 0 .. all_rows - 1 in order.
struct RowSet {
  const BinCounts* counts = nullptr;  // nullptr: all rows
  int bin = 0;
  const int* binned = nullptr;
  int all_rows = 0;
  unsigned* work_counter = nullptr;  // binned: the bin's counter for next_row
  int bins = 1;

  static RowSet of_bin(const BinCounts* counts, int bin, const int* binned,
                       unsigned* work_counter) {
    return {counts, bin, binned, 0, work_counter};
  }
  static RowSet of_bins(const BinCounts* counts, int bin, int bins, const int* binned) {
    return {counts, bin, binned, 0, nullptr, bins};
  }
  static RowSet all(int rows) { return {nullptr, 0, nullptr, rows, nullptr}; }

  // On the device: the set's size and its i-th row, read once per kernel.
  struct View {
    const int* list;  // nullptr: row i is i
    int size;
    unsigned* work_counter;
    __device__ __forceinline__ int operator[](int i) const { return list ? list[i] : i; }
  };
  __device__ __forceinline__ View view() const {
    if (!counts) return {nullptr, all_rows, nullptr};
    int size = counts->count[bin];
    for (int b = 1; b < bins; ++b) size += counts->count[bin + b];
    return {binned + bin_begin(counts, bin), size, work_counter};
  }

  // On the device, for a set of several bins (at most kWarpBins): which of
  // them holds its i-th row (0: the first).
  struct Bins {
    int ends[kWarpBins];  // where each bin's rows end in the set
    __device__ __forceinline__ int of(int i) const {
      int k = 0;
#pragma unroll
      for (int b = 0; b + 1 < kWarpBins; ++b) k += i >= ends[b];
      return k;
    }
  };
  __device__ __forceinline__ Bins bins_view() const {
    Bins v;
    int end = 0;
#pragma unroll
    for (int b = 0; b < kWarpBins; ++b) {
      if (b < bins) end += counts->count[bin + b];
      v.ends[b] = b < bins ? end : INT_MAX;
    }
    return v;
  }
};

// The index of the next row of a set for the calling block, or -1 when none
// is left: blocks take rows from a work counter as they free up, instead of each
// taking every gridDim.x-th row, where rows differ widely in work (the dense
// bins' rows of R-MAT: 8 K to 657 K products; dealt out in advance, the SMs
// of rmat:16:16's dense numeric kernel idle 23% of its time, Nsight Compute).
// The counter (device memory) reads 0 before the launch and the launch
// leaves it at 0: every block takes exactly one index past the last row,
// and the last of those resets it. Block-wide.
__device__ __forceinline__ int next_row(unsigned* counter, int rows) {
  __shared__ int next;
  __syncthreads();  // every thread has read the previous index
  if (threadIdx.x == 0) {
    const unsigned i = atomicAdd(counter, 1u);
    const auto end = static_cast<unsigned>(rows);
    if (i == end + gridDim.x - 1) atomicExch(counter, 0u);
    next = i < end ? static_cast<int>(i) : -1;
  }
  __syncthreads();
  return next;
}

// The indices in a set of the rows one group of a kernel takes, one after
// the other (-1: none left): a group that is a whole block (Dynamic) takes
// them from the set's work counter where it has one (binned rows), as
// cub::GridQueue deals out work; otherwise the group takes
// every `step`-th from its own first, `own`.
template <bool Dynamic>
struct RowQueue {
  RowSet::View rows;
  int own;
  int step;
  __device__ __forceinline__ bool dynamic() const { return Dynamic && rows.work_counter; }
  __device__ __forceinline__ int first() const {
    if (dynamic()) return next_row(rows.work_counter, rows.size);
    return own < rows.size ? own : -1;
  }
  __device__ __forceinline__ int next(int i) const {
    if (dynamic()) return next_row(rows.work_counter, rows.size);
    return i + step < rows.size ? i + step : -1;
  }
};

}  // namespace spgemm::cuda
