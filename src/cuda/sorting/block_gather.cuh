// Gathers the occupied slots of a block's hash table into a separate buffer of
// table/2 entries (in no particular order: the sort that follows orders them),
// pads the buffer with empty keys up to the next power of two and returns that
// length, so that the bitonic sort runs over the row's entries rather than the
// whole table. One shared-memory atomic per warp and step (ballot + popc).
// Needs a table size that is a multiple of the block size (configs/bins.hpp
// checks it), so every lane takes part in every ballot.
#pragma once

#include "cuda/accumulators/hash_table.cuh"

#include <cooperative_groups.h>

namespace spgemm::cuda {

template <class Value>
__device__ int gather_block_table(const cooperative_groups::thread_block& block, const int* keys,
                                  const Value* values, int table, int* out_keys,
                                  Value* out_values, int* counter) {
  const int rank = static_cast<int>(block.thread_rank());
  const int threads = static_cast<int>(block.num_threads());
  const int lane = rank & 31;
  const int capacity = table / 2;  // only exceeded if the inputs changed behind the plan
  if (rank == 0) *counter = 0;
  block.sync();
  for (int s = rank; s < table; s += threads) {
    const int key = keys[s];
    const bool occupied = key != kEmptyKey;
    const unsigned mask = __ballot_sync(0xffffffffu, occupied);
    int base = 0;
    if (lane == 0 && mask != 0) base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    const int position = base + __popc(mask & ((1u << lane) - 1));
    if (occupied && position < capacity) {
      out_keys[position] = key;
      out_values[position] = values[s];
    }
  }
  block.sync();
  const int count = min(*counter, capacity);
  int length = 1;
  while (length < count) length <<= 1;
  for (int s = count + rank; s < length; s += threads) out_keys[s] = kEmptyKey;
  block.sync();
  return length;
}

}  // namespace spgemm::cuda
