// SPDX-License-Identifier: Apache-2.0
// A main() helper for Catch2 test programs that may have to skip as a whole
// (no GPU, no matrix directory). CTest counts exit code 77 as "skipped" for
// tests registered with the SKIP_RETURN_CODE 77 property.
//
// Link the target spgemm_test_catch (it holds Catch2's implementation, so do
// not define CATCH_CONFIG_MAIN / CATCH_CONFIG_RUNNER anywhere else), and
// write:
//   int main(int argc, char** argv) {
//     return spgemm_test::run_catch_tests(argc, argv, no_gpu() ? "no GPU" : nullptr);
//   }
// or link spgemm_test_catch_main for a main() that never skips.
#pragma once

namespace spgemm_test {

constexpr int kSkipReturnCode = 77;

// skip_reason_or_null != nullptr: prints "SKIPPED: <reason>" and returns 77.
// Otherwise runs the Catch2 tests the command line selects and returns its code.
int run_catch_tests(int argc, char** argv, const char* skip_reason_or_null);

}  // namespace spgemm_test
