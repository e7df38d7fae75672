// SPDX-License-Identifier: Apache-2.0
// Turning a failed C API call into an exception: for helpers that must not
// use Catch2 assertions (Catch2 v2 is not thread-safe, and the bench has no
// Catch2 at all).
#pragma once

#include <spgemm/spgemm.h>

#include <stdexcept>
#include <string>

namespace spgemm_test {

inline void spgemm_ok(spgemmStatus_t status, const char* what) {
  if (status != SPGEMM_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + spgemmGetErrorName(status) + ": " +
                             spgemmGetLastErrorMessage());
}

}  // namespace spgemm_test
