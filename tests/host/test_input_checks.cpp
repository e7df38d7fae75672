// SPDX-License-Identifier: Apache-2.0
// The input checks on the host backend: every structural defect is refused
// with INVALID_VALUE and a message naming it, before anything is computed;
// the plan stays usable; unsorted rows and repeated columns are accepted and
// give the oracle's result; checks can be turned off.
#include "compare.hpp"
#include "csr_defects.hpp"
#include "generators.hpp"
#include "host_api.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace spgemm_test;

namespace {

HostCsr<double> valid_operand() { return uniform_random(40, 40, 5, 101); }

// Analyze (or symbolic, which analyzes first) on a plan for A * B with the
// given operands, host memory.
struct HostPlan {
  HostCsr<double> a, b, c;
  spgemmHandle_t handle = nullptr;
  spgemmMatDescr_t da = nullptr, db = nullptr, dc = nullptr;
  spgemmPlan_t plan = nullptr;

  HostPlan(HostCsr<double> a_in, HostCsr<double> b_in) : a(std::move(a_in)), b(std::move(b_in)) {
    SPGEMM_REQUIRE_OK(spgemmCreate(&handle));
    da = host_descriptor(a);
    db = host_descriptor(b);
    c.rows = a.rows;
    c.cols = b.cols;
    c.row_offsets.assign(static_cast<size_t>(a.rows) + 1, -7);
    dc = host_descriptor(c);
    SPGEMM_REQUIRE_OK(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                       SPGEMM_OPERATION_NON_TRANSPOSE, da, db, dc, CUDA_R_64F));
  }
  ~HostPlan() {
    spgemmPlanDestroy(plan);
    spgemmDestroyMatrix(da);
    spgemmDestroyMatrix(db);
    spgemmDestroyMatrix(dc);
    spgemmDestroy(handle);
  }
};

}  // namespace

TEST_CASE("input checks refuse every structural defect", "[checks]") {
  const HostCsr<double> valid = valid_operand();
  for (const CsrDefectCase& defect : csr_defect_cases(valid)) {
    for (const char* operand : {"A", "B"}) {
      INFO(defect.name << " in " << operand);
      const bool in_a = std::string(operand) == "A";
      HostPlan p(in_a ? defect.matrix : valid, in_a ? valid : defect.matrix);
      CHECK(spgemmAnalyze(p.handle, p.plan) == SPGEMM_STATUS_INVALID_VALUE);
      const std::string message = spgemmGetLastErrorMessage();
      CHECK(message.find(std::string(operand) + ": " + defect.message) != std::string::npos);
      int64_t nnz = -1;
      CHECK(spgemmSymbolic(p.handle, p.plan, &nnz) == SPGEMM_STATUS_INVALID_VALUE);
      CHECK(nnz == -1);
      CHECK(p.c.row_offsets.front() == -7);  // C untouched
      // the plan is still usable: repair the operand in place and go on
      (in_a ? p.a : p.b) = valid;
      SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(in_a ? p.da : p.db,
                                             (in_a ? p.a : p.b).row_offsets.data(),
                                             (in_a ? p.a : p.b).col_ind.data(),
                                             (in_a ? p.a : p.b).values.data()));
      SPGEMM_REQUIRE_OK(spgemmSymbolic(p.handle, p.plan, &nnz));
      CHECK(nnz == reference_spgemm(valid, valid, 1.0).C.nnz());
    }
  }
}

TEST_CASE("input checks are on by default and can be turned off", "[checks]") {
  spgemmHandle_t handle = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&handle));
  int enabled = -1;
  SPGEMM_REQUIRE_OK(spgemmGetInputChecks(handle, &enabled));
  CHECK(enabled == 1);
  SPGEMM_REQUIRE_OK(spgemmSetInputChecks(handle, 0));
  SPGEMM_REQUIRE_OK(spgemmGetInputChecks(handle, &enabled));
  CHECK(enabled == 0);
  CHECK(spgemmGetInputChecks(handle, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(spgemmSetInputChecks(nullptr, 1) == SPGEMM_STATUS_NOT_INITIALIZED);
  spgemmDestroy(handle);

  // valid input gives the same product without the checks
  const HostCsr<double> a = valid_operand();
  HostPlan p(a, a);
  SPGEMM_REQUIRE_OK(spgemmSetInputChecks(p.handle, 0));
  int64_t nnz = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(p.handle, p.plan, &nnz));
  CHECK(nnz == reference_spgemm(a, a, 1.0).C.nnz());
}

TEMPLATE_TEST_CASE("unsorted rows and repeated columns are accepted", "[checks]", float, double) {
  using V = TestType;
  const auto base = convert_values<V>(uniform_random(60, 60, 6, 202));
  const HostCsr<V> cases[][2] = {
      {with_reversed_rows(base), base},
      {base, with_reversed_rows(base)},
      {with_repeated_entries(base, 5), base},
      {base, with_repeated_entries(base, 6)},
  };
  for (const auto& operands : cases) {
    HostProduct<V> product(operands[0], operands[1]);
    const auto reference = reference_spgemm(operands[0], operands[1], V(1.25));
    REQUIRE(product.symbolic(true) == reference.C.nnz());
    product.numeric(V(1.25));
    const std::string diff = compare_csr(product.c(), reference, default_rtol<V>());
    INFO(diff);
    CHECK(diff.empty());
  }
}

TEST_CASE("structure verification (debug option) catches a changed structure", "[checks]") {
  const HostCsr<double> a = valid_operand();
  HostPlan p(a, a);
  int enabled = -1;
  SPGEMM_REQUIRE_OK(spgemmGetStructureVerification(p.handle, &enabled));
  CHECK(enabled == 0);
  SPGEMM_REQUIRE_OK(spgemmSetStructureVerification(p.handle, 1));
  int64_t nnz = -1;
  SPGEMM_REQUIRE_OK(spgemmSymbolic(p.handle, p.plan, &nnz));
  std::vector<int32_t> cols(static_cast<size_t>(nnz));
  std::vector<double> values(static_cast<size_t>(nnz));
  SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(p.dc, p.c.row_offsets.data(), cols.data(), values.data()));
  const double alpha = 1;
  SPGEMM_REQUIRE_OK(spgemmNumeric(p.handle, p.plan, &alpha));
  // a different, still valid column in B (B's arrays are p.b's)
  const int32_t saved = p.b.col_ind[3];
  p.b.col_ind[3] = (saved + 1) % static_cast<int32_t>(p.b.cols);
  CHECK(spgemmNumeric(p.handle, p.plan, &alpha) == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("B: row offsets or column indices changed") !=
        std::string::npos);
  p.b.col_ind[3] = saved;
  SPGEMM_REQUIRE_OK(spgemmNumeric(p.handle, p.plan, &alpha));
  // new values are not a structure change
  p.a.values[0] *= 2;
  SPGEMM_REQUIRE_OK(spgemmNumeric(p.handle, p.plan, &alpha));
  // turned on after the analysis: there is nothing to compare with
  SPGEMM_REQUIRE_OK(spgemmSetStructureVerification(p.handle, 0));
  SPGEMM_REQUIRE_OK(spgemmAnalyze(p.handle, p.plan));
  SPGEMM_REQUIRE_OK(spgemmSymbolic(p.handle, p.plan, &nnz));
  SPGEMM_REQUIRE_OK(spgemmSetStructureVerification(p.handle, 1));
  CHECK(spgemmNumeric(p.handle, p.plan, &alpha) == SPGEMM_STATUS_INVALID_STATE);
}
