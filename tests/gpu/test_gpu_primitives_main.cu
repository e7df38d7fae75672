// SPDX-License-Identifier: Apache-2.0
// test_gpu_primitives' main(): skipped (77) without a CUDA device, or where
// the device cannot run the kernels built for CMAKE_CUDA_ARCHITECTURES.
#include <cuda_runtime_api.h>

#include "catch_main_skip.hpp"

namespace {

__global__ void probe_kernel() {}

const char* skip_reason() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
    return "no usable CUDA device (cudaGetDeviceCount failed)";
  if (count == 0) return "no CUDA device";
  cudaFuncAttributes attributes;
  if (cudaFuncGetAttributes(&attributes, probe_kernel) == cudaErrorNoKernelImageForDevice)
    return "the device's architecture is not among those the test was built for";
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) { return spgemm_test::run_catch_tests(argc, argv, skip_reason()); }
