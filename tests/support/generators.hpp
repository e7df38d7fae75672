// SPDX-License-Identifier: Apache-2.0
// Synthetic sparse matrices for tests and benchmarks.
//
// Every generator is deterministic in its arguments (the seed included), and
// returns sorted, duplicate-free CSR whose values are never zero: magnitude
// in [0.5, 1.5] with a random sign.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr_host.hpp"
#include "random.hpp"

namespace spgemm_test {

// 5-point Laplacian structure on an n x n grid (n*n rows).
HostCsr<double> poisson2d_5pt(int n, uint64_t seed = 1);
// 27-point stencil structure on an n x n x n grid (n^3 rows).
HostCsr<double> stencil3d_27pt(int n, uint64_t seed = 1);
// R-MAT graph, 2^scale square, edge_factor * 2^scale edges drawn with
// quadrant probabilities a, b, c (d = 1 - a - b - c); repeated edges merged.
HostCsr<double> rmat(int scale, int edge_factor, double a, double b, double c, uint64_t seed);
// Exactly min(per_row, cols) distinct uniformly random columns in every row.
HostCsr<double> uniform_random(int64_t rows, int64_t cols, int per_row, uint64_t seed);
// Square, row i holds columns [i - half_bandwidth, i + half_bandwidth].
HostCsr<double> banded(int64_t rows, int half_bandwidth, uint64_t seed);
// Square; row lengths follow P(len = k) ~ k^-exponent on [1, max_row],
// columns uniform. A few long rows among many short ones.
HostCsr<double> power_law(int64_t rows, double exponent, int max_row, uint64_t seed);
// n_long random rows with long_len random columns, the others short_len.
// With B = A, rows of A that touch a long row give rows of C at least that
// long (the GPU's large-row paths).
HostCsr<double> few_long_rows(int64_t rows, int64_t cols, int n_long, int long_len,
                              int short_len, uint64_t seed);
// Square n x n: every row has short_len random columns, except the hub row
// (n / 2) with hub_len; n_refs random rows also reference column n / 2. So in
// A * A one long row of B is gathered by n_refs rows, each of C's rows then
// holding at least hub_len entries.
HostCsr<double> hub(int64_t n, int hub_len, int n_refs, int short_len, uint64_t seed);
// A copy of a with round(fraction * rows) random rows emptied.
HostCsr<double> with_empty_rows(const HostCsr<double>& a, double fraction, uint64_t seed);
// rows x cols with no entries.
HostCsr<double> empty_matrix(int64_t rows, int64_t cols);
// Each entry present independently with probability density.
HostCsr<double> random_rect(int64_t rows, int64_t cols, double density, uint64_t seed);

// New values (same rules: non-zero, [0.5, 1.5], random sign) on the same
// structure, e.g. to test that a second numeric phase picks them up.
template <class V>
void randomize_values(HostCsr<V>& a, uint64_t seed) {
  Rng rng(seed);
  for (V& v : a.values) {
    const double re = rng.value();
    v = make_value<V>(re, rng.value());
  }
}

// Builds a matrix from a spec; optional arguments in brackets:
//   poisson2d:N[:SEED]              stencil27:N[:SEED]  (alias poisson3d)
//   rmat:SCALE:EDGE_FACTOR[:SEED[:A:B:C]]     (seed 7, .57 .19 .19)
//   uniform:ROWS:PER_ROW[:SEED]     (seed 9)  banded:ROWS:HALF_BW[:SEED]
//   powerlaw:ROWS[:EXPONENT[:MAX_ROW[:SEED]]] (2.0, min(ROWS, 1000))
//   longrows:ROWS[:N_LONG[:LONG_LEN[:SHORT_LEN[:SEED]]]] (16, ROWS/2, 4)
//   hub:N[:HUB_LEN[:N_REFS[:SHORT_LEN[:SEED]]]]          (N/2, N/20, 4)
//   rect:ROWS:COLS:DENSITY[:SEED]   empty:ROWS:COLS
// Other seeds default to 1. Throws std::invalid_argument for an unknown or
// malformed spec.
HostCsr<double> generate(const std::string& spec);

// The default synthetic families of the benchmark tables (README of the
// shared matrices) plus powerlaw and longrows.
std::vector<std::string> generator_families();

struct NamedMatrix {
  std::string name;
  HostCsr<double> A;
  // true: the test computes A * A. false (A is rectangular): the test
  // computes A * B with B = transpose(A), built explicitly.
  bool square = true;
};

// Small matrices for correctness tests (products mostly < 200k; the long-row
// cases run to a few million so that rows of C exceed 10k entries).
std::vector<NamedMatrix> small_test_suite();

}  // namespace spgemm_test
