// SPDX-License-Identifier: Apache-2.0
// Every index layout (32/32, 64/32, 64/64 offsets/indices) and both index
// bases, real and complex values, on the GPU, against the oracle, each with a
// second numeric phase on new values: plain products, C = alpha*A*B + beta*D
// and transposed operands. The specs reach the warp and block hash bins and
// the dense-window kernels (hub), with and without D, the symbolic
// tables bounded by the columns' range (banded:70000:6: binned, sorted B),
// and the thread bin's kernels (poisson2d:520: 270,400 rows of 25 terms).
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "layout_product.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

namespace {

template <class L, class Case>
void check_all(const std::vector<Case>& cases) {
  Handle handle;
  const auto failures = failed_cases<L>(handle.h, SPGEMM_MEMORY_DEVICE, cases);
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("GPU: index layouts and bases", "[gpu][layouts]", AllLayouts) {
  check_all<TestType>(layout_cases<typename TestType::Value>(
      {"uniform:300:6", "powerlaw:3000", "hub:20000", "banded:70000:6", "poisson2d:520",
       "empty:7:7", "empty:0:0"}));
}

TEMPLATE_LIST_TEST_CASE("GPU: C = alpha*A*B + beta*D", "[gpu][addend]", AddendLayouts) {
  check_all<TestType>(addend_cases<typename TestType::Value>(true));
}

TEMPLATE_LIST_TEST_CASE("GPU: transposed operands", "[gpu][transpose]", AddendLayouts) {
  check_all<TestType>(transpose_cases<typename TestType::Value>());
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
