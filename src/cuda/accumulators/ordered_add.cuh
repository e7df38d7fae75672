// SPDX-License-Identifier: Apache-2.0
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

// How the lanes of combine_in_lane_order step through their groups' sums.
// The same sums in the same order either way, so the same bits.
enum class CombineSteps {
  // only the lanes of groups step, shuffling within their group: the fewest
  // registers, for the hash rows' loops with NumericPolicy::ordered_stash steps in flight
  groups,
  // every lane takes as many steps as the warp's largest group has lanes,
  // shuffling with the full mask: masks of one group's lanes in a loop that
  // diverged have the compiler check convergence at every step (G3_circuit's
  // sort kernel: 23% of its instructions and stall samples there). For the
  // register rows of the sort bins (accumulators/register_row.cuh;
  // `spgemm-bench G3_circuit.mtx.gz --gen poisson2d:700`, num); in the hash
  // rows' loops it costs registers and time instead (`spgemm-bench --gen
  // rmat:16:16 --gen stencil27:64`, num).
  warp,
};

// Warp-collective (all 32 lanes call it): of the lanes with `valid` and the
// same slot, the lowest keeps the sum of their terms in lane order (from
// zero; a lone term stays as it is) and stays valid; the others drop out.
template <CombineSteps Steps = CombineSteps::groups, class Value>
__device__ __forceinline__ void combine_in_lane_order(bool& valid, int slot, Value& term) {
  const unsigned holders = __ballot_sync(kFullWarp, valid);
  const int lane = lane_id();
  if constexpr (Steps == CombineSteps::groups) {
    if (!valid) return;
    const unsigned peers = __match_any_sync(holders, slot);
    if (peers == (1u << lane)) return;
    Value sum = Value(0);
    for (unsigned rest = peers; rest != 0; rest &= rest - 1)
      sum += shfl(peers, term, __ffs(rest) - 1);
    term = sum;
    valid = lane == __ffs(peers) - 1;
  } else {
    const unsigned peers = __match_any_sync(kFullWarp, slot) & (valid ? holders : 0u);
    const bool grouped = (peers & ~(1u << lane)) != 0;
    const auto steps = __reduce_max_sync(kFullWarp, grouped ? __popc(peers) : 0u);
    if (steps == 0) return;
    Value sum = Value(0);
    unsigned rest = grouped ? peers : 0u;
#pragma unroll 1
    for (unsigned step = 0; step < steps; ++step) {
      const Value other = shfl(kFullWarp, term, rest != 0 ? __ffs(rest) - 1 : lane);
      if (rest != 0) {
        sum += other;
        rest &= rest - 1;
      }
    }
    if (grouped) {
      term = sum;
      valid = lane == __ffs(peers) - 1;
    }
  }
}

// Warp-collective: values[slot] += term for the lanes still valid after
// combine_in_lane_order (their slots differ).
template <class Value>
__device__ __forceinline__ void add_combined(Value* values, bool valid, int slot, Value term) {
  if (valid) values[slot] += term;
  __syncwarp();  // the next step's adds see this one's
}

}  // namespace spgemm::cuda
