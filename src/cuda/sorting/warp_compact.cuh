// SPDX-License-Identifier: Apache-2.0
// Order-preserving compaction of a warp's hash table in place: the occupied
// slots move to the front, in slot order, and the slots up to the next power
// of two are marked empty. The bitonic sort then runs over that power of two
// instead of the whole table; the table is at most half full (configs/bins.hpp),
// so the network is at least halved, and for the common case of a row far
// below its bin's limit much more.
//
// In place is safe because a slot moves only towards the front: the chunk of
// 32 slots read in one step is written, after a warp barrier, only to
// positions below the chunk's end, which have all been read already.
#pragma once

#include "cuda/accumulators/hash_table.cuh"

#include <cooperative_groups.h>

namespace spgemm::cuda {

// Returns the sort length: the smallest power of two >= the entries (>= 1).
template <class Value>
__device__ __forceinline__ int compact_warp_table(
    const cooperative_groups::thread_block_tile<32>& warp, int* keys, Value* values, int table) {
  const int lane = static_cast<int>(warp.thread_rank());
  const unsigned below = (1u << lane) - 1;
  int count = 0;
  for (int chunk = 0; chunk < table; chunk += 32) {
    const int key = keys[chunk + lane];
    const Value value = values[chunk + lane];
    const unsigned occupied = warp.ballot(key != kEmptyKey);
    warp.sync();
    if (key != kEmptyKey) {
      const int position = count + __popc(occupied & below);
      keys[position] = key;
      values[position] = value;
    }
    count += __popc(occupied);
  }
  int length = 1;
  while (length < count) length <<= 1;
  for (int s = count + lane; s < length; s += 32) keys[s] = kEmptyKey;
  warp.sync();
  return length;
}

}  // namespace spgemm::cuda
