#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/bins.hpp"

#include <cub/block/block_reduce.cuh>

#include <climits>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ bool inputs_clean(const CsrDefects* checks, int checked) {
  for (int i = 0; i < checked; ++i)
    for (int d = 0; d < kCsrDefects; ++d)
      if (checks[i].first[d] != CsrDefects::kNoDefect) return false;
  return true;
}

struct MaxOp {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// Statistics go through a block reduction first: one atomic per block and
// statistic (one per row took 6.9 us on cryg2500's 2500 rows, H100, the
// atomics on one address queueing in L2). The last block to finish decides
// the small-product gate (see row_products).
template <class Offset, class Col>
__global__ void __launch_bounds__(kThreads)
    row_products_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                        int rows, int* __restrict__ sizes, ProductStats* stats,
                        int gate_max_row, const CsrDefects* checks, int checked) {
  const bool clean = inputs_clean(checks, checked);  // the same on every thread
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int row = static_cast<int>(thread / kAnalysisLanes);
  const int lane = static_cast<int>(thread % kAnalysisLanes);
  long long products = 0;
  if (clean && row < rows) {
    for (Offset i = A.begin(row) + lane; i < A.end(row); i += kAnalysisLanes) {
      const int k = A.col(i);
      products += B.end(k) - B.begin(k);
    }
    if (D.offsets && lane == 0) products += D.end(row) - D.begin(row);
  }
  // every lane of the warp takes part, also those past the last row
  for (int d = kAnalysisLanes / 2; d > 0; d /= 2)
    products += __shfl_down_sync(0xffffffffu, products, d, kAnalysisLanes);
  const bool owner = clean && row < rows && lane == 0;
  const int size = products > INT_MAX ? INT_MAX : static_cast<int>(products);
  if (owner) sizes[row] = size;
  if (!stats) return;

  using SumReduce = cub::BlockReduce<long long, kThreads>;
  using MaxReduce = cub::BlockReduce<int, kThreads>;
  __shared__ union {
    typename SumReduce::TempStorage sum;
    typename MaxReduce::TempStorage max;
  } temp;
  const long long block_total = SumReduce(temp.sum).Sum(owner ? products : 0);
  __syncthreads();  // temp is reused
  const int block_max = MaxReduce(temp.max).Reduce(owner ? size : 0, MaxOp{});
  if (threadIdx.x == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&stats->total),
              static_cast<unsigned long long>(block_total));
    atomicMax(&stats->max, block_max);
    __threadfence();  // the statistics before the count of finished blocks
    const bool last = atomicAdd(&stats->blocks_done, 1u) == gridDim.x - 1;
    if (last && gate_max_row > 0) {
      __threadfence();
      const long long total = atomicAdd(reinterpret_cast<unsigned long long*>(&stats->total), 0ull);
      const int most = atomicMax(&stats->max, 0);
      stats->small_rows =
          clean && total <= kSmallMaxProducts && most <= gate_max_row ? rows : 0;
    }
  }
}

}  // namespace

template <class Offset, class Col>
void row_products(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                  int rows, int* sizes, ProductStats* stats, int gate_max_row,
                  const CsrDefects* checks, int checked, cudaStream_t stream) {
  if (rows == 0) return;
  const long long threads = static_cast<long long>(rows) * kAnalysisLanes;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  row_products_kernel<<<blocks, kThreads, 0, stream>>>(A, B, D, rows, sizes, stats, gate_max_row,
                                                       checks, checked);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_ROW_PRODUCTS(Offset, Col)                                        \
  template void row_products<Offset, Col>(Pattern<Offset, Col>, Pattern<Offset, Col>,       \
                                          Pattern<Offset, Col>, int, int*, ProductStats*,     \
                                          int, const CsrDefects*, int, cudaStream_t);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_ROW_PRODUCTS)

}  // namespace spgemm::cuda
