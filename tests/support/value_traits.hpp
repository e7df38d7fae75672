// SPDX-License-Identifier: Apache-2.0
// Real and complex value types in tests: std::complex<T> has the layout of
// cuComplex / cuDoubleComplex, so test arrays go to the library as they are.
#pragma once

#include <complex>
#include <type_traits>

namespace spgemm_test {

template <class V>
struct ValueTraits {
  using Real = V;
  using Wide = long double;  // the oracle's accumulator
  static constexpr bool is_complex = false;
};
template <class T>
struct ValueTraits<std::complex<T>> {
  using Real = T;
  using Wide = std::complex<long double>;
  static constexpr bool is_complex = true;
};

template <class V>
using RealOf = typename ValueTraits<V>::Real;

// A test value from a real one and a second random real (never zero): the
// imaginary part of complex values, ignored for real ones.
template <class V>
V make_value(double re, double im) {
  if constexpr (ValueTraits<V>::is_complex)
    return V(static_cast<RealOf<V>>(re), static_cast<RealOf<V>>(im));
  else
    return static_cast<V>(re);
}

template <class V>
V conjugate(V v) {
  if constexpr (ValueTraits<V>::is_complex)
    return std::conj(v);
  else
    return v;
}

}  // namespace spgemm_test
