// Launch geometry derived from the device at run time.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <utility>

namespace spgemm::cuda {

// What the runtime says about a kernel on a device: its static shared
// memory, and how many of its blocks of `threads` threads with `smem` bytes
// of dynamic shared memory fit one SM (threads == 0: not asked). Asked once
// per (kernel, threads, smem, device) and kept (configs.cu): the queries cost
// microseconds of host time at every launch, which is what small products
// are made of. Kernels are opted in to all the shared memory the device
// allows a block beyond 48 KB on the way.
struct KernelFacts {
  size_t static_smem = 0;
  int blocks_per_sm = 0;
};
KernelFacts kernel_facts(const void* kernel, int threads, size_t smem, const DeviceLimits& limits);

// Blocks of `kernel` that are resident on the whole device at once: the grid
// of a persistent kernel that loops over a bin's rows.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, size_t smem, const DeviceLimits& limits) {
  const KernelFacts facts =
      kernel_facts(reinterpret_cast<const void*>(kernel), threads, smem, limits);
  return std::max(1, facts.blocks_per_sm) * limits.sm_count;
}

// Dynamic shared memory left for a kernel after its static shared memory.
template <class Kernel>
size_t dynamic_smem_limit(Kernel kernel, const DeviceLimits& limits) {
  return limits.max_smem_per_block -
         kernel_facts(reinterpret_cast<const void*>(kernel), 0, 0, limits).static_smem;
}

// Launches kernel<<<grid, threads, smem, stream>>>(args...); with
// `dependent` on a device that has them, as a programmatic dependent of the
// kernel before it on the stream (Hopper's PDL): it may start once that
// kernel's blocks have all called allow_dependents(), and calls
// wait_for_primary() before it reads what that kernel writes. (Elsewhere
// both are no-ops and the launch waits as any other.)
template <class... Params, class... Args>
void launch_dependent(const DeviceLimits& limits, bool dependent, void (*kernel)(Params...),
                      int grid, int threads, size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent && limits.dependent_launch ? 1 : 0;
  SPGEMM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

#ifdef __CUDACC__
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}
__device__ __forceinline__ void wait_for_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}
#endif

inline int grid_for(long long items, int items_per_block, int resident) {
  const long long needed = (items + items_per_block - 1) / items_per_block;
  return static_cast<int>(std::max(1LL, std::min<long long>(needed, resident)));
}

}  // namespace spgemm::cuda
