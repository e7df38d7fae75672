// SPDX-License-Identifier: Apache-2.0
// How every GPU kernel reads an input operand's CSR structure.
#pragma once

#include "core/matrix.hpp"

namespace spgemm::cuda {

// The structure of an input operand as the kernels see it: positions and
// columns come out zero-based whatever the caller's index base, so only the
// output has to know about the base. Columns are int inside the kernels (the
// plan refuses more than INT32_MAX columns), offsets keep their type.
template <class Offset, class Col>
struct Pattern {
  const Offset* offsets;
  const Col* cols;
  int num_cols;
  int base;  // 0 or 1

  __device__ __forceinline__ Offset begin(int row) const { return offsets[row] - base; }
  __device__ __forceinline__ Offset end(int row) const { return offsets[row + 1] - base; }
  __device__ __forceinline__ int col(Offset i) const { return static_cast<int>(cols[i]) - base; }
};

// An operand's pattern; m == nullptr (no D): offsets nullptr, which the
// kernels read as no entries.
template <class Offset, class Col>
Pattern<Offset, Col> pattern_of(const MatrixDesc* m) {
  if (!m) return {nullptr, nullptr, 0, 0};
  return {static_cast<const Offset*>(m->row_offsets), static_cast<const Col*>(m->col_ind),
          static_cast<int>(m->cols), static_cast<int>(m->base)};
}

}  // namespace spgemm::cuda
