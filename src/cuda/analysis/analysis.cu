#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"

#include <climits>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

template <class Index>
__global__ void row_products_kernel(const Index* __restrict__ a_offsets,
                                    const Index* __restrict__ a_cols,
                                    const Index* __restrict__ b_offsets, Index rows,
                                    int* __restrict__ sizes) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index row = static_cast<Index>(thread / kAnalysisLanes);
  const int lane = static_cast<int>(thread % kAnalysisLanes);
  long long products = 0;
  if (row < rows) {
    for (Index i = a_offsets[row] + lane; i < a_offsets[row + 1]; i += kAnalysisLanes) {
      const Index k = a_cols[i];
      products += b_offsets[k + 1] - b_offsets[k];
    }
  }
  // every lane of the warp takes part, also those past the last row
  for (int d = kAnalysisLanes / 2; d > 0; d /= 2)
    products += __shfl_down_sync(0xffffffffu, products, d, kAnalysisLanes);
  if (row < rows && lane == 0) sizes[row] = products > INT_MAX ? INT_MAX : static_cast<int>(products);
}

}  // namespace

template <class Index>
void row_products(const Index* a_offsets, const Index* a_cols, const Index* b_offsets,
                  Index rows, int* sizes, cudaStream_t stream) {
  if (rows == 0) return;
  const long long threads = static_cast<long long>(rows) * kAnalysisLanes;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  row_products_kernel<<<blocks, kThreads, 0, stream>>>(a_offsets, a_cols, b_offsets, rows, sizes);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

template void row_products<int32_t>(const int32_t*, const int32_t*, const int32_t*, int32_t,
                                    int*, cudaStream_t);

}  // namespace spgemm::cuda
