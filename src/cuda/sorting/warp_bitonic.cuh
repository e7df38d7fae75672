// SPDX-License-Identifier: Apache-2.0
// Sorting 32 * K keys held in the registers of one warp, K per lane: element
// i = k * 32 + lane is register k of lane `lane`. A bitonic network of
// log2(32K) * (log2(32K) + 1) / 2 compare-exchange steps (15 for K = 1, 21
// for K = 2); partners fewer than 32 elements apart are exchanged with
// shuffles, farther ones are two registers of the same lane. No shared
// memory, no synchronization beyond the shuffles. An exchange keeps the
// min or max of the pair: a shuffle and two integer min/max instructions,
// where a compare and a conditional swap take eight (`spgemm-bench
// G3_circuit.mtx.gz --gen uniform:500000:8 --gen poisson2d:700`, num).
#pragma once

#include "cuda/warp_shuffle.cuh"

namespace spgemm::cuda {

// Warp-collective: sorts keys ascending. With a warp-uniform `elements`
// (a power of two), only the first that many elements are sorted, in the
// network's stages up to that size (the others must sort after them).
template <int K>
__device__ __forceinline__ void warp_bitonic_sort(int (&keys)[K], int elements = 32 * K) {
  static_assert(K >= 1 && (K & (K - 1)) == 0, "K must be a power of two");
  const int lane = lane_id();
#pragma unroll
  for (int size = 2; size <= 32 * K; size *= 2) {
    if (size > elements) break;
#pragma unroll
    for (int stride = size / 2; stride > 0; stride /= 2) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        // ascending where bit `size` of the element's index is clear
        const bool ascending = ((k * 32 + lane) & size) == 0;
        if (stride >= 32) {  // a register pair of this lane, k below k + stride / 32
          const int reg = stride / 32;
          if (k & reg) continue;
          const int lo = k, hi = k | reg;
          const int smaller = min(keys[lo], keys[hi]), larger = max(keys[lo], keys[hi]);
          keys[lo] = ascending ? smaller : larger;
          keys[hi] = ascending ? larger : smaller;
        } else {  // lane ^ stride's element k: the lower lane keeps the smaller if ascending
          const int other = __shfl_xor_sync(kFullWarp, keys[k], stride);
          const bool lower = (lane & stride) == 0;
          keys[k] = lower == ascending ? min(keys[k], other) : max(keys[k], other);
        }
      }
    }
  }
}

}  // namespace spgemm::cuda
