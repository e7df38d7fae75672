// Every index layout (32/32, 64/32, 64/64 offsets/indices) and both index
// bases, float and double, through the host backend, against the oracle,
// with a second numeric phase on new values.
#include "layout_product.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

TEMPLATE_LIST_TEST_CASE("host backend: index layouts and bases", "[host][layouts]", AllLayouts) {
  spgemmHandle_t handle = nullptr;
  REQUIRE(spgemmCreate(&handle) == SPGEMM_STATUS_SUCCESS);
  for (const char* spec : {"uniform:300:6", "powerlaw:2000", "longrows:2000", "empty:7:7"}) {
    const LayoutCase<typename TestType::Value> c(spec);
    for (const int base : {0, 1}) {
      const std::string diff = check_layout_product<TestType>(handle, SPGEMM_MEMORY_HOST, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
  }
  spgemmDestroy(handle);
}

// C = alpha * A * B + beta * D, 32/32 zero-based and 64/64 one-based.
TEMPLATE_LIST_TEST_CASE("host backend: C = alpha*A*B + beta*D", "[host][addend]", AddendLayouts) {
  spgemmHandle_t handle = nullptr;
  REQUIRE(spgemmCreate(&handle) == SPGEMM_STATUS_SUCCESS);
  for (const auto& c : addend_cases<typename TestType::Value>(false))
    for (const int base : {0, 1}) {
      const std::string diff = check_addend_case<TestType>(handle, SPGEMM_MEMORY_HOST, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
  spgemmDestroy(handle);
}

// C = alpha * op(A) * op(B), op in {N, T, H}, 32/32 zero-based and 64/64
// one-based.
TEMPLATE_LIST_TEST_CASE("host backend: transposed operands", "[host][transpose]", AddendLayouts) {
  spgemmHandle_t handle = nullptr;
  REQUIRE(spgemmCreate(&handle) == SPGEMM_STATUS_SUCCESS);
  for (const auto& c : transpose_cases<typename TestType::Value>())
    for (const int base : {0, 1}) {
      const std::string diff = check_transpose_case<TestType>(handle, SPGEMM_MEMORY_HOST, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
  spgemmDestroy(handle);
}
