// SPDX-License-Identifier: Apache-2.0
// Eight threads, each with its own handle, multiplying their own products
// with new values again and again, all at once: every result bitwise equal
// to the same product computed alone first, and right by the oracle
// (tests/support/concurrency_campaign.hpp; the GPU version is
// tests/gpu/test_gpu_concurrency.cpp).
#include <catch2/catch.hpp>

#include <cstdio>

#include "concurrency_campaign.hpp"
#include "host_memory_product.hpp"

using namespace spgemm_test;

TEMPLATE_TEST_CASE("host backend: concurrent handles give the results of a single thread",
                   "[host][concurrency]", float, double) {
  const ConcurrencySettings settings = concurrency_settings_from_env(8, 8);
  const ConcurrencyResult result = run_concurrency_campaign<HostBackend, TestType>(settings);
  const std::string summary = result.summary(HostBackend::kName, settings);
  std::printf("%s\n", summary.c_str());
  INFO(summary);
  CHECK(result.failures.empty());
  CHECK(result.checks == result.expected_checks);
}
