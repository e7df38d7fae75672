// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: counts the bytes held through operator new, process-wide
// (libspgemm's host backend allocates its scratch with std::vector), so the
// host backend's peak memory beyond A, B and C can be reported; C's arrays
// are the bench's malloc, not counted. Aligned new is counted too.
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "heap_count.hpp"

namespace bench {
namespace {

std::atomic<int64_t> g_current{0};
std::atomic<int64_t> g_peak{0};

void* counted(std::size_t bytes) {
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::bad_alloc();
  heap_count_add(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}

void* counted_aligned(std::size_t bytes, std::align_val_t align) {
  const auto a = static_cast<std::size_t>(align);
  void* p = std::aligned_alloc(a, (bytes + a - 1) / a * a);
  if (!p) throw std::bad_alloc();
  heap_count_add(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}

void uncounted(void* p) noexcept {
  if (!p) return;
  heap_count_add(-static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void heap_count_add(int64_t bytes) {
  const int64_t now = g_current.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

int64_t heap_count_current() { return g_current.load(std::memory_order_relaxed); }

int64_t heap_count_reset_peak() {
  const int64_t now = g_current.load(std::memory_order_relaxed);
  g_peak.store(now, std::memory_order_relaxed);
  return now;
}

int64_t heap_count_peak() { return g_peak.load(std::memory_order_relaxed); }

}  // namespace bench

void* operator new(std::size_t bytes) { return bench::counted(bytes); }
void* operator new[](std::size_t bytes) { return bench::counted(bytes); }
void operator delete(void* p) noexcept { bench::uncounted(p); }
void operator delete[](void* p) noexcept { bench::uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { bench::uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { bench::uncounted(p); }
void* operator new(std::size_t bytes, std::align_val_t a) { return bench::counted_aligned(bytes, a); }
void* operator new[](std::size_t bytes, std::align_val_t a) {
  return bench::counted_aligned(bytes, a);
}
void operator delete(void* p, std::align_val_t) noexcept { bench::uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { bench::uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { bench::uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { bench::uncounted(p); }
