// RAII for stream-ordered workspace taken from the handle's pool: released on
// the same stream when it goes out of scope, also when a call fails midway.
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
      : ctx_(&ctx), ptr_(static_cast<T*>(ctx.allocate(count * sizeof(T)))), count_(count) {}
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ctx_ = std::exchange(other.ctx_, nullptr);
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  void reset() noexcept {
    if (ctx_ && ptr_) ctx_->release(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  Context* ctx_ = nullptr;
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace spgemm
