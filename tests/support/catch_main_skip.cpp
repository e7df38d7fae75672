// SPDX-License-Identifier: Apache-2.0
// The one translation unit with Catch2's implementation.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "catch_main_skip.hpp"

namespace spgemm_test {

int run_catch_tests(int argc, char** argv, const char* skip_reason_or_null) {
  if (skip_reason_or_null) {
    std::printf("SKIPPED: %s\n", skip_reason_or_null);
    std::fflush(stdout);
    return kSkipReturnCode;
  }
  const int rc = Catch::Session().run(argc, argv);
  // Catch returns the number of failed assertions: 77 of them must not read
  // as "skipped".
  return rc == kSkipReturnCode ? 1 : rc;
}

}  // namespace spgemm_test
