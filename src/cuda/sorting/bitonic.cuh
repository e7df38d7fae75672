// SPDX-License-Identifier: Apache-2.0
// In-place bitonic sort of (key, value) pairs in shared memory by a group of
// threads (a warp or the whole block). n is a power of two; empty slots hold
// kEmptyKey (-1), which compares as the largest unsigned key, so after the
// sort a row's entries are the first nnz slots in ascending column order.
// Cost n*log2(n)^2/4 compare-exchanges per row; fine for the table sizes of
// configs/bins.hpp (<= 16384 slots). Threads are indexed by compare-exchange
// pair, not by element, so every thread has work in every pass.
#pragma once

#include <cstdint>

namespace spgemm::cuda {

template <class GroupT, class Value>
__device__ void bitonic_sort_pairs(const GroupT& group, int* keys, Value* values, int n) {
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int pair = rank; pair < n / 2; pair += threads) {
        // the pair's lower element: pair's bits below j stay, a 0 is put at j
        const int i = ((pair & ~(j - 1)) << 1) | (pair & (j - 1));
        const int partner = i | j;
        const uint32_t ki = static_cast<uint32_t>(keys[i]);
        const uint32_t kp = static_cast<uint32_t>(keys[partner]);
        const bool ascending = (i & k) == 0;
        if ((ki > kp) == ascending) {
          keys[i] = static_cast<int>(kp);
          keys[partner] = static_cast<int>(ki);
          const Value v = values[i];
          values[i] = values[partner];
          values[partner] = v;
        }
      }
      group.sync();
    }
  }
}

}  // namespace spgemm::cuda
