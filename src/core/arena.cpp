// SPDX-License-Identifier: Apache-2.0
#include "core/arena.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace spgemm {

Arena::Arena(void* buffer, size_t bytes)
    : buffer_(static_cast<unsigned char*>(buffer)), bytes_(bytes) {
  if (reinterpret_cast<uintptr_t>(buffer) % kAlignment != 0)
    fail(SPGEMM_STATUS_INVALID_VALUE, "the workspace buffer must be aligned to " +
                                          std::to_string(kAlignment) + " bytes");
}

void* Arena::allocate(size_t bytes) {
  const size_t need = round_up(std::max<size_t>(bytes, 1));  // distinct blocks, distinct offsets
  size_t start = 0;  // end of the previous block in use: where a gap begins
  auto next = blocks_.begin();
  for (; next != blocks_.end(); start = next->offset + next->bytes, ++next)
    if (next->offset - start >= need) break;
  if (need < bytes || bytes_ - start < need)  // need < bytes: the rounding overflowed
    fail(SPGEMM_STATUS_ALLOC_FAILED,
         "the workspace set with spgemmPlanSetWorkspace (" + std::to_string(bytes_) +
             " bytes, " + std::to_string(used_) + " in use) has no room for " +
             std::to_string(bytes) + " more bytes");
  blocks_.insert(next, Block{start, need});
  used_ += need;
  return buffer_ + start;
}

void Arena::release(void* ptr) noexcept {
  const size_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(buffer_);
  const auto it = std::lower_bound(blocks_.begin(), blocks_.end(), offset,
                                   [](const Block& b, size_t at) { return b.offset < at; });
  if (it == blocks_.end() || it->offset != offset) return;
  used_ -= it->bytes;
  blocks_.erase(it);
}

}  // namespace spgemm
