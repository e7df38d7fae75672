// SPDX-License-Identifier: Apache-2.0
// The arena behind spgemmPlanSetWorkspace (src/core/arena.hpp) and the
// routing of a context's workspace to it, on host memory standing in for the
// caller's device buffer (the arena only computes addresses, it never reads
// or writes the memory): first fit, reuse, alignment, exhaustion, release in
// any order, and blocks going back to the arena they came from.
#include "core/arena.hpp"
#include "core/context.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using spgemm::Arena;

namespace {

constexpr size_t kAlign = Arena::kAlignment;

// `bytes` bytes of host memory starting at a multiple of kAlign.
class FakeBuffer {
 public:
  explicit FakeBuffer(size_t bytes) : storage_(bytes + kAlign) {
    const auto address = reinterpret_cast<uintptr_t>(storage_.data());
    base_ = storage_.data() + (kAlign - address % kAlign) % kAlign;
  }
  unsigned char* base() const { return base_; }
  size_t offset(const void* p) const { return static_cast<const unsigned char*>(p) - base_; }

 private:
  std::vector<unsigned char> storage_;
  unsigned char* base_;
};

// The status of the spgemm::Error that body throws, or SUCCESS; its message
// goes to *message.
template <class Body>
spgemmStatus_t status_of(Body&& body, std::string* message = nullptr) {
  try {
    body();
  } catch (const spgemm::Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
  return SPGEMM_STATUS_SUCCESS;
}

}  // namespace

TEST_CASE("arena: blocks one after another, at multiples of 256 bytes", "[workspace][arena]") {
  FakeBuffer memory(4096);
  Arena arena(memory.base(), 4096);
  CHECK(arena.capacity() == 4096);
  void* a = arena.allocate(1);
  void* b = arena.allocate(300);
  void* c = arena.allocate(256);
  void* d = arena.allocate(257);
  CHECK(memory.offset(a) == 0);
  CHECK(memory.offset(b) == 256);
  CHECK(memory.offset(c) == 768);
  CHECK(memory.offset(d) == 1024);
  CHECK(arena.used() == 1536);
  CHECK(Arena::round_up(0) == 0);
  CHECK(Arena::round_up(1) == 256);
  CHECK(Arena::round_up(256) == 256);
  CHECK(Arena::round_up(257) == 512);
}

TEST_CASE("arena: released space is reused, first fit", "[workspace][arena]") {
  FakeBuffer memory(4096);
  Arena arena(memory.base(), 4096);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(arena.allocate(256));  // 0, 256, 512, 768
  arena.release(blocks[1]);
  arena.release(blocks[2]);
  // the first gap (256..768) takes a block that fits...
  CHECK(memory.offset(arena.allocate(100)) == 256);
  // ...a larger one than the gap left (512..768) goes after the last block...
  CHECK(memory.offset(arena.allocate(512)) == 1024);
  // ...and the next small one fills the gap
  CHECK(memory.offset(arena.allocate(200)) == 512);
  CHECK(arena.used() == 4 * 256 + 512);
  // the same block again after its release: the same place
  void* again = arena.allocate(1000);
  const size_t at = memory.offset(again);
  arena.release(again);
  CHECK(memory.offset(arena.allocate(1000)) == at);
}

TEST_CASE("arena: exhaustion is ALLOC_FAILED, and the arena stays usable", "[workspace][arena]") {
  FakeBuffer memory(1024);
  Arena arena(memory.base(), 1024);
  void* all = arena.allocate(1024);
  std::string message;
  CHECK(status_of([&] { arena.allocate(1); }, &message) == SPGEMM_STATUS_ALLOC_FAILED);
  INFO(message);
  CHECK(message.find("spgemmPlanSetWorkspace (1024 bytes, 1024 in use)") != std::string::npos);
  CHECK(message.find("no room for 1 more bytes") != std::string::npos);
  CHECK(arena.used() == 1024);
  arena.release(all);
  CHECK(arena.used() == 0);
  CHECK(memory.offset(arena.allocate(1024)) == 0);

  // free space in pieces does not hold a block larger than each piece
  Arena split(memory.base(), 768);
  void* first = split.allocate(256);
  split.allocate(256);
  void* last = split.allocate(256);
  split.release(first);
  split.release(last);
  CHECK(status_of([&] { split.allocate(512); }) == SPGEMM_STATUS_ALLOC_FAILED);
  CHECK(memory.offset(split.allocate(256)) == 0);

  // sizes whose rounding would overflow, and an empty arena
  CHECK(status_of([&] { split.allocate(SIZE_MAX); }) == SPGEMM_STATUS_ALLOC_FAILED);
  Arena empty(memory.base(), 0);
  CHECK(status_of([&] { empty.allocate(1); }) == SPGEMM_STATUS_ALLOC_FAILED);
}

TEST_CASE("arena: the buffer must be aligned to 256 bytes", "[workspace][arena]") {
  FakeBuffer memory(1024);
  std::string message;
  for (const size_t off : {size_t{1}, size_t{8}, size_t{128}}) {
    INFO("offset " << off);
    CHECK(status_of([&] { Arena(memory.base() + off, 512); }, &message) ==
          SPGEMM_STATUS_INVALID_VALUE);
    CHECK(message.find("aligned to 256 bytes") != std::string::npos);
  }
  CHECK(status_of([&] { Arena(memory.base() + 256, 512); }) == SPGEMM_STATUS_SUCCESS);
}

TEST_CASE("arena: blocks may be released in any order", "[workspace][arena]") {
  const std::vector<size_t> sizes{1, 256, 700, 3000, 256, 10, 511, 4096, 1};
  size_t total = 0;
  for (const size_t s : sizes) total += Arena::round_up(s);
  FakeBuffer memory(total);
  std::mt19937 random(20261122);
  for (int round = 0; round < 50; ++round) {
    INFO("round " << round);
    Arena arena(memory.base(), total);
    std::vector<void*> blocks;
    for (const size_t s : sizes) blocks.push_back(arena.allocate(s));
    CHECK(arena.used() == total);  // they fill the buffer exactly
    std::vector<size_t> order(blocks.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (round == 1) std::reverse(order.begin(), order.end());
    if (round > 1) std::shuffle(order.begin(), order.end(), random);
    // half of them in that order; the freed ranges merge whatever the order,
    // so the same blocks asked again in their first order fill them exactly
    const size_t half = order.size() / 2;
    for (size_t i = 0; i < half; ++i) arena.release(blocks[order[i]]);
    std::vector<size_t> released(order.begin(), order.begin() + half);
    std::sort(released.begin(), released.end());
    for (const size_t i : released) {
      const size_t at = memory.offset(blocks[i]);
      blocks[i] = arena.allocate(sizes[i]);
      CHECK(memory.offset(blocks[i]) == at);
    }
    CHECK(arena.used() == total);
    for (const size_t i : order) arena.release(blocks[i]);
    CHECK(arena.used() == 0);
    CHECK(memory.offset(arena.allocate(total)) == 0);  // nothing left behind
  }
}

TEST_CASE("arena: unknown pointers are ignored on release", "[workspace][arena]") {
  FakeBuffer memory(1024);
  Arena arena(memory.base(), 1024);
  void* a = arena.allocate(100);
  arena.release(memory.base() + 8);  // inside a block, not its start
  arena.release(nullptr);
  int elsewhere = 0;
  arena.release(&elsewhere);
  CHECK(arena.used() == 256);
  arena.release(a);
  arena.release(a);  // twice
  CHECK(arena.used() == 0);
}

TEST_CASE("context: workspace comes from the current arena and goes back to it",
          "[workspace][context]") {
  FakeBuffer memory(2048);
  Arena arena(memory.base(), 2048);
  spgemm::Context ctx;  // with or without a GPU: the arena needs none
  spgemm::DeviceBuffer<double> kept;
  {
    spgemm::Context::CallScope scope(ctx, &arena);
    kept.reallocate(ctx, 100);  // 800 bytes, 1024 in the arena
    CHECK(memory.offset(kept.get()) == 0);
    // a new buffer in place of the old: the old one goes back first, so the
    // same place serves (this arena has no room for both beside a temporary)
    spgemm::DeviceBuffer<int> temp(ctx, 200);  // 800 bytes, at 1024
    CHECK(memory.offset(temp.get()) == 1024);
    kept.reallocate(ctx, 100);
    CHECK(memory.offset(kept.get()) == 0);
    CHECK(arena.used() == 2048);
    CHECK(ctx.used_bytes() == 1600);
    CHECK(spgemm::DeviceBuffer<double>::workspace_bytes(100) == 1024);
    CHECK(status_of([&] { spgemm::DeviceBuffer<char> more(ctx, 1); }) ==
          SPGEMM_STATUS_ALLOC_FAILED);
    CHECK(ctx.used_bytes() == 1600);  // the failed request is not counted
  }
  CHECK(arena.used() == 1024);  // the temporary went back with its scope
  CHECK(ctx.used_bytes() == 800);
  CHECK(ctx.peak_bytes() == 1600);
  kept.reset();  // after the scope: back to its arena all the same
  CHECK(arena.used() == 0);
  CHECK(ctx.used_bytes() == 0);
  // scopes nest, and the outer arena is current again after the inner one
  Arena other(memory.base() + 1024, 1024);
  spgemm::Context::CallScope outer(ctx, &arena);
  {
    spgemm::Context::CallScope inner(ctx, &other);
    spgemm::DeviceBuffer<char> b(ctx, 1);
    CHECK(memory.offset(b.get()) == 1024);
  }
  spgemm::DeviceBuffer<char> b(ctx, 1);
  CHECK(memory.offset(b.get()) == 0);
}
