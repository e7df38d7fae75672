// SPDX-License-Identifier: Apache-2.0
// Reliability on the GPU: input checks (every defect refused before a kernel
// reads the matrix, the plan still usable after), unsorted rows and repeated
// columns accepted, and exhausted memory at every allocation (a capped
// allocator, refusing each allocation in turn): ALLOC_FAILED, everything
// taken given back, and a retry with more memory succeeds on the same plan.
#include "capped_allocator.hpp"
#include "catch_main_skip.hpp"
#include "compare.hpp"
#include "csr_defects.hpp"
#include "device_product.hpp"
#include "generators.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace spgemm_test;

namespace {

template <class V>
void check_product(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B, V alpha) {
  DeviceProduct<V> product(handle, A, B);
  const auto reference = reference_spgemm(A, B, alpha);
  REQUIRE(product.nnz() == reference.C.nnz());
  const std::string diff = compare_csr(product.numeric(alpha), reference, default_rtol<V>());
  INFO(diff);
  CHECK(diff.empty());
}

}  // namespace

// The checks' verdict comes from spgemmAnalyze, or, for C with at most
// SmallPolicy::max_rows = 65536 rows (configs/bins.hpp), from spgemmSymbolic's
// synchronization (analyze then does not synchronize): one size of each.
TEST_CASE("GPU input checks refuse every structural defect", "[gpu][checks]") {
  Handle handle;
  for (const int rows : {40, 70000}) {
    const bool small = rows <= 65536;
    const HostCsr<double> valid = uniform_random(rows, rows, 5, 101);
    const int64_t valid_nnz = reference_spgemm(valid, valid, 1.0).C.nnz();
    for (const CsrDefectCase& defect : csr_defect_cases(valid)) {
      for (const bool in_a : {true, false}) {
        INFO(rows << " rows, " << defect.name << (in_a ? " in A" : " in B"));
        DeviceCsr<double> A(in_a ? defect.matrix : valid), B(in_a ? valid : defect.matrix);
        DeviceArray<int32_t> c_offsets(static_cast<size_t>(valid.rows) + 1);
        c_offsets.poison();
        spgemmMatDescr_t C = nullptr;
        spgemm_ok(spgemmCreateCsr(&C, valid.rows, valid.cols, 0, c_offsets.ptr, nullptr, nullptr,
                                  SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                  CUDA_R_64F),
                  "C");
        spgemmPlan_t plan = nullptr;
        spgemm_ok(spgemmPlanCreate(handle.h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                   SPGEMM_OPERATION_NON_TRANSPOSE, A.descr, B.descr, C,
                                   CUDA_R_64F),
                  "plan");
        const std::string expected = std::string(in_a ? "A: " : "B: ") + defect.message;
        auto check_message = [&](const char* call) {
          const std::string message = spgemmGetLastErrorMessage();
          INFO(message);
          CHECK(message.rfind(std::string(call) + ": ", 0) == 0);
          CHECK(message.find(expected) != std::string::npos);
        };
        const spgemmStatus_t analyzed = spgemmAnalyze(handle.h, plan);
        if (small) {
          CHECK(analyzed == SPGEMM_STATUS_SUCCESS);
        } else {
          CHECK(analyzed == SPGEMM_STATUS_INVALID_VALUE);
          check_message("spgemmAnalyze");
        }
        // twice: a refused plan is analyzed (and refused) again
        for (int attempt = 0; attempt < 2; ++attempt) {
          int64_t nnz = -1;
          CHECK(spgemmSymbolic(handle.h, plan, &nnz) == SPGEMM_STATUS_INVALID_VALUE);
          check_message("spgemmSymbolic");
          CHECK(nnz == -1);
        }
        CHECK(c_offsets.download().front() == -1);  // C untouched
        // repair the operand on the device: the same plan goes on
        DeviceCsr<double>& broken = in_a ? A : B;
        broken.offsets.upload(valid.row_offsets);
        broken.cols_.upload(valid.col_ind);
        int64_t nnz = -1;
        spgemm_ok(spgemmSymbolic(handle.h, plan, &nnz), "symbolic after repair");
        CHECK(nnz == valid_nnz);
        spgemmPlanDestroy(plan);
        spgemmDestroyMatrix(C);
      }
    }
  }
}

TEMPLATE_TEST_CASE("GPU accepts unsorted rows and repeated columns", "[gpu][checks]", float,
                   double) {
  using V = TestType;
  Handle handle;
  for (const char* spec : {"uniform:500:8", "longrows:3000"}) {
    INFO(spec);
    const auto base = convert_values<V>(generate(spec));
    check_product(handle.h, with_reversed_rows(base), with_reversed_rows(base), V(1.5));
    check_product(handle.h, with_repeated_entries(base, 5), with_repeated_entries(base, 6), V(-1));
  }
}

namespace {

// One product on its own plan with every phase's status recorded.
struct PhaseRun {
  spgemmStatus_t status = SPGEMM_STATUS_SUCCESS;
  const char* failed_in = "";
};

}  // namespace

