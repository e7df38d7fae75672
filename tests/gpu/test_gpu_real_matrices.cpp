// SPDX-License-Identifier: Apache-2.0
// The GPU path on the real matrices (SuiteSparse, ../shared/matrices): C = A*A
// (A*A^T for rectangular A), double precision. Every matrix is compared with
// cuSPARSE (same structure, values within 1e-10 of the row's largest entry); matrices up to
// kOracleLimit products are also compared with the serial oracle (above it the
// oracle takes minutes; spgemm-bench covers those against cuSPARSE).
#include "agreement.hpp"
#include "catch_main_skip.hpp"
#include "compare.hpp"
#include "cusparse_product.hpp"
#include "matrix_market.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

using namespace spgemm_test;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kOracleLimit = 100'000'000;

std::vector<std::string> matrix_files() {
  return matrix_market_files(matrix_dir(SPGEMM_MATRIX_DIR));
}

}  // namespace

TEST_CASE("GPU SpGEMM on the real matrices", "[gpu][real]") {
  spgemmHandle_t handle = nullptr;
  REQUIRE(spgemmCreate(&handle) == SPGEMM_STATUS_SUCCESS);
  for (const std::string& file : matrix_files()) {
    const std::string name = fs::path(file).filename().string();
    INFO(name);
    const HostCsr<double> A = read_matrix_market(file);
    const HostCsr<double> B = A.rows == A.cols ? A : transpose(A);
    HostCsr<double> C;
    {
      DeviceProduct<double> product(handle, A, B);
      C = product.numeric(1.0);
    }
    // Row-scaled: both sides are rounded GPU sums in different orders, and
    // entries that cancel to ~0 keep different noise (agreement.hpp).
    const Agreement vs_cusparse = check_agreement(C, cusparse_spgemm(A, B), 1e-10);
    INFO(vs_cusparse.message);
    CHECK(vs_cusparse.agree);
    const int64_t products = product_count(A, B);
    if (products <= kOracleLimit) {
      const std::string vs_oracle = compare_csr(C, reference_spgemm(A, B, 1.0), 1e-11);
      INFO(vs_oracle);
      CHECK(vs_oracle.empty());
    }
    std::cout << name << ": products " << products << ", nnz(C) " << C.nnz()
              << (products <= kOracleLimit ? ", checked against oracle and cuSPARSE\n"
                                           : ", checked against cuSPARSE\n");
  }
  spgemmDestroy(handle);
}

int main(int argc, char** argv) {
  const char* reason = gpu_skip_reason();
  const std::string none = "no Matrix Market files under " + matrix_dir(SPGEMM_MATRIX_DIR);
  if (!reason && matrix_files().empty()) reason = none.c_str();
  return run_catch_tests(argc, argv, reason);
}
