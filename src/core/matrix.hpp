// A CSR matrix as the caller described it (type-erased, non-owning), and the
// typed views the backends compute on.
#pragma once

#include <spgemm/spgemm.h>

#include <cstdint>

namespace spgemm {

struct MatrixDesc {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  void* row_offsets = nullptr;
  void* col_ind = nullptr;
  void* values = nullptr;
  spgemmIndexType_t offset_type = SPGEMM_INDEX_32I;
  spgemmIndexType_t index_type = SPGEMM_INDEX_32I;
  spgemmIndexBase_t base = SPGEMM_INDEX_BASE_ZERO;
  cudaDataType value_type = CUDA_R_64F;
  spgemmMemoryType_t memory = SPGEMM_MEMORY_DEVICE;
};

// Read-only typed view of an input operand (zero-based).
template <class Value, class Index>
struct CsrView {
  Index rows;
  Index cols;
  const Index* row_offsets;
  const Index* col_ind;
  const Value* values;
};

// The output: row offsets are written by the symbolic phase, columns and
// values by the numeric phase.
template <class Value, class Index>
struct CsrOut {
  Index rows;
  Index cols;
  Index* row_offsets;
  Index* col_ind;
  Value* values;
};

template <class Value, class Index>
CsrView<Value, Index> view_of(const MatrixDesc& m) {
  return {static_cast<Index>(m.rows), static_cast<Index>(m.cols),
          static_cast<const Index*>(m.row_offsets), static_cast<const Index*>(m.col_ind),
          static_cast<const Value*>(m.values)};
}

template <class Value, class Index>
CsrOut<Value, Index> output_of(const MatrixDesc& m) {
  return {static_cast<Index>(m.rows), static_cast<Index>(m.cols),
          static_cast<Index*>(m.row_offsets), static_cast<Index*>(m.col_ind),
          static_cast<Value*>(m.values)};
}

}  // namespace spgemm
