// SPDX-License-Identifier: Apache-2.0
// The plan's device workspace on the GPU (spgemmPlanGetWorkspaceSize,
// spgemmPlanSetWorkspace), for A * A, transposed operands and an addend D, in
// float / double / complex and the 32/32, 64/32, 64/64 layouts, both index
// bases, each run through analyze, symbolic, a numeric phase, a re-analysis
// and a second numeric phase on new values, with input checks and structure
// verification on (every kind of workspace the plan can take):
//   - from the handle's pool, the peak stays within the queried size;
//   - in a buffer of exactly the queried size, with an allocator installed
//     that refuses every request, everything runs inside the buffer and C
//     matches the oracle;
//   - buffers 1 byte too small or misaligned are refused, and the rules of
//     spgemmPlanSetWorkspace (NULL, after the analysis) hold.
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "layout_product.hpp"

#include <catch2/catch.hpp>

#include <complex>
#include <memory>
#include <set>
#include <string>
#include <tuple>

using namespace spgemm_test;

namespace {

using WorkspaceLayouts =
    std::tuple<Layout<float, int32_t, int32_t>, Layout<double, int32_t, int32_t>,
               Layout<float, int64_t, int32_t>, Layout<double, int64_t, int32_t>,
               Layout<std::complex<double>, int64_t, int64_t>>;

constexpr size_t kAlignment = 256;  // what spgemmPlanSetWorkspace asks of a buffer

// Refuses every request: with a workspace buffer set, an allocation outside
// the buffer fails the call, and is counted.
struct RefusingAllocator {
  int requests = 0;
  int frees = 0;
  static int alloc(void* user, void**, size_t, cudaStream_t) {
    ++static_cast<RefusingAllocator*>(user)->requests;
    return 1;
  }
  static void free(void* user, void*, size_t, cudaStream_t) {
    ++static_cast<RefusingAllocator*>(user)->frees;
  }
};

struct Usage {
  size_t current = 0, peak = 0;
};

Usage usage(spgemmHandle_t handle) {
  Usage u;
  spgemm_ok(spgemmGetMemoryUsage(handle, &u.current, &u.peak), "spgemmGetMemoryUsage");
  return u;
}

size_t workspace_size(spgemmHandle_t handle, spgemmPlan_t plan) {
  size_t bytes = 0;
  spgemm_ok(spgemmPlanGetWorkspaceSize(handle, plan, &bytes), "spgemmPlanGetWorkspaceSize");
  return bytes;
}

bool last_message_has(const std::string& what) {
  return std::string(spgemmGetLastErrorMessage()).find(what) != std::string::npos;
}

// A handle with structure verification on (input checks are on by default).
struct CheckingHandle : Handle {
  CheckingHandle() { spgemm_ok(spgemmSetStructureVerification(h, 1), "verification"); }
};

// With the handle's pool: the most workspace held at once over the whole
// run stays within the size queried before it.
template <class L, class Case>
void check_pool_within_bound(const Case& c, int base) {
  CheckingHandle handle;
  size_t queried = 0;
  PlanHooks hooks;
  hooks.reanalyze = true;
  hooks.on_plan = [&](spgemmPlan_t plan) {
    queried = workspace_size(handle.h, plan);
    spgemm_ok(spgemmResetPeakMemoryUsage(handle.h), "spgemmResetPeakMemoryUsage");
  };
  const std::string diff = check_case<L>(handle.h, SPGEMM_MEMORY_DEVICE, c, base, hooks);
  CHECK(diff == "");
  const Usage u = usage(handle.h);
  INFO("pool: peak " << u.peak << " bytes, queried " << queried);
  CHECK(u.current == 0);
  CHECK(u.peak > 0);
  CHECK(u.peak <= queried);
}

// With a buffer of exactly the queried size (ending where its allocation
// ends, so an overrun shows under compute-sanitizer) and an allocator that
// refuses everything: the run succeeds, the allocator is never asked, and
// the buffer's blocks count in the handle's usage. Before that, the buffer 1
// byte short and misaligned versions of it are refused.
template <class L, class Case>
void check_in_caller_buffer(const Case& c, int base) {
  CheckingHandle handle;
  RefusingAllocator refusing;
  spgemm_ok(spgemmSetDeviceAllocator(handle.h, &RefusingAllocator::alloc,
                                     &RefusingAllocator::free, &refusing),
            "spgemmSetDeviceAllocator");
  std::unique_ptr<DeviceArray<unsigned char>> buffer;
  size_t queried = 0;
  PlanHooks hooks;
  hooks.reanalyze = true;
  hooks.on_plan = [&](spgemmPlan_t plan) {
    queried = workspace_size(handle.h, plan);
    REQUIRE(queried > 0);
    buffer = std::make_unique<DeviceArray<unsigned char>>(queried + kAlignment);
    unsigned char* exact = buffer->ptr + kAlignment;  // cudaMalloc aligns to 256 at least
    CHECK(spgemmPlanSetWorkspace(handle.h, plan, exact, queried - 1) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(last_message_has(std::to_string(queried - 1) + " bytes"));
    CHECK(last_message_has(std::to_string(queried)));
    CHECK(spgemmPlanSetWorkspace(handle.h, plan, exact - 1, queried) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(last_message_has("aligned to 256 bytes"));
    CHECK(spgemmPlanSetWorkspace(handle.h, plan, exact - kAlignment / 2, queried) ==
          SPGEMM_STATUS_INVALID_VALUE);
    spgemm_ok(spgemmPlanSetWorkspace(handle.h, plan, exact, queried), "spgemmPlanSetWorkspace");
    spgemm_ok(spgemmResetPeakMemoryUsage(handle.h), "spgemmResetPeakMemoryUsage");
  };
  const std::string diff = check_case<L>(handle.h, SPGEMM_MEMORY_DEVICE, c, base, hooks);
  CHECK(diff == "");
  CHECK(refusing.requests == 0);
  CHECK(refusing.frees == 0);
  const Usage u = usage(handle.h);
  INFO("buffer: peak " << u.peak << " bytes, queried " << queried);
  CHECK(u.current == 0);
  CHECK(u.peak > 0);
  CHECK(u.peak <= queried);
}

template <class V>
const std::string& name_of(const LayoutCase<V>& c) {
  return c.spec;
}
template <class Case>
const std::string& name_of(const Case& c) {
  return c.name;
}

template <class L, class Case>
void check_workspace(const std::vector<Case>& cases) {
  for (const Case& c : cases)
    for (const int base : {0, 1}) {
      INFO(name_of(c) << ", base " << base);
      check_pool_within_bound<L>(c, base);
      check_in_caller_buffer<L>(c, base);
    }
}

// A^T * B, A * A^T (B transposed) and A^T * C^T (both).
template <class V>
std::vector<TransposeCase<V>> some_transpose_cases() {
  const std::set<std::string> wanted{"A^T * B", "A * A^T", "A^T * C^T"};
  std::vector<TransposeCase<V>> cases;
  for (auto& c : transpose_cases<V>())
    if (wanted.count(c.name)) cases.push_back(std::move(c));
  REQUIRE(cases.size() == wanted.size());
  return cases;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("GPU workspace: A * A", "[gpu][workspace]", WorkspaceLayouts) {
  check_workspace<TestType>(layout_cases<typename TestType::Value>(
      {"uniform:300:6", "hub:4000", "empty:7:7", "empty:0:0"}));
}

TEMPLATE_LIST_TEST_CASE("GPU workspace: transposed operands", "[gpu][workspace]",
                        WorkspaceLayouts) {
  check_workspace<TestType>(some_transpose_cases<typename TestType::Value>());
}

TEMPLATE_LIST_TEST_CASE("GPU workspace: C = alpha*A*B + beta*D", "[gpu][workspace]",
                        WorkspaceLayouts) {
  check_workspace<TestType>(addend_cases<typename TestType::Value>(false));
}

TEST_CASE("GPU workspace: the rules of spgemmPlanSetWorkspace", "[gpu][workspace]") {
  Handle handle;
  const HostCsr<double> A = uniform_random(200, 200, 5, 7);
  const int64_t expected_nnz = reference_spgemm(A, A, 1.0).C.nnz();
  DeviceCsr<double> dA(A);
  DeviceArray<int32_t> offsets(static_cast<size_t>(A.rows) + 1);
  spgemmMatDescr_t C = nullptr;
  spgemm_ok(spgemmCreateCsr(&C, A.rows, A.cols, 0, offsets.ptr, nullptr, nullptr,
                            SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
            "C");
  spgemmPlan_t plan = nullptr;
  spgemm_ok(spgemmPlanCreate(handle.h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                             SPGEMM_OPERATION_NON_TRANSPOSE, dA.descr, dA.descr, C, CUDA_R_64F),
            "plan");
  const size_t queried = workspace_size(handle.h, plan);
  REQUIRE(queried > 0);
  DeviceArray<unsigned char> buffer(queried);
  CHECK(spgemmPlanSetWorkspace(handle.h, plan, nullptr, queried) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmPlanGetWorkspaceSize(handle.h, plan, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  spgemm_ok(spgemmPlanSetWorkspace(handle.h, plan, buffer.ptr, queried), "set");
  spgemm_ok(spgemmPlanSetWorkspace(handle.h, plan, nullptr, 0), "back to the pool");

  // back to the handle's allocator: one that refuses makes the analysis fail
  RefusingAllocator refusing;
  spgemm_ok(spgemmSetDeviceAllocator(handle.h, &RefusingAllocator::alloc,
                                     &RefusingAllocator::free, &refusing),
            "allocator");
  CHECK(spgemmAnalyze(handle.h, plan) == SPGEMM_STATUS_ALLOC_FAILED);
  CHECK(refusing.requests > 0);
  // an analysis has begun (a failed one too): too late for a buffer
  CHECK(spgemmPlanSetWorkspace(handle.h, plan, buffer.ptr, queried) ==
        SPGEMM_STATUS_INVALID_STATE);
  spgemm_ok(spgemmSetDeviceAllocator(handle.h, nullptr, nullptr, nullptr), "pool");
  int64_t nnz = -1;
  spgemm_ok(spgemmSymbolic(handle.h, plan, &nnz), "symbolic");
  CHECK(nnz == expected_nnz);
  CHECK(spgemmPlanSetWorkspace(handle.h, plan, nullptr, 0) == SPGEMM_STATUS_INVALID_STATE);
  CHECK(workspace_size(handle.h, plan) == queried);  // from the shapes only
  spgemm_ok(spgemmPlanDestroy(plan), "destroy");
  spgemmDestroyMatrix(C);
  CHECK(usage(handle.h).current == 0);
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
