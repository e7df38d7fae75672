// SPDX-License-Identifier: Apache-2.0
// Dense accumulators for rows too long for a shared-memory hash table: the
// row's column range is cut into windows that fit shared memory; a bitmask
// marks which columns occur (symbolic) and a value array beside it sums them
// (numeric). Output comes out sorted by construction, so these rows need no
// sorting pass.
#pragma once

#include <cstdint>

namespace spgemm::cuda {

struct WindowBitmask {
  uint32_t* words;

  __device__ void set(int offset) const {
    atomicOr(&words[offset >> 5], 1u << (offset & 31));
  }
};

template <class Value>
struct DenseWindow {
  Value* values;  // terms are added by kernels/ordered_loop.cuh's accumulate_row
  WindowBitmask mask;
};

}  // namespace spgemm::cuda
