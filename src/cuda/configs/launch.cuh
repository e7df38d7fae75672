// Launch geometry derived from the device at run time.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <algorithm>

namespace spgemm::cuda {

// Blocks of `kernel` that are resident on the whole device at once: the grid
// of a persistent kernel that loops over a bin's rows.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, size_t smem, const DeviceLimits& limits) {
  cudaFuncAttributes attributes{};
  SPGEMM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  // A block with more than 48 KB of shared memory in all (static included)
  // must opt in to it.
  if (smem + attributes.sharedSizeBytes > 48 * 1024)
    SPGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  int per_sm = 0;
  SPGEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return std::max(1, per_sm) * limits.sm_count;
}

// Dynamic shared memory left for a kernel after its static shared memory.
template <class Kernel>
size_t dynamic_smem_limit(Kernel kernel, const DeviceLimits& limits) {
  cudaFuncAttributes attributes{};
  SPGEMM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return limits.max_smem_per_block - attributes.sharedSizeBytes;
}

inline int grid_for(long long items, int items_per_block, int resident) {
  const long long needed = (items + items_per_block - 1) / items_per_block;
  return static_cast<int>(std::max(1LL, std::min<long long>(needed, resident)));
}

}  // namespace spgemm::cuda
