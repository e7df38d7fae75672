// SPDX-License-Identifier: Apache-2.0
#include "core/error.hpp"

#include <cuda_runtime_api.h>

namespace spgemm {

void fail(spgemmStatus_t status, const std::string& message) { throw Error(status, message); }

void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaSuccess) return;
  const bool oom = err == cudaErrorMemoryAllocation;
  if (oom) cudaGetLastError();  // out-of-memory is not sticky: clear it so the handle stays usable
  std::string message = std::string(what) + " failed: " + cudaGetErrorName(err) + " (" +
                        cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
  throw Error(oom ? SPGEMM_STATUS_ALLOC_FAILED : SPGEMM_STATUS_EXECUTION_FAILED, message);
}

}  // namespace spgemm
