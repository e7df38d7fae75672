// SPDX-License-Identifier: Apache-2.0
// The analysis's pass over the operands (analysis.cuh) as the device runs
// it: the kernel arguments, and the blocks' work (analysis_pass), which the
// analysis kernel runs (analysis.cu) and a small product's symbolic kernel
// too, in blocks of its own (kernels/symbolic.cu).
#pragma once

#include "core/csr_checks.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/group_collectives.cuh"
#include "cuda/pattern.cuh"
#include "cuda/warp_shuffle.cuh"

#include <climits>
#include <cstdint>
#include <type_traits>

namespace spgemm::cuda {

// A structure whose positions the kernel goes through: checked (defects
// into *found) or fingerprinted (into *print), or both.
template <class Offset, class Col>
struct CheckedView {
  const Offset* offsets;
  const Col* cols;
  int64_t rows, num_cols, nnz, base;
  CsrDefects* found;         // nullptr: not checked
  unsigned long long* print;  // nullptr: not fingerprinted
};

template <class Offset, class Col>
struct CheckedViews {
  CheckedView<Offset, Col> m[kMaxCheckedOperands + kMaxPrinted];
  int count;
};

// The term count's operands and the extents its reads are clamped to.
template <class Offset, class Col>
struct CountArgs {
  Pattern<Offset, Col> A, B, D;  // D.offsets nullptr: no D
  Offset a_nnz, b_nnz, d_nnz;
  int b_rows;
  int rows;           // 0: no count
  int rows_per_warp;  // configs/bins.hpp's analysis_rows_per_warp
  int* sizes;
  ProductStats* stats;
  unsigned long long* b_disorder;  // nullptr: B's order not examined
  int* spans;            // nullptr: not asked for (TermCount::spans)
  int* span_firsts;      // nullptr: not asked for (TermCount::span_firsts)
  int* rows_beyond;      // nullptr: not asked for (TermCount::rows_beyond)
  int beyond_terms;
};

template <class Offset>
__device__ __forceinline__ Offset clamp_to(Offset x, Offset lo, Offset hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// [begin, end) of a row of m clamped into [0, nnz].
template <class Offset, class Col>
__device__ __forceinline__ void clamped_row(const Pattern<Offset, Col>& m, Offset nnz, int row,
                                            Offset& begin, Offset& end) {
  begin = clamp_to(m.begin(row), Offset(0), nnz);
  end = clamp_to(m.end(row), begin, nnz);
}

// The least and greatest column a lane has seen (TermCount::spans).
struct ColumnRange {
  long long lo = LLONG_MAX;
  long long hi = LLONG_MIN;
  __device__ void add(long long col) { merge(col, col); }
  __device__ void merge(long long other_lo, long long other_hi) {
    lo = other_lo < lo ? other_lo : lo;
    hi = other_hi > hi ? other_hi : hi;
  }
};

// The entries first, first + 32, ... (N of them, those at or past `limit`
// none) of A: each one's length of the row of B it names, and with c.spans
// that row's first and last column (lo > hi: none). The loads of all N
// entries are issued before any of them is used, stage by stage (A's column,
// B's offsets, B's end columns), so that a lane has N chains of dependent
// loads in flight rather than one: 4 along a long row, 2 over a run of short
// rows, whose chunks' scans take the registers (4 there too is slower on
// wing). Chosen by `spgemm-bench --gen rmat:16:16 --gen longrows:20000 --gen
// uniform:500000:8 --gen stencil27:64 cryg2500.mtx.gz wing.mtx.gz`, ana.
constexpr int kRowBatch = 4;
constexpr int kRunBatch = 2;

template <int N, class Offset, class Col>
__device__ __forceinline__ void batch_terms(const CountArgs<Offset, Col>& c, Offset first,
                                            Offset limit, Offset (&length)[N], int (&lo)[N],
                                            int (&hi)[N]) {
  int k[N];
#pragma unroll
  for (int u = 0; u < N; ++u) {
    const Offset p = first + static_cast<Offset>(32 * u);
    k[u] = p < limit ? c.A.col(p) : -1;
  }
  Offset b_begin[N], b_end[N];
#pragma unroll
  for (int u = 0; u < N; ++u) {
    b_begin[u] = b_end[u] = 0;
    if (k[u] >= 0 && k[u] < c.b_rows) clamped_row(c.B, c.b_nnz, k[u], b_begin[u], b_end[u]);
    length[u] = b_end[u] - b_begin[u];
    lo[u] = INT_MAX;
    hi[u] = INT_MIN;
  }
  if (!c.spans) return;
#pragma unroll
  for (int u = 0; u < N; ++u)
    if (b_end[u] > b_begin[u]) {
      lo[u] = c.B.col(b_begin[u]);
      hi[u] = c.B.col(b_end[u] - 1);
    }
}

// Warp-collective, for run_terms: one chunk of 32 entries of a run of rows
// [first, first + last] (this lane's row's entries [begin, end)), this
// lane's entry p = chunk + lane having `length` terms and the column range
// [lo, hi] (batch_terms): each row's sum over the chunk added to its lane's
// `terms` (and range).
template <class Offset, class Col>
__device__ __forceinline__ void add_chunk(const CountArgs<Offset, Col>& c, Offset chunk,
                                          Offset run_end, int last, Offset begin, Offset end,
                                          long long length, int lo, int hi, long long& terms,
                                          ColumnRange& range) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const Offset p = chunk + lane;
  int row = 0;  // the lane of the last row that begins at or before p
#pragma unroll
  for (int step = 16; step > 0; step /= 2) {
    if (step > last) continue;  // (warp-uniform)
    const Offset row_begin = shfl(kFullWarp, begin, min(row + step, last));
    if (row + step <= last && row_begin <= p) row += step;
  }
  const Offset row_begin = shfl(kFullWarp, begin, row);
  const Offset row_end = shfl(kFullWarp, end, row);
  if (!(p >= row_begin && p < row_end && p < run_end)) {  // past the run, or defective offsets
    length = 0;
    lo = INT_MAX;
    hi = INT_MIN;
  }
  // inclusive scan over the lanes of the same row, from its first lane here
  const int row_first = row_begin > chunk ? static_cast<int>(row_begin - chunk) : 0;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const long long up = __shfl_up_sync(0xffffffffu, length, d);
    if (lane - d >= row_first) length += up;
    if (c.spans) {
      const int up_lo = __shfl_up_sync(0xffffffffu, lo, d);
      const int up_hi = __shfl_up_sync(0xffffffffu, hi, d);
      if (lane - d >= row_first) {
        lo = min(lo, up_lo);
        hi = max(hi, up_hi);
      }
    }
  }
  // this lane's row: its sum here is at its last entry in the chunk
  const bool here = lane <= last && end > begin && begin < chunk + 32 && end > chunk;
  const Offset last_entry = (end < chunk + 32 ? end : chunk + 32) - 1 - chunk;
  const int from = here ? static_cast<int>(last_entry) : 0;
  const long long sum = shfl(kFullWarp, length, from);
  const int sum_lo = shfl(kFullWarp, lo, from), sum_hi = shfl(kFullWarp, hi, from);
  if (here) {
    terms += sum;
    if (c.spans && sum_hi >= sum_lo) range.merge(sum_lo, sum_hi);
  }
}

