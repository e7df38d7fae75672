// SPDX-License-Identifier: Apache-2.0
// Numeric phase: the sorted columns and the values of every row of C. The
// launches of the bins' kernels, which live in kernels/numeric/, one file a
// kind of row. Compiled once per value type and index layout, so that they
// build in parallel: CMakeLists.txt makes a source file per pair from
// numeric_instance.cu.in.
#pragma once

#include "cuda/configs/launch.cuh"
#include "cuda/dispatch/choice.hpp"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/numeric/hash_rows.cuh"
#include "cuda/kernels/numeric/split_rows.cuh"
#include "cuda/kernels/numeric/dense_rows.cuh"
#include "cuda/kernels/numeric/sort_rows.cuh"
#include "cuda/kernels/numeric/thread_rows.cuh"

#include "core/values.hpp"

#include <cstdint>
#include <functional>
#include <type_traits>

namespace spgemm::cuda {

namespace {

// The kernels are compiled with and without an addend D (the loop
// over D's entries, even when skipped at run time, slows the warp kernels by
// 40%: `spgemm-bench G3_circuit.mtx.gz`, num). They add the terms in a fixed
// order (kernels/ordered_loop.cuh): one mode, the same bits in every run.

// A hash bin's launch of `kernel` (an instance of hash_numeric_kernel).
template <class Kernel, class Value, class Offset, class Col>
void launch_hash_bin(Kernel kernel, const DeviceLimits& limits, const HashBinLaunch& b,
                     RowSet set, int rows_in_set, const NumericArgs<Value, Offset, Col>& args,
                     bool reuse, cudaStream_t stream) {
  const int threads = b.spec.block_threads;
  const size_t smem = b.smem_bytes;
  const int grid =
      grid_for(rows_in_set, b.rows_per_block, resident_blocks(kernel, threads, smem, limits));
  launch(kernel, grid, threads, smem, stream, args, set, log2_of_pow2(b.spec.table_size), reuse);
}

// The numeric phase's launches: for each of the schedule's launches the
// kernel that Choices::numeric_kernel names (dispatch/choice.hpp).
template <bool Addend, class Value, class Offset, class Col>
void launch_bins(const Choices& choices, const NumericArgs<Value, Offset, Col>& args, int rows,
                 int lanes, bool reuse, const Schedule& s, const LaunchStreams& streams) {
  const DeviceLimits& limits = choices.limits();
  const BinLayout& layout = choices.layout(Phase::numeric);
  for_each_scheduled_bin(layout, rows, s, streams, [&](int bin, RowSet set, int rows_in_set,
                                                       cudaStream_t stream) {
    auto block = hash_numeric_kernel<Group::block, Addend, Value, Offset, Col>;
    auto lean = hash_numeric_kernel<Group::block, Addend, Value, Offset, Col,
                                    NumericPolicy::lean_block_threads,
                                    NumericPolicy::lean_block_min_blocks>;
    const HashBinLaunch* b = bin < layout.dense_bin() ? &layout.hash[bin] : nullptr;
    const size_t tables = b ? b->smem_bytes : 0;
    const auto resident = [&](NumericKernel k) {
      return k == NumericKernel::block_hash_lean
                 ? resident_blocks(lean, b->spec.block_threads, tables, limits)
                 : resident_blocks(block, b->spec.block_threads, tables, limits);
    };
    const NumericLaunch q{bin, rows_in_set, s.thread_rows, s.split.parts > 0};
    // (by reference: a std::function holding the lambda's captures would
    // allocate at every launch)
    switch (choices.numeric_kernel(q, std::cref(resident))) {
      case NumericKernel::dense_window: {
        auto kernel = dense_numeric_kernel<Addend, Value, Offset, Col>;
        const size_t smem_limit = dynamic_smem_limit(kernel, limits);
        // window * sizeof(Value) bytes of values + window / 8 bytes of bitmask
        const int window = static_cast<int>(smem_limit * 8 / (8 * sizeof(Value) + 1)) / 32 * 32;
        const size_t smem = sizeof(Value) * window + window / 8;
        const int grid = grid_for(
            rows_in_set, 1, resident_blocks(kernel, BinPolicy::dense_block_threads, smem, limits));
        launch(kernel, grid, BinPolicy::dense_block_threads, smem, stream, args, set, window, lanes,
               reuse);
        return;
      }
      case NumericKernel::thread_row: {
        auto kernel = thread_numeric_kernel<Addend, Value, Offset, Col>;
        const int grid = grid_for(rows_in_set, BinPolicy::thread_row_block_threads,
                                  resident_blocks(kernel, BinPolicy::thread_row_block_threads, 0,
                                                  limits, NumericPolicy::thread_row_carveout));
        launch(kernel, grid, BinPolicy::thread_row_block_threads, 0, stream, args, set);
        return;
      }
      case NumericKernel::sort_row_1:
      case NumericKernel::sort_row_2:
        with_sort_registers(layout.sort_registers(bin), [&](auto k) {
          auto kernel = sort_numeric_kernel<k, Addend, Value, Offset, Col>;
          const int grid = grid_for(rows_in_set, kSortBlockThreads / 32,
                                    resident_blocks(kernel, kSortBlockThreads, 0, limits));
          launch(kernel, grid, kSortBlockThreads, 0, stream, args, set, reuse);
        });
        return;
      case NumericKernel::split_row:
        if constexpr (!Addend) {  // (Choices::split_parts: only there)
          auto kernel = split_numeric_kernel<Value, Offset, Col>;
          const int threads = b->spec.block_threads;
          const size_t smem = b->smem_bytes;
          const int grid = grid_for(static_cast<long long>(rows_in_set) * s.split.parts, 1,
                                    resident_blocks(kernel, threads, smem, limits));
          launch(kernel, grid, threads, smem, stream, args, set, s.split);
          return;
        }
        break;
      case NumericKernel::warp_hash:
        launch_hash_bin(hash_numeric_kernel<Group::warp, Addend, Value, Offset, Col>, limits, *b,
                        set, rows_in_set, args, reuse, stream);
        return;
      case NumericKernel::block_hash:
        launch_hash_bin(block, limits, *b, set, rows_in_set, args, reuse, stream);
        return;
      case NumericKernel::block_hash_lean:
        launch_hash_bin(lean, limits, *b, set, rows_in_set, args, reuse, stream);
        return;
      case NumericKernel::count:
        break;
    }
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "no numeric kernel for the choice");
  });
}

}  // namespace

template <class Value, class Offset, class Col>
void launch_numeric(const Choices& choices, const NumericArgs<Value, Offset, Col>& args, int rows,
                    int lanes, bool reuse, const Schedule& schedule,
                    const LaunchStreams& streams) {
  with_flag(args.D.offsets != nullptr, [&](auto addend) {
    launch_bins<addend>(choices, args, rows, lanes, reuse, schedule, streams);
  });
}

// Instantiates launch_numeric for one value type and index layout.
#define SPGEMM_INSTANTIATE_NUMERIC(Value, Offset, Col)                                        \
  template void launch_numeric<Value, Offset, Col>(                                           \
      const Choices&, const NumericArgs<Value, Offset, Col>&, int, int, bool, const Schedule&, \
      const LaunchStreams&);

}  // namespace spgemm::cuda
