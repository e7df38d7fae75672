// SPDX-License-Identifier: Apache-2.0
// A caller-owned block of device memory carved into a plan's workspace
// (spgemmPlanSetWorkspace): first fit over the blocks in use, kept sorted by
// offset; every block starts at a multiple of kAlignment from the buffer's
// start. The arena only does arithmetic on addresses, never touches the
// memory, and never frees the buffer. Reuse of released space is safe because
// all of a plan's work is ordered on the handle's stream.
#pragma once

#include <cstddef>
#include <vector>

namespace spgemm {

class Arena {
 public:
  // CUB's and cudaMalloc's alignment; also what the caller's buffer must have.
  static constexpr size_t kAlignment = 256;
  static constexpr size_t round_up(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  // Throws INVALID_VALUE if buffer is not aligned to kAlignment.
  Arena(void* buffer, size_t bytes);

  // The first free range that holds `bytes` (rounded up to kAlignment).
  // Throws ALLOC_FAILED when none does.
  void* allocate(size_t bytes);
  // Gives back a block from allocate, in any order; other pointers are ignored.
  void release(void* ptr) noexcept;

  size_t capacity() const { return bytes_; }
  // Bytes of the blocks in use, rounded up as they are held.
  size_t used() const { return used_; }

 private:
  struct Block {
    size_t offset;
    size_t bytes;
  };
  unsigned char* buffer_;
  size_t bytes_;
  size_t used_ = 0;
  std::vector<Block> blocks_;  // in use, by offset
};

}  // namespace spgemm