// Warp-collective: the terms of rows [first, first + c.rows_per_warp) of A,
// lane l < c.rows_per_warp getting those of row first + l (with c.spans
// their columns' range too). Rows of fewer than AnalysisPolicy::rowwise_entries
// (configs/bins.hpp) entries on average are taken together, 32 entries at a
// time, one a lane, whatever row each is in: each lane finds its entry's row
// by a binary search over the rows' beginnings, a scan segmented by row sums
// the lengths of the rows of B they name, and each row's lane takes its sum
// from the last of its lanes (add_chunk). Longer rows are taken one after
// the other, the warp striding over each. (Lanes per row by A's average row
// would leave the lanes of short rows idle: G3_circuit, 4.8 entries a row,
// would get 8 lanes a row. Runs of longer rows are faster row by row:
// `spgemm-bench G3_circuit.mtx.gz bcsstk33.mtx.gz --gen rmat:16:16`, ana.)
template <class Offset, class Col>
__device__ long long run_terms(const CountArgs<Offset, Col>& c, int first, ColumnRange& range) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int last = min(c.rows_per_warp, c.rows - first) - 1;  // the run's last row's lane
  Offset begin = 0, end = 0;
  if (lane <= last) clamped_row(c.A, c.a_nnz, first + lane, begin, end);
  // (valid offsets make the rows contiguous; others are read within bounds)
  const Offset run_begin = shfl(kFullWarp, begin, 0);
  const Offset run_end = shfl(kFullWarp, end, last);
  long long terms = 0;
  if (run_end - run_begin >= static_cast<Offset>(AnalysisPolicy::rowwise_entries) * (last + 1)) {
    for (int row = 0; row <= last; ++row) {
      long long length = 0;
      int lo = INT_MAX, hi = INT_MIN;
      const Offset row_end = shfl(kFullWarp, end, row);
      for (Offset p = shfl(kFullWarp, begin, row) + lane; p < row_end; p += 32 * kRowBatch) {
        Offset lengths[kRowBatch];
        int los[kRowBatch], his[kRowBatch];
        batch_terms(c, p, row_end, lengths, los, his);
#pragma unroll
        for (int u = 0; u < kRowBatch; ++u) {
          length += lengths[u];
          lo = min(lo, los[u]);
          hi = max(hi, his[u]);
        }
      }
#pragma unroll
      for (int d = 16; d > 0; d /= 2) {
        length += __shfl_xor_sync(0xffffffffu, length, d);
        if (c.spans) {
          lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, d));
          hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
        }
      }
      if (lane == row) {
        terms = length;
        if (c.spans && hi >= lo) range.merge(lo, hi);
      }
    }
  } else {
    for (Offset batch = run_begin; batch < run_end; batch += 32 * kRunBatch) {
      Offset lengths[kRunBatch];
      int los[kRunBatch], his[kRunBatch];
      batch_terms(c, batch + lane, run_end, lengths, los, his);
#pragma unroll
      for (int u = 0; u < kRunBatch; ++u) {
        const Offset chunk = batch + static_cast<Offset>(32 * u);
        if (chunk >= run_end) break;  // (warp-uniform)
        add_chunk(c, chunk, run_end, last, begin, end, lengths[u], los[u], his[u], terms, range);
      }
    }
  }
  if (c.D.offsets && lane <= last) {
    Offset d_begin, d_end;
    clamped_row(c.D, c.d_nnz, first + lane, d_begin, d_end);
    terms += d_end - d_begin;
    if (c.spans)
      for (Offset d = d_begin; d < d_end; ++d) range.add(c.D.col(d));
  }
  return terms;
}

