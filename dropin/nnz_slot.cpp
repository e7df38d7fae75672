// SPDX-License-Identifier: Apache-2.0
#include "nnz_slot.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>
#include <vector>

namespace spgemm_dropin {
namespace {

// How far into a descriptor the probe looks (cuSPARSE 12.6 keeps nnz at
// byte 224 of a structure of about 400 bytes).
constexpr size_t kWindow = 1024;

// Bytes from p that are mapped, up to `limit` (mincore fails with ENOMEM on
// an unmapped page): the probe never reads past the mapping of the heap.
size_t mapped_bytes(const void* p, size_t limit) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(p);
  uintptr_t first = begin & ~(page - 1);
  size_t mapped = 0;
  for (uintptr_t at = first; at < begin + limit; at += page) {
    unsigned char residency = 0;
    if (mincore(reinterpret_cast<void*>(at), page, &residency) != 0) break;
    mapped = at + page - begin;
  }
  return std::min(mapped, limit);
}

int64_t load64(const void* base, size_t offset) {
  int64_t v;
  std::memcpy(&v, static_cast<const char*>(base) + offset, sizeof v);
  return v;
}

void store64(void* base, size_t offset, int64_t v) {
  std::memcpy(static_cast<char*>(base) + offset, &v, sizeof v);
}

struct Trial {
  cusparseIndexType_t index;
  int64_t rows, cols, nnz;
  bool arrays;  // non-null array pointers (A, B) or null ones (C before compute)
  cudaDataType value;
};

// Distinctive values: nnz never equals rows, cols, a pointer or a type code,
// and the 64-bit one has a non-zero upper half (a 32-bit copy of nnz elsewhere
// shows up as its lower half alone).
constexpr Trial kTrials[] = {
    {CUSPARSE_INDEX_64I, 3000017, 5000011, 0x5A17C0DE1LL, true, CUDA_R_64F},
    {CUSPARSE_INDEX_32I, 2000003, 4000037, 0x2A5C0DE1LL, false, CUDA_R_32F},
    {CUSPARSE_INDEX_64I, 6000011, 7000003, 0x3C0FFEE5A7LL, false, CUDA_C_64F},
};

}  // namespace

