// SPDX-License-Identifier: Apache-2.0
// Hostile input on the host backend (tests/support/hostile_input.hpp), every
// array ending at a page the process may not touch: a read or write past
// any of them faults, so "nothing outside the arrays" is tested, not
// assumed.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include <spgemm/spgemm.h>

struct Memory {
  static constexpr spgemmMemoryType_t kType = SPGEMM_MEMORY_HOST;

  template <class T>
  static T* make(const std::vector<T>& host) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = host.size() * sizeof(T);
    const size_t pages = (bytes + page - 1) / page + 1;  // + the guard page
    void* base = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    char* guard = static_cast<char*>(base) + (pages - 1) * page;
    mprotect(guard, page, PROT_NONE);
    auto* array = reinterpret_cast<T*>(guard - bytes);  // ends where the guard begins
    if (bytes) std::memcpy(array, host.data(), bytes);
    std::lock_guard<std::mutex> lock(mutex());
    mappings()[array] = {base, pages * page};
    return array;
  }

  static void release(void* array) {
    std::lock_guard<std::mutex> lock(mutex());
    const auto found = mappings().find(array);
    if (found == mappings().end()) return;
    munmap(found->second.first, found->second.second);
    mappings().erase(found);
  }

  template <class T>
  static std::vector<T> read(const T* array, size_t count) {
    return std::vector<T>(array, array + count);
  }

  template <class T>
  static void write(T* array, const std::vector<T>& host) {
    std::memcpy(array, host.data(), host.size() * sizeof(T));
  }

 private:
  static std::map<void*, std::pair<void*, size_t>>& mappings() {
    static std::map<void*, std::pair<void*, size_t>> m;
    return m;
  }
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
};

#include "hostile_input.hpp"

// Cases of the host backend alone: its numeric phase compares each row's
// entries with C's row offsets (the GPU writes a row only within its
// offsets but does not report a disagreement; docs/reliability.md).
namespace spgemm_test::hostile {

// C = A * A for the 8 x 8 A of M::diagonal(8, 2) (nnz(C) = 10, row 0 of C
// has 3 entries), through spgemmSymbolic and C's arrays set: what the two
// cases below then break.
struct SquaredAfterSymbolic {
  using M = Csr<int32_t, int32_t>;
  Arrays arrays;
  ScopedHandle s;
  M a = M::diagonal(8, 2);
  int32_t* a_cols = arrays.make(a.col_ind);
  int32_t* c_offsets = arrays.make(std::vector<int32_t>(9, 0));
  spgemmPlan_t plan = nullptr;

  SquaredAfterSymbolic() {
    spgemmMatDescr_t da = s.keep(describe<int32_t, int32_t>(
        8, 8, static_cast<int64_t>(a.col_ind.size()), arrays.make(a.offsets), a_cols,
        arrays.make(a.values)));
    spgemmMatDescr_t dc = s.keep(empty_c<int32_t, int32_t>(8, 8));
    SPGEMM_REQUIRE_OK(s.plan(&plan, da, da, dc).status);
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, nullptr, nullptr));
    int64_t nnz = -1;
    SPGEMM_REQUIRE_OK(spgemmSymbolic(s.handle, plan, &nnz));
    REQUIRE(nnz == 10);
    SPGEMM_REQUIRE_OK(spgemmCsrSetPointers(dc, c_offsets, arrays.make(std::vector<int32_t>(10, -1)),
                                    arrays.make(std::vector<double>(10, 0.0))));
  }

  Refusal numeric() {
    const double alpha = 1.0;
    return call(spgemmNumeric(s.handle, plan, &alpha));
  }
};

TEST_CASE("C's row offsets edited after the symbolic phase are refused by the host numeric phase",
          "[hostile]") {
  SquaredAfterSymbolic p;
  std::vector<int32_t> offsets = Memory::read(p.c_offsets, 9);
  offsets[1] = 1;  // row 0 has 3 entries; its offsets now give it one
  Memory::write(p.c_offsets, offsets);
  const Refusal r = p.numeric();
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "row 0 has 3 entries"));
}

TEST_CASE("a structure changed after the symbolic phase without verification is refused by the "
          "host numeric phase",
          "[hostile]") {
  SquaredAfterSymbolic p;
  std::vector<int32_t> cols = p.a.col_ind;
  cols[1] = 0;  // row 0: columns 0, 0, 2; row 0 of A * A then has 2 entries, not 3
  Memory::write(p.a_cols, cols);
  const Refusal r = p.numeric();
  CHECK(r.status == SPGEMM_STATUS_INVALID_VALUE);
  CHECK(mentions(r, "row 0 has 2 entries"));
}

}  // namespace spgemm_test::hostile
