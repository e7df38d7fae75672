#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/configs/launch.cuh"
#include "cuda/warp_shuffle.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

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
  int gate_max_row;
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
// rows, whose chunks' scans take the registers (analysis kernel with the
// changes below, H100, ncu: rmat:16:16 240 -> 147 us, longrows:20000 116 ->
// 48, uniform:500000:8 137 -> 89, stencil27:64 136 -> 106, cryg2500 8.3 ->
// 8.0; 4 over runs too cost wing 12.0 -> 14.9 us).
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
// their columns' range too). Rows of fewer than kAnalysisRowwiseEntries
// (configs/bins.hpp) entries on average are taken together, 32 entries at a
// time, one a lane, whatever row each is in: each lane finds its entry's row
// by a binary search over the rows' beginnings, a scan segmented by row sums
// the lengths of the rows of B they name, and each row's lane takes its sum
// from the last of its lanes (add_chunk). Longer rows are taken one after
// the other, the warp striding over each. (Lanes per row by A's average row
// left the lanes of short rows idle: G3_circuit, 4.8 entries a row, had 8
// lanes a row, analysis 202 us, 161 this way. Runs of longer rows taken 32
// entries at a time too were slower than row by row before the loads were
// batched: analyze bcsstk33, 68 entries a row, 80 against 66 us, rmat:16:16
// 570 against 305-338; H200.)
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
  if (run_end - run_begin >= static_cast<Offset>(kAnalysisRowwiseEntries) * (last + 1)) {
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

struct MaxOp {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// A grid-stride kernel: the checks position by position, then (if asked)
// the order of B's rows, then the count, a warp per run of rows. The
// statistics go through a block reduction first, one atomic per block and
// statistic (one per row took 6.9 us on cryg2500's 2500 rows, H100: atomics
// on one address queue in L2); the last block to finish sets the gate.
template <class Offset, class Col>
__global__ void __launch_bounds__(kThreads)
    analysis_kernel(CheckedViews<Offset, Col> checks, CountArgs<Offset, Col> c) {
  let_dependents_start();  // a small product's symbolic kernel (it waits for this one's end)
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (int i = 0; i < checks.count; ++i) {
    const CheckedView<Offset, Col>& m = checks.m[i];
    const int64_t positions = m.rows + 1 > m.nnz ? m.rows + 1 : m.nnz;
    // each thread's first defects (~position, 0: none) kept in registers and
    // reported once: with no stores in the loop, the unrolled positions'
    // loads are in flight together (banded:500000:16's cut among devices,
    // checks and count, 244 -> 230 us, H100)
    unsigned long long least[kCsrDefects] = {};
    unsigned long long print = 0;
    // (one loop per kind of view, without branches in it: its loads are
    // then issued ahead, which conditional ones are not)
    auto pass = [&](auto checked, auto printed) {
#pragma unroll 4
      for (int64_t p = thread; p < positions; p += stride) {
        if constexpr (decltype(checked)::value)
          inspect_csr_position(p, m.rows, m.num_cols, m.nnz, m.base, m.offsets, m.cols,
                               [&](int defect, int64_t at) {
                                 const auto mark = ~static_cast<unsigned long long>(at);
                                 least[defect] = max(least[defect], mark);
                               });
        if constexpr (decltype(printed)::value)
          print += fingerprint_position(p, m.rows, m.nnz, m.offsets, m.cols);
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
  if (c.rows == 0) return;

  if (c.b_disorder) {
    // B's entries whose column is not above the one before (descents), less
    // those where a row begins (each such position once, however many empty
    // rows begin there): what is left is within rows. Position by position,
    // every thread on its own (a warp per row of B left most lanes idle on
    // short rows).
    long long within = 0;
#pragma unroll 4
    for (long long i = thread + 1; i < c.b_nnz; i += stride)
      within += c.B.cols[i] <= c.B.cols[i - 1];
#pragma unroll 4
    for (long long r = thread + 1; r < c.b_rows; r += stride) {
      const Offset at = c.B.begin(static_cast<int>(r));
      if (at > c.B.begin(static_cast<int>(r) - 1) && at > 0 && at < c.b_nnz)
        within -= c.B.cols[at] <= c.B.cols[at - 1];
    }
    using Reduce = cub::BlockReduce<long long, kThreads>;
    __shared__ typename Reduce::TempStorage reduce;
    const long long block_within = Reduce(reduce).Sum(within);
    if (threadIdx.x == 0 && block_within != 0)
      atomicAdd(c.b_disorder, static_cast<unsigned long long>(block_within));
  }

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
    for (int d = 0; d < kCsrDefects && checks.m[i].found; ++d)
      clean &= *reinterpret_cast<volatile unsigned long long*>(&checks.m[i].found->first[d]) == 0;
  const long long all = *reinterpret_cast<volatile long long*>(&c.stats->total);
  const int longest = *reinterpret_cast<volatile int*>(&c.stats->max);
  c.stats->small_rows =
      clean && all <= kSmallMaxProducts && longest <= c.gate_max_row ? c.rows : 0;
}

__global__ void __launch_bounds__(kThreads)
    count_beyond_kernel(const int* terms, int rows, int beyond, int* rows_beyond) {
  const int stride = static_cast<int>(gridDim.x) * blockDim.x;
  int mine = 0;
  for (int row = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += stride)
    mine += terms[row] > beyond;
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int block = Reduce(temp).Sum(mine);
  if (threadIdx.x == 0 && block > 0) atomicAdd(rows_beyond, block);
}

template <class Offset>
Offset extent(const MatrixDesc* m) {
  return m ? static_cast<Offset>(m->nnz) : Offset(0);
}

template <class Offset, class Col>
CheckedView<Offset, Col> view_of(const MatrixDesc& m) {
  return {static_cast<const Offset*>(m.row_offsets), static_cast<const Col*>(m.col_ind),
          m.rows, m.cols, m.nnz, m.base, nullptr, nullptr};
}

// The launch's views: the checked operands, and the fingerprinted
// structures (on a checked operand's view where it is the same).
template <class Offset, class Col>
CheckedViews<Offset, Col> views_of(const CheckedOperand* checks, int count, CsrDefects* found,
                                   const Fingerprints* prints) {
  CheckedViews<Offset, Col> views{};
  for (int i = 0; i < count; ++i) {
    views.m[i] = view_of<Offset, Col>(*checks[i].m);
    views.m[i].found = &found[i];
  }
  views.count = count;
  for (int k = 0; prints && k < kMaxPrinted; ++k) {
    if (!prints->m[k] || prints->first_print(k) != k) continue;
    int at = -1;
    for (int i = 0; i < count && at < 0; ++i)
      if (!views.m[i].print && same_structure(*checks[i].m, *prints->m[k])) at = i;
    if (at < 0) {
      at = views.count++;
      views.m[at] = view_of<Offset, Col>(*prints->m[k]);
    }
    views.m[at].print = prints->sums + k;
  }
  return views;
}

}  // namespace

template <class Offset, class Col>
void launch_analysis(Context& ctx, const CheckedOperand* checks, int count, CsrDefects* found,
                     const TermCount* terms, const Fingerprints* prints) {
  const CheckedViews<Offset, Col> views = views_of<Offset, Col>(checks, count, found, prints);
  int64_t work = 0;  // threads with something to do
  for (int i = 0; i < views.count; ++i)
    work = std::max(work, std::max(views.m[i].rows + 1, views.m[i].nnz));
  CountArgs<Offset, Col> c{};
  if (terms) {
    const Operands& in = *terms->in;
    const int64_t first = terms->first_row;
    const int64_t rows = terms->row_count >= 0 ? terms->row_count : in.A->rows - first;
    // (a range's entries estimated as its share of A's)
    const int64_t entries =
        rows == in.A->rows ? in.A->nnz
                           : static_cast<int64_t>(static_cast<double>(in.A->nnz) *
                                                  static_cast<double>(rows) /
                                                  static_cast<double>(in.A->rows));
    c = {pattern_of<Offset, Col>(in.A),
         pattern_of<Offset, Col>(in.B),
         pattern_of<Offset, Col>(in.D),
         extent<Offset>(in.A),
         extent<Offset>(in.B),
         extent<Offset>(in.D),
         static_cast<int>(in.B->rows), static_cast<int>(rows),
         analysis_rows_per_warp(rows, entries, ctx.limits()), terms->sizes, terms->stats,
         terms->gate_max_row, terms->b_disorder, terms->spans, terms->span_firsts,
         terms->rows_beyond, terms->beyond_terms};
    c.A.offsets += first;  // (offsets stay positions in A's and D's whole arrays)
    if (c.D.offsets) c.D.offsets += first;
    work = std::max(work, (static_cast<int64_t>(c.rows) + c.rows_per_warp - 1) /
                              c.rows_per_warp * 32);
    if (c.b_disorder) work = std::max(work, std::max<int64_t>(c.b_rows, c.b_nnz));
  }
  if (work == 0) return;
  auto kernel = analysis_kernel<Offset, Col>;
  const int grid = grid_for(work, kThreads, resident_blocks(kernel, kThreads, 0, ctx.limits()));
  kernel<<<grid, kThreads, 0, ctx.stream()>>>(views, c);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

void launch_count_beyond(Context& ctx, const int* terms, int rows, int beyond, int* rows_beyond) {
  if (rows <= 0) return;
  const int grid = grid_for(rows, kThreads,
                            resident_blocks(count_beyond_kernel, kThreads, 0, ctx.limits()));
  count_beyond_kernel<<<grid, kThreads, 0, ctx.stream()>>>(terms, rows, beyond, rows_beyond);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_ANALYSIS(Offset, Col)                                         \
  template void launch_analysis<Offset, Col>(Context&, const CheckedOperand*, int,       \
                                             CsrDefects*, const TermCount*,              \
                                             const Fingerprints*);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_ANALYSIS)

}  // namespace spgemm::cuda
