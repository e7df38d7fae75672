// SPDX-License-Identifier: Apache-2.0
// The few memory operations the drop-in does itself, around libspgemm's
// phases: on the handle's stream for device arrays, plain loops for the host
// arrays of the tests (SPGEMM_CUSPARSE_TEST_HOST).
#pragma once

#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>

namespace spgemm_dropin {

struct MemoryOps {
  bool host = false;
  cudaStream_t stream = nullptr;

  // Asynchronous on the stream (device); returns false on a CUDA error.
  bool copy(void* dst, const void* src, size_t bytes) const;
  // A scalar that may be in device memory (device pointer mode): waits for
  // the stream, so the value is the one the stream's work left there.
  bool read_scalar(void* dst, const void* src, size_t bytes) const;
  // Sum over A's entries of the length of B's row at the entry's column:
  // the products of A * B (cusparseSpGEMM_getNumProducts). Waits.
  bool count_products(const void* a_columns, int64_t a_nnz, const void* b_offsets,
                      bool index64, int base, int64_t* products) const;
  // y[i] += beta * x[i] for n values of the type (beta a host scalar).
  bool add_scaled(void* y, const void* x, const void* beta, int64_t n, cudaDataType type) const;
  // Stream-ordered scratch (device) or heap (host); free_scratch(nullptr) ok.
  void* scratch(size_t bytes) const;
  void free_scratch(void* p) const;
};

}  // namespace spgemm_dropin
