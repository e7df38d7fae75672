// SPDX-License-Identifier: Apache-2.0
// Compaction of a block's hash table before it is sorted: the occupied slots
// are gathered (in no particular order: the sort orders them) into the row's
// own slots of C in global memory, which the numeric phase writes anyway,
// then copied back to the front of the table and padded with empty keys up to
// the next power of two. The bitonic sort then runs over the row's entries
// rather than the whole table (at most half full: configs/bins.hpp), for the
// price of one round trip of the row through L2, and without extra shared
// memory. One shared-memory atomic per warp and step (ballot + popc). (The
// ordered numeric phase skips it for rows whose column range fits the mask
// of sorting/mask_rank.cuh in the block's free scratch.)
// The table size must be a multiple of the block size (checked in
// configs/bins.hpp), so every lane takes part in every ballot.
#pragma once

#include "cuda/accumulators/hash_table.cuh"

#include <cooperative_groups.h>

namespace spgemm::cuda {

// Returns the sort length. `capacity` is the row's nnz: more entries than that
// only appear if the inputs changed behind the plan, and are dropped.
template <class Value, class Index>
__device__ int compact_block_table(const cooperative_groups::thread_block& block, int* keys,
                                   Value* values, int table, Index* scratch_keys,
                                   Value* scratch_values, int capacity, int* counter) {
  const int rank = static_cast<int>(block.thread_rank());
  const int threads = static_cast<int>(block.num_threads());
  const int lane = rank & 31;
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
      scratch_keys[position] = static_cast<Index>(key);
      scratch_values[position] = values[s];
    }
  }
  block.sync();  // also orders the global writes before the reads below
  const int count = min(*counter, capacity);
  int length = 1;
  while (length < count) length <<= 1;
  for (int s = rank; s < length; s += threads) {
    keys[s] = s < count ? static_cast<int>(scratch_keys[s]) : kEmptyKey;
    if (s < count) values[s] = scratch_values[s];
  }
  block.sync();
  return length;
}

}  // namespace spgemm::cuda
