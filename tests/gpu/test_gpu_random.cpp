// SPDX-License-Identifier: Apache-2.0
// The GPU path on a randomized campaign of small products against the
// oracle, structure reuse included (tests/support/random_campaign.hpp, the
// same campaign as tests/host/test_host_random.cpp), on a non-blocking
// stream. Bounded to 3000 cases or 60 s; SPGEMM_RANDOM_CASES and
// SPGEMM_RANDOM_SECONDS shorten it (tests/sanitize.sh does).
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "random_campaign.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

TEST_CASE("GPU: random products match the oracle, also after new values", "[gpu][random]") {
  const CampaignSettings settings = campaign_settings_from_env(3000, 60.0);
  const CampaignResult result = run_random_campaign<DeviceBackend>(settings);
  INFO(result.summary(DeviceBackend::kName));
  CHECK(result.failed == 0);
  CHECK(result.coverage_gap(settings) == "");
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
