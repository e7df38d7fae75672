// The accumulator of rows with few terms (configs/bins.hpp's sort bins): a
// warp holds all of a row's terms in registers, K per lane, sorted by column
// (sorting/warp_bitonic.cuh); the terms of one column are then a run of
// consecutive elements (element i = k * 32 + lane), summed by a segmented
// scan. Which terms are added in which order follows from their positions
// and so from the operands' structure alone: the results are deterministic
// without turns, atomics or shared memory.
#pragma once

#include "cuda/warp_shuffle.cuh"

#include <climits>

namespace spgemm::cuda {

// The key of elements without a term: larger than any column, sorts last.
inline constexpr int kNoColumn = INT_MAX;

// Warp-collective: the key of the element before element k * 32 + lane (-1
// before the first), and the one after it (kNoColumn after the last).
template <int K>
__device__ __forceinline__ int previous_key(const int (&keys)[K], int k) {
  const int up = __shfl_up_sync(kFullWarp, keys[k], 1);
  const int last_before = k > 0 ? __shfl_sync(kFullWarp, keys[k > 0 ? k - 1 : 0], 31) : -1;
  return lane_id() == 0 ? last_before : up;
}
template <int K>
__device__ __forceinline__ int next_key(const int (&keys)[K], int k) {
  const int down = __shfl_down_sync(kFullWarp, keys[k], 1);
  const int first_after = k + 1 < K ? __shfl_sync(kFullWarp, keys[k + 1 < K ? k + 1 : k], 0)
                                    : kNoColumn;
  return lane_id() == 31 ? first_after : down;
}

// Warp-collective: calls emit(position, column, sum) once per distinct
// column of the sorted keys, position being its rank among them (so C's row
// comes out in column order), sum the sum of its terms.
template <int K, class Value, class Emit>
__device__ __forceinline__ void reduce_sorted_runs(const int (&keys)[K], const Value (&terms)[K],
                                                   Emit&& emit) {
  const int lane = lane_id();
  const unsigned up_to_lane = 0xffffffffu >> (31 - lane);
  int columns_before = 0;  // runs started in registers before k
  Value carry = Value(0);  // the sum so far of the run that ends register k - 1
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int key = keys[k];
    const bool first = key != previous_key(keys, k);
    // segmented inclusive scan: the sum of the run's elements up to this one
    // within register k, and whether the run starts there
    Value sum = terms[k];
    int started = first;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const Value up = shfl_up(kFullWarp, sum, d);
      const int up_started = __shfl_up_sync(kFullWarp, started, d);
      if (lane >= d && !started) {
        sum = up + sum;
        started = up_started;
      }
    }
    if (!started) sum = carry + sum;  // the run began in an earlier register
    const unsigned firsts = __ballot_sync(kFullWarp, first);
    const int next = next_key(keys, k);  // (every lane shuffles)
    if (key != kNoColumn && key != next)
      emit(columns_before + __popc(firsts & up_to_lane) - 1, key, sum);
    columns_before += __popc(firsts);
    carry = shfl(kFullWarp, sum, 31);
  }
}

}  // namespace spgemm::cuda
