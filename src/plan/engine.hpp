// The interface every backend implements for one product C = alpha*A*B.
// Engines re-read the descriptors on every call, so pointers changed with
// spgemmCsrSetPointers between calls are honoured.
#pragma once

#include "core/matrix.hpp"

#include <cstdint>

namespace spgemm {

class Engine {
 public:
  virtual ~Engine() = default;
  // Throws INVALID_VALUE naming the first defect of m's CSR structure
  // (core/csr_checks.hpp). m's row offsets are not NULL.
  virtual void check_structure(const MatrixDesc& m, const char* name) = 0;
  // Row statistics and binning from the structure of A and B.
  virtual void analyze(const MatrixDesc& A, const MatrixDesc& B) = 0;
  // Writes C's row offsets; returns nnz(C) (64-bit, checked by the caller).
  virtual int64_t symbolic(const MatrixDesc& A, const MatrixDesc& B, MatrixDesc& C) = 0;
  // Writes C's column indices and values; alpha is a host value.
  virtual void numeric(const MatrixDesc& A, const MatrixDesc& B, MatrixDesc& C,
                       const void* alpha) = 0;
};

}  // namespace spgemm
