// SPDX-License-Identifier: Apache-2.0
/*
 * C = A * A on the GPU through libspgemm's C API: a 4 x 4 CSR matrix is built
 * on the host, copied to the device, multiplied there, and C is copied back,
 * printed and checked against a dense product computed here.
 *
 *       | 1 0 2 0 |            |  9  0  2 10 |
 *   A = | 0 3 0 0 |   A * A =  |  0  9  0  0 |
 *       | 4 0 0 5 |            |  4 30  8 35 |
 *       | 0 6 0 7 |            |  0 60  0 49 |
 *
 * Exits 0 on success, 1 on a failure or a wrong result, and 77 (skipped)
 * when no CUDA device is present.
 */
#include <spgemm/spgemm.h>

#include <cuda_runtime.h>
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
#define CHECK_CUDA(call)                                                              \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
              cudaGetErrorString(e_));                                                \
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

int main(void) {
  const int32_t a_offsets[N + 1] = {0, 2, 3, 5, 7};
  const int32_t a_columns[NNZ_A] = {0, 2, 1, 0, 3, 1, 3};
  const double a_values[NNZ_A] = {1, 2, 3, 4, 5, 6, 7};

  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    printf("SKIPPED: no CUDA device (%s)\n",
           probe != cudaSuccess ? cudaGetErrorString(probe) : "cudaGetDeviceCount found none");
    return 77;
  }

  /* A on the device, and C's row offsets (N + 1 entries, known in advance). */
  int32_t *dA_offsets, *dA_columns, *dC_offsets, *dC_columns;
  double *dA_values, *dC_values;
  CHECK_CUDA(cudaMalloc((void**)&dA_offsets, sizeof a_offsets));
  CHECK_CUDA(cudaMalloc((void**)&dA_columns, sizeof a_columns));
  CHECK_CUDA(cudaMalloc((void**)&dA_values, sizeof a_values));
  CHECK_CUDA(cudaMalloc((void**)&dC_offsets, (N + 1) * sizeof(int32_t)));
  CHECK_CUDA(cudaMemcpy(dA_offsets, a_offsets, sizeof a_offsets, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dA_columns, a_columns, sizeof a_columns, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dA_values, a_values, sizeof a_values, cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  spgemmHandle_t handle;
  CHECK_SPGEMM(spgemmCreate(&handle));
  CHECK_SPGEMM(spgemmSetStream(handle, stream));

  /* Descriptors point at the caller's arrays; C's column indices and values
   * are set once nnz(C) is known. */
  spgemmMatDescr_t A, C;
  CHECK_SPGEMM(spgemmCreateCsr(&A, N, N, NNZ_A, dA_offsets, dA_columns, dA_values,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                               CUDA_R_64F));
  CHECK_SPGEMM(spgemmCreateCsr(&C, N, N, 0, dC_offsets, NULL, NULL, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));

  spgemmPlan_t plan;
  CHECK_SPGEMM(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, A, A, C, CUDA_R_64F));
  CHECK_SPGEMM(spgemmAnalyze(handle, plan));
  int64_t nnz_c;
  CHECK_SPGEMM(spgemmSymbolic(handle, plan, &nnz_c)); /* writes C's row offsets */
  CHECK_CUDA(cudaMalloc((void**)&dC_columns, (size_t)nnz_c * sizeof(int32_t)));
  CHECK_CUDA(cudaMalloc((void**)&dC_values, (size_t)nnz_c * sizeof(double)));
  CHECK_SPGEMM(spgemmCsrSetPointers(C, dC_offsets, dC_columns, dC_values));
  const double alpha = 1.0;
  CHECK_SPGEMM(spgemmNumeric(handle, plan, &alpha)); /* C = alpha * A * A, asynchronous */
  CHECK_CUDA(cudaStreamSynchronize(stream));         /* wait before reading C */

  int32_t c_offsets[N + 1];
  int32_t* c_columns = malloc((size_t)nnz_c * sizeof *c_columns);
  double* c_values = malloc((size_t)nnz_c * sizeof *c_values);
  if (!c_columns || !c_values) {
    fprintf(stderr, "out of host memory\n");
    return EXIT_FAILURE;
  }
  CHECK_CUDA(cudaMemcpy(c_offsets, dC_offsets, sizeof c_offsets, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(c_columns, dC_columns, (size_t)nnz_c * sizeof *c_columns,
                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(c_values, dC_values, (size_t)nnz_c * sizeof *c_values,
                        cudaMemcpyDeviceToHost));

  /* Plans before the descriptors they use, the handle last; then the stream
   * and the arrays. */
  CHECK_SPGEMM(spgemmPlanDestroy(plan));
  CHECK_SPGEMM(spgemmDestroyMatrix(A));
  CHECK_SPGEMM(spgemmDestroyMatrix(C));
  CHECK_SPGEMM(spgemmDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(dA_offsets));
  CHECK_CUDA(cudaFree(dA_columns));
  CHECK_CUDA(cudaFree(dA_values));
  CHECK_CUDA(cudaFree(dC_offsets));
  CHECK_CUDA(cudaFree(dC_columns));
  CHECK_CUDA(cudaFree(dC_values));

  const int ok = matches_reference(a_offsets, a_columns, a_values, nnz_c, c_offsets, c_columns,
                                   c_values);
  if (ok) {
    printf("C = A * A, %lld entries:\n", (long long)nnz_c);
    for (int i = 0; i < N; ++i) {
      double row[N] = {0};
      for (int32_t k = c_offsets[i]; k < c_offsets[i + 1]; ++k) row[c_columns[k]] = c_values[k];
      printf("  %4g %4g %4g %4g\n", row[0], row[1], row[2], row[3]);
    }
  }
  free(c_columns);
  free(c_values);
  printf("gpu_product: %s\n", ok ? "OK" : "FAILED: C differs from the serial reference");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