// What one pass needs: the structures it checks and fingerprints, the count
// (rows 0: none), and how many threads have work (0: nothing to do), which
// sizes its grid (analysis_pass_of, analysis.cu).
template <class Offset, class Col>
struct AnalysisPass {
  CheckedViews<Offset, Col> checks;
  CountArgs<Offset, Col> count;
  int64_t work;
};

// The sum of x over the block (blockDim.x a multiple of 32). Block-collective.
__device__ __forceinline__ long long block_sum(long long x, long long* partial) {
  long long total = 0;
  group_exclusive_sum(x, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), partial,
                      total);
  return total;
}

// A share of the statistics, added by one thread.
__device__ __forceinline__ void add_stats(ProductStats* stats, long long total, int most) {
  if (total != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(&stats->total),
              static_cast<unsigned long long>(total));
  if (most != 0) atomicMax(&stats->max, most);
}

// The block's share of the statistics: its threads' totals and longest
// rows reduced in the block first, then one atomic per statistic (one per
// row takes ~7 us on cryg2500's 2500 rows: atomics on one address queue in
// L2). Block-collective.
__device__ __forceinline__ void add_block_stats(ProductStats* stats, long long total, int most,
                                                long long* partial) {
  const long long block_total = block_sum(total, partial);
  int least = 0;
  group_min_max(least, most, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                partial);
  if (threadIdx.x == 0) add_stats(stats, block_total, most);
}

