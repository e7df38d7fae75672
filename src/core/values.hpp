// SPDX-License-Identifier: Apache-2.0
// The value types libspgemm computes in, and what the backends need to know
// about them beyond arithmetic. Complex values are libcu++'s complex, which
// has the layout of cuComplex / cuDoubleComplex (real part, then imaginary),
// so the caller's arrays are used as they are.
#pragma once

#include <cuda/std/complex>

#include <cstring>

#if defined(__CUDACC__)
#define SPGEMM_VALUE_FN __host__ __device__ inline
#else
#define SPGEMM_VALUE_FN inline
#endif

namespace spgemm {

using ComplexFloat = ::cuda::std::complex<float>;
using ComplexDouble = ::cuda::std::complex<double>;

// Every instantiation site lists the value types through this macro:
// X(Value, a, b) for each of them.
#define SPGEMM_FOR_EACH_VALUE(X, a, b) \
  X(float, a, b)                       \
  X(double, a, b)                      \
  X(::spgemm::ComplexFloat, a, b)      \
  X(::spgemm::ComplexDouble, a, b)

// A host scalar (alpha, beta) given through a void pointer: copied, since
// the caller's complex types (std::complex, Fortran complex) may be less
// aligned than libcu++'s.
template <class Value>
inline Value load_scalar(const void* p) {
  Value v;
  std::memcpy(static_cast<void*>(&v), p, sizeof(Value));
  return v;
}

// x, or its complex conjugate when asked (real types: always x).
template <class Value>
SPGEMM_VALUE_FN Value conjugate_if(Value x, bool) {
  return x;
}
template <class Real>
SPGEMM_VALUE_FN ::cuda::std::complex<Real> conjugate_if(::cuda::std::complex<Real> x, bool conjugate) {
  return conjugate ? ::cuda::std::conj(x) : x;
}

}  // namespace spgemm
