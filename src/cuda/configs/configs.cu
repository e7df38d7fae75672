// SPDX-License-Identifier: Apache-2.0
#include "cuda/configs/bins.hpp"
#include "cuda/configs/launch.cuh"

#include <cuda.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace spgemm::cuda {

KernelFacts kernel_facts(const void* kernel, int threads, size_t smem, const DeviceLimits& limits,
                         int carveout) {
  // (the carveout too: it changes the kernel's attribute and its occupancy)
  using Key = std::tuple<const void*, int, size_t, int, int>;
  static std::mutex mutex;
  static std::map<Key, KernelFacts> known;
  const Key key{kernel, threads, smem, limits.device, carveout};
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  cudaFuncAttributes attributes{};
  SPGEMM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  KernelFacts facts;
  facts.static_smem = attributes.sharedSizeBytes;
  // the default is what fits 48 KB; devices that allow more need the opt-in
  const auto dynamic_max = static_cast<int>(limits.max_smem_per_block - facts.static_smem);
  if (attributes.maxDynamicSharedSizeBytes < dynamic_max)
    SPGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           dynamic_max));
  if (carveout >= 0)
    SPGEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  if (threads > 0)
    SPGEMM_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&facts.blocks_per_sm, kernel, threads, smem));
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(key, facts);
  return facts;
}

void* driver_function(const void* kernel) {
  int device = 0;
  SPGEMM_CUDA_CHECK(cudaGetDevice(&device));
  using Key = std::pair<const void*, int>;
  static std::mutex mutex;
  static std::map<Key, void*> known;
  const Key key{kernel, device};
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  cudaFunction_t function = nullptr;
  SPGEMM_CUDA_CHECK(cudaGetFuncBySymbol(&function, kernel));
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(key, static_cast<void*>(function));
  return function;
}

DriverLaunch driver_launch() {
  // (the entry point, not a link to libcuda: the library loads without a driver)
  static const DriverLaunch launch = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SPGEMM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000,
                                                       cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !entry)
      fail(SPGEMM_STATUS_EXECUTION_FAILED, "the driver has no cuLaunchKernel");
    return reinterpret_cast<DriverLaunch>(entry);
  }();
  static_assert(sizeof(CUresult) == sizeof(int), "cuLaunchKernel's result read as an int");
  return launch;
}

// The driver's results share the runtime's codes for the errors a launch
// reports (CUDA_ERROR_INVALID_VALUE = cudaErrorInvalidValue = 1, ...,
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = cudaErrorLaunchOutOfResources = 701).
void check_driver_launch(int result, const char* file, int line) {
  if (result != CUDA_SUCCESS)
    check_cuda(static_cast<cudaError_t>(result), "kernel launch (cuLaunchKernel)", file, line);
}

int lanes_for(long long rows, long long nnz) {
  const long long average = rows > 0 ? (nnz + rows - 1) / rows : 1;
  int lanes = 1;
  while (lanes < 32 && lanes < average) lanes *= 2;
  return lanes;
}

int analysis_rows_per_warp(long long rows, long long nnz, const DeviceLimits& limits) {
  const long long resident_warps =
      static_cast<long long>(limits.sm_count) * limits.max_threads_per_sm / 32;
  int per_warp = 32 / lanes_for(rows, nnz);
  while (per_warp < 32 && rows / (2 * per_warp) >= resident_warps) per_warp *= 2;
  return per_warp;
}

}  // namespace spgemm::cuda
