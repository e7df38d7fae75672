// Results a kernel hands to the host itself (core/context.hpp's PostBox):
// the last block copies them into pinned host memory and then writes the
// box's ticket, which the host polls. Saves a small product the copy and the
// stream synchronization of a readback.
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <cstdint>

namespace spgemm::cuda {

struct DevicePost {
  const uint32_t* from = nullptr;  // device memory, final when the post starts
  uint32_t* to = nullptr;          // the box's data
  int words = 0;                   // 0: nothing to post
  unsigned long long* ticket_at = nullptr;
  unsigned long long ticket = 0;
};

// The post of `bytes` (a multiple of 4) at `from` into `box`
// (Context::post_box of at least that many bytes).
inline DevicePost post_into(const Context::PostBox& box, const void* from, size_t bytes) {
  return {static_cast<const uint32_t*>(from), static_cast<uint32_t*>(box.data),
          static_cast<int>(bytes / sizeof(uint32_t)), box.ticket_at, box.ticket};
}

// Block-collective, by the block that finishes the work: its and every
// earlier write (made visible to it device-wide) reach the host before the
// ticket does.
__device__ __forceinline__ void post_to_host(const DevicePost& post) {
  __syncthreads();  // the block's own results, written by any of its threads
  const volatile uint32_t* from = post.from;
  for (int w = static_cast<int>(threadIdx.x); w < post.words; w += static_cast<int>(blockDim.x))
    post.to[w] = from[w];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0)
    *reinterpret_cast<volatile unsigned long long*>(post.ticket_at) = post.ticket;
}

}  // namespace spgemm::cuda
