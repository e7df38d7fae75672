// SPDX-License-Identifier: Apache-2.0
// Results a kernel hands to the host itself (core/context.hpp's PostBox):
// the block that finishes the work writes them into pinned host memory, each
// 32-bit word beside the box's sequence in one 8-byte store, which the host
// polls. Saves a small product the copy and the stream synchronization of a
// readback, and the device the system-scope fence that a sequence written
// after the data needs (__threadfence_system: ~0.7 us of the last block's
// post).
#pragma once

#include "core/context.hpp"

#include <cstdint>

namespace spgemm::cuda {

struct DevicePost {
  uint32_t* from = nullptr;          // device memory, final when the post starts
  unsigned long long* to = nullptr;  // the box's words
  int words = 0;                     // 0: nothing to post
  uint32_t sequence = 0;
  bool zero = false;  // `from` set back to zero before the post (Context::zeroed_counters)
};

// The post of the data at `from` into `box` (as many bytes as the box has);
// with `zero`, counters the post sets back to zero.
inline DevicePost post_into(const Context::PostBox& box, const void* from, bool zero = false) {
  return {static_cast<uint32_t*>(const_cast<void*>(from)), box.words, box.count, box.sequence, zero};
}

// The words a thread of the block holds when a post sets its data back to
// zero: the data may have at most this many words per thread of a block
// of 32 (cuda_engine.cu's static_assert on its summary).
inline constexpr int kPostZeroWordsPerThread = 4;

// Block-collective, by the block that finishes the work: its and every
// earlier write (made visible to it device-wide) are what the host gets,
// and once the host has the post they are visible device-wide too (C's row
// offsets when spgemmSymbolic returns, to a kernel or copy on any stream):
// a device-scope fence, not the system-scope one that a sequence after the
// data needed.
// With post.zero, each thread reads its words, writes zeros over them, and
// posts what it read after a second fence: the zeros are visible
// device-wide before the host has any word (so a kernel the host launches
// then, on any stream, finds them).
__device__ __forceinline__ void post_to_host(const DevicePost& post) {
  __threadfence();  // the block's own writes, before any word of the post
  __syncthreads();  // ... by any of its threads
  volatile uint32_t* from = post.from;
  auto* to = reinterpret_cast<volatile unsigned long long*>(post.to);
  const unsigned long long sequence = static_cast<unsigned long long>(post.sequence) << 32;
  const int first = static_cast<int>(threadIdx.x), step = static_cast<int>(blockDim.x);
  if (post.zero) {
    uint32_t held[kPostZeroWordsPerThread];
#pragma unroll
    for (int k = 0; k < kPostZeroWordsPerThread; ++k) {
      const int w = first + k * step;
      if (w < post.words) {
        held[k] = from[w];
        from[w] = 0;
      }
    }
    __threadfence();
#pragma unroll
    for (int k = 0; k < kPostZeroWordsPerThread; ++k) {
      const int w = first + k * step;
      if (w < post.words) to[w] = sequence | held[k];
    }
    return;
  }
  for (int w = first; w < post.words; w += step) to[w] = sequence | from[w];
}

// Context::read_back's copy of `bytes` (a multiple of 4) at device memory
// `from`, final once the work enqueued on ctx's stream so far is done, to
// `out` on the host, without the copy and the stream synchronization: a
// one-block kernel behind that work posts them (post_to_host) and the host
// polls for them (Context::wait_for). For readbacks on a product's path,
// whose latency the host and the device wait out in turn.
void read_back_posted(Context& ctx, void* out, const void* from, size_t bytes);

}  // namespace spgemm::cuda
