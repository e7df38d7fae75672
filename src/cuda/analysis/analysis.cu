#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/configs/launch.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

// A checked operand as the kernel reads it.
template <class Offset, class Col>
struct CheckedView {
  const Offset* offsets;
  const Col* cols;
  int64_t rows, num_cols, nnz, base;
};

template <class Offset, class Col>
struct CheckedViews {
  CheckedView<Offset, Col> m[kMaxCheckedOperands];
  int count;
};

// The term count's operands and the extents its reads are clamped to.
template <class Offset, class Col>
struct CountArgs {
  Pattern<Offset, Col> A, B, D;  // D.offsets nullptr: no D
  Offset a_nnz, b_nnz, d_nnz;
  int b_rows;
  int rows;  // 0: no count
  int lanes;  // threads per row of A (a power of two, <= 32)
  int* sizes;
  ProductStats* stats;
  int gate_max_row;
  unsigned* b_disorder;  // nullptr: B's order not examined
  int* spans;            // nullptr: not asked for (TermCount::spans)
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

// This lane's share of the terms of `row` (lanes 0 .. c.lanes - 1), and
// with c.spans the columns at the ends of its rows of B and D's columns.
template <class Offset, class Col>
__device__ long long row_terms(const CountArgs<Offset, Col>& c, int row, int lane,
                               ColumnRange& range) {
  Offset begin, end;
  clamped_row(c.A, c.a_nnz, row, begin, end);
  long long terms = 0;
  for (Offset i = begin + lane; i < end; i += c.lanes) {
    const int k = c.A.col(i);
    if (k < 0 || k >= c.b_rows) continue;
    Offset b_begin, b_end;
    clamped_row(c.B, c.b_nnz, k, b_begin, b_end);
    terms += b_end - b_begin;
    if (c.spans && b_end > b_begin) {
      range.add(c.B.col(b_begin));
      range.add(c.B.col(b_end - 1));
    }
  }
  if (c.D.offsets && lane == 0) {
    Offset d_begin, d_end;
    clamped_row(c.D, c.d_nnz, row, d_begin, d_end);
    terms += d_end - d_begin;
    if (c.spans)
      for (Offset d = d_begin; d < d_end; ++d) range.add(c.D.col(d));
  }
  return terms;
}

struct MaxOp {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// A grid-stride kernel: the checks position by position, then (if asked)
// the order of B's rows, then the count, c.lanes threads per row. The
// statistics go through a block reduction first, one atomic per block and
// statistic (one per row took 6.9 us on cryg2500's 2500 rows, H100: atomics
// on one address queue in L2); the last block to finish sets the gate.
template <class Offset, class Col>
__global__ void __launch_bounds__(kThreads)
    analysis_kernel(CheckedViews<Offset, Col> checks, CsrDefects* found, CountArgs<Offset, Col> c) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (int i = 0; i < checks.count; ++i) {
    const CheckedView<Offset, Col>& m = checks.m[i];
    const int64_t positions = m.rows + 1 > m.nnz ? m.rows + 1 : m.nnz;
    auto* first = reinterpret_cast<unsigned long long*>(found[i].first);
    for (int64_t p = thread; p < positions; p += stride)
      inspect_csr_position(p, m.rows, m.num_cols, m.nnz, m.base, m.offsets, m.cols,
                           [&](int defect, int64_t at) {
                             atomicMax(&first[defect], ~static_cast<unsigned long long>(at));
                           });
  }
  if (c.rows == 0) return;

  if (c.b_disorder) {  // a warp per row of B, each lane a share of its neighbours
    const long long threads = static_cast<long long>(c.b_rows) * 32;
    for (long long t = thread; t < threads; t += stride) {
      const int row = static_cast<int>(t / 32);
      Offset begin, end;
      clamped_row(c.B, c.b_nnz, row, begin, end);
      bool disorder = false;
      for (Offset i = begin + 1 + static_cast<int>(t % 32); i < end; i += 32)
        disorder |= c.B.col(i) <= c.B.col(i - 1);
      if (disorder) atomicOr(c.b_disorder, 1u);
    }
  }

