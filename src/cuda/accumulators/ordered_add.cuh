// Deterministic accumulation (the default, spgemmSetDeterministic): every
// term reaches its accumulator slot in one fixed order, so the rounding, and
// with it every bit of C, is the same from run to run.
//
// Within a warp, lanes that hold terms for the same slot in the same step are
// found with __match_any_sync; the lowest of them adds its peers' terms in
// lane order with plain shared-memory arithmetic. Warps of a block take turns
// in warp order (WarpTurns): a warp adds what it stashed only when the warp
// before it has added its own, so the order of a block's adds is
// (turn, warp, stash step, lane) whatever the scheduling.
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

// Warp-collective (all 32 lanes call it): values[slot] += term for every
// lane with `valid`, lanes with the same slot in lane order.
template <class Value>
__device__ __forceinline__ void add_in_lane_order(Value* values, bool valid, int slot,
                                                  Value term) {
  const unsigned holders = __ballot_sync(kFullWarp, valid);
  if (valid) {
    const unsigned peers = __match_any_sync(holders, slot);
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int first = __ffs(peers) - 1;
    if (peers == (1u << lane)) {
      values[slot] += term;
    } else {
      Value sum = lane == first ? values[slot] : Value(0);
      for (unsigned rest = peers; rest != 0; rest &= rest - 1) {
        const Value next = shuffle(peers, term, __ffs(rest) - 1);
        if (lane == first) sum += next;
      }
      if (lane == first) values[slot] = sum;
    }
  }
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
