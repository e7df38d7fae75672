// SPDX-License-Identifier: Apache-2.0
// Warp shuffles of any value the kernels move between lanes: the scalar
// types the hardware shuffles, and libcu++ complex (a shuffle per part).
#pragma once

#include <cuda/std/complex>

namespace spgemm::cuda {

inline constexpr unsigned kFullWarp = 0xffffffffu;

// Lane src's v.
template <class T>
__device__ __forceinline__ T shfl(unsigned mask, T v, int src) {
  return __shfl_sync(mask, v, src);
}

template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> shfl(unsigned mask,
                                                          ::cuda::std::complex<Real> v, int src) {
  return {__shfl_sync(mask, v.real(), src), __shfl_sync(mask, v.imag(), src)};
}

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31); }

}  // namespace spgemm::cuda
