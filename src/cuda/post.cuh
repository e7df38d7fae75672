// Results a kernel hands to the host itself (core/context.hpp's PostBox):
// the block that finishes the work writes them into pinned host memory, each
// 32-bit word beside the box's ticket in one 8-byte store, which the host
// polls. Saves a small product the copy and the stream synchronization of a
// readback, and the device the system-scope fence that a ticket written
// after the data needed (__threadfence_system: ~0.7 us of the last block's
// post, one H200, docs/performance.md, thirty-sixth session).
#pragma once

#include "core/context.hpp"

#include <cstdint>

namespace spgemm::cuda {

struct DevicePost {
  const uint32_t* from = nullptr;  // device memory, final when the post starts
  unsigned long long* to = nullptr;  // the box's words
  int words = 0;                     // 0: nothing to post
  uint32_t ticket = 0;
};

// The post of the data at `from` into `box` (as many bytes as the box has).
inline DevicePost post_into(const Context::PostBox& box, const void* from) {
  return {static_cast<const uint32_t*>(from), box.words, box.count, box.ticket};
}

// Block-collective, by the block that finishes the work: its and every
// earlier write (made visible to it device-wide) are what the host gets,
// and once the host has the post they are visible device-wide too (C's row
// offsets when spgemmSymbolic returns, to a kernel or copy on any stream):
// a device-scope fence, not the system-scope one that a ticket after the
// data needed.
__device__ __forceinline__ void post_to_host(const DevicePost& post) {
  __threadfence();  // the block's own writes, before any word of the post
  __syncthreads();  // ... by any of its threads
  const volatile uint32_t* from = post.from;
  const unsigned long long ticket = static_cast<unsigned long long>(post.ticket) << 32;
  for (int w = static_cast<int>(threadIdx.x); w < post.words; w += static_cast<int>(blockDim.x))
    reinterpret_cast<volatile unsigned long long*>(post.to)[w] = ticket | from[w];
}

// Context::read_back's copy of `bytes` (a multiple of 4) at device memory
// `from`, final once the work enqueued on ctx's stream so far is done, to
// `out` on the host, without the copy and the stream synchronization: a
// one-block kernel behind that work posts them (post_to_host) and the host
// polls for them (Context::wait_for). For readbacks on a product's path,
// whose latency the host and the device wait out in turn.
void read_back_posted(Context& ctx, void* out, const void* from, size_t bytes);

}  // namespace spgemm::cuda
