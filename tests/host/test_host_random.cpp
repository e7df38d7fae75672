// SPDX-License-Identifier: Apache-2.0
// The host backend on a randomized campaign of small products against the
// oracle, structure reuse included (tests/support/random_campaign.hpp; the
// GPU runs the same campaign in tests/gpu/test_gpu_random.cpp). Bounded to
// 1000 cases or 12 s on the CI machine's two cores.
#include <catch2/catch.hpp>

#include "host_memory_product.hpp"
#include "random_campaign.hpp"

using namespace spgemm_test;

TEST_CASE("host backend: random products match the oracle, also after new values",
          "[host][random]") {
  const CampaignSettings settings = campaign_settings_from_env(1000, 12.0);
  const CampaignResult result = run_random_campaign<HostBackend>(settings);
  INFO(result.summary(HostBackend::kName));
  CHECK(result.failed == 0);
  CHECK(result.coverage_gap(settings) == "");
}
