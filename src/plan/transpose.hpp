// op(X) = X^T or X^H as an explicit matrix, owned by the backend that
// computes on it: the structure is built once (at analysis), the values are
// gathered through a stored permutation at every numeric phase (they may
// have changed). The transposed matrix is zero-based, with X's offset and
// index types, and its rows are sorted.
#pragma once

#include "core/matrix.hpp"

namespace spgemm {

class Transpose {
 public:
  virtual ~Transpose() = default;
  // The structure of X^T and the permutation from X's entries.
  virtual void build(const MatrixDesc& x) = 0;
  // X's current values in X^T's order, conjugated for X^H.
  virtual void gather_values(const MatrixDesc& x, bool conjugate) = 0;
  // X^T as a descriptor for the engine (valid after build).
  const MatrixDesc& desc() const { return desc_; }

 protected:
  MatrixDesc desc_;
};

}  // namespace spgemm
