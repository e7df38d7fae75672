// SPDX-License-Identifier: Apache-2.0
// The host backend at the edges of index arithmetic (tests/support/
// extreme_cases.hpp; the GPU runs the same cases, larger, in
// tests/gpu/test_gpu_limits.cpp).
#include "extreme_cases.hpp"
#include "generators.hpp"
#include "host_api.hpp"

#include <catch2/catch.hpp>

using namespace spgemm_test;

namespace {

void check_sampled(const HostCsr<double>& A, const HostCsr<double>& B, int samples) {
  HostProduct<double> product(A, B);
  product.symbolic(true);
  product.numeric(-1.5);
  const std::string diff = compare_sampled_rows(product.c(), A, B, -1.5, samples);
  INFO(diff);
  CHECK(diff.empty());
}

}  // namespace

TEST_CASE("host: more than 2^31 products", "[host][limits]") {
  // 33000 rows x 256 x 256: 2.16e9 products, nnz(C) = 8.4M
  const auto A = dense_rows<double>(33000, 256, 1);
  const auto B = dense_rows<double>(256, 256, 2);
  REQUIRE(product_count(A, B) > (int64_t{1} << 31));
  check_sampled(A, B, 24);
}

TEST_CASE("host: nnz(C) beyond 32-bit indices is refused", "[host][limits]") {
  // 50000 x 1 times 1 x 50000: nnz(C) = 2.5e9
  auto A = dense_rows<double>(50000, 1, 3);
  auto B = dense_rows<double>(1, 50000, 4);
  HostCsr<double> C;
  C.rows = C.cols = 50000;
  C.row_offsets.assign(50001, -7);
  spgemmHandle_t handle = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&handle));
  spgemmMatDescr_t dA = host_descriptor(A), dB = host_descriptor(B), dC = host_descriptor(C);
  spgemmPlan_t plan = nullptr;
  SPGEMM_REQUIRE_OK(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                     SPGEMM_OPERATION_NON_TRANSPOSE, dA, dB, dC, CUDA_R_64F));
  int64_t nnz = -1;
  CHECK(spgemmSymbolic(handle, plan, &nnz) == SPGEMM_STATUS_INDEX_OVERFLOW);
  CHECK(std::string(spgemmGetLastErrorMessage()).find("2500000000") != std::string::npos);
  CHECK(nnz == -1);
  const double alpha = 1;
  CHECK(spgemmNumeric(handle, plan, &alpha) == SPGEMM_STATUS_INVALID_STATE);
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(dA);
  spgemmDestroyMatrix(dB);
  spgemmDestroyMatrix(dC);
  spgemmDestroy(handle);
}

TEST_CASE("host: more than 2^27 columns", "[host][limits]") {
  // the host backend keeps a dense accumulator of B.cols entries per thread:
  // 2^27 + 1 columns (the GPU test goes to 2^28 + 7)
  check_sampled(uniform_random(2000, 300, 8, 6), uniform_random(300, (int64_t{1} << 27) + 1, 60, 5),
                2000);
}

TEST_CASE("host: a row of A with 4M entries", "[host][limits]") {
  check_sampled(dense_rows<double>(1, 4000000, 8), one_per_row<double>(4000000, 1000, 9), 1);
}

TEST_CASE("host: a row of B with 1M entries, gathered by 8 rows of A", "[host][limits]") {
  check_sampled(dense_rows<double>(8, 1, 10), dense_rows<double>(1, 1000000, 11), 8);
}

TEST_CASE("host: a fully dense row of C", "[host][limits]") {
  const auto B = covering_rows<double>(64, 200000, 2000, 13);
  const auto A = dense_rows<double>(2, 64, 15);
  HostProduct<double> product(A, B);
  CHECK(product.symbolic(true) == 2 * 200000);
  product.numeric(-1.5);
  const std::string diff = compare_sampled_rows(product.c(), A, B, -1.5, 2);
  INFO(diff);
  CHECK(diff.empty());
}

TEST_CASE("host: the wide-product accumulator gives the dense one's bits", "[host][limits]") {
  // The same arrays declared 1000 and 2^22 + 1 columns wide: the host backend
  // switches from its dense to its sorted accumulator above 2^22 columns; the
  // products must be identical to the bit (both sum in the order of terms).
  const auto A = uniform_random(3000, 500, 12, 21);
  auto narrow = uniform_random(500, 1000, 30, 22);
  auto wide = narrow;
  wide.cols = (int64_t{1} << 22) + 1;
  HostProduct<double> dense(A, narrow), sorted(A, wide);
  REQUIRE(dense.symbolic(true) == sorted.symbolic(true));
  dense.numeric(-1.5);
  sorted.numeric(-1.5);
  auto got = sorted.c();
  got.cols = dense.c().cols;
  CHECK(compare_identical(got, dense.c()).empty());
  CHECK(compare_sampled_rows(dense.c(), A, narrow, -1.5, 30).empty());
}
