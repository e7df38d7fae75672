#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"

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
  const Index row = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  long long products = 0;
  for (Index i = a_offsets[row]; i < a_offsets[row + 1]; ++i) {
    const Index k = a_cols[i];
    products += b_offsets[k + 1] - b_offsets[k];
  }
  sizes[row] = products > INT_MAX ? INT_MAX : static_cast<int>(products);
}

}  // namespace

template <class Index>
void row_products(const Index* a_offsets, const Index* a_cols, const Index* b_offsets,
                  Index rows, int* sizes, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kThreads - 1) / kThreads);
  row_products_kernel<<<blocks, kThreads, 0, stream>>>(a_offsets, a_cols, b_offsets, rows, sizes);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

template void row_products<int32_t>(const int32_t*, const int32_t*, const int32_t*, int32_t,
                                    int*, cudaStream_t);

}  // namespace spgemm::cuda
