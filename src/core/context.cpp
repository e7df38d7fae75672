// SPDX-License-Identifier: Apache-2.0
#include "core/context.hpp"

#include "core/arena.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace spgemm {

namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  SPGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

// Whether device `from` can address device `to`'s memory (false for one
// device, or where the runtime cannot say).
bool can_access_peer(int from, int to) {
  int can = 0;
  if (from == to || cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return can != 0;
}

}  // namespace

void enable_peer_access(int from, int to) {
  static std::mutex mutex;
  static std::set<std::pair<int, int>> enabled;
  const std::lock_guard<std::mutex> lock(mutex);
  if (enabled.count({from, to}) || !can_access_peer(from, to)) return;
  int previous = -1;
  SPGEMM_CUDA_CHECK(cudaGetDevice(&previous));
  SPGEMM_CUDA_CHECK(cudaSetDevice(from));
  const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
  cudaSetDevice(previous);
  if (err == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
  else SPGEMM_CUDA_CHECK(err);
  enabled.insert({from, to});
}

Context::Context() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    no_device_reason_ = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device found";
    return;
  }
  int device = -1;
  SPGEMM_CUDA_CHECK(cudaGetDevice(&device));
  bind(device);
}

Context::Context(int device) {
  bind(device);
  DeviceGuard guard(*this);
  const cudaError_t err = cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    cudaMemPoolDestroy(pool_);  // the destructor does not run for a throwing constructor
    SPGEMM_CUDA_CHECK(err);
  }
  stream_ = own_stream_;
}

void Context::bind(int device) {
  device_ = device;
  limits_.device = device_;
  limits_.sm_count = attribute(cudaDevAttrMultiProcessorCount, device_);
  limits_.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device_);
  limits_.max_smem_per_block =
      static_cast<size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
  limits_.max_smem_per_sm =
      static_cast<size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device_));
  limits_.l2_bytes = static_cast<size_t>(attribute(cudaDevAttrL2CacheSize, device_));

  // A private pool, so raising its release threshold does not change the
  // caller's default pool. Keeping memory across syncs turns a 100 us
  // malloc/free cycle into a few microseconds (see docs/design.md).
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_;
  SPGEMM_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  uint64_t keep_all = UINT64_MAX;
  const cudaError_t err_threshold =
      cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_all);
  if (err_threshold != cudaSuccess) {
    cudaMemPoolDestroy(pool_);  // the destructor does not run for a throwing constructor
    pool_ = nullptr;
    SPGEMM_CUDA_CHECK(err_threshold);
  }
}

Context::~Context() {
  if (!has_device()) return;
  DeviceGuard guard(*this);
  if (pinned_.at) cudaFreeHost(pinned_.at);
  if (stash_.at) cudaFreeHost(stash_.at);
  if (post_) cudaFreeHost(post_);
  if (zeroed_) cudaFree(zeroed_);
  for (int i = 0; i < kSideStreams; ++i) {
    if (side_[i]) cudaStreamDestroy(side_[i]);  // returns at once; queued work still runs
    if (join_events_[i]) cudaEventDestroy(join_events_[i]);
  }
  if (fork_event_) cudaEventDestroy(fork_event_);
  if (own_stream_) cudaStreamDestroy(own_stream_);
  // No synchronization here (the caller's stream may already be gone): a pool
  // with frees still in flight is released by the driver once they land.
  if (pool_) cudaMemPoolDestroy(pool_);
}

bool Context::workspace_reachable_from(int device) const {
  return device == device_ ||
         (pool_ && !arena_ && !allocator_.alloc && can_access_peer(device, device_));
}

void Context::share_pool_with(int device) {
  if (!pool_ || !can_access_peer(device, device_)) return;
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = device;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  SPGEMM_CUDA_CHECK(cudaMemPoolSetAccess(pool_, &access, 1));
}

const cudaStream_t* Context::fork(int n) {
  n = std::min(n, kSideStreams);
  if (!fork_event_) {
    for (int i = 0; i < kSideStreams; ++i) {
      SPGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&side_[i], cudaStreamNonBlocking));
      SPGEMM_CUDA_CHECK(cudaEventCreateWithFlags(&join_events_[i], cudaEventDisableTiming));
    }
    SPGEMM_CUDA_CHECK(cudaEventCreateWithFlags(&fork_event_, cudaEventDisableTiming));
  }
  SPGEMM_CUDA_CHECK(cudaEventRecord(fork_event_, stream_));
  for (int i = 0; i < n; ++i) SPGEMM_CUDA_CHECK(cudaStreamWaitEvent(side_[i], fork_event_, 0));
  return side_;
}

cudaError_t Context::join(int n) noexcept {
  cudaError_t first = cudaSuccess;
  for (int i = 0; i < std::min(n, kSideStreams); ++i) {
    cudaError_t err = cudaEventRecord(join_events_[i], side_[i]);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(stream_, join_events_[i], 0);
    if (first == cudaSuccess) first = err;
  }
  return first;
}

