/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public API from plain C99: C = A * A for a fixed 4 x 4 matrix on the
 * host backend, checked against a product worked out by hand.
 *
 *       | 1 0 2 0 |            |  9  0  2 10 |
 *   A = | 0 3 0 0 |   A * A =  |  0  9  0  0 |
 *       | 4 0 0 5 |            |  4 30  8 35 |
 *       | 0 6 0 7 |            |  0 60  0 49 |
 *
 * e.g. row 2 of A*A = 4 * (row 0 of A) + 5 * (row 3 of A)
 *                   = [4 0 8 0] + [0 30 0 35].
 */
#include <spgemm/spgemm.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK_STATUS(call)                                                                  \
  do {                                                                                      \
    spgemmStatus_t status_ = (call);                                                        \
    if (status_ != SPGEMM_STATUS_SUCCESS) {                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,            \
              spgemmGetErrorName(status_), spgemmGetLastErrorMessage());                    \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

static int multiply_and_check(void) {
  int32_t a_offsets[5] = {0, 2, 3, 5, 7};
  int32_t a_columns[7] = {0, 2, 1, 0, 3, 1, 3};
  double a_values[7] = {1, 2, 3, 4, 5, 6, 7};

  const int32_t want_offsets[5] = {0, 3, 4, 8, 10};
  const int32_t want_columns[10] = {0, 2, 3, 1, 0, 1, 2, 3, 1, 3};
  const double want_values[10] = {9, 2, 10, 9, 4, 30, 8, 35, 60, 49};

  int32_t c_offsets[5];
  int32_t* c_columns = NULL;
  double* c_values = NULL;
  spgemmHandle_t handle = NULL;
  spgemmMatDescr_t A = NULL, C = NULL;
  spgemmPlan_t plan = NULL;
  int64_t nnz_c = -1;
  const double alpha = 1.0;
  int errors = 0;
  int i;
  int64_t row;

  CHECK_STATUS(spgemmCreate(&handle));
  CHECK_STATUS(spgemmCreateCsr(&A, 4, 4, 7, a_offsets, a_columns, a_values, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK_STATUS(spgemmCsrSetMemoryType(A, SPGEMM_MEMORY_HOST));
  /* C's column indices and values do not exist until nnz(C) is known. */
  CHECK_STATUS(spgemmCreateCsr(&C, 4, 4, 0, c_offsets, NULL, NULL, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK_STATUS(spgemmCsrSetMemoryType(C, SPGEMM_MEMORY_HOST));

  CHECK_STATUS(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, A, A, C, CUDA_R_64F));
  CHECK_STATUS(spgemmAnalyze(handle, plan));
  CHECK_STATUS(spgemmSymbolic(handle, plan, &nnz_c));
  if (nnz_c != 10) {
    fprintf(stderr, "nnz(C) = %lld, expected 10\n", (long long)nnz_c);
    return 1;
  }
  c_columns = (int32_t*)malloc((size_t)nnz_c * sizeof *c_columns);
  c_values = (double*)malloc((size_t)nnz_c * sizeof *c_values);
  if (!c_columns || !c_values) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  CHECK_STATUS(spgemmCsrSetPointers(C, c_offsets, c_columns, c_values));
  CHECK_STATUS(spgemmNumeric(handle, plan, &alpha));

  for (i = 0; i < 5; ++i)
    if (c_offsets[i] != want_offsets[i]) {
      fprintf(stderr, "row_offsets[%d] = %d, expected %d\n", i, c_offsets[i], want_offsets[i]);
      ++errors;
    }
  for (i = 0; i < 10 && errors == 0; ++i) {
    if (c_columns[i] != want_columns[i]) {
      fprintf(stderr, "col_ind[%d] = %d, expected %d\n", i, c_columns[i], want_columns[i]);
      ++errors;
    }
    /* Small integers: every product and sum is exact. */
    if (c_values[i] != want_values[i]) {
      fprintf(stderr, "values[%d] = %g, expected %g\n", i, c_values[i], want_values[i]);
      ++errors;
    }
  }

  if (errors == 0) {
    printf("C = A * A:\n");
    for (row = 0; row < 4; ++row) {
      double dense[4] = {0, 0, 0, 0};
      int32_t e;
      for (e = c_offsets[row]; e < c_offsets[row + 1]; ++e) dense[c_columns[e]] = c_values[e];
      printf("  %4g %4g %4g %4g\n", dense[0], dense[1], dense[2], dense[3]);
    }
  }

  free(c_columns);
  free(c_values);
  CHECK_STATUS(spgemmPlanDestroy(plan));
  CHECK_STATUS(spgemmDestroyMatrix(C));
  CHECK_STATUS(spgemmDestroyMatrix(A));
  CHECK_STATUS(spgemmDestroy(handle));
  return errors == 0 ? 0 : 1;
}

int main(void) {
  if (multiply_and_check() != 0) {
    fprintf(stderr, "c_api_example: FAILED\n");
    return 1;
  }
  printf("c_api_example: OK\n");
  return 0;
}
