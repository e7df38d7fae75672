// SPDX-License-Identifier: Apache-2.0
// Random small products for the randomized campaign and the concurrency
// tests: every family of generators.hpp at small sizes, random rectangles
// with random densities (0 included), empty rows, thin and empty shapes
// (1xN, Nx1, 0xN, Nx0, ...), rows of A or of B much longer than the rest,
// rows of C past 4096 entries, A * transpose(A).
//
// A case is a pure function of (family, seed), so a failure names its case
// as "FAMILY:SEED" and that string rebuilds it (parse_case_id).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr_host.hpp"

namespace spgemm_test {

// Products of one case are kept at or below this (a few hundred to ~100k
// for most cases; empty and thin shapes have fewer).
constexpr int64_t kMaxCaseProducts = 120000;

struct RandomCase {
  int family = 0;
  uint64_t seed = 0;
  bool single = false;     // float values, else double
  double alpha = 1;        // first numeric phase
  double alpha_again = 1;  // second one, after new values
  HostCsr<double> A, B;    // A.cols == B.rows
  int64_t products = 0;    // product_count(A, B)

  std::string id() const;        // "FAMILY:0xSEED"
  std::string describe() const;  // id, value type, shapes, nnz, products, alphas
};

// The family names, in order; a family is an index into this list.
const std::vector<std::string>& random_case_families();

// Deterministic in (family, seed).
RandomCase make_random_case(int family, uint64_t seed);

// Inverse of RandomCase::id(); throws std::invalid_argument.
void parse_case_id(const std::string& id, int* family, uint64_t* seed);

}  // namespace spgemm_test
