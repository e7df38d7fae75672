// SPDX-License-Identifier: Apache-2.0
// The numeric phase's thread bin: a thread per row of at most 32 terms.
// (kernels/numeric.cuh launches it.)
#pragma once

#include "cuda/accumulators/thread_row.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/lane_terms.cuh"

namespace spgemm::cuda {

namespace {

// A thread per row of at most BinPolicy::thread_row_terms terms (configs/bins.hpp's
// thread bin): the row's columns in order and their sums in the thread's
// slots (accumulators/thread_row.cuh), then each of the warp's rows written
// by the whole warp, a column a lane, from slots staggered across the banks
// (ThreadRow::stagger; read in place, a row's slots share one bank:
// `spgemm-bench G3_circuit.mtx.gz --gen poisson2d:700`, num). Later numeric
// phases do the same (finding the row's columns in C and writing only the
// values is slower, `spgemm-bench G3_circuit.mtx.gz`, num2), so the bits
// are the same in all.
template <bool Addend, class Value, class Offset, class Col>
__global__ void __launch_bounds__(BinPolicy::thread_row_block_threads)
    thread_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set) {
  constexpr int kThreads = BinPolicy::thread_row_block_threads,
                kSlots = BinPolicy::thread_row_terms;
  __shared__ int col_slots[kSlots * kThreads];
  // raw: Value may have a constructor
  __shared__ __align__(16) unsigned char value_bytes[kSlots * kThreads * sizeof(Value)];
  const int lane = lane_id();
  const int warp_first = static_cast<int>(threadIdx.x) - lane;  // the warp's thread 0
  const RowSet::View rows = row_set.view();
  for (int first = static_cast<int>(blockIdx.x) * kThreads + warp_first; first < rows.size;
       first += static_cast<int>(gridDim.x) * kThreads) {  // (warp-uniform)
    using Row = ThreadRow<kSlots, kThreads, Value>;
    Row acc{col_slots + threadIdx.x, reinterpret_cast<Value*>(value_bytes) + threadIdx.x};
    Offset out = 0;
    int len = 0;
    if (first + lane < rows.size) {
      const int row = rows[first + lane];
      out = args.c_begin(row);
      len = static_cast<int>(args.c_end(row) - out);
      for_row_terms<Addend>(
          args.A, args.B, args.D, row, [&](Offset a) { return args.a_values[a]; },
          [&](Offset b) { return args.b_values[b]; },
          [&](int col, Value a_ik, Value b_kj) { return acc.add(col, args.term(a_ik, b_kj)); },
          [&](int col, Offset d) { return acc.add(col, args.addend(d)); });
    }
    // the warp's rows one after the other, a column a lane (at most len of
    // them: C's offsets may disagree with the terms)
    const int written = acc.count < len ? acc.count : len;
    // Reconverges the warp after its lanes' rows of different lengths, so
    // that stagger's collectives start from a converged warp; without it the
    // kernel runs markedly slower on G3_circuit and poisson2d:700 (bench/
    // device_ab.sh with and without this line).
    __syncwarp();
    acc.stagger(lane, written);
    for (int r = 0; r < 32; ++r) {
      const int n = __shfl_sync(kFullWarp, written, r);
      const Offset at = shfl(kFullWarp, out, r) + lane;
      if (lane < n) {
        const int slot = warp_first + Row::staggered(r, lane);
        args.c_cols[at] = static_cast<Col>(col_slots[slot] + args.c_base);
        args.c_values[at] = reinterpret_cast<const Value*>(value_bytes)[slot];
      }
    }
    __syncwarp();  // the slots are reused by the warp's next rows
  }
}

}  // namespace

}  // namespace spgemm::cuda
