// SPDX-License-Identifier: Apache-2.0
// The benchmarks' host memory advised to transparent huge pages, as NumPy
// advises its arrays (spgemm-bench, spgemm-host-ab).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace bench {

// Advises the pages inside [p, p + bytes) to transparent huge pages
// (madvise MADV_HUGEPAGE) where bytes is at least 4 MiB: the policy of NumPy's
// allocator, which SciPy's C gets by default, so that the host peers' C are
// allocated alike (--huge-pages). Their first touch then faults a page per
// 2 MiB where the kernel's THP setting is "madvise" or "always".
inline void advise_huge_pages(void* p, size_t bytes) {
  constexpr size_t kLeast = size_t{4} << 20;  // NumPy's threshold
  if (bytes < kLeast) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  // a hint: where the kernel gives no huge pages the memory stays usable
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace bench
