// SPDX-License-Identifier: Apache-2.0
// Shared-memory hash accumulators with linear probing: a set of column
// indices (symbolic phase) and a map column -> value (numeric phase).
// Tables are a power of two in size and at most half full by construction
// (see configs/bins.hpp); probing is still bounded by the table size so that
// a table that is full (inputs changed behind the plan's back) cannot hang.
#pragma once

#include <cstdint>

namespace spgemm::cuda {

inline constexpr int kEmptyKey = -1;

// Multiplicative (Fibonacci) hashing: the high bits of key * 2^32/phi spread
// runs of neighbouring columns over the whole table.
__device__ __forceinline__ int hash_slot(int key, int log2_size) {
  return static_cast<int>((static_cast<uint32_t>(key) * 2654435769u) >> (32 - log2_size));
}

// Linear probing from `slot` by loads alone, up to key or the first empty
// slot (left in `slot`, the probes made in `probe`: mask + 1 if neither is
// there); returns what that slot holds (key, kEmptyKey, or any other).
// SharedHashMap::claim seeks first and only then probes with the atomic:
// most terms find their column already claimed, and ptxas marks a loop that
// holds an atomic as a possible spin-wait (YIELD), after which a warp's
// lanes leave a claim apart and meet again only in the slow path of the
// next __syncwarp (stencil27:40's first numeric phase: ~30% of the stall
// samples in WARPSYNC.COLLECTIVE, Nsight Compute). Chosen by `spgemm-bench
// --gen stencil27:40 bcsstk33.mtx.gz rgg_n_2_15_s0.mtx.gz`, num.
// SharedHashSet::insert seeks first too (`spgemm-bench rgg_n_2_15_s0.mtx.gz
// bcsstk13.mtx.gz`, sym; no slower where every term is a new column,
// `--gen uniform:500000:8`). The atomic is not taken at the slot where seek
// stopped without loading it again: faster on some inputs, slower on
// others (`spgemm-bench --gen stencil27:64 bcsstk33.mtx.gz`, lib total).
__device__ __forceinline__ int seek(const int* keys, int key, int mask, int& slot, int& probe) {
  int current = kEmptyKey;
  for (probe = 0; probe <= mask; ++probe) {
    current = keys[slot];
    if (current == key || current == kEmptyKey) break;
    slot = (slot + 1) & mask;
  }
  return current;
}

struct SharedHashSet {
  int* keys;
  int log2_size;

  // Returns 1 if key was not in the set before.
  __device__ int insert(int key) const {
    const int mask = (1 << log2_size) - 1;
    int slot = log2_size > 0 ? hash_slot(key, log2_size) : 0;
    int probe;
    if (seek(keys, key, mask, slot, probe) == key) return 0;
    for (; probe <= mask; ++probe) {
      const int current = keys[slot];
      if (current == key) return 0;
      if (current == kEmptyKey) {
        const int previous = atomicCAS(&keys[slot], kEmptyKey, key);
        if (previous == kEmptyKey) return 1;
        if (previous == key) return 0;
      }
      slot = (slot + 1) & mask;
    }
    return 0;
  }
};

template <class Value>
struct SharedHashMap {
  int* keys;
  Value* values;
  int log2_size;

  // The slot of key, claimed if the key was not there yet; -1 if the table
  // is full.
  __device__ int claim(int key) const {
    const int mask = (1 << log2_size) - 1;
    int slot = log2_size > 0 ? hash_slot(key, log2_size) : 0;
    int probe;
    if (seek(keys, key, mask, slot, probe) == key) return slot;
    for (; probe <= mask; ++probe) {
      int current = keys[slot];
      if (current == kEmptyKey) {
        const int previous = atomicCAS(&keys[slot], kEmptyKey, key);
        current = previous == kEmptyKey ? key : previous;
      }
      if (current == key) return slot;
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  // The slot of key, -1 if it is not in the table (read-only: for tables
  // whose keys were all claimed beforehand).
  __device__ int find(int key) const {
    const int mask = (1 << log2_size) - 1;
    int slot = log2_size > 0 ? hash_slot(key, log2_size) : 0;
    int probe;
    return seek(keys, key, mask, slot, probe) == key ? slot : -1;
  }
};

__host__ __device__ inline int log2_of_pow2(int n) {
  int log2 = 0;
  while ((1 << log2) < n) ++log2;
  return log2;
}

}  // namespace spgemm::cuda
