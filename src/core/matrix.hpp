// SPDX-License-Identifier: Apache-2.0
// A CSR matrix as the caller described it (type-erased, non-owning), and the
// typed views the backends compute on.
#pragma once

#include <spgemm/spgemm.h>

#include <array>
#include <cstdint>
#include <limits>

namespace spgemm {

// The index layouts every backend is instantiated for, as (offset type,
// column index type): 32/32, 64/32 and 64/64, as in cuSPARSE. X is a macro
// taking the two types.
#define SPGEMM_FOR_EACH_INDEX_LAYOUT(X) \
  X(int32_t, int32_t)                   \
  X(int64_t, int32_t)                   \
  X(int64_t, int64_t)

// The same matrix, structure and values, on another device
// (spgemmCsrSetReplica); device -1: no replica.
struct Replica {
  int device = -1;
  void* row_offsets = nullptr;
  void* col_ind = nullptr;
  void* values = nullptr;
};

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
  // Read in place by a part of a split product on their devices.
  std::array<Replica, SPGEMM_MAX_DEVICES> replicas{};

  // The replica on `device`, or nullptr.
  const Replica* replica_on(int device) const {
    for (const Replica& r : replicas)
      if (r.device >= 0 && r.device == device) return &r;
    return nullptr;
  }
};

// Whether two descriptors describe the same CSR structure in the same arrays
// (C = A * A: checked once, fingerprinted once).
inline bool same_structure(const MatrixDesc& a, const MatrixDesc& b) {
  return a.row_offsets == b.row_offsets && a.col_ind == b.col_ind && a.rows == b.rows &&
         a.cols == b.cols && a.nnz == b.nnz && a.offset_type == b.offset_type &&
         a.index_type == b.index_type && a.base == b.base;
}

// The largest nnz a matrix with m's offset type and index base can hold.
inline int64_t max_nnz(const MatrixDesc& m) {
  const int64_t max_offset = m.offset_type == SPGEMM_INDEX_32I
                                 ? std::numeric_limits<int32_t>::max()
                                 : std::numeric_limits<int64_t>::max();
  return max_offset - m.base;
}

// Typed host-side view of a CSR matrix: begin/end/col come out zero-based
// whatever the index base.
template <class Value, class Offset, class Col>
struct CsrView {
  int64_t rows;
  int64_t cols;
  Offset* offsets;
  Col* col_ind;
  Value* values;
  int base;

  int64_t begin(int64_t row) const { return static_cast<int64_t>(offsets[row]) - base; }
  int64_t end(int64_t row) const { return static_cast<int64_t>(offsets[row + 1]) - base; }
  int64_t col(int64_t i) const { return static_cast<int64_t>(col_ind[i]) - base; }
  // The entries its rows hold; a matrix of no rows holds none and may have
  // no arrays at all (offsets NULL), so nothing is read then.
  int64_t entries() const { return rows > 0 ? end(rows - 1) - begin(0) : 0; }
};

template <class Value, class Offset, class Col>
CsrView<Value, Offset, Col> view_of(const MatrixDesc& m) {
  return {m.rows,
          m.cols,
          static_cast<Offset*>(m.row_offsets),
          static_cast<Col*>(m.col_ind),
          static_cast<Value*>(m.values),
          static_cast<int>(m.base)};
}

}  // namespace spgemm
