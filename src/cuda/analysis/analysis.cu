#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"

#include <climits>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

template <class Offset, class Col>
__global__ void row_products_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                                    Pattern<Offset, Col> D, int rows, int* __restrict__ sizes,
                                    ProductStats* stats, const CsrDefects* checks, int checked) {
  for (int i = 0; i < checked; ++i)  // the same on every thread
    for (int d = 0; d < kCsrDefects; ++d)
      if (checks[i].first[d] != CsrDefects::kNoDefect) return;
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int row = static_cast<int>(thread / kAnalysisLanes);
  const int lane = static_cast<int>(thread % kAnalysisLanes);
  long long products = 0;
  if (row < rows) {
    for (Offset i = A.begin(row) + lane; i < A.end(row); i += kAnalysisLanes) {
      const int k = A.col(i);
      products += B.end(k) - B.begin(k);
    }
    if (D.offsets && lane == 0) products += D.end(row) - D.begin(row);
  }
  // every lane of the warp takes part, also those past the last row
  for (int d = kAnalysisLanes / 2; d > 0; d /= 2)
    products += __shfl_down_sync(0xffffffffu, products, d, kAnalysisLanes);
  if (row < rows && lane == 0) {
    const int size = products > INT_MAX ? INT_MAX : static_cast<int>(products);
    sizes[row] = size;
    if (stats) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&stats->total),
                static_cast<unsigned long long>(products));
      atomicMax(&stats->max, size);
    }
  }
}

}  // namespace

template <class Offset, class Col>
void row_products(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                  int rows, int* sizes, ProductStats* stats, const CsrDefects* checks,
                  int checked, cudaStream_t stream) {
  if (rows == 0) return;
  const long long threads = static_cast<long long>(rows) * kAnalysisLanes;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  row_products_kernel<<<blocks, kThreads, 0, stream>>>(A, B, D, rows, sizes, stats, checks,
                                                       checked);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_ROW_PRODUCTS(Offset, Col)                                        \
  template void row_products<Offset, Col>(Pattern<Offset, Col>, Pattern<Offset, Col>,       \
                                          Pattern<Offset, Col>, int, int*, ProductStats*,     \
                                          const CsrDefects*, int, cudaStream_t);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_ROW_PRODUCTS)

}  // namespace spgemm::cuda
