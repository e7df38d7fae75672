// SPDX-License-Identifier: Apache-2.0
// RAII for stream-ordered workspace taken from the handle (its pool, the
// caller's allocator, or the plan's arena): released on the handle's stream
// when it goes out of scope, also when a call fails midway.
#pragma once

#include "core/arena.hpp"
#include "core/context.hpp"

#include <cstddef>
#include <utility>

namespace spgemm {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Context& ctx, size_t count)
      : ctx_(&ctx), block_(ctx.allocate(count * sizeof(T))) {}
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ctx_ = std::exchange(other.ctx_, nullptr);
      block_ = std::exchange(other.block_, WorkspaceBlock{});
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // What DeviceBuffer(ctx, count) takes at most: each component adds these
  // up beside its allocations for spgemmPlanGetWorkspaceSize.
  static constexpr size_t workspace_bytes(size_t count) {
    return Arena::round_up(count * sizeof(T));
  }

  // A new buffer of count elements in place of this one, which is given back
  // first: the two are never held at once (so a re-analysis takes no more
  // than the first analysis did).
  void reallocate(Context& ctx, size_t count) {
    reset();
    ctx_ = &ctx;
    block_ = ctx.allocate(count * sizeof(T));
  }

  T* get() const { return static_cast<T*>(block_.ptr); }
  size_t size() const { return block_.bytes / sizeof(T); }
  void reset() noexcept {
    if (ctx_) ctx_->release(block_);
    block_ = WorkspaceBlock{};
  }

 private:
  Context* ctx_ = nullptr;
  WorkspaceBlock block_;
};

}  // namespace spgemm
