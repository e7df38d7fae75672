// Deterministic accumulation (the default, spgemmSetDeterministic): every
// term reaches its accumulator slot in one fixed order, so the rounding, and
// with it every bit of C, is the same from run to run.
//
// Within a warp, lanes that hold terms for the same slot in the same step are
// found with __match_any_sync and the lowest of them sums its peers' terms
// in lane order (combine_in_lane_order, in registers). Warps of a block then
// take turns in warp order (WarpTurns) to add their sums to the shared
// accumulator with plain arithmetic, so the order of a block's adds is
// (turn, warp, stash step) whatever the scheduling; only the adds are
// serialized, not the finding and combining.
#pragma once

#include <cuda/atomic>
#include <cuda/std/complex>

namespace spgemm::cuda {

inline constexpr unsigned kFullWarp = 0xffffffffu;

template <class Value>
__device__ __forceinline__ Value shuffle(unsigned mask, Value v, int src) {
  return __shfl_sync(mask, v, src);
}

template <class Real>
__device__ __forceinline__ ::cuda::std::complex<Real> shuffle(unsigned mask,
                                                             ::cuda::std::complex<Real> v,
                                                             int src) {
  return {__shfl_sync(mask, v.real(), src), __shfl_sync(mask, v.imag(), src)};
}

// Warp-collective (all 32 lanes call it): of the lanes with `valid` and the
// same slot, the lowest keeps the sum of their terms in lane order and stays
// valid; the others drop out.
template <class Value>
__device__ __forceinline__ void combine_in_lane_order(bool& valid, int slot, Value& term) {
  const unsigned holders = __ballot_sync(kFullWarp, valid);
  if (!valid) return;
  const unsigned peers = __match_any_sync(holders, slot);
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (peers == (1u << lane)) return;
  Value sum = Value(0);
  for (unsigned rest = peers; rest != 0; rest &= rest - 1) sum += shuffle(peers, term, __ffs(rest) - 1);
  term = sum;
  valid = lane == __ffs(peers) - 1;
}

// Warp-collective: values[slot] += term for the lanes still valid after
// combine_in_lane_order (their slots differ).
template <class Value>
__device__ __forceinline__ void add_combined(Value* values, bool valid, int slot, Value term) {
  if (valid) values[slot] += term;
  __syncwarp();  // the next step's adds see this one's
}

// Turn-taking of the warps of one block over a shared counter: turn t of
// warp w is number t * warps + w (unsigned: wrapping around is harmless). The counter is zeroed by the kernel before
// the first turn of every row (or window), behind a block barrier.
struct WarpTurns {
  unsigned* counter;  // nullptr: a single warp, no turns to take

  __device__ __forceinline__ void wait(unsigned number) const {
    if (!counter) return;
    if ((threadIdx.x & 31) == 0) {
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_block> turn(*counter);
      while (turn.load(::cuda::std::memory_order_acquire) != number) {
      }
    }
    __syncwarp();
  }

  __device__ __forceinline__ void pass(unsigned number) const {
    if (!counter) return;
    __syncwarp();
    if ((threadIdx.x & 31) == 0) {
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_block> turn(*counter);
      turn.store(number + 1, ::cuda::std::memory_order_release);
    }
  }
};

}  // namespace spgemm::cuda
