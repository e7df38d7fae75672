// SPDX-License-Identifier: Apache-2.0
// Every index layout (32/32, 64/32, 64/64 offsets/indices) and both index
// bases, real and complex values, through the host backend, against the
// oracle, each with a second numeric phase on new values: plain products,
// C = alpha*A*B + beta*D, and transposed operands.
#include "layout_product.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

namespace {

template <class L, class Case>
void check_all(const std::vector<Case>& cases) {
  spgemmHandle_t handle = nullptr;
  REQUIRE(spgemmCreate(&handle) == SPGEMM_STATUS_SUCCESS);
  const auto failures = failed_cases<L>(handle, SPGEMM_MEMORY_HOST, cases);
  spgemmDestroy(handle);
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("host backend: index layouts and bases", "[host][layouts]", AllLayouts) {
  check_all<TestType>(layout_cases<typename TestType::Value>(
      {"uniform:300:6", "powerlaw:2000", "longrows:2000", "empty:7:7"}));
}

TEMPLATE_LIST_TEST_CASE("host backend: C = alpha*A*B + beta*D", "[host][addend]", AddendLayouts) {
  check_all<TestType>(addend_cases<typename TestType::Value>(false));
}

TEMPLATE_LIST_TEST_CASE("host backend: transposed operands", "[host][transpose]", AddendLayouts) {
  check_all<TestType>(transpose_cases<typename TestType::Value>());
}
