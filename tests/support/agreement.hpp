// SPDX-License-Identifier: Apache-2.0
// Do two GPU results (libspgemm's and cuSPARSE's) agree?
//
// Structure must be identical (both libraries return rows sorted by column).
// Values are compared row-wise: entry (i, j) agrees when
//   |x - y| <= tol * max(max_j |x_ij|, max_j |y_ij|)
// i.e. relative to the largest entry of row i. A plain elementwise relative
// difference would flag entries where the sum cancels to (nearly) zero and the
// two libraries, adding in different orders, keep different rounding noise.
// The elementwise max |x - y| / max(|x|, |y|) is reported as well.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "csr_host.hpp"

namespace spgemm_test {

struct Agreement {
  bool agree = false;
  std::string message;  // first difference, empty when they agree
  double max_rel_diff = 0;
  double max_row_scaled_diff = 0;
};

template <class V>
Agreement check_agreement(const spgemm_test::HostCsr<V>& x, const spgemm_test::HostCsr<V>& y,
                          double tol) {
  Agreement r;
  if (x.rows != y.rows || x.cols != y.cols) {
    r.message = fmt::format("shape differs: {}x{} vs {}x{}", x.rows, x.cols, y.rows, y.cols);
    return r;
  }
  if (x.nnz() != y.nnz()) {
    r.message = fmt::format("nnz(C) differs: {} vs {}", x.nnz(), y.nnz());
    return r;
  }
  for (int64_t i = 0; i <= x.rows; ++i) {
    if (x.row_offsets[i] != y.row_offsets[i]) {
      r.message = fmt::format("row offsets differ at row {}: {} vs {}", i, x.row_offsets[i],
                              y.row_offsets[i]);
      return r;
    }
  }
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t e = x.row_offsets[i]; e < x.row_offsets[i + 1]; ++e) {
      if (x.col_ind[e] != y.col_ind[e]) {
        r.message = fmt::format("column indices differ in row {} at position {}: {} vs {}", i,
                                e - x.row_offsets[i], x.col_ind[e], y.col_ind[e]);
        return r;
      }
    }
  }

  bool first_bad_found = false, saw_nan = false;
  for (int64_t i = 0; i < x.rows; ++i) {
    const int64_t begin = x.row_offsets[i], end = x.row_offsets[i + 1];
    double row_max = 0;
    for (int64_t e = begin; e < end; ++e) {
      row_max = std::max({row_max, std::abs(double(x.values[e])), std::abs(double(y.values[e]))});
    }
    for (int64_t e = begin; e < end; ++e) {
      const double a = x.values[e], b = y.values[e];
      const double diff = std::abs(a - b);
      const double rel = diff / std::max({std::abs(a), std::abs(b), 1e-300});
      const double scaled = diff / std::max(row_max, 1e-300);
      if (std::isnan(a) || std::isnan(b) || std::isnan(scaled)) saw_nan = true;
      r.max_rel_diff = std::max(r.max_rel_diff, rel);
      r.max_row_scaled_diff = std::max(r.max_row_scaled_diff, scaled);
      if (!first_bad_found && !(scaled <= tol)) {  // NaN fails too
        first_bad_found = true;
        r.message =
            fmt::format("values differ at ({}, {}): {:.17g} vs {:.17g}", i, x.col_ind[e], a, b);
      }
    }
  }
  if (saw_nan) r.max_rel_diff = r.max_row_scaled_diff = NAN;
  r.agree = !first_bad_found;
  return r;
}

}  // namespace spgemm_test
