// SPDX-License-Identifier: Apache-2.0
// The host backend against the oracle on the real matrices (SuiteSparse
// collection, *.mtx.gz under SPGEMM_MATRIX_DIR): C = A*A, or A*A^T for a
// rectangular A. Double precision only; products above a cap are skipped to
// keep the run short. Exits 77 (CTest: skipped) when there are no matrices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "catch_main_skip.hpp"
#include "compare.hpp"
#include "host_api.hpp"
#include "matrix_market.hpp"
#include "reference.hpp"

#ifndef SPGEMM_MATRIX_DIR
#error "SPGEMM_MATRIX_DIR must be defined (tests/CMakeLists.txt does)"
#endif

using namespace spgemm_test;
namespace fs = std::filesystem;

namespace {

// landmark (545M products) would take minutes in the serial oracle.
constexpr int64_t kMaxProducts = 60'000'000;

std::vector<std::string> matrix_files() {
  return matrix_market_files(matrix_dir(SPGEMM_MATRIX_DIR));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("host backend on the real matrices", "[host][real]") {
  for (const std::string& path : matrix_files()) {
    const std::string name = fs::path(path).filename().string();
    INFO(name);
    const auto t0 = std::chrono::steady_clock::now();
    HostCsr<double> a = read_matrix_market(path);
    const bool square = a.rows == a.cols;
    // Square: B's descriptor shares A's arrays (no copy of the big ones).
    HostCsr<double> b = square ? HostCsr<double>{} : transpose(a);
    const int64_t products = product_count(a, square ? a : b);
    if (products > kMaxProducts) {
      std::printf("skip %-20s %lld products > %lld\n", name.c_str(), static_cast<long long>(products),
                  static_cast<long long>(kMaxProducts));
      continue;
    }
    HostProduct<double> p(std::move(a), std::move(b), /*share_arrays=*/square);
    p.symbolic(true);
    p.numeric(1.0);
    CHECK(compare_csr(p.c(), reference_spgemm(p.a(), square ? p.a() : p.b(), 1.0),
                      default_rtol<double>()) == "");
    std::printf("ok   %-20s %lld products, nnz(C) %lld, %.1f s\n", name.c_str(),
                static_cast<long long>(products), static_cast<long long>(p.c().nnz()), seconds_since(t0));
    std::fflush(stdout);
  }
}

int main(int argc, char** argv) {
  std::string reason;
  std::error_code ec;
  const std::string dir = matrix_dir(SPGEMM_MATRIX_DIR);
  if (!fs::is_directory(dir, ec))
    reason = "matrix directory " + dir + " does not exist";
  else if (matrix_files().empty())
    reason = "no *.mtx.gz under " + dir;
  return run_catch_tests(argc, argv, reason.empty() ? nullptr : reason.c_str());
}