// Block `block` of `blocks` going through the pass grid-stride: the checks
// position by position, then (if asked) the order of B's rows, then the
// count, a warp per run of rows, and the statistics (add_block_stats). The
// blocks are the analysis kernel's grid (analysis.cu) or some of a
// small product's symbolic kernel (kernels/symbolic.cu, without the count:
// its rows count their own terms), of any multiple of 32 threads.
// Block-collective.
template <class Offset, class Col>
__device__ void analysis_pass(const CheckedViews<Offset, Col>& checks,
                              const CountArgs<Offset, Col>& c, int block, int blocks) {
  __shared__ long long partial[32];  // group_collectives.cuh's scratch
  const long long thread = static_cast<long long>(block) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(blocks) * blockDim.x;
  for (int i = 0; i < checks.count; ++i) {
    const CheckedView<Offset, Col>& m = checks.m[i];
    // (a checked structure's columns are read only as far as its last row
    // offset says they go: core/csr_checks.hpp's checked_entries)
    const int64_t entries =
        m.found ? checked_entries(m.nnz, m.offsets[m.rows], m.base) : m.nnz;
    const int64_t positions = m.rows + 1 > entries ? m.rows + 1 : entries;
    // each thread's first defects (~position, 0: none) kept in registers and
    // reported once: with no stores in the loop, the unrolled positions'
    // loads are in flight together (`spgemm-split-bench --devices 0,1 --gen
    // banded:500000:16`, the cut's checks and count)
    unsigned long long least[kCsrDefects] = {};
    unsigned long long print = 0;
    // (one loop per kind of view, without branches in it: its loads are
    // then issued ahead, which conditional ones are not)
    auto pass = [&](auto checked, auto printed) {
#pragma unroll 4
      for (int64_t p = thread; p < positions; p += stride) {
        if constexpr (decltype(checked)::value)
          inspect_csr_position(p, m.rows, m.num_cols, m.nnz, entries, m.base, m.offsets, m.cols,
                               [&](int defect, int64_t at) {
                                 const auto mark = ~static_cast<unsigned long long>(at);
                                 least[defect] = max(least[defect], mark);
                               });
        if constexpr (decltype(printed)::value)
          print += fingerprint_position(p, m.rows, entries, m.offsets, m.cols);
      }
    };
    if (m.found && m.print)
      pass(std::true_type{}, std::true_type{});
    else if (m.found)
      pass(std::true_type{}, std::false_type{});
    else
      pass(std::false_type{}, std::true_type{});
    if (m.found) {
      auto* first = reinterpret_cast<unsigned long long*>(m.found->first);
      for (int d = 0; d < kCsrDefects; ++d)
        if (least[d]) atomicMax(&first[d], least[d]);
    }
    if (m.print) {  // (every thread of the grid is here: the stride is whole warps)
      for (int d = 16; d > 0; d /= 2) print += __shfl_down_sync(0xffffffffu, print, d);
      if ((threadIdx.x & 31) == 0 && print) atomicAdd(m.print, print);
    }
  }
  if (c.b_disorder) {
    // B's entries whose column is not above the one before (descents), less
    // those where a row begins (each such position once, however many empty
    // rows begin there): what is left is within rows. Position by position,
    // every thread on its own (a warp per row of B left most lanes idle on
    // short rows).
    // (positions up to B's last row offset where that is less than its nnz:
    // a declared nnz beyond what the offsets hold is a defect the checks
    // report beside this loop, which must not read past the arrays)
    const long long b_entries =
        c.b_rows > 0 ? checked_entries(static_cast<int64_t>(c.b_nnz), c.B.offsets[c.b_rows],
                                       c.B.base)
                     : 0;
    long long within = 0;
#pragma unroll 4
    for (long long i = thread + 1; i < b_entries; i += stride)
      within += c.B.cols[i] <= c.B.cols[i - 1];
#pragma unroll 4
    for (long long r = thread + 1; r < c.b_rows; r += stride) {
      const Offset at = c.B.begin(static_cast<int>(r));
      if (at > c.B.begin(static_cast<int>(r) - 1) && at > 0 && at < b_entries)
        within -= c.B.cols[at] <= c.B.cols[at - 1];
    }
    const long long block_within = block_sum(within, partial);
    if (threadIdx.x == 0 && block_within != 0)
      atomicAdd(c.b_disorder, static_cast<unsigned long long>(block_within));
  }
  if (c.rows == 0) return;

  long long total = 0;
  int most = 0;
  __shared__ int block_beyond;  // rows of more than c.beyond_terms terms
  if (threadIdx.x == 0) block_beyond = 0;
  __syncthreads();
  // whole warps go round together (the shuffles): the stride is a multiple of 32
  const long long runs = (c.rows + c.rows_per_warp - 1) / c.rows_per_warp;
  for (long long run = thread / 32; run < runs; run += stride / 32) {
    const int first = static_cast<int>(run * c.rows_per_warp);
    ColumnRange range;
    const long long terms = run_terms(c, first, range);
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int row = first + lane;
    if (lane < c.rows_per_warp && row < c.rows) {
      if (terms > c.beyond_terms) atomicAdd(&block_beyond, 1);
      const int size = terms > INT_MAX ? INT_MAX : static_cast<int>(terms);
      c.sizes[row] = size;
      if (c.spans) {
        const long long width = range.hi >= range.lo ? range.hi - range.lo + 1 : 0;
        c.spans[row] = width > INT_MAX ? INT_MAX : static_cast<int>(width);
        if (c.span_firsts) c.span_firsts[row] = width > 0 ? static_cast<int>(range.lo) : 0;
      }
      total += terms;
      most = max(most, size);
    }
  }
  if (c.rows_beyond) {
    __syncthreads();
    if (threadIdx.x == 0 && block_beyond > 0) atomicAdd(c.rows_beyond, block_beyond);
  }
  if (!c.stats) return;

  add_block_stats(c.stats, total, most, partial);
}

