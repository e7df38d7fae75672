// Host-side launchers of the symbolic and numeric kernels, one launch per bin.
#pragma once

#include "core/context.hpp"
#include "cuda/configs/bins.hpp"
#include "cuda/kernels/row_loop.cuh"

#include <cuda_runtime_api.h>

namespace spgemm::cuda {

// Writes the nnz of every binned row of C into row_nnz. Row counts are only
// on the device: every bin is launched with a grid sized for `rows` rows and
// the kernels read their bin's count themselves (no host round trip).
template <class Index>
void launch_symbolic(const DeviceLimits& limits, const BinLayout& layout, Pattern<Index> A,
                     Pattern<Index> B, int rows, int lanes, const BinCounts* counts,
                     const int* binned_rows, Index* row_nnz, cudaStream_t stream);

template <class Value, class Index>
struct NumericArgs {
  Pattern<Index> A, B;
  const Value* a_values;
  const Value* b_values;
  Value alpha;
  const Index* c_offsets;
  Index* c_cols;
  Value* c_values;
};

// Fills C's columns and values. host_counts are the bin counts read back at
// the end of the symbolic phase, so empty bins are skipped and grids are
// exact.
template <class Value, class Index>
void launch_numeric(const DeviceLimits& limits, const BinLayout& layout,
                    const NumericArgs<Value, Index>& args, int lanes, const BinCounts& host_counts,
                    const BinCounts* counts, const int* binned_rows, cudaStream_t stream);

}  // namespace spgemm::cuda
