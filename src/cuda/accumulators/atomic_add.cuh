// SPDX-License-Identifier: Apache-2.0
// Shared-memory accumulation for every value type: complex values add their
// real and imaginary parts with one atomic each (each part is summed in its
// own, unordered, way, like a real value).
#pragma once

#include <cuda/std/complex>

namespace spgemm::cuda {

template <class Value>
__device__ __forceinline__ void atomic_add(Value* address, Value value) {
  atomicAdd(address, value);
}

template <class Real>
__device__ __forceinline__ void atomic_add(::cuda::std::complex<Real>* address,
                                           ::cuda::std::complex<Real> value) {
  Real* parts = reinterpret_cast<Real*>(address);
  atomicAdd(parts, value.real());
  atomicAdd(parts + 1, value.imag());
}

}  // namespace spgemm::cuda
