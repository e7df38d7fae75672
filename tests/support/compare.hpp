// SPDX-License-Identifier: Apache-2.0
// Checking a computed product against the oracle.
#pragma once

#include <complex>
#include <string>

#include "csr_host.hpp"
#include "reference.hpp"

namespace spgemm_test {

// Value tolerance, relative to ReferenceProduct::abs_bound.
//
// An entry that sums k products, in any order, with or without FMA, is off
// by at most about k * u * sum|a_ik * b_kj| (u = 2^-24 for float, 2^-53 for
// double), plus u * |c| for rounding the oracle's long double result. The
// entries of our test products sum at most a few hundred terms (the long
// rows are long in length, not in terms per entry), so:
//   float  1e-4  covers k up to ~1600 in the worst case;
//   double 1e-11 covers k up to ~90000.
// Both are still tight enough to catch a dropped or doubled term, which
// moves an entry by at least ~0.1/k of its bound with our value range
// ([0.5, 1.5] magnitudes).
template <class V>
constexpr double default_rtol();
template <>
constexpr double default_rtol<float>() { return 1e-4; }
template <>
constexpr double default_rtol<double>() { return 1e-11; }
template <>
constexpr double default_rtol<std::complex<float>>() { return 1e-4; }
template <>
constexpr double default_rtol<std::complex<double>>() { return 1e-11; }

// "" when got equals ref: same dimensions, identical row_offsets and col_ind
// (hence sorted rows), every value within rtol * abs_bound (+ the smallest
// normal number, for entries whose bound is 0). Otherwise a description of
// the first difference.
template <class V>
std::string compare_csr(const HostCsr<V>& got, const ReferenceProduct<V>& ref, double rtol);

extern template std::string compare_csr<float>(const HostCsr<float>&, const ReferenceProduct<float>&,
                                               double);
extern template std::string compare_csr<double>(const HostCsr<double>&,
                                                const ReferenceProduct<double>&, double);
extern template std::string compare_csr<std::complex<float>>(
    const HostCsr<std::complex<float>>&, const ReferenceProduct<std::complex<float>>&, double);
extern template std::string compare_csr<std::complex<double>>(
    const HostCsr<std::complex<double>>&, const ReferenceProduct<std::complex<double>>&, double);

// "" when got and want are the same bits: dimensions, row_offsets, col_ind,
// and values compared byte for byte (so -0 != +0, and a NaN is never
// identical to a number). Otherwise the first difference. For results that
// must be reproducible exactly (the host backend, run again).
template <class V>
std::string compare_identical(const HostCsr<V>& got, const HostCsr<V>& want);

extern template std::string compare_identical<float>(const HostCsr<float>&, const HostCsr<float>&);
extern template std::string compare_identical<double>(const HostCsr<double>&,
                                                      const HostCsr<double>&);
extern template std::string compare_identical<std::complex<float>>(
    const HostCsr<std::complex<float>>&, const HostCsr<std::complex<float>>&);
extern template std::string compare_identical<std::complex<double>>(
    const HostCsr<std::complex<double>>&, const HostCsr<std::complex<double>>&);

}  // namespace spgemm_test
