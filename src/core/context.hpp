// SPDX-License-Identifier: Apache-2.0
// A handle's device resources: the device it is bound to (if any), its
// stream, where its device workspace comes from (a stream-ordered memory
// pool that keeps its memory between calls, the caller's allocator, or,
// during a call on a plan given a buffer, that plan's arena), the pinned
// host memory and side streams its calls use, and the device limits every
// kernel configuration is derived from. Its settings are core/settings.hpp's;
// the settings of split products multi/split_context.hpp's.
#pragma once

#include <spgemm/spgemm.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace spgemm {

class Arena;

// Queried once from the device; nothing in the library hard-codes these.
struct DeviceLimits {
  int device = -1;  // the ordinal they were queried for
  int sm_count = 0;
  int max_threads_per_sm = 0;
  size_t max_smem_per_block = 0;  // opt-in maximum for one block
  size_t max_smem_per_sm = 0;
  size_t l2_bytes = 0;
};

// The caller's device allocator (spgemmSetDeviceAllocator); alloc == nullptr
// means the handle's own pool.
struct DeviceAllocator {
  spgemmDeviceAllocFn alloc = nullptr;
  spgemmDeviceFreeFn free = nullptr;
  void* user = nullptr;
};

// One piece of workspace, with where it came from (an arena, else the
// allocator or the pool): it goes back there even if the handle's allocator
// or the current arena changed in between.
struct WorkspaceBlock {
  void* ptr = nullptr;
  size_t bytes = 0;
  DeviceAllocator source;
  Arena* arena = nullptr;
};

class Context {
 public:
  Context();  // binds to the current device when there is one
  // Binds to `device` with a stream of its own (non-blocking, destroyed with
  // the context): one part of a multi-device handle.
  explicit Context(int device);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  bool has_device() const { return device_ >= 0; }
  int device() const { return device_; }
  // Why there is no device (empty when there is one).
  const char* no_device_reason() const { return no_device_reason_; }
  const DeviceLimits& limits() const { return limits_; }

  cudaStream_t stream() const { return stream_; }
  void set_stream(cudaStream_t stream) { stream_ = stream; }

  // Stream-ordered workspace on the handle's stream, from the current arena
  // if there is one (CallScope). allocate throws ALLOC_FAILED when the arena,
  // the pool or the caller's allocator has no memory left.
  WorkspaceBlock allocate(size_t bytes);
  void release(const WorkspaceBlock& block) noexcept;
  void set_allocator(const DeviceAllocator& allocator) { allocator_ = allocator; }
  // Whether kernels on `device` may write the workspace allocate() gives
  // now: it comes from this context's pool (no arena, no caller's
  // allocator), which set_devices shares with the devices of its parts.
  bool workspace_reachable_from(int device) const;
  // Bytes of workspace held now (arena blocks included), and the most held
  // at once since creation or the last reset_peak().
  size_t used_bytes() const { return used_; }
  size_t peak_bytes() const { return peak_; }
  void reset_peak() { peak_ = used_; }

  // Copies `bytes` of device memory, written by work on the handle's stream,
  // to `host` once the stream has reached it (a synchronization), through a
  // small pinned buffer the context keeps.
  void read_back(void* host, const void* device, size_t bytes);
  template <class T>
  T read_back(const T* device) {
    T value;
    read_back(&value, device, sizeof(T));
    return value;
  }

  // `bytes` of pinned host memory the context keeps (apart from
  // read_back's), for copies enqueued on a stream and read once a later
  // synchronization has passed them: a readback without one of its own.
  void* pinned_stash(size_t bytes);

  // A readback without a copy or a synchronization, for results a kernel
  // posts itself (cuda/post.cuh): pinned host memory the device writes
  // through, each 32-bit word of the data in a 64-bit word of its own
  // beside the box's sequence number (a fresh one per box), so that a word
  // is there once its sequence number is, without the system-scope fence
  // that a sequence number written after the data needs (NCCL's low-latency protocol makes the
  // same use of 8-byte stores).
  struct PostBox {
    unsigned long long* words;  // device addresses
    int count;                  // words of data
    uint32_t sequence;
    const volatile unsigned long long* host_words;  // the same memory, host addresses
  };
  PostBox post_box(size_t bytes);  // bytes: a multiple of 4
  // Returns once every word of box is there and copies its data to `out`
  // (count * 4 bytes). Polls (a copy and a stream synchronization cost ~7
  // us of a small product's ~50); after kPostPollMicroseconds it
  // synchronizes the stream instead. A stream that finishes without the
  // post throws EXECUTION_FAILED, as do CUDA errors.
  void wait_for(const PostBox& box, void* out);
  static constexpr int kPostPollMicroseconds = 1000;

