// SPDX-License-Identifier: Apache-2.0
// The oracle: C = alpha * A * B, serial, a std::map per row, long double
// sums. Slow and obviously right, and independent of the library's code.
#pragma once

#include <cmath>
#include <map>
#include <stdexcept>
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
  std::map<int32_t, Sum> row;
  for (int64_t i = 0; i < A.rows; ++i) {
    row.clear();
    for (int32_t ea = A.row_offsets[i]; ea < A.row_offsets[i + 1]; ++ea) {
      const int32_t k = A.col_ind[ea];
      const W a = static_cast<W>(A.values[ea]);
      for (int32_t eb = B.row_offsets[k]; eb < B.row_offsets[k + 1]; ++eb) {
        Sum& s = row[B.col_ind[eb]];
        const W p = a * static_cast<W>(B.values[eb]);
        s.value += p;
        s.bound += std::abs(p);
      }
    }
    if (D)
      for (int32_t ed = D->row_offsets[i]; ed < D->row_offsets[i + 1]; ++ed)
        row[D->col_ind[ed]].addend += static_cast<W>(beta) * static_cast<W>(D->values[ed]);
    for (const auto& [col, s] : row) {
      C.col_ind.push_back(col);
      C.values.push_back(static_cast<V>(a_alpha * s.value + s.addend));
      out.abs_bound.push_back(
          static_cast<double>(std::abs(a_alpha) * s.bound + std::abs(s.addend)));
    }
    if (C.col_ind.size() > static_cast<size_t>(INT32_MAX))
      throw std::overflow_error("reference_spgemm: nnz(C) exceeds 32-bit offsets");
    C.row_offsets.push_back(static_cast<int32_t>(C.col_ind.size()));
  }
  return out;
}

}  // namespace spgemm_test
