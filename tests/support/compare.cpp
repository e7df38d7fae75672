// SPDX-License-Identifier: Apache-2.0
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace spgemm_test {

template <class V>
std::string compare_csr(const HostCsr<V>& got, const ReferenceProduct<V>& ref, double rtol) {
  const HostCsr<V>& want = ref.C;
  std::ostringstream msg;
  msg.precision(std::numeric_limits<RealOf<V>>::max_digits10);

  if (got.rows != want.rows || got.cols != want.cols) {
    msg << "dimensions: got " << got.rows << " x " << got.cols << ", expected " << want.rows
        << " x " << want.cols;
    return msg.str();
  }
  if (got.row_offsets.size() != want.row_offsets.size()) {
    msg << "row_offsets has " << got.row_offsets.size() << " entries, expected "
        << want.row_offsets.size();
    return msg.str();
  }
  for (size_t r = 0; r < want.row_offsets.size(); ++r)
    if (got.row_offsets[r] != want.row_offsets[r]) {
      msg << "row_offsets[" << r << "]: got " << got.row_offsets[r] << ", expected "
          << want.row_offsets[r];
      if (r > 0)
        msg << " (row " << r - 1 << " has " << got.row_offsets[r] - got.row_offsets[r - 1]
            << " entries, expected " << want.row_offsets[r] - want.row_offsets[r - 1] << ")";
      return msg.str();
    }
  if (got.col_ind.size() != want.col_ind.size() || got.values.size() != want.values.size()) {
    msg << "nnz: got " << got.col_ind.size() << " column indices and " << got.values.size()
        << " values, expected " << want.col_ind.size();
    return msg.str();
  }

  const double tiny = std::numeric_limits<RealOf<V>>::min();
  for (int64_t r = 0; r < want.rows; ++r) {
    for (int32_t e = want.row_offsets[r]; e < want.row_offsets[r + 1]; ++e) {
      if (got.col_ind[e] != want.col_ind[e]) {
        msg << "row " << r << ", position " << e - want.row_offsets[r] << " (entry " << e
            << "): column " << got.col_ind[e] << ", expected " << want.col_ind[e];
        return msg.str();
      }
      const V g = got.values[e], w = want.values[e];
      const double tol = rtol * ref.abs_bound[e] + tiny;
      const double diff = static_cast<double>(std::abs(g - w));
      if (!(diff <= tol)) {  // also catches NaN
        msg << "row " << r << ", column " << want.col_ind[e] << " (entry " << e << "): value " << g
            << ", expected " << w << ", |diff| " << diff << " > tolerance " << tol;
        return msg.str();
      }
    }
  }
  return std::string();
}

template <class V>
std::string compare_identical(const HostCsr<V>& got, const HostCsr<V>& want) {
  std::ostringstream msg;
  msg.precision(std::numeric_limits<V>::max_digits10);
  if (got.rows != want.rows || got.cols != want.cols) {
    msg << "dimensions: got " << got.rows << " x " << got.cols << ", expected " << want.rows
        << " x " << want.cols;
  } else if (got.row_offsets != want.row_offsets || got.col_ind != want.col_ind) {
    const bool offsets = got.row_offsets != want.row_offsets;
    const auto& g = offsets ? got.row_offsets : got.col_ind;
    const auto& w = offsets ? want.row_offsets : want.col_ind;
    size_t i = 0;
    while (i < g.size() && i < w.size() && g[i] == w[i]) ++i;
    msg << (offsets ? "row_offsets[" : "col_ind[") << i << "]: got "
        << (i < g.size() ? std::to_string(g[i]) : "nothing") << ", expected "
        << (i < w.size() ? std::to_string(w[i]) : "nothing");
  } else if (got.values.size() != want.values.size()) {
    msg << "got " << got.values.size() << " values, expected " << want.values.size();
  } else {
    for (size_t e = 0; e < want.values.size(); ++e)
      if (std::memcmp(&got.values[e], &want.values[e], sizeof(V)) != 0) {
        msg << "value of entry " << e << " (column " << want.col_ind[e] << "): " << got.values[e]
            << ", expected exactly " << want.values[e];
        break;
      }
  }
  return msg.str();
}

template std::string compare_csr<float>(const HostCsr<float>&, const ReferenceProduct<float>&, double);
template std::string compare_csr<double>(const HostCsr<double>&, const ReferenceProduct<double>&,
                                         double);
template std::string compare_identical<float>(const HostCsr<float>&, const HostCsr<float>&);
template std::string compare_identical<double>(const HostCsr<double>&, const HostCsr<double>&);
template std::string compare_identical<std::complex<float>>(const HostCsr<std::complex<float>>&,
                                                            const HostCsr<std::complex<float>>&);
template std::string compare_identical<std::complex<double>>(const HostCsr<std::complex<double>>&,
                                                             const HostCsr<std::complex<double>>&);
template std::string compare_csr<std::complex<float>>(const HostCsr<std::complex<float>>&,
                                                      const ReferenceProduct<std::complex<float>>&,
                                                      double);
template std::string compare_csr<std::complex<double>>(
    const HostCsr<std::complex<double>>&, const ReferenceProduct<std::complex<double>>&, double);

}  // namespace spgemm_test