  // Device memory that reads zero whenever no call of the handle is under
  // way: the counters of a kernel that the same call waits for and that
  // sets them back to zero before it posts (a small product's symbolic
  // kernel, cuda_engine.cu), which saves that call a memset (1.2 us of host
  // time, one H200). At most kZeroedBytes, allocated and zeroed at the
  // first call; nullptr once spoiled (a kernel that may not have set them
  // back: its call failed).
  static constexpr size_t kZeroedBytes = 1024;
  void* zeroed_counters(size_t bytes);
  void spoil_zeroed_counters() { zeroed_spoiled_ = true; }

  // Streams beside the handle's, for independent kernels of one phase that
  // may run at once (the bins, cuda_engine.cu): fork(n) makes the first n
  // (at most kSideStreams) wait for the work enqueued on the handle's stream
  // so far and returns them; join(n) makes the handle's stream wait for
  // theirs and returns the first error (it also runs when a launch threw:
  // no later free on the handle's stream may overtake their kernels).
  // Created at the first fork, on the handle's device.
  static constexpr int kSideStreams = 4;
  const cudaStream_t* fork(int n);
  cudaError_t join(int n) noexcept;

  // Lets `device` address this context's pool where the hardware allows it.
  void share_pool_with(int device);

  // Makes the handle's device current for the duration of a call. Never
  // throws (it also runs in destructors): if the switch fails, the CUDA calls
  // that follow fail and report it.
  class DeviceGuard {
   public:
    explicit DeviceGuard(const Context& ctx) noexcept;
    ~DeviceGuard();

   private:
    int previous_ = -1;
  };

  // For the length of one call on a plan: the handle's device is current and
  // allocate() takes from `arena` (the buffer the caller gave that plan), or
  // from the pool / the caller's allocator when it is nullptr.
  class CallScope {
   public:
    CallScope(Context& ctx, Arena* arena) noexcept
        : device_(ctx), ctx_(ctx), previous_(std::exchange(ctx.arena_, arena)) {}
    ~CallScope() { ctx_.arena_ = previous_; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;

   private:
    DeviceGuard device_;
    Context& ctx_;
    Arena* previous_;
  };

 private:
  void* pinned_scratch(size_t bytes);
  void bind(int device);

  int device_ = -1;
  const char* no_device_reason_ = "";
  DeviceLimits limits_{};
  cudaStream_t stream_ = nullptr;
  cudaStream_t own_stream_ = nullptr;  // Context(int device)
  cudaMemPool_t pool_ = nullptr;
  DeviceAllocator allocator_{};
  Arena* arena_ = nullptr;  // set by CallScope
  size_t used_ = 0;
  size_t peak_ = 0;
  struct PinnedHost {  // grown as asked, freed with the context
    void* at = nullptr;
    size_t bytes = 0;
  };
  static void* grow(PinnedHost& buffer, size_t bytes);
  PinnedHost pinned_, stash_;
  void* post_ = nullptr;  // mapped pinned memory: a box's words
  void* post_device_ = nullptr;  // post_ as the device addresses it
  size_t post_bytes_ = 0;
  uint32_t last_sequence_ = 0;
  void* zeroed_ = nullptr;  // kZeroedBytes of device memory (cudaMalloc), zeroed_counters
  bool zeroed_spoiled_ = false;
  cudaStream_t side_[kSideStreams] = {};
  cudaEvent_t fork_event_ = nullptr;
  cudaEvent_t join_events_[kSideStreams] = {};
};

// Lets device `from` address device `to`'s memory directly where the
// hardware allows it (copies between them then go peer to peer instead of
// through the host); pairs already enabled by the library are not asked
// again.
void enable_peer_access(int from, int to);

}  // namespace spgemm
