#include "core/error.hpp"
#include "cuda/binning/row_offsets.cuh"
#include "cuda/configs/bins.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

namespace spgemm::cuda {

namespace {

// Each thread takes a contiguous run of rows: sums it, a block scan of the
// sums places the run, then the thread rewrites its run as offsets.
template <class Offset>
__global__ void __launch_bounds__(kRowOffsetsThreads)
    small_row_offsets_kernel(Offset* offsets, int rows, Offset base, long long* total,
                             int* longest, const int* live_rows) {
  if (live_rows && *live_rows == 0) return;  // the gate is shut: C stays untouched
  using BlockScan = cub::BlockScan<long long, kRowOffsetsThreads>;
  using BlockReduce = cub::BlockReduce<int, kRowOffsetsThreads>;
  __shared__ union {
    typename BlockScan::TempStorage scan;
    typename BlockReduce::TempStorage reduce;
  } temp;
  const int per_thread = (rows + kRowOffsetsThreads - 1) / kRowOffsetsThreads;
  const int first = min(rows, static_cast<int>(threadIdx.x) * per_thread);
  const int last = min(rows, first + per_thread);
  long long sum = 0;
  int most = 0;
  for (int r = first; r < last; ++r) {
    const auto count = static_cast<long long>(offsets[r]);
    sum += count;
    most = max(most, static_cast<int>(count));
  }
  long long before, all;
  BlockScan(temp.scan).ExclusiveSum(sum, before, all);
  __syncthreads();  // temp is reused
  const int block_most = BlockReduce(temp.reduce).Reduce(most, [](int a, int b) { return max(a, b); });
  long long running = before + base;
  for (int r = first; r < last; ++r) {
    const auto count = static_cast<long long>(offsets[r]);
    offsets[r] = static_cast<Offset>(running);
    running += count;
  }
  if (threadIdx.x == 0) {
    offsets[rows] = static_cast<Offset>(all + base);
    *total = all;
    *longest = block_most;
  }
}

}  // namespace

template <class Offset>
void small_row_offsets(Offset* offsets, int rows, Offset base, long long* total, int* longest,
                       const int* live_rows, cudaStream_t stream) {
  small_row_offsets_kernel<<<1, kRowOffsetsThreads, 0, stream>>>(offsets, rows, base, total,
                                                                  longest, live_rows);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

template void small_row_offsets<int32_t>(int32_t*, int, int32_t, long long*, int*, const int*,
                                         cudaStream_t);
template void small_row_offsets<int64_t>(int64_t*, int, int64_t, long long*, int*, const int*,
                                         cudaStream_t);

}  // namespace spgemm::cuda
