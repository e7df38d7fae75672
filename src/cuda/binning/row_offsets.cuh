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
// *longest the largest count.
template <class Offset>
void small_row_offsets(Offset* offsets, int rows, Offset base, long long* total, int* longest,
                       cudaStream_t stream);

}  // namespace spgemm::cuda
