// Every index layout (32/32, 64/32, 64/64 offsets/indices) and both index
// bases, float and double, on the GPU, against the oracle, with a second
// numeric phase on new values. The specs reach the warp and block hash bins
// and the dense-window kernels.
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "layout_product.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

TEMPLATE_LIST_TEST_CASE("GPU: index layouts and bases", "[gpu][layouts]", AllLayouts) {
  Handle handle;
  for (const char* spec : {"uniform:300:6", "powerlaw:3000", "hub:20000", "empty:7:7", "empty:0:0"}) {
    const LayoutCase<typename TestType::Value> c(spec);
    for (const int base : {0, 1}) {
      const std::string diff = check_layout_product<TestType>(handle.h, SPGEMM_MEMORY_DEVICE, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
  }
}

// C = alpha * A * B + beta * D, 32/32 zero-based and 64/64 one-based.
TEMPLATE_LIST_TEST_CASE("GPU: C = alpha*A*B + beta*D", "[gpu][addend]", AddendLayouts) {
  Handle handle;
  for (const auto& c : addend_cases<typename TestType::Value>(true))
    for (const int base : {0, 1}) {
      const std::string diff = check_addend_case<TestType>(handle.h, SPGEMM_MEMORY_DEVICE, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
}

// C = alpha * op(A) * op(B), op in {N, T, H}, 32/32 zero-based and 64/64
// one-based.
TEMPLATE_LIST_TEST_CASE("GPU: transposed operands", "[gpu][transpose]", AddendLayouts) {
  Handle handle;
  for (const auto& c : transpose_cases<typename TestType::Value>())
    for (const int base : {0, 1}) {
      const std::string diff = check_transpose_case<TestType>(handle.h, SPGEMM_MEMORY_DEVICE, c, base);
      INFO(diff);
      CHECK(diff.empty());
    }
}

int main(int argc, char** argv) { return run_catch_session(argc, argv, gpu_skip_reason()); }
