// SPDX-License-Identifier: Apache-2.0
// C = A * B through cuSPARSE's generic SpGEMM API: the second, independent
// GPU opinion the tests compare against.
#pragma once

#include "device_product.hpp"

#include <cusparse.h>

namespace spgemm_test {

inline void cusparse_ok(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(status));
}

template <class V>
HostCsr<V> cusparse_spgemm(const HostCsr<V>& hA, const HostCsr<V>& hB) {
  constexpr cudaDataType type = cuda_data_type<V>();
  DeviceArray<int32_t> a_off(hA.row_offsets), a_col(hA.col_ind), b_off(hB.row_offsets),
      b_col(hB.col_ind);
  DeviceArray<V> a_val(hA.values), b_val(hB.values);
  DeviceArray<int32_t> c_off(static_cast<size_t>(hA.rows) + 1);
  cusparseHandle_t handle = nullptr;
  cusparse_ok(cusparseCreate(&handle), "cusparseCreate");
  cusparseSpMatDescr_t A, B, C;
  cusparse_ok(cusparseCreateCsr(&A, hA.rows, hA.cols, hA.nnz(), a_off.ptr, a_col.ptr, a_val.ptr,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                type),
              "A");
  cusparse_ok(cusparseCreateCsr(&B, hB.rows, hB.cols, hB.nnz(), b_off.ptr, b_col.ptr, b_val.ptr,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                type),
              "B");
  cusparse_ok(cusparseCreateCsr(&C, hA.rows, hB.cols, 0, c_off.ptr, nullptr, nullptr,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                type),
              "C");
  cusparseSpGEMMDescr_t spgemm;
  cusparse_ok(cusparseSpGEMM_createDescr(&spgemm), "createDescr");
  const V alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes1 = 0, bytes2 = 0;
  cusparse_ok(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, A, B, &beta, C, type,
                                            CUSPARSE_SPGEMM_DEFAULT, spgemm, &bytes1, nullptr),
              "workEstimation");
  DeviceArray<char> buffer1(bytes1);
  cusparse_ok(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, A, B, &beta, C, type,
                                            CUSPARSE_SPGEMM_DEFAULT, spgemm, &bytes1, buffer1.ptr),
              "workEstimation");
  cusparse_ok(cusparseSpGEMM_compute(handle, op, op, &alpha, A, B, &beta, C, type,
                                     CUSPARSE_SPGEMM_DEFAULT, spgemm, &bytes2, nullptr),
              "compute");
  DeviceArray<char> buffer2(bytes2);
  cusparse_ok(cusparseSpGEMM_compute(handle, op, op, &alpha, A, B, &beta, C, type,
                                     CUSPARSE_SPGEMM_DEFAULT, spgemm, &bytes2, buffer2.ptr),
              "compute");
  int64_t rows, cols, nnz;
  cusparse_ok(cusparseSpMatGetSize(C, &rows, &cols, &nnz), "getSize");
  DeviceArray<int32_t> c_col(static_cast<size_t>(nnz));
  DeviceArray<V> c_val(static_cast<size_t>(nnz));
  cusparse_ok(cusparseCsrSetPointers(C, c_off.ptr, c_col.ptr, c_val.ptr), "setPointers");
  cusparse_ok(cusparseSpGEMM_copy(handle, op, op, &alpha, A, B, &beta, C, type,
                                  CUSPARSE_SPGEMM_DEFAULT, spgemm),
              "copy");
  cuda_ok(cudaDeviceSynchronize(), "cusparse");
  HostCsr<V> out;
  out.rows = rows;
  out.cols = cols;
  out.row_offsets = c_off.download();
  out.col_ind = c_col.download();
  out.values = c_val.download();
  cusparseSpGEMM_destroyDescr(spgemm);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
  return out;
}

}  // namespace spgemm_test
