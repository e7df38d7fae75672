// SPDX-License-Identifier: Apache-2.0
/*
 * The Galerkin product of algebraic multigrid on the GPU: the coarse operator
 * Ac = R * A * P with R = P^T, where
 *   A is the 5-point operator of -cx u_xx - cy u_yy + shift u on an
 *     NX x NY grid (row i = x + NX * y),
 *   P is the aggregation prolongator of 2 x 2 blocks of grid points:
 *     P(i, aggregate(i)) = 1, one entry per row.
 * Two plans, as a setup phase would hold them: AP = A * P, then
 * Ac = P^T * AP, where P^T is the library's transpose operation on P's own
 * descriptor (no transposed copy is built by the caller).
 * Then the coefficients change (an anisotropic problem, a mass term): A's
 * values are overwritten in place, same structure, and only the two numeric
 * phases run again, as in a time loop or a nonlinear solve. Both coarse
 * operators are checked against a serial reference:
 *   Ac(aggregate(i), aggregate(j)) = sum of A(i, j) over the entries of A.
 *
 * Exits 0 on success, 1 on a failure or a wrong result, and 77 (skipped)
 * when no CUDA device is present.
 */
#include <spgemm/spgemm.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

enum {
  NX = 8, /* even, like NY: the aggregates are whole 2 x 2 blocks */
  NY = 6,
  N = NX * NY,                   /* fine unknowns */
  NC = (NX / 2) * (NY / 2),      /* coarse unknowns: one per 2 x 2 aggregate */
  MAX_NNZ_A = 5 * N
};

static int aggregate(int i) { return (i % NX) / 2 + (NX / 2) * ((i / NX) / 2); }

/* A's structure: in each row the diagonal, then west, east, south, north. */
static int32_t poisson_structure(int32_t* offsets, int32_t* columns) {
  int32_t nnz = 0;
  for (int i = 0; i < N; ++i) {
    const int x = i % NX, y = i / NX;
    offsets[i] = nnz;
    columns[nnz++] = i;
    if (x > 0) columns[nnz++] = i - 1;
    if (x < NX - 1) columns[nnz++] = i + 1;
    if (y > 0) columns[nnz++] = i - NX;
    if (y < NY - 1) columns[nnz++] = i + NX;
  }
  offsets[N] = nnz;
  return nnz;
}

/* A's values for coefficients cx, cy and shift, on that structure. */
static void poisson_values(const int32_t* offsets, const int32_t* columns, double cx, double cy,
                           double shift, double* values) {
  for (int i = 0; i < N; ++i)
    for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const int j = columns[k];
      values[k] = j == i ? 2 * (cx + cy) + shift : (j == i - 1 || j == i + 1) ? -cx : -cy;
    }
}

