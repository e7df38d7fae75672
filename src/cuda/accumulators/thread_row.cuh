// SPDX-License-Identifier: Apache-2.0
// The accumulator of a row of few terms on one thread (configs/bins.hpp's
// BinPolicy::thread_row_terms): its columns, kept ascending, and their sums in Slots
// slots of shared memory. Slot s of the block's thread t is at s * Threads
// + t, so the threads of a warp, each at its own slot, never share a bank.
//
// Each column's terms are added in the row's order of terms, from zero
// (docs/api.md, on determinism: the order of a row of at most 32 terms). The
// symbolic phase keeps the columns alone (Value = Columns) and counts them.
#pragma once

#include "cuda/warp_shuffle.cuh"

#include <type_traits>

namespace spgemm::cuda {

struct Columns {};  // ThreadRow's Value where there are no sums to keep

template <int Slots, int Threads, class Value>
struct ThreadRow {
  static constexpr bool kSums = !std::is_same_v<Value, Columns>;
  int* cols;       // this thread's slot 0 (slot s: cols[s * Threads])
  Value* values;   // the same for the sums (Columns: none)
  int count = 0;   // columns held, in slots [0, count)

  __device__ __forceinline__ int col(int s) const { return cols[s * Threads]; }
  __device__ __forceinline__ Value& value(int s) const { return values[s * Threads]; }

  // Adds `term` to column c, placing a new column among the others in
  // order; false where all Slots slots are taken by other columns (a row of
  // more terms than its bin's: the structure changed behind the plan).
  __device__ __forceinline__ bool add(int c, Value term = {}) {
    int s = count;
    while (s > 0 && col(s - 1) > c) --s;
    if (s > 0 && col(s - 1) == c) {
      if constexpr (kSums) value(s - 1) += term;
      return true;
    }
    if (count == Slots) return false;
    for (int q = count; q > s; --q) {
      cols[q * Threads] = col(q - 1);
      if constexpr (kSums) value(q) = value(q - 1);
    }
    cols[s * Threads] = c;
    if constexpr (kSums) value(s) = Value(0) + term;
    ++count;
    return true;
  }

  // Warp-collective, once the warp's rows are summed: slot s of each of the
  // warp's threads (its first n, n <= count) moves to where thread
  // (lane + s) % 32 keeps its slot s, in place, slot by slot, so that a row
  // read across the warp, lane s its slot s (staggered()), finds its slots
  // in 32 different banks. The accumulator is not used afterwards. (In the
  // unmoved layout the ~13 lanes of one of G3_circuit's rows hit one bank:
  // in fp64 ~26 shared wavefronts a row instead of 3, two thirds of the
  // numeric kernel's, Nsight Compute.)
  __device__ __forceinline__ void stagger(int lane, int n) {
    const int steps = static_cast<int>(__reduce_max_sync(kFullWarp, static_cast<unsigned>(n)));
    for (int s = 0; s < steps; ++s) {
      int c = 0;
      Value v{};
      if (s < n) {
        c = col(s);
        if constexpr (kSums) v = value(s);
      }
      __syncwarp();  // every lane has read slot row s before any writes it
      const int to = s * Threads - lane + ((lane + s) & 31);
      if (s < n) {
        cols[to] = c;
        if constexpr (kSums) values[to] = v;
      }
    }
    __syncwarp();
  }

  // After stagger(): where slot s of the warp's thread r is, counted from
  // the warp's thread 0's slot 0.
  __device__ __forceinline__ static int staggered(int r, int s) {
    return s * Threads + ((r + s) & 31);
  }
};

}  // namespace spgemm::cuda
