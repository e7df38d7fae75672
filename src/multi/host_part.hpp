// SPDX-License-Identifier: Apache-2.0
// The host's part of a CPU+GPU hybrid product (SPGEMM_HOST_DEVICE in
// spgemmSetDevices): its rows of op(A) (and D) and all of B copied from the
// operands' device into pinned host memory (structures at analyze, values at
// every numeric phase), the host backend's product of them, and its rows of
// C in pinned memory, from where they are copied into C or left as a row
// block.
#pragma once

#include "core/error.hpp"
#include "host/host_engine.hpp"
#include "multi/row_blocks.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace spgemm::multi {

// Pinned host memory: copies between it and a device run asynchronously and
// at the link's full rate.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void reallocate(int64_t n) {
    release();
    if (n > 0 && cudaMallocHost(reinterpret_cast<void**>(&ptr_), sizeof(T) * n) != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      fail(SPGEMM_STATUS_ALLOC_FAILED,
           "the host part: cudaMallocHost of " + std::to_string(sizeof(T) * n) + " bytes failed");
    }
  }
  T* get() const { return ptr_; }

 private:
  void release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
};

template <class Value, class Offset, class Col>
struct HostPart : RowRange {
  MatrixDesc A, B, D, C;
  std::unique_ptr<Engine> engine = make_host_engine<Value, Offset, Col>();
  PinnedBuffer<Offset> a_offsets, b_offsets, d_offsets, c_offsets;
  PinnedBuffer<Col> a_cols, b_cols, d_cols, c_cols;
  PinnedBuffer<Value> a_values, b_values, d_values, c_values;
  float numeric_ms = -1;  // the last numeric phase, copies included

  HostPart(const cuda::RowSplit& cut, int p, const Operands& in) : RowRange(cut, p, in) {}

  Operands operands() const { return {&A, &B, has_d ? &D : nullptr}; }

  // The structures, copied on `stream` (of the operands' device) and waited
  // for; row offsets shifted to start at the index base.
  void place_structures(const Operands& in, cudaStream_t stream) {
    place_rows(*in.A, first_row, rows, a_first, a_nnz, A, a_offsets, a_cols, a_values, stream);
    if (has_d)
      place_rows(*in.D, first_row, rows, d_first, d_nnz, D, d_offsets, d_cols, d_values, stream);
    place_rows(*in.B, 0, in.B->rows, 0, in.B->nnz, B, b_offsets, b_cols, b_values, stream);
    SPGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int64_t i = 0; i <= rows; ++i) {
      a_offsets.get()[i] -= static_cast<Offset>(a_first);
      if (has_d) d_offsets.get()[i] -= static_cast<Offset>(d_first);
    }
    c_offsets.reallocate(rows + 1);
  }

  // The values as they are now, copied on `stream` (not waited for); returns
  // the bytes.
  int64_t place_values(const Operands& in, cudaStream_t stream) {
    fetch(a_values.get(), static_cast<const Value*>(in.A->values) + a_first, a_nnz, stream);
    fetch(b_values.get(), static_cast<const Value*>(in.B->values), in.B->nnz, stream);
    if (has_d)
      fetch(d_values.get(), static_cast<const Value*>(in.D->values) + d_first, d_nnz, stream);
    return static_cast<int64_t>(sizeof(Value)) * (a_nnz + in.B->nnz + (has_d ? d_nnz : 0));
  }

  // C's descriptor for the symbolic phase: C's types, the part's rows, its
  // own row offsets.
  void describe_c(const MatrixDesc& whole) {
    C = whole;
    C.rows = rows;
    C.nnz = 0;
    C.memory = SPGEMM_MEMORY_HOST;
    C.row_offsets = c_offsets.get();
    C.col_ind = C.values = nullptr;
  }

  // After the symbolic phase: C's column indices and values of its own.
  void own_c() {
    c_cols.reallocate(c_nnz);
    c_values.reallocate(c_nnz);
    C.nnz = c_nnz;
    C.col_ind = c_cols.get();
    C.values = c_values.get();
  }

 private:
  template <class T>
  static void fetch(T* to, const T* from, int64_t n, cudaStream_t stream) {
    if (n > 0)
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(to, from, sizeof(T) * n, cudaMemcpyDeviceToHost, stream));
  }

  // Rows [first_row, first_row + rows) of m, entries [first, first + nnz):
  // row offsets (unshifted) and columns copied, values allocated.
  static void place_rows(const MatrixDesc& m, int64_t first_row, int64_t rows, int64_t first,
                         int64_t nnz, MatrixDesc& out, PinnedBuffer<Offset>& offsets,
                         PinnedBuffer<Col>& cols, PinnedBuffer<Value>& values,
                         cudaStream_t stream) {
    out = m;
    out.rows = rows;
    out.nnz = nnz;
    out.memory = SPGEMM_MEMORY_HOST;
    offsets.reallocate(rows + 1);
    cols.reallocate(nnz);
    values.reallocate(nnz);
    fetch(offsets.get(), static_cast<const Offset*>(m.row_offsets) + first_row, rows + 1, stream);
    fetch(cols.get(), static_cast<const Col*>(m.col_ind) + first, nnz, stream);
    out.row_offsets = offsets.get();
    out.col_ind = cols.get();
    out.values = values.get();
  }
};

}  // namespace spgemm::multi
