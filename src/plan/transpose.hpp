// SPDX-License-Identifier: Apache-2.0
// op(X) = X^T or X^H as an explicit matrix, owned by the backend that
// computes on it: the structure is built once (at analysis), the values are
// gathered through a stored permutation at every numeric phase (they may
// have changed). The transposed matrix is zero-based, with X's offset and
// index types, and its rows are sorted.
#pragma once

#include "core/matrix.hpp"

#include <cstddef>

namespace spgemm {

// X^T's shape and types (zero-based, no arrays yet).
inline MatrixDesc transposed_shape(const MatrixDesc& x) {
  MatrixDesc t = x;
  t.rows = x.cols;
  t.cols = x.rows;
  t.base = SPGEMM_INDEX_BASE_ZERO;
  t.row_offsets = t.col_ind = t.values = nullptr;
  t.replicas = {};  // (replicas of x, not of x^T)
  return t;
}

class Transpose {
 public:
  virtual ~Transpose() = default;
  // The structure of X^T and the permutation from X's entries.
  virtual void build(const MatrixDesc& x) = 0;
  // The most device workspace build and gather_values hold at once, from
  // X's shape and types alone (Engine::workspace_bytes says how).
  virtual size_t workspace_bytes(const MatrixDesc& x) const = 0;
  // X's current values in X^T's order, conjugated for X^H.
  virtual void gather_values(const MatrixDesc& x, bool conjugate) = 0;
  // X^T as a descriptor for the engine (valid after build).
  const MatrixDesc& desc() const { return desc_; }

 protected:
  // desc_ = X^T over the backend's arrays: X's types, zero-based.
  void describe(const MatrixDesc& x, void* offsets, void* cols, void* values) {
    desc_ = transposed_shape(x);
    desc_.row_offsets = offsets;
    desc_.col_ind = cols;
    desc_.values = values;
  }

  MatrixDesc desc_;
};

}  // namespace spgemm
