// SPDX-License-Identifier: Apache-2.0
// The numeric phase's sort bins: a warp per row of at most 64 terms, held
// in registers and put in order by a network of shuffles.
// (kernels/numeric.cuh launches it.)
#pragma once

#include "cuda/accumulators/register_row.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/known_columns.cuh"
#include "cuda/kernels/lane_terms.cuh"

namespace spgemm::cuda {

namespace {

// A warp per row of at most 32 * K terms (configs/bins.hpp's sort bins): the
// terms in registers, summed per column (accumulators/register_row.cuh),
// C's row written in column order. reuse: C's columns may hold the row's
// columns already; if they do, only the values are written (rows of 32
// terms, and of 64 whose keys do not pack). Deterministic in
// either mode, with the same bits in the first numeric phase and the later
// ones.
template <int K, bool Addend, class Value, class Offset, class Col>
__global__ void __launch_bounds__(kSortBlockThreads)
    sort_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, bool reuse) {
  // the warps' slots (RegisterRow: values for K > 1, keys for K = 1), raw:
  // Value may have a constructor
  constexpr size_t kSlotBytes = kSortBlockThreads * K * sizeof(Value);
  __shared__ __align__(16) unsigned char slot_bytes[kSlotBytes];
  Value* slots = reinterpret_cast<Value*>(slot_bytes) + (threadIdx.x / 32) * 32 * K;
  const int warps = blockDim.x / 32;
  const RowSet::View rows = row_set.view();
  using Row = RegisterRow<K, Value>;
  // (keys that carry their element's index: K = 1's representatives, or
  // K = 2's terms, write_row_of_terms)
  const bool packed = args.B.num_cols <= Row::kPackedColumns;
  for (int i = blockIdx.x * warps + threadIdx.x / 32; i < rows.size; i += gridDim.x * warps) {
    const int row = rows[i];
    int cols[K];
    Value terms[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      cols[k] = kNoColumn;
      terms[k] = Value(0);
    }
    for_lane_terms<K, Addend>(
        args.A, args.B, args.D, row,
        [&](int k, int col, Offset a, Offset b) {
          cols[k] = col;
          terms[k] = args.product(a, b);
        },
        [&](int k, int col, Offset d) {
          cols[k] = col;
          terms[k] = args.addend(d);
        });
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    // (places at or past len: C's offsets disagree with the terms)
    auto store_value = [&](int j, Value v) {
      if (j < len) args.c_values[out + j] = v;
    };
    auto store_col = [&](int j, int col) {
      if (j < len) args.c_cols[out + j] = static_cast<Col>(col + args.c_base);
    };
    if constexpr (K == 2) {
      // Rows of 64 terms whose keys pack are written from their sorted
      // terms in every phase: faster than finding their columns among C's
      // (`spgemm-bench --gen uniform:500000:8`, num2).
      if (packed) {
        write_row_of_terms(cols, terms, slots, store_col, store_value);
        continue;
      }
    }
    const Row acc(cols, terms);
    int known[K];
    if (reuse && load_known_columns(args, out, len, known) &&
        acc.write_values(known, len, slots, store_value))
      continue;
    acc.write_row(packed, slots, store_col, store_value);
  }
}

}  // namespace

}  // namespace spgemm::cuda
