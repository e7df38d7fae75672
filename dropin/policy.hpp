// SPDX-License-Identifier: Apache-2.0
// Which SpGEMM requests the drop-in computes with libspgemm: only those whose
// answer it reproduces exactly; everything else goes to the real cuSPARSE,
// with the reason. Decided at a descriptor's first call (workEstimation) and
// kept for the descriptor's life. Pure functions: unit-tested without a GPU.
#pragma once

#include "real_cusparse.hpp"

#include <cstdint>
#include <string>

namespace spgemm_dropin {

// A matrix descriptor as the real cuSPARSE getters report it.
struct MatInfo {
  bool readable = false;  // the getters accepted the descriptor
  cusparseFormat_t format = CUSPARSE_FORMAT_CSR;
  int batches = 1;
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* offsets = nullptr;
  const void* columns = nullptr;
  const void* values = nullptr;
  cusparseIndexType_t offset_type = CUSPARSE_INDEX_32I;
  cusparseIndexType_t index_type = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType value_type = CUDA_R_32F;
};

MatInfo read_matrix(const RealCusparse& real, cusparseConstSpMatDescr_t mat);

enum class Api { plain, reuse };

struct Request {
  Api api = Api::plain;
  cusparseOperation_t op_a = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseOperation_t op_b = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  cudaDataType compute_type = CUDA_R_32F;  // plain API only
  cusparsePointerMode_t pointer_mode = CUSPARSE_POINTER_MODE_HOST;
  const void* alpha = nullptr;  // plain API only
  const void* beta = nullptr;   // plain API only
  MatInfo a, b, c;
};

struct Decision {
  bool take = false;
  std::string reason;  // why it falls back; what it takes when take
};

Decision decide(const Request& request);

// *beta == 0 for a host scalar of the value type (complex: both parts).
bool scalar_is_zero(const void* value, cudaDataType type);
// Bytes of one value / one index of the type; 0 for types not taken.
size_t value_bytes(cudaDataType type);
size_t index_bytes(cusparseIndexType_t type);

}  // namespace spgemm_dropin
