// Warp shuffles of any value the kernels move between lanes: the scalar
// types the hardware shuffles, libcu++ complex (a shuffle per part), and
// NoPayload (nothing to move: keys-only uses of the payload-carrying code).
#pragma once

#include <cuda/std/complex>

namespace spgemm::cuda {

inline constexpr unsigned kFullWarp = 0xffffffffu;

struct NoPayload {};

// shfl_sync: lane src's v; shfl_up: lane (lane - delta)'s, shfl_xor: lane
// (lane ^ mask)'s.
template <class T>
__device__ __forceinline__ T shfl(unsigned mask, T v, int src) {
  return __shfl_sync(mask, v, src);
}
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned delta) {
  return __shfl_up_sync(mask, v, delta);
}
template <class T>
__device__ __forceinline__ T shfl_xor(unsigned mask, T v, int lane_mask) {
  return __shfl_xor_sync(mask, v, lane_mask);
}

template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> shfl(unsigned mask,
                                                          ::cuda::std::complex<Real> v, int src) {
  return {__shfl_sync(mask, v.real(), src), __shfl_sync(mask, v.imag(), src)};
}
template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> shfl_up(unsigned mask,
                                                             ::cuda::std::complex<Real> v,
                                                             unsigned delta) {
  return {__shfl_up_sync(mask, v.real(), delta), __shfl_up_sync(mask, v.imag(), delta)};
}
template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> shfl_xor(unsigned mask,
                                                              ::cuda::std::complex<Real> v,
                                                              int lane_mask) {
  return {__shfl_xor_sync(mask, v.real(), lane_mask), __shfl_xor_sync(mask, v.imag(), lane_mask)};
}

__device__ __forceinline__ NoPayload shfl(unsigned, NoPayload p, int) { return p; }
__device__ __forceinline__ NoPayload shfl_up(unsigned, NoPayload p, unsigned) { return p; }
__device__ __forceinline__ NoPayload shfl_xor(unsigned, NoPayload p, int) { return p; }

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31); }

}  // namespace spgemm::cuda