WorkspaceBlock Context::allocate(size_t bytes) {
  WorkspaceBlock block{nullptr, bytes, allocator_, arena_};
  if (bytes == 0) return block;
  if (arena_) {
    block.ptr = arena_->allocate(bytes);
  } else if (allocator_.alloc) {
    if (allocator_.alloc(allocator_.user, &block.ptr, bytes, stream_) != 0 || !block.ptr)
      fail(SPGEMM_STATUS_ALLOC_FAILED,
           "the allocator set with spgemmSetDeviceAllocator refused " + std::to_string(bytes) +
               " bytes of workspace");
  } else {
    if (!pool_) fail(SPGEMM_STATUS_NO_DEVICE, "device workspace requested but there is no GPU");
    SPGEMM_CUDA_CHECK(cudaMallocFromPoolAsync(&block.ptr, bytes, pool_, stream_));
  }
  used_ += bytes;
  peak_ = used_ > peak_ ? used_ : peak_;
  return block;
}

void Context::release(const WorkspaceBlock& block) noexcept {
  if (!block.ptr) return;
  if (block.arena) {
    block.arena->release(block.ptr);
  } else if (block.source.alloc) {
    if (block.source.free) block.source.free(block.source.user, block.ptr, block.bytes, stream_);
  } else {
    cudaFreeAsync(block.ptr, stream_);
  }
  used_ -= block.bytes;
}

void* Context::grow(PinnedHost& buffer, size_t bytes) {
  if (bytes > buffer.bytes) {
    if (buffer.at) SPGEMM_CUDA_CHECK(cudaFreeHost(buffer.at));
    buffer = {};
    SPGEMM_CUDA_CHECK(cudaMallocHost(&buffer.at, bytes));
    buffer.bytes = bytes;
  }
  return buffer.at;
}

void* Context::pinned_scratch(size_t bytes) { return grow(pinned_, bytes); }

void* Context::pinned_stash(size_t bytes) { return grow(stash_, bytes); }

void Context::read_back(void* host, const void* device, size_t bytes) {
  void* pinned = pinned_scratch(bytes);
  SPGEMM_CUDA_CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, stream_));
  SPGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::memcpy(host, pinned, bytes);
}

Context::PostBox Context::post_box(size_t bytes) {
  const int count = static_cast<int>(bytes / sizeof(uint32_t));
  const size_t needed = sizeof(unsigned long long) * count;
  if (needed > post_bytes_) {
    if (post_) SPGEMM_CUDA_CHECK(cudaFreeHost(post_));  // no post is pending between calls
    post_ = nullptr;
    post_bytes_ = 0;
    SPGEMM_CUDA_CHECK(cudaHostAlloc(&post_, needed, cudaHostAllocMapped));
    SPGEMM_CUDA_CHECK(cudaHostGetDevicePointer(&post_device_, post_, 0));
    std::memset(post_, 0, needed);
    post_bytes_ = needed;  // (last: a failure above leaves the next call to allocate again)
    last_sequence_ = 0;
  }
  if (++last_sequence_ == 0) {  // wrapped: no word may hold a sequence number still to come
    std::memset(post_, 0, post_bytes_);
    last_sequence_ = 1;
  }
  return {static_cast<unsigned long long*>(post_device_), count, last_sequence_,
          static_cast<const volatile unsigned long long*>(post_)};
}

void* Context::zeroed_counters(size_t bytes) {
  if (zeroed_spoiled_ || bytes > kZeroedBytes) return nullptr;
  if (!zeroed_) {
    void* at = nullptr;
    SPGEMM_CUDA_CHECK(cudaMalloc(&at, kZeroedBytes));
    cudaError_t err = cudaMemsetAsync(at, 0, kZeroedBytes, stream_);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream_);  // (once: zero for any stream)
    if (err != cudaSuccess) cudaFree(at);
    SPGEMM_CUDA_CHECK(err);
    zeroed_ = at;
  }
  return zeroed_;
}

void Context::wait_for(const PostBox& box, void* out) {
  // words arrive in any order; each stays once it has the box's sequence number
  int arrived = 0;
  auto all_there = [&] {
    while (arrived < box.count && box.host_words[arrived] >> 32 == box.sequence) ++arrived;
    return arrived == box.count;
  };
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 1; !all_there(); ++spins) {
    if (spins % 256 != 0) continue;
    if (std::chrono::steady_clock::now() - start >
        std::chrono::microseconds(kPostPollMicroseconds)) {
      SPGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      break;
    }
    const cudaError_t status = cudaStreamQuery(stream_);
    if (status == cudaSuccess) break;  // done: the post is there, or never comes
    if (status != cudaErrorNotReady) SPGEMM_CUDA_CHECK(status);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (!all_there())
    fail(SPGEMM_STATUS_EXECUTION_FAILED,
         "internal error: the stream finished without the kernel's posted results");
  auto* data = static_cast<uint32_t*>(out);
  for (int w = 0; w < box.count; ++w) data[w] = static_cast<uint32_t>(box.host_words[w]);
}

Context::DeviceGuard::DeviceGuard(const Context& ctx) noexcept {
  if (!ctx.has_device()) return;
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ != ctx.device()) cudaSetDevice(ctx.device());
}

Context::DeviceGuard::~DeviceGuard() {
  int current = -1;
  if (previous_ >= 0 && cudaGetDevice(&current) == cudaSuccess && current != previous_)
    cudaSetDevice(previous_);
}

}  // namespace spgemm