// The gate of a small product tried before its statistics are known
// (ProductStats::small_rows), by its symbolic kernel's last block to finish
// (kernels/symbolic.cu), once every block's checks and share of the
// statistics (its rows' terms, add_stats) are in and visible to it:
// open (true) if the checks found nothing, the total is small and no row
// has shut it (*shut: a row of more terms than the gate takes, or one that
// failed the tests on the operands' sizes). The rows count their terms
// where they are hashed, so the pass's blocks only check: a count and
// reductions of their own would end the symbolic kernel later than the
// rows do (`spgemm-bench lp_ship04l.mtx.gz qh1484.mtx.gz cryg2500.mtx.gz`,
// sym). Block-collective.
template <class Offset, class Col>
__device__ bool small_product_gate(const CheckedViews<Offset, Col>& checks, int rows,
                                   const int* shut, ProductStats* stats) {
  __shared__ bool open;
  if (threadIdx.x == 0) {
    bool clean = *reinterpret_cast<const volatile int*>(shut) == 0;
    for (int i = 0; i < checks.count; ++i)
      for (int d = 0; d < kCsrDefects && checks.m[i].found; ++d)
        clean &= *reinterpret_cast<volatile unsigned long long*>(&checks.m[i].found->first[d]) == 0;
    open =
        clean && *reinterpret_cast<volatile long long*>(&stats->total) <= SmallPolicy::max_products;
    stats->small_rows = open ? rows : 0;
  }
  __syncthreads();
  return open;
}

// The pass launch_analysis launches (analysis.cuh), for a kernel that runs
// it in blocks of its own: work 0 where there is nothing to do.
template <class Offset, class Col>
AnalysisPass<Offset, Col> analysis_pass_of(Context& ctx, const CheckedOperand* checks, int count,
                                           CsrDefects* found, const TermCount* terms,
                                           const Fingerprints* prints = nullptr);

}  // namespace spgemm::cuda
