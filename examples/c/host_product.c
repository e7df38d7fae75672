// SPDX-License-Identifier: Apache-2.0
/*
 * C = A * A on host-memory matrices: the same API and workflow as
 * gpu_product.c, with every descriptor marked SPGEMM_MEMORY_HOST, so the
 * library's multithreaded CPU backend computes the product and no GPU is
 * needed. The host backend is synchronous: C is ready when a call returns.
 * After the first product A's values change (same structure) and only the
 * numeric phase runs again. Both results are checked against a dense product
 * computed here.
 *
 *       | 1 0 2 0 |            |  9  0  2 10 |
 *   A = | 0 3 0 0 |   A * A =  |  0  9  0  0 |
 *       | 4 0 0 5 |            |  4 30  8 35 |
 *       | 0 6 0 7 |            |  0 60  0 49 |
 *
 * Exits 0 on success, 1 on a failure or a wrong result.
 */
#include <spgemm/spgemm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Every call is checked; a failure prints where and why, then exits. */
#define CHECK_SPGEMM(call)                                                            \
  do {                                                                                \
    spgemmStatus_t s_ = (call);                                                       \
    if (s_ != SPGEMM_STATUS_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,              \
              spgemmGetErrorName(s_), spgemmGetLastErrorMessage());                   \
      exit(EXIT_FAILURE);                                                             \
    }                                                                                 \
  } while (0)

enum { N = 4, NNZ_A = 7 };

/* The serial reference: dense C = A * A, then C (CSR) compared with it. */
static int matches_reference(const int32_t* a_offsets, const int32_t* a_columns,
                             const double* a_values, int64_t nnz_c, const int32_t* c_offsets,
                             const int32_t* c_columns, const double* c_values) {
  double want[N][N] = {{0}}, got[N][N] = {{0}};
  int64_t want_nnz = 0;
  for (int i = 0; i < N; ++i)
    for (int32_t ka = a_offsets[i]; ka < a_offsets[i + 1]; ++ka)
      for (int32_t kb = a_offsets[a_columns[ka]]; kb < a_offsets[a_columns[ka] + 1]; ++kb)
        want[i][a_columns[kb]] += a_values[ka] * a_values[kb];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) want_nnz += want[i][j] != 0.0; /* positive values: no cancellation */
  if (nnz_c != want_nnz || c_offsets[0] != 0 || c_offsets[N] != nnz_c) return 0;
  for (int i = 0; i < N; ++i)
    for (int32_t k = c_offsets[i]; k < c_offsets[i + 1]; ++k) {
      if (k < 0 || k >= nnz_c || c_columns[k] < 0 || c_columns[k] >= N) return 0;
      if (k > c_offsets[i] && c_columns[k] <= c_columns[k - 1]) return 0; /* sorted rows */
      got[i][c_columns[k]] = c_values[k];
    }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      if (fabs(got[i][j] - want[i][j]) > 1e-12 * fabs(want[i][j])) return 0;
  return 1;
}

static void print_csr(const char* title, const int32_t* offsets, const int32_t* columns,
                      const double* values) {
  printf("%s\n", title);
  for (int i = 0; i < N; ++i) {
    double row[N] = {0};
    for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k) row[columns[k]] = values[k];
    printf("  %4g %4g %4g %4g\n", row[0], row[1], row[2], row[3]);
  }
}

int main(void) {
  int32_t a_offsets[N + 1] = {0, 2, 3, 5, 7};
  int32_t a_columns[NNZ_A] = {0, 2, 1, 0, 3, 1, 3};
  double a_values[NNZ_A] = {1, 2, 3, 4, 5, 6, 7};
  int32_t c_offsets[N + 1];
  int ok;

  spgemmHandle_t handle;
  CHECK_SPGEMM(spgemmCreate(&handle)); /* works without a GPU */

  /* Host arrays: the descriptors keep their addresses, not copies. */
  spgemmMatDescr_t A, C;
  CHECK_SPGEMM(spgemmCreateCsr(&A, N, N, NNZ_A, a_offsets, a_columns, a_values,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                               CUDA_R_64F));
  CHECK_SPGEMM(spgemmCsrSetMemoryType(A, SPGEMM_MEMORY_HOST));
  CHECK_SPGEMM(spgemmCreateCsr(&C, N, N, 0, c_offsets, NULL, NULL, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK_SPGEMM(spgemmCsrSetMemoryType(C, SPGEMM_MEMORY_HOST));

  spgemmPlan_t plan;
  CHECK_SPGEMM(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, A, A, C, CUDA_R_64F));
  CHECK_SPGEMM(spgemmAnalyze(handle, plan));
  int64_t nnz_c;
  CHECK_SPGEMM(spgemmSymbolic(handle, plan, &nnz_c)); /* writes c_offsets */
  int32_t* c_columns = malloc((size_t)nnz_c * sizeof *c_columns);
  double* c_values = malloc((size_t)nnz_c * sizeof *c_values);
  if (!c_columns || !c_values) {
    fprintf(stderr, "out of host memory\n");
    return EXIT_FAILURE;
  }
  CHECK_SPGEMM(spgemmCsrSetPointers(C, c_offsets, c_columns, c_values));
  const double alpha = 1.0;
  CHECK_SPGEMM(spgemmNumeric(handle, plan, &alpha)); /* C = alpha * A * A */
  ok = matches_reference(a_offsets, a_columns, a_values, nnz_c, c_offsets, c_columns, c_values);
  if (ok) print_csr("C = A * A:", c_offsets, c_columns, c_values);

  /* New values in A's arrays, same structure: only the numeric phase again. */
  for (int k = 0; k < NNZ_A; ++k) a_values[k] = 10 - k; /* positive, as the reference assumes */
  CHECK_SPGEMM(spgemmNumeric(handle, plan, &alpha));
  const int ok_again =
      matches_reference(a_offsets, a_columns, a_values, nnz_c, c_offsets, c_columns, c_values);
  if (ok_again) print_csr("C = A * A with A's new values:", c_offsets, c_columns, c_values);

  CHECK_SPGEMM(spgemmPlanDestroy(plan));
  CHECK_SPGEMM(spgemmDestroyMatrix(A));
  CHECK_SPGEMM(spgemmDestroyMatrix(C));
  CHECK_SPGEMM(spgemmDestroy(handle));
  free(c_columns);
  free(c_values);
  ok = ok && ok_again;
  printf("host_product: %s\n", ok ? "OK" : "FAILED: C differs from the serial reference");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
