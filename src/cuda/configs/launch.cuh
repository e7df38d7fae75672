// SPDX-License-Identifier: Apache-2.0
// Launch geometry derived from the device at run time.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <tuple>
#include <utility>

namespace spgemm::cuda {

// What the runtime says about a kernel on a device: its static shared
// memory, and how many of its blocks of `threads` threads with `smem` bytes
// of dynamic shared memory fit one SM (threads == 0: not asked). Asked once
// per (kernel, threads, smem, device, carveout) and kept (configs.cu): the
// queries cost microseconds of host time at every launch, which is what
// small products are made of. Kernels are opted in to all the shared memory
// the device allows a block beyond 48 KB on the way, and where `carveout` is
// given (0-100), asked to run with that share of the SM's unified L1 /
// shared memory as shared memory (the rest is L1; a hint the driver rounds
// to a configuration the SM has).
struct KernelFacts {
  size_t static_smem = 0;
  int blocks_per_sm = 0;
};
KernelFacts kernel_facts(const void* kernel, int threads, size_t smem, const DeviceLimits& limits,
                         int carveout = -1);

// Blocks of `kernel` that are resident on the whole device at once: the grid
// of a persistent kernel that loops over a bin's rows.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, size_t smem, const DeviceLimits& limits,
                    int carveout = -1) {
  const KernelFacts facts =
      kernel_facts(reinterpret_cast<const void*>(kernel), threads, smem, limits, carveout);
  return std::max(1, facts.blocks_per_sm) * limits.sm_count;
}

// Dynamic shared memory left for a kernel after its static shared memory.
template <class Kernel>
size_t dynamic_smem_limit(Kernel kernel, const DeviceLimits& limits) {
  return limits.max_smem_per_block -
         kernel_facts(reinterpret_cast<const void*>(kernel), 0, 0, limits).static_smem;
}

// The driver's handle of `kernel` on the current device, looked up once and
// kept (configs.cu), and the driver's cuLaunchKernel, which launch() calls.
void* driver_function(const void* kernel);
using DriverLaunch = int (*)(void* function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z, unsigned smem,
                             cudaStream_t stream, void** params, void** extra);
DriverLaunch driver_launch();
void check_driver_launch(int result, const char* file, int line);

// kernel<<<grid, threads, smem, stream>>>(args...) on the current device,
// made through the driver with the kernel's function looked up once: the
// runtime's launch finds it at every call (about 0.8 us less host time a
// launch, 1-5 us less lib total for small products: `spgemm-bench --dir
// ../shared/matrices`).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, int threads, size_t smem, cudaStream_t stream,
            Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per parameter");
  std::tuple<Params...> values(std::forward<Args>(args)...);
  std::apply(
      [&](auto&... value) {
        void* params[] = {static_cast<void*>(&value)..., nullptr};
        check_driver_launch(
            driver_launch()(driver_function(reinterpret_cast<const void*>(kernel)), grid.x, grid.y,
                            grid.z, static_cast<unsigned>(threads), 1, 1,
                            static_cast<unsigned>(smem), stream, params, nullptr),
            __FILE__, __LINE__);
      },
      values);
}

inline int grid_for(long long items, int items_per_block, int resident) {
  const long long needed = (items + items_per_block - 1) / items_per_block;
  return static_cast<int>(std::max(1LL, std::min<long long>(needed, resident)));
}

}  // namespace spgemm::cuda
