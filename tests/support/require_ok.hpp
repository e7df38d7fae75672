// SPDX-License-Identifier: Apache-2.0
// A C API call that must succeed, as a Catch2 assertion (for code that may
// use Catch2; status_check.hpp's spgemm_ok throws instead).
#pragma once

#include <spgemm/spgemm.h>

#include <catch2/catch.hpp>

// REQUIREs success; on failure the message names the status and the
// library's own explanation.
#define SPGEMM_REQUIRE_OK(call)                                                              \
  do {                                                                                       \
    const spgemmStatus_t spgemm_status_ = (call);                                            \
    if (spgemm_status_ != SPGEMM_STATUS_SUCCESS)                                             \
      FAIL(#call << " -> " << spgemmGetErrorName(spgemm_status_) << ": "                      \
                 << spgemmGetLastErrorMessage());                                            \
  } while (0)
