// SPDX-License-Identifier: Apache-2.0
// The benchmarks' helpers that need neither CUDA nor libspgemm, shared by
// spgemm-bench, spgemm-amg-bench and spgemm-host-ab (which loads libspgemm
// with dlopen and so links none of util.cpp).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

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

// The median of v; NaN for an empty vector.
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A Matrix Market file's name as the benchmarks report it: its file name
// without .mtx.gz or .mtx ("G3_circuit" for .../G3_circuit.mtx.gz).
inline std::string matrix_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const std::string ext : {".mtx.gz", ".mtx"}) {
    if (name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
      name.resize(name.size() - ext.size());
      break;
    }
  }
  return name;
}

}  // namespace bench