  long long total = 0;
  int most = 0;
  // whole warps go round together (the shuffles): the stride is a multiple of 32
  const long long threads = (static_cast<long long>(c.rows) * c.lanes + 31) / 32 * 32;
  for (long long t = thread; t < threads; t += stride) {
    const int row = static_cast<int>(t / c.lanes);
    const int lane = static_cast<int>(t % c.lanes);
    ColumnRange range;
    long long terms = row < c.rows ? row_terms(c, row, lane, range) : 0;
    for (int d = c.lanes / 2; d > 0; d /= 2) {
      terms += __shfl_down_sync(0xffffffffu, terms, d, c.lanes);
      if (c.spans)
        range.merge(__shfl_down_sync(0xffffffffu, range.lo, d, c.lanes),
                    __shfl_down_sync(0xffffffffu, range.hi, d, c.lanes));
    }
    if (row < c.rows && lane == 0) {
      const int size = terms > INT_MAX ? INT_MAX : static_cast<int>(terms);
      c.sizes[row] = size;
      if (c.spans) {
        const long long width = range.hi >= range.lo ? range.hi - range.lo + 1 : 0;
        c.spans[row] = width > INT_MAX ? INT_MAX : static_cast<int>(width);
      }
      total += terms;
      most = max(most, size);
    }
  }
  if (!c.stats) return;

  using SumReduce = cub::BlockReduce<long long, kThreads>;
  using MaxReduce = cub::BlockReduce<int, kThreads>;
  __shared__ union {
    typename SumReduce::TempStorage sum;
    typename MaxReduce::TempStorage max;
  } temp;
  const long long block_total = SumReduce(temp.sum).Sum(total);
  __syncthreads();  // temp is reused
  const int block_max = MaxReduce(temp.max).Reduce(most, MaxOp{});
  __threadfence();  // this block's checks and statistics before its count below
  __syncthreads();
  if (threadIdx.x != 0) return;
  atomicAdd(reinterpret_cast<unsigned long long*>(&c.stats->total),
            static_cast<unsigned long long>(block_total));
  atomicMax(&c.stats->max, block_max);
  __threadfence();
  if (atomicAdd(&c.stats->blocks_done, 1u) != gridDim.x - 1 || c.gate_max_row == 0) return;
  __threadfence();  // the last block: every other block's results are visible
  bool clean = true;
  for (int i = 0; i < checks.count; ++i)
    for (int d = 0; d < kCsrDefects; ++d)
      clean &= *reinterpret_cast<volatile unsigned long long*>(&found[i].first[d]) == 0;
  const long long all = *reinterpret_cast<volatile long long*>(&c.stats->total);
  const int longest = *reinterpret_cast<volatile int*>(&c.stats->max);
  c.stats->small_rows =
      clean && all <= kSmallMaxProducts && longest <= c.gate_max_row ? c.rows : 0;
}

template <class Offset>
Offset extent(const MatrixDesc* m) {
  return m ? static_cast<Offset>(m->nnz) : Offset(0);
}

}  // namespace

template <class Offset, class Col>
void launch_analysis(Context& ctx, const CheckedOperand* checks, int count, CsrDefects* found,
                     const TermCount* terms) {
  CheckedViews<Offset, Col> views{};
  views.count = count;
  int64_t work = 0;  // threads with something to do
  for (int i = 0; i < count; ++i) {
    const MatrixDesc& m = *checks[i].m;
    views.m[i] = {static_cast<const Offset*>(m.row_offsets), static_cast<const Col*>(m.col_ind),
                  m.rows, m.cols, m.nnz, m.base};
    work = std::max(work, std::max(m.rows + 1, m.nnz));
  }
  CountArgs<Offset, Col> c{};
  if (terms) {
    const Operands& in = *terms->in;
    c = {pattern_of<Offset, Col>(in.A),
         pattern_of<Offset, Col>(in.B),
         pattern_of<Offset, Col>(in.D),
         extent<Offset>(in.A),
         extent<Offset>(in.B),
         extent<Offset>(in.D),
         static_cast<int>(in.B->rows), static_cast<int>(in.A->rows),
         lanes_for(in.A->rows, in.A->nnz, kAnalysisLanes), terms->sizes, terms->stats,
         terms->gate_max_row, terms->b_disorder, terms->b_disorder ? terms->spans : nullptr};
    work = std::max(work, static_cast<int64_t>(c.rows) * c.lanes);
    if (c.b_disorder) work = std::max(work, static_cast<int64_t>(c.b_rows) * 32);
  }
  if (work == 0) return;
  auto kernel = analysis_kernel<Offset, Col>;
  const int grid = grid_for(work, kThreads, resident_blocks(kernel, kThreads, 0, ctx.limits()));
  kernel<<<grid, kThreads, 0, ctx.stream()>>>(views, found, c);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_ANALYSIS(Offset, Col)                                         \
  template void launch_analysis<Offset, Col>(Context&, const CheckedOperand*, int,       \
                                             CsrDefects*, const TermCount*);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_ANALYSIS)

}  // namespace spgemm::cuda
