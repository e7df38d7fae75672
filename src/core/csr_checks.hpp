// SPDX-License-Identifier: Apache-2.0
// The structural checks of an input CSR matrix, shared by the host backend
// (a loop) and the GPU backend (a kernel): one light pass over the row
// offsets and the column indices that finds the first position of each kind
// of defect. Unsorted rows and repeated column indices are valid input (a
// repeated column is summed); everything else below is rejected before any
// kernel reads the matrix.
#pragma once

#include "core/matrix.hpp"

#include <cstdint>
#include <string>

#if defined(__CUDACC__)
#define SPGEMM_HD __host__ __device__
#else
#define SPGEMM_HD
#endif

namespace spgemm {

enum CsrDefect : int {
  kFirstOffset = 0,        // offsets[0] != base
  kLastOffset = 1,         // offsets[rows] != nnz + base
  kDecreasingOffsets = 2,  // offsets[r + 1] < offsets[r]
  kColumnOutOfRange = 3,   // col_ind[i] outside [base, cols + base)
  kCsrDefects = 4
};

// A matrix whose CSR structure the input checks inspect, and its name in
// the messages ("A", "B", "D"); a plan checks at most A, B and D at once.
struct CheckedOperand {
  const MatrixDesc* m;
  const char* name;
};
inline constexpr int kMaxCheckedOperands = 3;

// first[d]: smallest position (row or entry) with defect d, or kNoDefect.
struct CsrDefects {
  static constexpr uint64_t kNoDefect = ~uint64_t{0};
  uint64_t first[kCsrDefects];
};

// How many column indices the checks may read: nnz, or fewer where the last
// row offset (`last`, read before any column) says the arrays end sooner. A
// descriptor whose nnz exceeds what its offsets hold is the very defect
// kLastOffset names; reading nnz columns to find it would read past them.
template <class Offset>
SPGEMM_HD inline int64_t checked_entries(int64_t nnz, Offset last, int64_t base) {
  if (static_cast<int64_t>(last) < base) return 0;  // (last - base could overflow)
  const int64_t held = static_cast<int64_t>(last) - base;
  return held < nnz ? held : nnz;
}

// Visits position i (0 <= i < max(rows + 1, entries)) and reports each
// defect it finds there through report(defect, position). `entries` is
// checked_entries(nnz, offsets[rows], base): no column index at or past it
// is read.
template <class Offset, class Col, class Report>
SPGEMM_HD inline void inspect_csr_position(int64_t i, int64_t rows, int64_t cols,
                                                    int64_t nnz, int64_t entries, int64_t base,
                                                    const Offset* offsets, const Col* col_ind,
                                                    Report&& report) {
  if (i == 0 && static_cast<int64_t>(offsets[0]) != base) report(kFirstOffset, 0);
  if (i == 0 && static_cast<int64_t>(offsets[rows]) != nnz + base) report(kLastOffset, rows);
  if (i < rows && offsets[i + 1] < offsets[i]) report(kDecreasingOffsets, i);
  if (i < entries) {
    const int64_t c = static_cast<int64_t>(col_ind[i]);  // c - base could overflow
    if (c < base || c - base >= cols) report(kColumnOutOfRange, i);
  }
}

// A fingerprint of a CSR structure (row offsets and column indices): the sum
// over all positions of a 64-bit mix of (position, value), in any order, so
// that a kernel can add it up in parallel. The mix is two 32-bit halves,
// each murmur3's finalizer (a bijection) of the value's low word combined
// with the position; the high half also takes the value's high word. So a
// change at one position always changes the sum, and changes at several
// leave it unchanged with probability ~2^-64. (32-bit multiplies only,
// instead of three 64-bit ones: a faster cut kernel, `spgemm-split-bench
// --devices 0,1 --gen stencil27:64`, traced.)
SPGEMM_HD inline uint32_t fingerprint_mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

SPGEMM_HD inline uint64_t fingerprint_term(uint64_t position, uint64_t value, uint32_t array) {
  const auto p =
      static_cast<uint32_t>(position) ^ static_cast<uint32_t>(position >> 32) * 0x2545f491u;
  const auto low = static_cast<uint32_t>(value);
  const auto high = static_cast<uint32_t>(value >> 32);
  const uint32_t lo = fingerprint_mix32(low ^ (p * 0x9e3779b1u + array));
  const uint32_t hi =
      fingerprint_mix32((low * 0xcc9e2d51u + high) ^ ((p + array) * 0x1b873593u));
  return static_cast<uint64_t>(hi) << 32 | lo;
}

template <class Offset, class Col>
SPGEMM_HD inline uint64_t fingerprint_position(int64_t i, int64_t rows, int64_t nnz,
                                                        const Offset* offsets, const Col* cols) {
  uint64_t sum = 0;
  if (i <= rows) sum += fingerprint_term(i, static_cast<uint64_t>(offsets[i]), 1);
  if (i < nnz) sum += fingerprint_term(i, static_cast<uint64_t>(cols[i]), 2);
  return sum;
}

// Structures to fingerprint, which the GPU analysis does in its pass over
// the checked positions (cuda/analysis/analysis.cuh): m[i]'s into sums[i]
// (device memory, zeroed before) for every m[i] that is not null, except
// that one of the same structure as an earlier m[j] (same_structure) is left
// to sums[j] (first_print). One that the same launch checks is read once for
// both. (A split product's operands and their replicas, fingerprinted with
// the cut's count: two kernels of their own would take 67 us on each GPU,
// `spgemm-split-bench --devices 0,1 --gen stencil27:64`.)
inline constexpr int kMaxPrinted = 3;
struct Fingerprints {
  const MatrixDesc* m[kMaxPrinted] = {};
  unsigned long long* sums = nullptr;

  bool any() const {
    for (const MatrixDesc* x : m)
      if (x) return true;
    return false;
  }
  // Where m[k]'s fingerprint is summed: the first j with m[j] of its structure.
  int first_print(int k) const {
    for (int j = 0; j < k; ++j)
      if (m[j] && m[k] && same_structure(*m[j], *m[k])) return j;
    return k;
  }
};

// Throws INVALID_VALUE describing the first defect found (in the order of
// CsrDefect), if any. read_offset / read_col fetch one element for the
// message (from device memory, for the GPU backend).
template <class ReadOffset, class ReadCol>
void fail_on_defects(const CsrDefects& found, const char* name, const MatrixDesc& m,
                     ReadOffset&& read_offset, ReadCol&& read_col);

// The report for one defect (used by fail_on_defects).
[[noreturn]] void fail_csr_defect(const char* name, const MatrixDesc& m, CsrDefect defect,
                                  int64_t position, int64_t value, int64_t next_value);

template <class ReadOffset, class ReadCol>
void fail_on_defects(const CsrDefects& found, const char* name, const MatrixDesc& m,
                     ReadOffset&& read_offset, ReadCol&& read_col) {
  for (int d = 0; d < kCsrDefects; ++d) {
    if (found.first[d] == CsrDefects::kNoDefect) continue;
    const auto at = static_cast<int64_t>(found.first[d]);
    switch (static_cast<CsrDefect>(d)) {
      case kFirstOffset:
      case kLastOffset:
        fail_csr_defect(name, m, static_cast<CsrDefect>(d), at, read_offset(at), 0);
      case kDecreasingOffsets:
        fail_csr_defect(name, m, kDecreasingOffsets, at, read_offset(at), read_offset(at + 1));
      case kColumnOutOfRange:
        fail_csr_defect(name, m, kColumnOutOfRange, at, read_col(at), 0);
      default:
        break;
    }
  }
}

}  // namespace spgemm
