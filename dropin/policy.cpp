// SPDX-License-Identifier: Apache-2.0
#include "policy.hpp"

#include <complex>

namespace spgemm_dropin {
namespace {

const char* value_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return "R_32F";
    case CUDA_R_64F: return "R_64F";
    case CUDA_C_32F: return "C_32F";
    case CUDA_C_64F: return "C_64F";
    case CUDA_R_16F: return "R_16F";
    case CUDA_R_16BF: return "R_16BF";
    default: return "other";
  }
}

}  // namespace

size_t value_bytes(cudaDataType type) {
  switch (type) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
  }
}

size_t index_bytes(cusparseIndexType_t type) {
  return type == CUSPARSE_INDEX_32I ? 4 : type == CUSPARSE_INDEX_64I ? 8 : 0;
}

bool scalar_is_zero(const void* value, cudaDataType type) {
  if (!value) return false;
  switch (type) {
    case CUDA_R_32F: return *static_cast<const float*>(value) == 0.0f;
    case CUDA_R_64F: return *static_cast<const double*>(value) == 0.0;
    case CUDA_C_32F: return *static_cast<const std::complex<float>*>(value) == 0.0f;
    case CUDA_C_64F: return *static_cast<const std::complex<double>*>(value) == 0.0;
    default: return false;
  }
}

MatInfo read_matrix(const RealCusparse& real, cusparseConstSpMatDescr_t mat) {
  MatInfo m;
  if (!mat) return m;
  if (real.sp_mat_get_format(mat, &m.format) != CUSPARSE_STATUS_SUCCESS) return m;
  if (m.format != CUSPARSE_FORMAT_CSR) {
    m.readable = true;  // readable, and not CSR: decide() says so
    return m;
  }
  if (real.sp_mat_get_strided_batch(mat, &m.batches) != CUSPARSE_STATUS_SUCCESS) return m;
  if (real.const_csr_get(mat, &m.rows, &m.cols, &m.nnz, &m.offsets, &m.columns, &m.values,
                         &m.offset_type, &m.index_type, &m.base,
                         &m.value_type) != CUSPARSE_STATUS_SUCCESS)
    return m;
  m.readable = true;
  return m;
}

Decision decide(const Request& q) {
  auto no = [](std::string why) { return Decision{false, std::move(why)}; };
  const bool reuse = q.api == Api::reuse;
  if (!q.a.readable || !q.b.readable || !q.c.readable)
    return no("a matrix descriptor the real getters refuse");
  if (q.a.format != CUSPARSE_FORMAT_CSR || q.b.format != CUSPARSE_FORMAT_CSR ||
      q.c.format != CUSPARSE_FORMAT_CSR)
    return no("a matrix is not CSR");
  if (q.a.batches != 1 || q.b.batches != 1 || q.c.batches != 1)
    return no("batched matrices");
  if (q.op_a != CUSPARSE_OPERATION_NON_TRANSPOSE || q.op_b != CUSPARSE_OPERATION_NON_TRANSPOSE)
    return no("opA/opB other than NON_TRANSPOSE (cuSPARSE's own status)");
  const bool alg_taken =
      reuse ? (q.alg == CUSPARSE_SPGEMM_DEFAULT || q.alg == CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC ||
               q.alg == CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC)
            : (q.alg == CUSPARSE_SPGEMM_DEFAULT || q.alg == CUSPARSE_SPGEMM_ALG1);
  if (!alg_taken) return no("algorithm " + std::to_string(static_cast<int>(q.alg)));
  const cudaDataType type = q.a.value_type;
  if (value_bytes(type) == 0) return no(std::string("value type ") + value_name(type));
  if (q.b.value_type != type || q.c.value_type != type)
    return no("value types of A, B, C differ");
  if (!reuse && q.compute_type != type) return no("compute type differs from the value type");
  for (const MatInfo* m : {&q.a, &q.b, &q.c})
    if (m->offset_type != m->index_type)
      return no("row offsets and column indices of different types");
  const cusparseIndexType_t index = q.a.index_type;
  if (q.b.index_type != index || q.c.index_type != index)
    return no("index types of A, B, C differ");
  if (index != CUSPARSE_INDEX_32I && !(index == CUSPARSE_INDEX_64I && !reuse))
    return no(reuse ? "reuse API with indices other than 32-bit" : "16-bit indices");
  if (q.b.base != q.a.base || q.c.base != q.a.base) return no("index bases of A, B, C differ");
  if (q.a.cols != q.b.rows || q.c.rows != q.a.rows || q.c.cols != q.b.cols)
    return no("dimensions do not match (cuSPARSE's own status)");
  for (const MatInfo* m : {&q.a, &q.b})
    if ((m->rows > 0 && !m->offsets) || (m->nnz > 0 && (!m->columns || !m->values)))
      return no("A or B has NULL arrays (cuSPARSE's own status)");
  if (!reuse) {
    if (q.pointer_mode != CUSPARSE_POINTER_MODE_HOST) return no("device pointer mode");
    if (!q.alpha || !q.beta) return no("alpha or beta NULL (cuSPARSE's own status)");
    if (!scalar_is_zero(q.beta, type)) return no("beta != 0");
  }
  return Decision{true, std::string(value_name(type)) +
                            (index == CUSPARSE_INDEX_32I ? " 32-bit" : " 64-bit") + " indices"};
}

}  // namespace spgemm_dropin
