// SPDX-License-Identifier: Apache-2.0
// Eight threads, each with its own handle on its own non-blocking stream,
// multiplying their own products with new values again and again, all at
// once: every result with the structure of the same product computed alone
// first and values within the oracle's tolerance of it (GPU sums are not
// bitwise reproducible), and right by the oracle
// (tests/support/concurrency_campaign.hpp, the same test as
// tests/host/test_host_concurrency.cpp). SPGEMM_CONCURRENCY_THREADS and
// SPGEMM_CONCURRENCY_PASSES shorten it (tests/sanitize.sh does).
#include "catch_main_skip.hpp"
#include "concurrency_campaign.hpp"
#include "device_product.hpp"

#include <catch2/catch.hpp>

#include <cstdio>

using namespace spgemm_test;

TEMPLATE_TEST_CASE("GPU: concurrent handles and streams give the results of a single thread",
                   "[gpu][concurrency]", float, double) {
  const ConcurrencySettings settings = concurrency_settings_from_env(8, 5);
  const ConcurrencyResult result = run_concurrency_campaign<DeviceBackend, TestType>(settings);
  const std::string summary = result.summary(DeviceBackend::kName, settings);
  std::printf("%s\n", summary.c_str());
  INFO(summary);
  CHECK(result.failures.empty());
  CHECK(result.checks == result.expected_checks);
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
