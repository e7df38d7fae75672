// RAII for stream-ordered workspace taken from the handle (its pool or the
// caller's allocator): released on the handle's stream when it goes out of
// scope, also when a call fails midway.
#pragma once

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
