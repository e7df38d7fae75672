// SPDX-License-Identifier: Apache-2.0
// A CSR matrix in host memory: the common currency of tests and benchmarks.
//
// Zero-based, 32-bit indices, row_offsets always has rows + 1 entries (also
// for a 0 x 0 matrix), so its data() can be handed to the C API as is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "random.hpp"
#include "value_traits.hpp"

namespace spgemm_test {

template <class V>
struct HostCsr {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_offsets{0};
  std::vector<int32_t> col_ind;
  std::vector<V> values;

  int64_t nnz() const { return static_cast<int64_t>(col_ind.size()); }
  int64_t row_length(int64_t r) const { return row_offsets[r + 1] - row_offsets[r]; }
};

// The same matrix in another value type. Complex values get a random
// imaginary part (never zero, fixed by the entry's position), so that
// complex products are not real products in disguise.
template <class To, class From>
HostCsr<To> convert_values(const HostCsr<From>& a) {
  HostCsr<To> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_offsets = a.row_offsets;
  out.col_ind = a.col_ind;
  out.values.resize(a.values.size());
  for (size_t i = 0; i < a.values.size(); ++i)
    out.values[i] = make_value<To>(static_cast<double>(a.values[i]),
                                   value_from_bits(mix64(i ^ 0x1234567ULL)));
  return out;
}

// Counting sort by column. Rows of the result come out sorted whatever the
// order inside the input rows, because input rows are visited in order.
template <class V>
HostCsr<V> transpose(const HostCsr<V>& a) {
  HostCsr<V> t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_offsets.assign(static_cast<size_t>(a.cols) + 1, 0);
  for (int32_t c : a.col_ind) ++t.row_offsets[static_cast<size_t>(c) + 1];
  for (int64_t r = 0; r < t.rows; ++r) t.row_offsets[r + 1] += t.row_offsets[r];
  t.col_ind.resize(a.col_ind.size());
  t.values.resize(a.values.size());
  std::vector<int32_t> next(t.row_offsets.begin(), t.row_offsets.end() - 1);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int32_t e = a.row_offsets[r]; e < a.row_offsets[r + 1]; ++e) {
      const int32_t dst = next[a.col_ind[e]]++;
      t.col_ind[dst] = static_cast<int32_t>(r);
      t.values[dst] = a.values[e];
    }
  }
  return t;
}

// True when the arrays form a valid CSR matrix (sizes, monotone offsets,
// columns in range) whose rows are strictly increasing by column.
template <class V>
bool is_sorted_unique(const HostCsr<V>& a) {
  if (a.rows < 0 || a.cols < 0) return false;
  if (a.row_offsets.size() != static_cast<size_t>(a.rows) + 1) return false;
  if (a.row_offsets.front() != 0 || a.row_offsets.back() != a.nnz()) return false;
  if (a.values.size() != a.col_ind.size()) return false;
  for (int64_t r = 0; r < a.rows; ++r) {
    const int32_t begin = a.row_offsets[r], end = a.row_offsets[r + 1];
    if (end < begin) return false;
    for (int32_t e = begin; e < end; ++e) {
      if (a.col_ind[e] < 0 || a.col_ind[e] >= a.cols) return false;
      if (e > begin && a.col_ind[e] <= a.col_ind[e - 1]) return false;
    }
  }
  return true;
}

// Number of scalar multiplications in A * B (the "products" of the
// benchmark tables): each a_ik meets every entry of row k of B.
template <class VA, class VB>
int64_t product_count(const HostCsr<VA>& a, const HostCsr<VB>& b) {
  int64_t total = 0;
  for (int32_t k : a.col_ind) total += b.row_length(k);
  return total;
}

// The rows `which` of m, in that order.
template <class V>
HostCsr<V> select_rows(const HostCsr<V>& m, const std::vector<int64_t>& which) {
  HostCsr<V> out;
  out.rows = static_cast<int64_t>(which.size());
  out.cols = m.cols;
  for (int64_t r : which) {
    out.col_ind.insert(out.col_ind.end(), m.col_ind.begin() + m.row_offsets[r],
                       m.col_ind.begin() + m.row_offsets[r + 1]);
    out.values.insert(out.values.end(), m.values.begin() + m.row_offsets[r],
                      m.values.begin() + m.row_offsets[r + 1]);
    out.row_offsets.push_back(static_cast<int32_t>(out.col_ind.size()));
  }
  return out;
}

}  // namespace spgemm_test
