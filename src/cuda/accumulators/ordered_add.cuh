// Deterministic accumulation (the default, spgemmSetDeterministic): every
// term reaches its accumulator slot in one fixed order, so the rounding, and
// with it every bit of C, is the same from run to run.
//
// Within a warp, lanes that hold terms for the same slot in the same step are
// found with __match_any_sync and the lowest of them sums its peers' terms
// in lane order (combine_in_lane_order, in registers); then one lane per
// slot adds the sum to the shared accumulator with plain arithmetic
// (add_combined). The warps of a block take turns for that last part
// (kernels/ordered_loop.cuh), so only the adds are serialized, not the
// finding and combining.
#pragma once

#include "cuda/warp_shuffle.cuh"

namespace spgemm::cuda {

// Warp-collective (all 32 lanes call it): of the lanes with `valid` and the
// same slot, the lowest keeps the sum of their terms in lane order and stays
// valid; the others drop out.
template <class Value>
__device__ __forceinline__ void combine_in_lane_order(bool& valid, int slot, Value& term) {
  const unsigned holders = __ballot_sync(kFullWarp, valid);
  if (!valid) return;
  const unsigned peers = __match_any_sync(holders, slot);
  const int lane = lane_id();
  if (peers == (1u << lane)) return;
  Value sum = Value(0);
  for (unsigned rest = peers; rest != 0; rest &= rest - 1)
    sum += shfl(peers, term, __ffs(rest) - 1);
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

}  // namespace spgemm::cuda
