// Launch geometry derived from the device at run time.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <cuda_runtime_api.h>

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
  int ptx_version = 0;  // of the code the device runs: 90 for compute_90
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

// Programmatic dependent launch: a kernel launched by launch_after may be
// scheduled while the kernel ahead of it in the stream still runs, once
// every block of that one has called let_dependents_start (or ended). It
// must call wait_for_stream_ahead before it reads what the kernel ahead
// writes, or writes what that one reads: the wait returns once the kernel
// ahead has finished and its writes are visible (and at once where there
// was no such kernel). A small product's symbolic kernel counts its rows
// in the shadow of the analysis kernel, and only its last block waits
// (kernels/symbolic.cu, docs/performance.md).
__device__ __forceinline__ void let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_stream_ahead() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// kernel<<<grid, threads, smem, stream>>>(args...), allowed to start early
// (above) where the code the device runs for it has the wait: compiled for
// compute_90 or later (a build for an older architecture has none, even
// where a newer device runs it).
template <class... Params, class... Args>
void launch_after(const DeviceLimits& limits, void (*kernel)(Params...), int grid, int threads,
                  size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &early;
  const KernelFacts facts = kernel_facts(reinterpret_cast<const void*>(kernel), 0, 0, limits);
  config.numAttrs = facts.ptx_version >= 90 ? 1 : 0;
  SPGEMM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

inline int grid_for(long long items, int items_per_block, int resident) {
  const long long needed = (items + items_per_block - 1) / items_per_block;
  return static_cast<int>(std::max(1LL, std::min<long long>(needed, resident)));
}

}  // namespace spgemm::cuda
