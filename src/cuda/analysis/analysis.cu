// SPDX-License-Identifier: Apache-2.0
// The analysis kernel (analysis.cuh), a grid of analysis_pass.cuh's pass,
// and the host's side: its arguments, the input checks' verdict and the
// fingerprints.
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/analysis/analysis_pass.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/configs/launch.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

template <class Offset, class Col>
__global__ void __launch_bounds__(kThreads)
    analysis_kernel(CheckedViews<Offset, Col> checks, CountArgs<Offset, Col> c) {
  analysis_pass(checks, c, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
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
AnalysisPass<Offset, Col> analysis_pass_of(Context& ctx, const CheckedOperand* checks, int count,
                                           CsrDefects* found, const TermCount* terms,
                                           const Fingerprints* prints) {
  AnalysisPass<Offset, Col> pass{views_of<Offset, Col>(checks, count, found, prints), {}, 0};
  for (int i = 0; i < pass.checks.count; ++i)
    pass.work = std::max(pass.work, std::max(pass.checks.m[i].rows + 1, pass.checks.m[i].nnz));
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
    CountArgs<Offset, Col>& c = pass.count;
    c = {pattern_of<Offset, Col>(in.A),
         pattern_of<Offset, Col>(in.B),
         pattern_of<Offset, Col>(in.D),
         extent<Offset>(in.A),
         extent<Offset>(in.B),
         extent<Offset>(in.D),
         static_cast<int>(in.B->rows), static_cast<int>(rows),
         analysis_rows_per_warp(rows, entries, ctx.limits()), terms->sizes, terms->stats,
         terms->b_disorder, terms->spans, terms->span_firsts,
         terms->rows_beyond, terms->beyond_terms};
    c.A.offsets += first;  // (offsets stay positions in A's and D's whole arrays)
    if (c.D.offsets) c.D.offsets += first;
    pass.work = std::max(pass.work, (static_cast<int64_t>(c.rows) + c.rows_per_warp - 1) /
                                        c.rows_per_warp * 32);
    if (c.b_disorder) pass.work = std::max(pass.work, std::max<int64_t>(c.b_rows, c.b_nnz));
  }
  return pass;
}

template <class Offset, class Col>
void launch_analysis(Context& ctx, const CheckedOperand* checks, int count, CsrDefects* found,
                     const TermCount* terms, const Fingerprints* prints) {
  const AnalysisPass<Offset, Col> pass =
      analysis_pass_of<Offset, Col>(ctx, checks, count, found, terms, prints);
  if (pass.work == 0) return;
  auto kernel = analysis_kernel<Offset, Col>;
  const int grid =
      grid_for(pass.work, kThreads, resident_blocks(kernel, kThreads, 0, ctx.limits()));
  launch(kernel, grid, kThreads, 0, ctx.stream(), pass.checks, pass.count);
}

void launch_count_beyond(Context& ctx, const int* terms, int rows, int beyond, int* rows_beyond) {
  if (rows <= 0) return;
  const int grid = grid_for(rows, kThreads,
                            resident_blocks(count_beyond_kernel, kThreads, 0, ctx.limits()));
  launch(count_beyond_kernel, grid, kThreads, 0, ctx.stream(), terms, rows, beyond, rows_beyond);
}

#define SPGEMM_INSTANTIATE_ANALYSIS(Offset, Col)                                          \
  template void launch_analysis<Offset, Col>(Context&, const CheckedOperand*, int,        \
                                             CsrDefects*, const TermCount*,               \
                                             const Fingerprints*);                        \
  template AnalysisPass<Offset, Col> analysis_pass_of<Offset, Col>(                       \
      Context&, const CheckedOperand*, int, CsrDefects*, const TermCount*, const Fingerprints*);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_ANALYSIS)

}  // namespace spgemm::cuda
