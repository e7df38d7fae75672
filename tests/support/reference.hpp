// SPDX-License-Identifier: Apache-2.0
// The oracle: C = alpha * A * B, serial, long double sums, a row at a
// time: each column's terms summed in the order they come, the row's
// columns then sorted. Plain and obviously right, and independent of the
// library's code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "csr_host.hpp"
#include "value_traits.hpp"

namespace spgemm_test {

template <class V>
struct ReferenceProduct {
  HostCsr<V> C;
  // Per entry of C: |alpha| * sum over k of |a_ik| * |b_kj|. The rounding
  // error of any summation order is bounded relative to this, not to |c_ij|
  // (which can cancel to almost nothing).
  std::vector<double> abs_bound;
};

// The structure is the structural product: (i, j) is in C iff some
// a_ik * b_kj exists, even when the values cancel to zero. A kernel must
// keep such entries, since the symbolic phase cannot see values.
//
// With an addend D (A.rows x B.cols, any pattern): C = alpha * A * B + beta * D,
// whose structure is the union of the product's and D's.
template <class V>
ReferenceProduct<V> reference_spgemm(const HostCsr<V>& A, const HostCsr<V>& B, V alpha,
                                     const HostCsr<V>* D = nullptr, V beta = V(0)) {
  if (A.cols != B.rows) throw std::invalid_argument("reference_spgemm: A.cols != B.rows");
  if (D && (D->rows != A.rows || D->cols != B.cols))
    throw std::invalid_argument("reference_spgemm: D is not A.rows x B.cols");
  ReferenceProduct<V> out;
  HostCsr<V>& C = out.C;
  C.rows = A.rows;
  C.cols = B.cols;
  C.row_offsets.assign(1, 0);
  using W = typename ValueTraits<V>::Wide;
  const W a_alpha = static_cast<W>(alpha);

  struct Sum {
    W value = W(0);  // of the products, scaled by alpha at the end
    long double bound = 0;
    W addend = W(0);  // beta * d, scaled already
  };
  // The row's columns in the order first seen, each with its sum; a
  // column's place among them by an array over C's columns where that is
  // small, else by a hash map (C of up to 2^31 columns in the limits'
  // tests). Against a std::map per row, banded:3000:200 squared takes
  // about 4.5 in place of 5.5 s in double, and with the magnitudes below
  // about 7 in place of 26 s in complex<double> (the 2-core build machine):
  // the oracle is most of some GPU tests' time.
  constexpr int64_t kArrayColumns = int64_t{1} << 24;
  const bool by_array = C.cols <= kArrayColumns;
  std::vector<int32_t> place_in_array(by_array ? static_cast<size_t>(C.cols) : 0, -1);
  std::unordered_map<int32_t, int32_t> place_in_map;
  std::vector<Sum> sums;
  std::vector<std::pair<int32_t, int32_t>> seen;  // (column, place), then sorted
  auto sum_of = [&](int32_t col) -> Sum& {
    if (col < 0 || col >= C.cols)
      throw std::invalid_argument("reference_spgemm: a column outside B's (or D's)");
    int32_t& place = by_array ? place_in_array[static_cast<size_t>(col)]
                              : place_in_map.try_emplace(col, -1).first->second;
    if (place < 0) {
      place = static_cast<int32_t>(sums.size());
      seen.emplace_back(col, place);
      sums.emplace_back();
    }
    return sums[static_cast<size_t>(place)];
  };
  // |b_kj| once per entry of B: a complex magnitude is a hypot, which taken
  // per term would be most of the complex oracle's time
  std::vector<long double> b_magnitude(B.values.size());
  for (size_t e = 0; e < B.values.size(); ++e)
    b_magnitude[e] = std::abs(static_cast<W>(B.values[e]));
  for (int64_t i = 0; i < A.rows; ++i) {
    seen.clear();
    sums.clear();
    for (int32_t ea = A.row_offsets[i]; ea < A.row_offsets[i + 1]; ++ea) {
      const int32_t k = A.col_ind[ea];
      const W a = static_cast<W>(A.values[ea]);
      const long double a_magnitude = std::abs(a);
      for (int32_t eb = B.row_offsets[k]; eb < B.row_offsets[k + 1]; ++eb) {
        Sum& s = sum_of(B.col_ind[eb]);
        s.value += a * static_cast<W>(B.values[eb]);
        s.bound += a_magnitude * b_magnitude[static_cast<size_t>(eb)];
      }
    }
    if (D)
      for (int32_t ed = D->row_offsets[i]; ed < D->row_offsets[i + 1]; ++ed)
        sum_of(D->col_ind[ed]).addend += static_cast<W>(beta) * static_cast<W>(D->values[ed]);
    std::sort(seen.begin(), seen.end());
    for (const auto& [col, place] : seen) {
      const Sum& s = sums[static_cast<size_t>(place)];
      C.col_ind.push_back(col);
      C.values.push_back(static_cast<V>(a_alpha * s.value + s.addend));
      out.abs_bound.push_back(
          static_cast<double>(std::abs(a_alpha) * s.bound + std::abs(s.addend)));
      if (by_array)
        place_in_array[static_cast<size_t>(col)] = -1;
      else
        place_in_map.erase(col);
    }
    if (C.col_ind.size() > static_cast<size_t>(INT32_MAX))
      throw std::overflow_error("reference_spgemm: nnz(C) exceeds 32-bit offsets");
    C.row_offsets.push_back(static_cast<int32_t>(C.col_ind.size()));
  }
  return out;
}

}  // namespace spgemm_test
