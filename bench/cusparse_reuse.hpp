// SPDX-License-Identifier: Apache-2.0
// cuSPARSE's structure-reuse family (cusparseSpGEMMreuse_*) for C = A * B in
// the index layout the caller gives, as PETSc and AmgX call it for a product
// whose values change, with the buffers NVIDIA's documentation frees and
// keeps: shared by spgemm-bench --reuse and spgemm-amg-bench.
#pragma once

#include "util.hpp"

#include <cstddef>
#include <cstdint>

namespace bench {

// One product set up for reuse_compute: C's arrays (from `mem`), its
// descriptors, and the buffers reuse_compute needs (4 and 5).
struct ReuseProduct {
  Buffer row_offsets, col_ind, values, buffer4, buffer5;
  CusparseMat c;
  CusparseSpgemm descr;
  int64_t rows = 0, cols = 0, nnz = 0;
  size_t peak = 0;  // the most buffer bytes held at once during the setup
  size_t kept = 0;  // buffer bytes kept for reuse_compute
};

// The first full run: reuse_workEstimation, reuse_nnz, C allocated,
// reuse_copy, and one reuse_compute (C = A * B). A is rows x k, B k x cols;
// C's arrays get the index widths given.
void reuse_setup(cusparseHandle_t handle, cusparseSpMatDescr_t a, cusparseSpMatDescr_t b,
                 int64_t rows, int64_t cols, IndexWidths widths, cudaDataType type,
                 const MemCtx& mem, ReuseProduct& out);
// C = A * B again with A's and B's current values.
void reuse_compute(cusparseHandle_t handle, cusparseSpMatDescr_t a, cusparseSpMatDescr_t b,
                   cudaDataType type, ReuseProduct& p);

}  // namespace bench