TEST_CASE("GPU workspace through the caller's allocator, and exhausted memory", "[gpu][memory]") {
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  CappedAllocator allocator;
  allocator.stream = stream;
  {
    Handle handle;
    spgemm_ok(spgemmSetStream(handle.h, stream), "stream");
    CHECK(spgemmSetDeviceAllocator(handle.h, &CappedAllocator::alloc, nullptr, &allocator) ==
          SPGEMM_STATUS_INVALID_VALUE);
    spgemm_ok(spgemmSetDeviceAllocator(handle.h, &CappedAllocator::alloc, &CappedAllocator::free,
                                       &allocator),
              "allocator");
    // hub: long rows (dense windows) and short ones: every kind of workspace;
    // more rows than C whose offsets one block scans (configs/bins.hpp's
    // SmallPolicy::few_launches_rows), so that the symbolic phase allocates CUB's scratch
    const HostCsr<double> A = generate("hub:20000");
    const auto reference = reference_spgemm(A, A, 2.0);

    // Without a cap: the library's own accounting matches the allocator's.
    spgemm_ok(spgemmResetPeakMemoryUsage(handle.h), "reset");
    allocator.reached.clear();
    check_product(handle.h, A, A, 2.0);
    size_t current = 1, peak = 0;
    spgemm_ok(spgemmGetMemoryUsage(handle.h, &current, &peak), "usage");
    CHECK(current == 0);
    CHECK(peak == allocator.peak);
    CHECK(allocator.outstanding == 0);
    REQUIRE(allocator.peak > 0);
    const size_t needed = allocator.peak;

    // Caps one byte short of each allocation of that run (the product asks
    // the same on a new plan), and 0 and what it needs: every run either
    // succeeds or fails with ALLOC_FAILED in some phase, gives back
    // everything, and the same plan then succeeds once the cap is lifted.
    std::vector<size_t> caps{0, needed};
    for (const size_t reached : allocator.reached) caps.push_back(reached - 1);
    std::map<std::string, int> failures_by_phase;
    for (const size_t cap : caps) {
      allocator.cap = cap;
      INFO("cap " << allocator.cap << " of " << needed);
      DeviceCsr<double> dA(A), dB(A);
      DeviceArray<int32_t> offsets(static_cast<size_t>(A.rows) + 1);
      DeviceArray<int32_t> cols(static_cast<size_t>(reference.C.nnz()));
      DeviceArray<double> values(static_cast<size_t>(reference.C.nnz()));
      cols.poison();
      values.poison();
      spgemmMatDescr_t C = nullptr;
      spgemm_ok(spgemmCreateCsr(&C, A.rows, A.cols, 0, offsets.ptr, nullptr, nullptr,
                                SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                CUDA_R_64F),
                "C");
      spgemmPlan_t plan = nullptr;
      spgemm_ok(spgemmPlanCreate(handle.h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                 SPGEMM_OPERATION_NON_TRANSPOSE, dA.descr, dB.descr, C, CUDA_R_64F),
                "plan");
      const double alpha = 2.0;
      auto run_phases = [&]() -> PhaseRun {
        spgemmStatus_t s = spgemmAnalyze(handle.h, plan);
        if (s != SPGEMM_STATUS_SUCCESS) return {s, "analyze"};
        int64_t nnz = -1;
        s = spgemmSymbolic(handle.h, plan, &nnz);
        if (s != SPGEMM_STATUS_SUCCESS) return {s, "symbolic"};
        REQUIRE(nnz == reference.C.nnz());
        spgemm_ok(spgemmCsrSetPointers(C, offsets.ptr, cols.ptr, values.ptr), "pointers");
        s = spgemmNumeric(handle.h, plan, &alpha);
        if (s != SPGEMM_STATUS_SUCCESS) return {s, "numeric"};
        return {};
      };
      const PhaseRun first = run_phases();
      if (first.status != SPGEMM_STATUS_SUCCESS) {
        CHECK(first.status == SPGEMM_STATUS_ALLOC_FAILED);
        CHECK(std::string(spgemmGetLastErrorMessage()).find("refused") != std::string::npos);
        ++failures_by_phase[first.failed_in];
        allocator.cap = SIZE_MAX;  // more memory: the same plan now succeeds
        const PhaseRun retry = run_phases();
        CHECK(retry.status == SPGEMM_STATUS_SUCCESS);
      }
      cuda_ok(cudaStreamSynchronize(stream), "sync");
      HostCsr<double> got;
      got.rows = A.rows;
      got.cols = A.cols;
      got.row_offsets = offsets.download();
      got.col_ind = cols.download();
      got.values = values.download();
      const std::string diff = compare_csr(got, reference, default_rtol<double>());
      INFO(diff);
      CHECK(diff.empty());
      spgemmPlanDestroy(plan);
      spgemmDestroyMatrix(C);
      CHECK(allocator.outstanding == 0);
    }
    CHECK(failures_by_phase["analyze"] > 0);
    CHECK(failures_by_phase["symbolic"] > 0);
    CHECK(allocator.refusals > 0);
  }
  CHECK_FALSE(allocator.wrong_stream);
  CHECK_FALSE(allocator.bad_free);
  CHECK(allocator.live.empty());
  cuda_ok(cudaStreamDestroy(stream), "stream destroy");
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