static void* to_device(const void* host, size_t bytes) {
  void* device;
  CHECK_CUDA(cudaMalloc(&device, bytes));
  CHECK_CUDA(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  return device;
}

/* Ac (on the device) against the serial reference from A (on the host):
 * the same set of entries, values within rounding. */
static int check_coarse(const char* what, const int32_t* a_offsets, const int32_t* a_columns,
                        const double* a_values, int64_t nnz_ac, const int32_t* dAc_offsets,
                        const int32_t* dAc_columns, const double* dAc_values) {
  double want[NC][NC] = {{0}}, scale[NC][NC] = {{0}}, got[NC][NC] = {{0}};
  int present[NC][NC] = {{0}}, stored[NC][NC] = {{0}};
  int32_t offsets[NC + 1], columns[NC * NC];
  double values[NC * NC];
  int errors = 0;
  int64_t want_nnz = 0;

  for (int i = 0; i < N; ++i)
    for (int32_t k = a_offsets[i]; k < a_offsets[i + 1]; ++k) {
      const int r = aggregate(i), c = aggregate(a_columns[k]);
      want[r][c] += a_values[k];
      scale[r][c] += fabs(a_values[k]);
      present[r][c] = 1;
    }
  for (int r = 0; r < NC; ++r)
    for (int c = 0; c < NC; ++c) want_nnz += present[r][c];

  if (nnz_ac != want_nnz) {
    fprintf(stderr, "%s: nnz(Ac) = %lld, expected %lld\n", what, (long long)nnz_ac,
            (long long)want_nnz);
    return 0;
  }
  CHECK_CUDA(cudaMemcpy(offsets, dAc_offsets, sizeof offsets, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(columns, dAc_columns, (size_t)nnz_ac * sizeof *columns,
                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(values, dAc_values, (size_t)nnz_ac * sizeof *values,
                        cudaMemcpyDeviceToHost));
  if (offsets[0] != 0 || offsets[NC] != nnz_ac) {
    fprintf(stderr, "%s: Ac's row offsets run from %d to %d\n", what, offsets[0], offsets[NC]);
    return 0;
  }
  for (int r = 0; r < NC; ++r)
    for (int32_t k = offsets[r]; k < offsets[r + 1]; ++k) {
      const int32_t c = columns[k];
      if (k < 0 || k >= nnz_ac || c < 0 || c >= NC || stored[r][c]) {
        fprintf(stderr, "%s: Ac's row %d is malformed\n", what, r);
        return 0;
      }
      stored[r][c] = 1;
      got[r][c] = values[k];
    }
  for (int r = 0; r < NC; ++r)
    for (int c = 0; c < NC; ++c)
      if (stored[r][c] != present[r][c] || fabs(got[r][c] - want[r][c]) > 1e-13 * scale[r][c]) {
        if (errors++ < 5)
          fprintf(stderr, "%s: Ac(%d, %d) = %g (%s), expected %g (%s)\n", what, r, c, got[r][c],
                  stored[r][c] ? "stored" : "absent", want[r][c],
                  present[r][c] ? "stored" : "absent");
      }
  if (errors == 0) {
    printf("%s: Ac is %d x %d with %lld entries; row 0:", what, NC, NC, (long long)nnz_ac);
    for (int32_t k = offsets[0]; k < offsets[1]; ++k) printf(" (%d) %g", columns[k], values[k]);
    printf("\n");
  }
  return errors == 0;
}

int main(void) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    printf("SKIPPED: no CUDA device (%s)\n",
           probe != cudaSuccess ? cudaGetErrorString(probe) : "cudaGetDeviceCount found none");
    return 77;
  }

  /* Fine operator A and prolongator P on the host. */
  static int32_t a_offsets[N + 1], a_columns[MAX_NNZ_A];
  static double a_values[MAX_NNZ_A];
  const int32_t nnz_a = poisson_structure(a_offsets, a_columns);
  poisson_values(a_offsets, a_columns, 1.0, 1.0, 0.0, a_values);
  static int32_t p_offsets[N + 1], p_columns[N];
  static double p_values[N];
  for (int i = 0; i < N; ++i) {
    p_offsets[i] = i;
    p_columns[i] = aggregate(i);
    p_values[i] = 1.0;
  }
  p_offsets[N] = N;

  /* ... and on the device, with the row offsets of AP and Ac. */
  int32_t* dA_offsets = to_device(a_offsets, sizeof a_offsets);
  int32_t* dA_columns = to_device(a_columns, (size_t)nnz_a * sizeof(int32_t));
  double* dA_values = to_device(a_values, (size_t)nnz_a * sizeof(double));
  int32_t* dP_offsets = to_device(p_offsets, sizeof p_offsets);
  int32_t* dP_columns = to_device(p_columns, sizeof p_columns);
  double* dP_values = to_device(p_values, sizeof p_values);
  int32_t *dAP_offsets, *dAP_columns, *dAc_offsets, *dAc_columns;
  double *dAP_values, *dAc_values;
  CHECK_CUDA(cudaMalloc((void**)&dAP_offsets, (N + 1) * sizeof(int32_t)));
  CHECK_CUDA(cudaMalloc((void**)&dAc_offsets, (NC + 1) * sizeof(int32_t)));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  spgemmHandle_t handle;
  CHECK_SPGEMM(spgemmCreate(&handle));
  CHECK_SPGEMM(spgemmSetStream(handle, stream));

  spgemmMatDescr_t A, P, AP, Ac;
  CHECK_SPGEMM(spgemmCreateCsr(&A, N, N, nnz_a, dA_offsets, dA_columns, dA_values,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                               CUDA_R_64F));
  CHECK_SPGEMM(spgemmCreateCsr(&P, N, NC, N, dP_offsets, dP_columns, dP_values, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK_SPGEMM(spgemmCreateCsr(&AP, N, NC, 0, dAP_offsets, NULL, NULL, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK_SPGEMM(spgemmCreateCsr(&Ac, NC, NC, 0, dAc_offsets, NULL, NULL, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F));
  const double one = 1.0;

  /* Setup: AP = A * P. */
  spgemmPlan_t plan_ap, plan_rap;
  int64_t nnz_ap, nnz_ac;
  CHECK_SPGEMM(spgemmPlanCreate(handle, &plan_ap, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, A, P, AP, CUDA_R_64F));
  CHECK_SPGEMM(spgemmAnalyze(handle, plan_ap));
  CHECK_SPGEMM(spgemmSymbolic(handle, plan_ap, &nnz_ap));
  CHECK_CUDA(cudaMalloc((void**)&dAP_columns, (size_t)nnz_ap * sizeof(int32_t)));
  CHECK_CUDA(cudaMalloc((void**)&dAP_values, (size_t)nnz_ap * sizeof(double)));
  CHECK_SPGEMM(spgemmCsrSetPointers(AP, dAP_offsets, dAP_columns, dAP_values));
  CHECK_SPGEMM(spgemmNumeric(handle, plan_ap, &one));

  /* Setup: Ac = P^T * AP. Its analysis reads AP's structure, which the
   * numeric phase above wrote (in order on the handle's stream). */
  CHECK_SPGEMM(spgemmPlanCreate(handle, &plan_rap, SPGEMM_OPERATION_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, P, AP, Ac, CUDA_R_64F));
  CHECK_SPGEMM(spgemmAnalyze(handle, plan_rap));
  CHECK_SPGEMM(spgemmSymbolic(handle, plan_rap, &nnz_ac));
  CHECK_CUDA(cudaMalloc((void**)&dAc_columns, (size_t)nnz_ac * sizeof(int32_t)));
  CHECK_CUDA(cudaMalloc((void**)&dAc_values, (size_t)nnz_ac * sizeof(double)));
  CHECK_SPGEMM(spgemmCsrSetPointers(Ac, dAc_offsets, dAc_columns, dAc_values));
  CHECK_SPGEMM(spgemmNumeric(handle, plan_rap, &one));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  int ok = check_coarse("isotropic", a_offsets, a_columns, a_values, nnz_ac, dAc_offsets,
                        dAc_columns, dAc_values);

  /* New coefficients, same structure: A's values are replaced on the device,
   * in order on the stream, and only the numeric phases run again. */
  poisson_values(a_offsets, a_columns, 1.0, 0.01, 0.1, a_values);
  CHECK_CUDA(cudaMemcpyAsync(dA_values, a_values, (size_t)nnz_a * sizeof(double),
                             cudaMemcpyHostToDevice, stream));
  CHECK_SPGEMM(spgemmNumeric(handle, plan_ap, &one));
  CHECK_SPGEMM(spgemmNumeric(handle, plan_rap, &one));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  ok = check_coarse("anisotropic", a_offsets, a_columns, a_values, nnz_ac, dAc_offsets,
                    dAc_columns, dAc_values) && ok;

  CHECK_SPGEMM(spgemmPlanDestroy(plan_rap));
  CHECK_SPGEMM(spgemmPlanDestroy(plan_ap));
  CHECK_SPGEMM(spgemmDestroyMatrix(Ac));
  CHECK_SPGEMM(spgemmDestroyMatrix(AP));
  CHECK_SPGEMM(spgemmDestroyMatrix(P));
  CHECK_SPGEMM(spgemmDestroyMatrix(A));
  CHECK_SPGEMM(spgemmDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  void* arrays[] = {dA_offsets, dA_columns, dA_values, dP_offsets, dP_columns, dP_values,
                    dAP_offsets, dAP_columns, dAP_values, dAc_offsets, dAc_columns, dAc_values};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) CHECK_CUDA(cudaFree(arrays[k]));

  printf("amg_galerkin: %s\n", ok ? "OK" : "FAILED: Ac differs from the serial reference");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
