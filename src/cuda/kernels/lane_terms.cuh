// SPDX-License-Identifier: Apache-2.0
// The terms of one row of C spread over a warp's registers, for the sort
// bins (configs/bins.hpp): term p, numbering the products entry by entry of
// A's row and then (Addend) D's entries, goes to register p / 32 of lane
// p % 32. A scan of the lengths of the rows of B that A's entries (32 at a
// time) refer to numbers their products, and each lane finds the entry of
// its term by a binary search over the scan through shuffles. Rows with
// more than 32 * K terms are never binned here; terms beyond are not visited.
#pragma once

#include "cuda/configs/bins.hpp"
#include "cuda/pattern.cuh"
#include "cuda/warp_shuffle.cuh"

namespace spgemm::cuda {

// Warp-collective: product(k, col, a, b) for lane's products a_ik * b_kj
// (positions a, b) and addend(k, col, d) for its entries d of D, k being the
// register the term goes to.
template <int K, bool Addend, class Offset, class Col, class Product, class AddendTerm>
__device__ __forceinline__ void for_lane_terms(const Pattern<Offset, Col>& A,
                                               const Pattern<Offset, Col>& B,
                                               const Pattern<Offset, Col>& D, int row,
                                               Product&& product, AddendTerm&& addend) {
  const int lane = lane_id();
  const Offset a_end = A.end(row);
  int numbered = 0;  // terms of the chunks before
  for (Offset chunk = A.begin(row); chunk < a_end && numbered < 32 * K; chunk += 32) {
    Offset b_begin = 0;
    int length = 0;
    if (chunk + lane < a_end) {
      const int k = A.col(chunk + lane);
      b_begin = B.begin(k);
      length = static_cast<int>(B.end(k) - b_begin);
    }
    int start = length;  // inclusive, then exclusive scan over the chunk
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int up = __shfl_up_sync(kFullWarp, start, d);
      if (lane >= d) start += up;
    }
    const int chunk_terms = __shfl_sync(kFullWarp, start, 31);
    start -= length;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int p = k * 32 + lane - numbered;
      // the last entry whose products start at or before p (entries without
      // products share their start with the next one)
      int entry = 0;
#pragma unroll
      for (int step = 16; step > 0; step /= 2)
        if (__shfl_sync(kFullWarp, start, entry + step) <= p) entry += step;
      const int before = p - __shfl_sync(kFullWarp, start, entry);  // the entry's terms before p
      const Offset b = shfl(kFullWarp, b_begin, entry) + static_cast<Offset>(before);
      if (p >= 0 && p < chunk_terms) product(k, B.col(b), chunk + entry, b);
    }
    numbered += chunk_terms;
  }
  if constexpr (Addend) {
    const Offset d_begin = D.begin(row);
    const int d_terms = static_cast<int>(D.end(row) - d_begin);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int p = k * 32 + lane - numbered;
      if (p >= 0 && p < d_terms) addend(k, D.col(d_begin + p), d_begin + p);
    }
  }
}

// One thread's walk over the terms of `row` in their order (the same
// numbering), for the rows of a thread each (configs/bins.hpp's
// BinPolicy::thread_row_terms): term(col, a_value(a), b_value(b)) for every product
// a_ik * b_kj (a, b: their positions) and addend(col, d) for D's entries;
// either returns false to stop the walk, and then so does this. Each load
// is issued a step before its use: the next entry's row of B and value,
// and the row index of the entry after it, while the current entry's terms
// are added; a row of B's columns and values configs/bins.hpp's
// BinPolicy::row_of_b_batch at a time, all of a batch's loads before its first add. The
// order of the terms is unchanged. A thread's row is a chain of dependent
// loads (A's column, B's offsets, B's columns), which nothing else in
// flight on the thread hides.
template <bool Addend, class Offset, class Col, class AValue, class BValue, class Term,
          class AddendTerm>
__device__ __forceinline__ bool for_row_terms(const Pattern<Offset, Col>& A,
                                              const Pattern<Offset, Col>& B,
                                              const Pattern<Offset, Col>& D, int row,
                                              AValue&& a_value, BValue&& b_value, Term&& term,
                                              AddendTerm&& addend) {
  Offset a = A.begin(row);
  const Offset a_end = A.end(row);
  if (a < a_end) {
    const int k = A.col(a);
    int k_next = a + 1 < a_end ? A.col(a + 1) : 0;
    auto a_ik = a_value(a);
    Offset b = B.begin(k), b_end = B.end(k);
    for (;;) {  // entry a: its row of B is [b, b_end)
      const bool more = a + 1 < a_end;
      Offset next_b = 0, next_end = 0;
      int k_after = 0;
      decltype(a_ik) next_a_ik{};
      if (more) {
        next_b = B.begin(k_next);
        next_end = B.end(k_next);
        next_a_ik = a_value(a + 1);
        if (a + 2 < a_end) k_after = A.col(a + 2);
      }
      for (; b < b_end; b += BinPolicy::row_of_b_batch) {
        int c[BinPolicy::row_of_b_batch];
        decltype(b_value(b)) b_kj[BinPolicy::row_of_b_batch];
#pragma unroll
        for (int u = 0; u < BinPolicy::row_of_b_batch; ++u) {
          c[u] = 0;
          b_kj[u] = {};
          if (b + u < b_end) {
            c[u] = B.col(b + u);
            b_kj[u] = b_value(b + u);
          }
        }
#pragma unroll
        for (int u = 0; u < BinPolicy::row_of_b_batch; ++u)
          if (b + u < b_end && !term(c[u], a_ik, b_kj[u])) return false;
      }
      if (!more) break;
      ++a;
      k_next = k_after;
      a_ik = next_a_ik;
      b = next_b;
      b_end = next_end;
    }
  }
  if constexpr (Addend) {
    const Offset d_end = D.end(row);
    for (Offset d = D.begin(row); d < d_end; ++d)
      if (!addend(D.col(d), d)) return false;
  }
  return true;
}

}  // namespace spgemm::cuda
