// SPDX-License-Identifier: Apache-2.0
#include "cusparse_reuse.hpp"

#include <cuComplex.h>

#include <algorithm>

namespace bench {

namespace {

constexpr auto kOp = CUSPARSE_OPERATION_NON_TRANSPOSE;
constexpr auto kAlg = CUSPARSE_SPGEMM_DEFAULT;

size_t value_bytes(cudaDataType type) {
  switch (type) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F:
    case CUDA_C_32F: return 8;
    default: return 16;
  }
}

// alpha = 1 and beta = 0 in `type`.
struct Scalars {
  const void* one;
  const void* zero;
};
Scalars scalars(cudaDataType type) {
  static const float f[2] = {1, 0};
  static const double d[2] = {1, 0};
  static const cuFloatComplex c[2] = {{1, 0}, {0, 0}};
  static const cuDoubleComplex z[2] = {{1, 0}, {0, 0}};
  switch (type) {
    case CUDA_R_32F: return {&f[0], &f[1]};
    case CUDA_R_64F: return {&d[0], &d[1]};
    case CUDA_C_32F: return {&c[0], &c[1]};
    default: return {&z[0], &z[1]};
  }
}

}  // namespace

void reuse_setup(cusparseHandle_t handle, cusparseSpMatDescr_t a, cusparseSpMatDescr_t b,
                 int64_t rows, int64_t cols, IndexWidths widths, cudaDataType type,
                 const MemCtx& mem, ReuseProduct& out) {
  out.rows = rows;
  out.cols = cols;
  cusparseSpMatDescr_t c = nullptr;
  check_cusparse(cusparseCreateCsr(&c, rows, cols, 0, nullptr, nullptr, nullptr,
                                   cusparse_index_type(widths.offsets),
                                   cusparse_index_type(widths.columns),
                                   CUSPARSE_INDEX_BASE_ZERO, type),
                 "cusparseCreateCsr(C)");
  out.c.reset(c);
  cusparseSpGEMMDescr_t sp = nullptr;
  check_cusparse(cusparseSpGEMM_createDescr(&sp), "cusparseSpGEMM_createDescr");
  out.descr.reset(sp);
  size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  check_cusparse(
      cusparseSpGEMMreuse_workEstimation(handle, kOp, kOp, a, b, c, kAlg, sp, &s1, nullptr),
      "cusparseSpGEMMreuse_workEstimation (size)");
  Buffer buffer1 = Buffer::allocate(mem, s1, "cuSPARSE reuse buffer 1");
  check_cusparse(
      cusparseSpGEMMreuse_workEstimation(handle, kOp, kOp, a, b, c, kAlg, sp, &s1, buffer1.get()),
      "cusparseSpGEMMreuse_workEstimation");
  check_cusparse(cusparseSpGEMMreuse_nnz(handle, kOp, kOp, a, b, c, kAlg, sp, &s2, nullptr, &s3,
                                         nullptr, &s4, nullptr),
                 "cusparseSpGEMMreuse_nnz (sizes)");
  Buffer buffer2 = Buffer::allocate(mem, s2, "cuSPARSE reuse buffer 2");
  Buffer buffer3 = Buffer::allocate(mem, s3, "cuSPARSE reuse buffer 3");
  out.buffer4 = Buffer::allocate(mem, s4, "cuSPARSE reuse buffer 4");
  check_cusparse(cusparseSpGEMMreuse_nnz(handle, kOp, kOp, a, b, c, kAlg, sp, &s2, buffer2.get(),
                                         &s3, buffer3.get(), &s4, out.buffer4.get()),
                 "cusparseSpGEMMreuse_nnz");
  buffer1.reset();
  buffer2.reset();
  out.nnz = allocate_c_arrays(c, rows, widths, value_bytes(type), mem, out.row_offsets,
                              out.col_ind, out.values);
  check_cusparse(cusparseSpGEMMreuse_copy(handle, kOp, kOp, a, b, c, kAlg, sp, &s5, nullptr),
                 "cusparseSpGEMMreuse_copy (size)");
  out.buffer5 = Buffer::allocate(mem, s5, "cuSPARSE reuse buffer 5");
  check_cusparse(
      cusparseSpGEMMreuse_copy(handle, kOp, kOp, a, b, c, kAlg, sp, &s5, out.buffer5.get()),
      "cusparseSpGEMMreuse_copy");
  buffer3.reset();
  out.peak = std::max(s1 + s2 + s3 + s4, s3 + s4 + s5);
  out.kept = s4 + s5;
  reuse_compute(handle, a, b, type, out);
}

void reuse_compute(cusparseHandle_t handle, cusparseSpMatDescr_t a, cusparseSpMatDescr_t b,
                   cudaDataType type, ReuseProduct& p) {
  const Scalars s = scalars(type);
  check_cusparse(cusparseSpGEMMreuse_compute(handle, kOp, kOp, s.one, a, b, s.zero, p.c.get(),
                                             type, kAlg, p.descr.get()),
                 "cusparseSpGEMMreuse_compute");
}

}  // namespace bench
