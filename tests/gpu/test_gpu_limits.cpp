// SPDX-License-Identifier: Apache-2.0
// The GPU path at the edges of index arithmetic (tests/support/
// extreme_cases.hpp): each case is computed correctly or refused with a
// distinct status, never wrapped.
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "extreme_cases.hpp"
#include "generators.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

namespace {

// C = alpha * A * B on the GPU, checked on a sample of rows (all of them when
// samples >= rows).
void check_sampled(spgemmHandle_t handle, const HostCsr<double>& A, const HostCsr<double>& B,
                   int samples) {
  DeviceProduct<double> product(handle, A, B);
  const HostCsr<double> C = product.numeric(-1.5);
  const std::string diff = compare_sampled_rows(C, A, B, -1.5, samples);
  INFO(diff);
  CHECK(diff.empty());
}

}  // namespace

TEST_CASE("GPU: more than 2^31 products", "[gpu][limits]") {
  Handle handle;
  // 40000 rows x 256 x 256: 2.6e9 products, nnz(C) = 10.2M
  const auto A = dense_rows<double>(40000, 256, 1);
  const auto B = dense_rows<double>(256, 256, 2);
  REQUIRE(product_count(A, B) > (int64_t{1} << 31));
  check_sampled(handle.h, A, B, 24);
}

TEST_CASE("GPU: nnz(C) beyond 32-bit indices is refused", "[gpu][limits]") {
  Handle handle;
  // 50000 x 1 times 1 x 50000: nnz(C) = 2.5e9
  const auto A = dense_rows<double>(50000, 1, 3);
  const auto B = dense_rows<double>(1, 50000, 4);
  DeviceCsr<double> dA(A), dB(B);
  DeviceArray<int32_t> offsets(50001);
  spgemmMatDescr_t C = nullptr;
  spgemm_ok(spgemmCreateCsr(&C, 50000, 50000, 0, offsets.ptr, nullptr, nullptr, SPGEMM_INDEX_32I,
                            SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
            "C");
  spgemmPlan_t plan = nullptr;
  spgemm_ok(spgemmPlanCreate(handle.h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                             SPGEMM_OPERATION_NON_TRANSPOSE, dA.descr, dB.descr, C, CUDA_R_64F),
            "plan");
  int64_t nnz = -1;
  CHECK(spgemmSymbolic(handle.h, plan, &nnz) == SPGEMM_STATUS_INDEX_OVERFLOW);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("2500000000") != std::string::npos);
  const double alpha = 1;
  CHECK(spgemmNumeric(handle.h, plan, &alpha) == SPGEMM_STATUS_INVALID_STATE);
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(C);
}

TEST_CASE("GPU: more than 2^27 columns", "[gpu][limits]") {
  Handle handle;
  const int64_t wide = (int64_t{1} << 28) + 7;
  // B: 300 x 2^28 with 60 random columns per row; A: 3000 x 300 with 8 per
  // row, plus three rows of all 300 (18000 products: the dense-window path,
  // over a column range of 2^28).
  const auto B = uniform_random(300, wide, 60, 5);
  auto A = uniform_random(3000, 300, 8, 6);
  const auto long_rows = dense_rows<double>(3, 300, 7);
  A.rows += 3;
  for (size_t i = 0; i < long_rows.col_ind.size(); ++i) {
    A.col_ind.push_back(long_rows.col_ind[i]);
    A.values.push_back(long_rows.values[i]);
    if ((i + 1) % 300 == 0) A.row_offsets.push_back(static_cast<int32_t>(A.col_ind.size()));
  }
  check_sampled(handle.h, A, B, static_cast<int>(A.rows));
}

// Rows of at most 32 terms are placed by sorting keys that hold the column
// and a lane (accumulators/register_row.cuh) while the columns leave room
// for the lane, and by ranking columns alone beyond; rows of 33-64 terms
// always the latter. B of 2^26 - 1 and 2^26 columns puts the first on both
// sides of that bound, with 20 terms a row, then 40.
TEST_CASE("GPU: rows of few terms over 2^26 columns", "[gpu][limits]") {
  Handle handle;
  for (const int64_t cols : {(int64_t{1} << 26) - 1, int64_t{1} << 26}) {
    const auto B = uniform_random(300, cols, 5, 16);
    for (const int per_row : {4, 8}) {
      INFO(cols << " columns, " << per_row * 5 << " terms a row");
      const auto A = uniform_random(3000, 300, per_row, 17);
      check_sampled(handle.h, A, B, static_cast<int>(A.rows));
    }
  }
}

TEST_CASE("GPU: rows with millions of entries", "[gpu][limits]") {
  Handle handle;
  SECTION("a row of A with 4M entries") {
    const auto A = dense_rows<double>(1, 4000000, 8);
    const auto B = one_per_row<double>(4000000, 1000, 9);
    check_sampled(handle.h, A, B, 1);
  }
  SECTION("a row of B with 3M entries, gathered by 40 rows of A") {
    const auto A = dense_rows<double>(40, 1, 10);
    const auto B = dense_rows<double>(1, 3000000, 11);
    check_sampled(handle.h, A, B, 4);  // the oracle takes ~0.5 s per row
  }
}

TEST_CASE("GPU: a fully dense row of C", "[gpu][limits]") {
  Handle handle;
  const int64_t n = 200000;
  const auto B = covering_rows<double>(64, n, 2000, 13);
  const auto A = dense_rows<double>(2, 64, 15);
  DeviceProduct<double> product(handle.h, A, B);
  CHECK(product.nnz() == 2 * n);
  const std::string diff = compare_sampled_rows(product.numeric(-1.5), A, B, -1.5, 2);
  INFO(diff);
  CHECK(diff.empty());
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