NnzSlot probe_nnz_slot(const RealCusparse& real) {
  NnzSlot slot;
  if (!real.create_csr || !real.destroy_sp_mat || !real.sp_mat_get_size || !real.const_csr_get) {
    slot.detail = "the real descriptor functions were not found";
    return slot;
  }
  std::set<size_t> common;
  bool first = true;
  for (const Trial& t : kTrials) {
    cusparseSpMatDescr_t d = nullptr;
    void* p1 = t.arrays ? reinterpret_cast<void*>(0x10000) : nullptr;
    void* p2 = t.arrays ? reinterpret_cast<void*>(0x20000) : nullptr;
    void* p3 = t.arrays ? reinterpret_cast<void*>(0x30000) : nullptr;
    if (real.create_csr(&d, t.rows, t.cols, t.nnz, p1, p2, p3, t.index, t.index,
                        CUSPARSE_INDEX_BASE_ZERO, t.value) != CUSPARSE_STATUS_SUCCESS ||
        !d) {
      slot.detail = "the real cusparseCreateCsr refused a probe descriptor";
      return slot;
    }
    const size_t window = mapped_bytes(d, kWindow);
    std::set<size_t> hits;
    size_t low_half_hits = 0;
    const auto low = static_cast<int32_t>(t.nnz & 0xffffffff);
    for (size_t off = 0; off + 8 <= window; off += 4)
      if (load64(d, off) == t.nnz) hits.insert(off);
    for (size_t off = 0; off + 4 <= window; off += 4) {
      int32_t v;
      std::memcpy(&v, reinterpret_cast<const char*>(d) + off, 4);
      if (v == low && !hits.count(off)) ++low_half_hits;
    }
    real.destroy_sp_mat(d);
    if (low_half_hits != 0) {
      slot.detail = "a 32-bit copy of nnz was found beside the 64-bit field";
      return slot;
    }
    if (first) {
      common = hits;
      first = false;
    } else {
      std::set<size_t> both;
      std::set_intersection(common.begin(), common.end(), hits.begin(), hits.end(),
                            std::inserter(both, both.begin()));
      common.swap(both);
    }
  }
  if (common.size() != 1) {
    slot.detail = common.empty() ? "no field holds nnz in every probe descriptor"
                                 : "more than one field holds nnz";
    return slot;
  }
  slot.offset = *common.begin();

  // A write at the offset must be what the real getters report, and nothing
  // else they report may change.
  for (const Trial& t : kTrials) {
    cusparseSpMatDescr_t d = nullptr;
    void* p1 = t.arrays ? reinterpret_cast<void*>(0x10000) : nullptr;
    if (real.create_csr(&d, t.rows, t.cols, t.nnz, p1, p1, p1, t.index, t.index,
                        CUSPARSE_INDEX_BASE_ZERO, t.value) != CUSPARSE_STATUS_SUCCESS) {
      slot.detail = "the real cusparseCreateCsr refused a probe descriptor";
      return slot;
    }
    const int64_t written = t.nnz / 3 + 1;
    store64(d, slot.offset, written);
    int64_t rows = -1, cols = -1, nnz = -1, nnz2 = -1;
    const void *r = nullptr, *c = nullptr, *v = nullptr;
    cusparseIndexType_t ri, ci;
    cusparseIndexBase_t base;
    cudaDataType type;
    const bool ok = real.sp_mat_get_size(d, &rows, &cols, &nnz) == CUSPARSE_STATUS_SUCCESS &&
                    real.const_csr_get(d, &rows, &cols, &nnz2, &r, &c, &v, &ri, &ci, &base,
                                       &type) == CUSPARSE_STATUS_SUCCESS;
    real.destroy_sp_mat(d);
    if (!ok || nnz != written || nnz2 != written || rows != t.rows || cols != t.cols ||
        r != p1 || c != p1 || v != p1 || ri != t.index || type != t.value) {
      slot.detail = "a value written at byte " + std::to_string(slot.offset) +
                    " is not what the real getters report";
      return slot;
    }
  }
  slot.found = true;
  slot.detail = "nnz at byte " + std::to_string(slot.offset) + " (" +
                std::to_string(std::size(kTrials)) +
                " probe descriptors, one field each, writes read back through "
                "cusparseSpMatGetSize and cusparseConstCsrGet)";
  return slot;
}

bool write_nnz(const RealCusparse& real, const NnzSlot& slot, cusparseSpMatDescr_t C,
               int64_t nnz, std::string* why) {
  auto fail = [&](const char* reason) {
    if (why) *why = reason;
    return false;
  };
  if (!slot.found) return fail("no nnz field known");
  int64_t rows0, cols0, nnz0;
  const void *r0, *c0, *v0;
  cusparseIndexType_t ri, ci;
  cusparseIndexBase_t base;
  cudaDataType type;
  if (real.const_csr_get(C, &rows0, &cols0, &nnz0, &r0, &c0, &v0, &ri, &ci, &base, &type) !=
      CUSPARSE_STATUS_SUCCESS)
    return fail("cusparseConstCsrGet refused C");
  if (load64(C, slot.offset) != nnz0)
    return fail("C's nnz field does not hold what cusparseConstCsrGet reports");
  store64(C, slot.offset, nnz);
  int64_t rows, cols, got;
  const void *r, *c, *v;
  if (real.const_csr_get(C, &rows, &cols, &got, &r, &c, &v, &ri, &ci, &base, &type) !=
          CUSPARSE_STATUS_SUCCESS ||
      got != nnz || rows != rows0 || cols != cols0 || r != r0 || c != c0 || v != v0) {
    store64(C, slot.offset, nnz0);
    return fail("the written nnz is not what cusparseConstCsrGet reports");
  }
  return true;
}

}  // namespace spgemm_dropin
