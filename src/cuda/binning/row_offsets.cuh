// C's row offsets from its row counts for small products (configs/bins.hpp):
// one block of kRowOffsetsThreads does what the general path does with CUB
// (a 64-bit total, then an exclusive scan in place) and also finds the
// longest row, which picks the numeric phase's kernel. One launch instead of
// three, and no CUB scratch.
#pragma once

#include <cuda_runtime_api.h>

namespace spgemm::cuda {

// offsets[0, rows) holds the row counts on entry; on exit offsets[0, rows]
// are C's row offsets starting at `base`, *total the 64-bit nnz(C) and
// *longest the largest count. With live_rows (device) 0 it writes nothing:
// the gate of a small product that turned out not to be one
// (analysis.cuh's ProductStats::small_rows).
template <class Offset>
void small_row_offsets(Offset* offsets, int rows, Offset base, long long* total, int* longest,
                       const int* live_rows, cudaStream_t stream);

}  // namespace spgemm::cuda
