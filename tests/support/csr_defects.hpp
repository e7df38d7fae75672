// SPDX-License-Identifier: Apache-2.0
// Invalid CSR inputs, each with the message the library's input checks must
// give for it, and valid-but-unusual inputs (unsorted rows, repeated
// columns) that must be accepted. Shared by the host and the GPU tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "csr_host.hpp"
#include "random.hpp"

namespace spgemm_test {

struct CsrDefectCase {
  std::string name;
  HostCsr<double> matrix;  // the broken copy
  std::string message;     // a fragment the error message must contain
};

// Every kind of structural defect, made from a valid matrix whose rows 1..3
// and last row are not empty and which has at least 8 entries.
inline std::vector<CsrDefectCase> csr_defect_cases(const HostCsr<double>& valid) {
  std::vector<CsrDefectCase> cases;
  auto add = [&](std::string name, std::function<void(HostCsr<double>&)> corrupt,
                 std::string message) {
    HostCsr<double> m = valid;
    corrupt(m);
    cases.push_back({std::move(name), std::move(m), std::move(message)});
  };
  const auto rows = static_cast<size_t>(valid.rows);
  const int32_t nnz = static_cast<int32_t>(valid.nnz());
  const int32_t cols = static_cast<int32_t>(valid.cols);
  add("offsets start at 1", [](HostCsr<double>& m) { m.row_offsets[0] = 1; },
      "rowOffsets[0] is 1, expected the index base 0");
  add("last offset below nnz", [&](HostCsr<double>& m) { m.row_offsets[rows] = nnz - 1; },
      "rowOffsets[rows=" + std::to_string(rows) + "] is " + std::to_string(nnz - 1) +
          ", expected nnz + base = " + std::to_string(nnz));
  add("decreasing offsets",
      [](HostCsr<double>& m) { m.row_offsets[3] = m.row_offsets[2] - 1; },
      "row offsets decrease at row 2");
  add("negative column", [](HostCsr<double>& m) { m.col_ind[5] = -1; }, "colInd[5] = -1 is outside");
  add("column == cols", [&](HostCsr<double>& m) { m.col_ind[7] = cols; },
      "colInd[7] = " + std::to_string(cols) + " is outside [0, " + std::to_string(cols) + ")");
  add("huge column", [](HostCsr<double>& m) { m.col_ind[0] = INT32_MAX; },
      "colInd[0] = 2147483647 is outside");
  return cases;
}

// Each row's entries in reverse order (the same matrix, unsorted).
template <class V>
HostCsr<V> with_reversed_rows(HostCsr<V> m) {
  for (int64_t r = 0; r < m.rows; ++r) {
    std::reverse(m.col_ind.begin() + m.row_offsets[r], m.col_ind.begin() + m.row_offsets[r + 1]);
    std::reverse(m.values.begin() + m.row_offsets[r], m.values.begin() + m.row_offsets[r + 1]);
  }
  return m;
}

// Every entry of every third row appears twice, with a different value the
// second time: the matrix means the sum (a different matrix than m).
template <class V>
HostCsr<V> with_repeated_entries(const HostCsr<V>& m, uint64_t seed) {
  Rng rng(seed);
  HostCsr<V> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.row_offsets.assign(1, 0);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int32_t e = m.row_offsets[r]; e < m.row_offsets[r + 1]; ++e) {
      out.col_ind.push_back(m.col_ind[e]);
      out.values.push_back(m.values[e]);
      if (r % 3 == 0) {
        out.col_ind.push_back(m.col_ind[e]);
        out.values.push_back(static_cast<V>(rng.value()));
      }
    }
    out.row_offsets.push_back(static_cast<int32_t>(out.col_ind.size()));
  }
  return out;
}

}  // namespace spgemm_test
