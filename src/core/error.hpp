// SPDX-License-Identifier: Apache-2.0
// Errors inside libspgemm are exceptions carrying a public status; the C
// boundary (capi/) turns them into statuses and a thread-local message.
#pragma once

#include <spgemm/spgemm.h>

#include <stdexcept>
#include <string>

namespace spgemm {

class Error : public std::runtime_error {
 public:
  Error(spgemmStatus_t status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  spgemmStatus_t status() const noexcept { return status_; }

 private:
  spgemmStatus_t status_;
};

[[noreturn]] void fail(spgemmStatus_t status, const std::string& message);

inline void require(bool condition, spgemmStatus_t status, const char* message) {
  if (!condition) fail(status, message);
}

// Maps a CUDA error to ALLOC_FAILED (out of memory) or EXECUTION_FAILED.
void check_cuda(cudaError_t err, const char* what, const char* file, int line);

}  // namespace spgemm

#define SPGEMM_CUDA_CHECK(call) ::spgemm::check_cuda((call), #call, __FILE__, __LINE__)
