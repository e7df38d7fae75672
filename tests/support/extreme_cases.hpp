// SPDX-License-Identifier: Apache-2.0
// Products at the edges of index arithmetic: more than 2^31 products, nnz(C)
// beyond 32 bits, more than 2^27 columns, rows with millions of entries, a
// fully dense row of C. The matrices are built directly (the generators would
// take too long at these sizes); results too large for the oracle are checked
// on a sample of rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare.hpp"
#include "csr_host.hpp"
#include "random.hpp"
#include "reference.hpp"

namespace spgemm_test {

// rows x cols with per_row entries in every row, entry j of row r in column
// col_of(r, j); random non-zero values.
template <class V, class ColOf>
HostCsr<V> rows_of(int64_t rows, int64_t cols, int64_t per_row, uint64_t seed, ColOf col_of) {
  Rng rng(seed);
  HostCsr<V> m;
  m.rows = rows;
  m.cols = cols;
  m.row_offsets.resize(static_cast<size_t>(rows) + 1);
  m.col_ind.resize(static_cast<size_t>(rows * per_row));
  m.values.resize(m.col_ind.size());
  for (int64_t r = 0; r <= rows; ++r) m.row_offsets[r] = static_cast<int32_t>(r * per_row);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < per_row; ++j) {
      m.col_ind[r * per_row + j] = static_cast<int32_t>(col_of(r, j));
      m.values[r * per_row + j] = static_cast<V>(rng.value());
    }
  return m;
}

// Every row holds all `cols` columns.
template <class V>
HostCsr<V> dense_rows(int64_t rows, int64_t cols, uint64_t seed) {
  return rows_of<V>(rows, cols, cols, seed, [](int64_t, int64_t j) { return j; });
}

// One random column per row, out of `cols`.
template <class V>
HostCsr<V> one_per_row(int64_t rows, int64_t cols, uint64_t seed) {
  Rng pick(seed + 1);
  return rows_of<V>(rows, cols, 1, seed, [&](int64_t, int64_t) {
    return static_cast<int64_t>(pick.below(static_cast<uint64_t>(cols)));
  });
}

// k rows over n columns (k divides n): row r holds its own n/k columns
// [r*n/k, (r+1)*n/k) followed by `extra` random ones (unsorted, possibly
// repeating a column): any row of A with all k columns gives a dense row of C.
template <class V>
HostCsr<V> covering_rows(int64_t k, int64_t n, int64_t extra, uint64_t seed) {
  Rng pick(seed + 1);
  const int64_t own = n / k;
  return rows_of<V>(k, n, own + extra, seed, [&](int64_t r, int64_t j) {
    return j < own ? r * own + j : static_cast<int64_t>(pick.below(static_cast<uint64_t>(n)));
  });
}

// C = alpha * A * B checked against the oracle on `samples` rows spread over
// A (first and last included): "" or the first difference.
template <class V>
std::string compare_sampled_rows(const HostCsr<V>& C, const HostCsr<V>& A, const HostCsr<V>& B,
                                 V alpha, int samples) {
  std::vector<int64_t> which;
  for (int s = 0; s < samples && A.rows > 0; ++s)
    which.push_back(samples == 1 ? 0 : (A.rows - 1) * s / (samples - 1));
  const auto reference = reference_spgemm(select_rows(A, which), B, alpha);
  return compare_csr(select_rows(C, which), reference, default_rtol<V>());
}

}  // namespace spgemm_test
