// SPDX-License-Identifier: Apache-2.0
// The input checks' verdict and the structure fingerprint on the GPU (both
// run in the analysis kernel, analysis.cu, which keeps the first position p
// of each defect as ~p with a 64-bit atomicMax), and the lower bound of
// nnz(C) that refuses a product too large for C's offsets before its
// symbolic phase.
#include "core/csr_checks.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/launch.cuh"
#include "cuda/pattern.cuh"

#include <cub/block/block_reduce.cuh>

#include <cstdint>

namespace spgemm::cuda {

namespace {

template <class T>
int64_t read_one(const T* device_array, int64_t at) {
  T value{};
  SPGEMM_CUDA_CHECK(cudaMemcpy(&value, device_array + at, sizeof(T), cudaMemcpyDeviceToHost));
  return static_cast<int64_t>(value);
}

constexpr int kBoundThreads = 256;

// Engine::nnz_lower_bound, a thread a row: the longest row of B that the
// row of A names (or its row of D, if longer), summed into *bound.
template <class Offset, class Col>
__global__ void __launch_bounds__(kBoundThreads)
    nnz_bound_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                     int rows, unsigned long long* bound) {
  unsigned long long mine = 0;
  const int stride = static_cast<int>(gridDim.x) * kBoundThreads;
  for (int row = static_cast<int>(blockIdx.x) * kBoundThreads + static_cast<int>(threadIdx.x);
       row < rows; row += stride) {
    long long longest = D.offsets ? static_cast<long long>(D.end(row) - D.begin(row)) : 0;
    for (Offset p = A.begin(row); p < A.end(row); ++p) {
      const int k = A.col(p);
      longest = max(longest, static_cast<long long>(B.end(k) - B.begin(k)));
    }
    mine += static_cast<unsigned long long>(longest);
  }
  using Reduce = cub::BlockReduce<unsigned long long, kBoundThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long block = Reduce(temp).Sum(mine);
  if (threadIdx.x == 0 && block > 0) atomicAdd(bound, block);
}

}  // namespace

template <class Offset, class Col>
int64_t nnz_lower_bound(Context& ctx, const Operands& in) {
  const auto rows = static_cast<int>(in.A->rows);
  if (rows == 0) return 0;
  DeviceBuffer<unsigned long long> bound(ctx, 1);
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(bound.get(), 0, sizeof(unsigned long long), ctx.stream()));
  const int grid = grid_for(rows, kBoundThreads,
                            resident_blocks(nnz_bound_kernel<Offset, Col>, kBoundThreads, 0,
                                            ctx.limits()));
  launch(nnz_bound_kernel<Offset, Col>, grid, kBoundThreads, 0, ctx.stream(),
         pattern_of<Offset, Col>(in.A), pattern_of<Offset, Col>(in.B),
         pattern_of<Offset, Col>(in.D), rows, bound.get());
  return static_cast<int64_t>(ctx.read_back(bound.get()));
}

template <class Offset, class Col>
void launch_fingerprint(Context& ctx, const MatrixDesc& m, unsigned long long* sum) {
  Fingerprints print;
  print.m[0] = &m;
  print.sums = sum;
  launch_analysis<Offset, Col>(ctx, nullptr, 0, nullptr, nullptr, &print);
}

template <class Offset, class Col>
uint64_t csr_fingerprint(Context& ctx, const MatrixDesc& m) {
  DeviceBuffer<unsigned long long> sum(ctx, 1);
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(unsigned long long), ctx.stream()));
  launch_fingerprint<Offset, Col>(ctx, m, sum.get());
  return ctx.read_back(sum.get());
}

template <class Offset, class Col>
void report_csr_defects(const CheckedOperand* operands, int count, const CsrDefects* found) {
  for (int i = 0; i < count; ++i) {
    const MatrixDesc& m = *operands[i].m;
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    CsrDefects first;
    for (int d = 0; d < kCsrDefects; ++d) first.first[d] = ~found[i].first[d];  // 0: none
    fail_on_defects(
        first, operands[i].name, m, [&](int64_t at) { return read_one(offsets, at); },
        [&](int64_t at) { return read_one(cols, at); });
  }
}

template <class Offset, class Col>
void check_csr_structures(Context& ctx, const CheckedOperand* operands, int count) {
  if (count == 0) return;
  DeviceBuffer<CsrDefects> found(ctx, static_cast<size_t>(count));
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(found.get(), 0, sizeof(CsrDefects) * count, ctx.stream()));
  launch_analysis<Offset, Col>(ctx, operands, count, found.get(), nullptr);
  CsrDefects host[kMaxCheckedOperands];
  ctx.read_back(host, found.get(), sizeof(CsrDefects) * count);
  report_csr_defects<Offset, Col>(operands, count, host);
}

size_t csr_checks_workspace_bytes() {
  return DeviceBuffer<CsrDefects>::workspace_bytes(kMaxCheckedOperands) +
         DeviceBuffer<unsigned long long>::workspace_bytes(1);
}

#define SPGEMM_INSTANTIATE_CHECKS(Offset, Col)                                              \
  template void check_csr_structures<Offset, Col>(Context&, const CheckedOperand*, int);  \
  template void report_csr_defects<Offset, Col>(const CheckedOperand*, int,               \
                                                const CsrDefects*);                        \
  template uint64_t csr_fingerprint<Offset, Col>(Context&, const MatrixDesc&);              \
  template void launch_fingerprint<Offset, Col>(Context&, const MatrixDesc&, unsigned long long*); \
  template int64_t nnz_lower_bound<Offset, Col>(Context&, const Operands&);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_CHECKS)

}  // namespace spgemm::cuda
