// SPDX-License-Identifier: Apache-2.0
/*
 * NVIDIA's documented cuSPARSE SpGEMM sequences as a plain C program, for
 * comparing a run on the real cuSPARSE with a run under LD_PRELOAD of
 * libspgemm_cusparse.so (bench/device_dropin.sh, tests/dropin/gpu_sequences.sh):
 *
 *   dropin_sequence plain|reuse MATRIX TYPES INDICES PREFIX
 *     MATRIX  a Matrix Market file (.mtx or .mtx.gz; pattern and symmetric
 *             ones too) or gen:N (a random N x N matrix, 8 entries a row);
 *             C = A * A for square A, A * A^T otherwise
 *     TYPES   letters of s d c z (CUDA_R_32F, CUDA_R_64F, CUDA_C_32F,
 *             CUDA_C_64F), e.g. sdcz
 *     INDICES 32, 64 or 32,64 (offsets and column indices alike)
 *     PREFIX  PREFIX-<type><bits>.bin for each: the status, C (offsets,
 *             columns, values) and y = C * x from a real cusparseSpMV with
 *             C's descriptor
 *   plain: workEstimation x2, compute x2, cusparseSpMatGetSize, allocation of
 *          C, cusparseCsrSetPointers, copy (cuSPARSE's spgemm_example.c)
 *   reuse: reuse_workEstimation x2, reuse_nnz x2 (C's offsets given at its
 *          creation), GetSize, SetPointers, reuse_copy x2, reuse_compute;
 *          then A's values change twice, each followed by reuse_compute
 *          (spgemm_reuse_example.c)
 *   dropin_sequence info MATRIX: rows, columns, nnz as read (no GPU).
 *   dropin_sequence compare OUT1 OUT2: same statuses, identical offsets and
 *          columns, values and y within the type's tolerance; exit 0 if so.
 * Prints the words of C's descriptor that the sequence changed (offset: old
 * -> new), to show what cuSPARSE and the drop-in write into it.
 * Exit: 0 ok, 77 no GPU, 1 a failure.
 */
#define _POSIX_C_SOURCE 200809L /* popen */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cuComplex.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_OK(call)                                                             \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s failed: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

/* A cuSPARSE status is part of the result: a run that fails records it. */
static int g_status = 0;
static const char* g_failed = "";
#define SP(call)                                  \
  do {                                            \
    cusparseStatus_t s_ = (call);                 \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {          \
      if (!g_status) {                            \
        g_status = (int)s_;                       \
        g_failed = #call;                         \
      }                                           \
      fprintf(stderr, "%s: %s\n", #call, cusparseGetErrorString(s_)); \
      goto done;                                  \
    }                                             \
  } while (0)

typedef struct {
  int64_t rows, cols, nnz;
  int64_t* off; /* host, 64-bit; converted to the index type on upload */
  int64_t* col;
  double* val;
} HostCsr;

/* ---- reading ------------------------------------------------------------ */

typedef struct { int64_t r, c; double v; } Entry;

static int by_row_col(const void* a, const void* b) {
  const Entry* x = (const Entry*)a;
  const Entry* y = (const Entry*)b;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  if (x->c != y->c) return x->c < y->c ? -1 : 1;
  return 0;
}

static HostCsr from_entries(int64_t rows, int64_t cols, Entry* e, int64_t n) {
  HostCsr m;
  qsort(e, (size_t)n, sizeof(Entry), by_row_col);
  /* sum duplicates */
  int64_t w = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (w > 0 && e[w - 1].r == e[i].r && e[w - 1].c == e[i].c) e[w - 1].v += e[i].v;
    else e[w++] = e[i];
  }
  m.rows = rows;
  m.cols = cols;
  m.nnz = w;
  m.off = calloc((size_t)rows + 1, sizeof(int64_t));
  m.col = malloc((size_t)(w ? w : 1) * sizeof(int64_t));
  m.val = malloc((size_t)(w ? w : 1) * sizeof(double));
  for (int64_t i = 0; i < w; ++i) {
    m.off[e[i].r + 1]++;
    m.col[i] = e[i].c;
    m.val[i] = e[i].v;
  }
  for (int64_t r = 0; r < rows; ++r) m.off[r + 1] += m.off[r];
  return m;
}

static double pattern_value(int64_t r, int64_t c) { return 1.0 + (double)((r * 7 + c * 13) % 17) / 16.0; }

static HostCsr read_matrix(const char* path) {
  if (strncmp(path, "gen:", 4) == 0) {
    const int64_t n = atoll(path + 4);
    Entry* e = malloc((size_t)n * 8 * sizeof(Entry));
    uint64_t s = 12345;
    int64_t k = 0;
    for (int64_t r = 0; r < n; ++r)
      for (int j = 0; j < 8; ++j) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        e[k].r = r;
        e[k].c = (int64_t)((s >> 33) % (uint64_t)n);
        e[k].v = pattern_value(r, e[k].c);
        ++k;
      }
    HostCsr m = from_entries(n, n, e, k);
    free(e);
    return m;
  }
  /* .gz through the gzip command: no zlib needed where this is built */
  const size_t n_path = strlen(path);
  const int gz = n_path > 3 && strcmp(path + n_path - 3, ".gz") == 0;
  FILE* f = NULL;
  if (gz) {
    char command[4200];
    snprintf(command, sizeof command, "gzip -dc '%s'", path);
    f = popen(command, "r");
  } else {
    f = fopen(path, "r");
  }
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  char line[1024];
  int pattern = 0, symmetric = 0, complex_values = 0;
  if (!fgets(line, sizeof line, f)) exit(1);
  pattern = strstr(line, "pattern") != NULL;
  symmetric = strstr(line, "symmetric") != NULL || strstr(line, "hermitian") != NULL ||
              strstr(line, "skew") != NULL;
  complex_values = strstr(line, "complex") != NULL;
  do {
    if (!fgets(line, sizeof line, f)) exit(1);
  } while (line[0] == '%');
  long long rows, cols, n;
  if (sscanf(line, "%lld %lld %lld", &rows, &cols, &n) != 3) exit(1);
  Entry* e = malloc((size_t)(symmetric ? 2 * n : n) * sizeof(Entry) + 1);
  int64_t k = 0;
  for (long long i = 0; i < n; ++i) {
    if (!fgets(line, sizeof line, f)) break;
    long long r, c;
    double v = 0, im = 0;
    int got = sscanf(line, "%lld %lld %lf %lf", &r, &c, &v, &im);
    (void)complex_values;
    if (got < 2) continue;
    --r;
    --c;
    if (pattern || got < 3) v = pattern_value(r, c);
    e[k].r = r; e[k].c = c; e[k].v = v; ++k;
    if (symmetric && r != c) { e[k].r = c; e[k].c = r; e[k].v = v; ++k; }
  }
  if (gz) pclose(f);
  else fclose(f);
  HostCsr m = from_entries(rows, cols, e, k);
  free(e);
  return m;
}

static HostCsr transpose(const HostCsr* a) {
  Entry* e = malloc((size_t)(a->nnz ? a->nnz : 1) * sizeof(Entry));
  for (int64_t r = 0; r < a->rows; ++r)
    for (int64_t i = a->off[r]; i < a->off[r + 1]; ++i) {
      e[i].r = a->col[i];
      e[i].c = r;
      e[i].v = a->val[i];
    }
  HostCsr t = from_entries(a->cols, a->rows, e, a->nnz);
  free(e);
  return t;
}

/* ---- device arrays of the requested types ------------------------------ */

static size_t value_size(cudaDataType t) {
  return t == CUDA_R_32F ? 4 : t == CUDA_R_64F ? 8 : t == CUDA_C_32F ? 8 : 16;
}

/* The value of entry i in the type (complex: a non-zero imaginary part). */
static void put_value(void* dst, int64_t i, double v, cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: ((float*)dst)[i] = (float)v; break;
    case CUDA_R_64F: ((double*)dst)[i] = v; break;
    case CUDA_C_32F: ((cuFloatComplex*)dst)[i] = make_cuFloatComplex((float)v, (float)(0.25 * v - 0.1)); break;
    default: ((cuDoubleComplex*)dst)[i] = make_cuDoubleComplex(v, 0.25 * v - 0.1); break;
  }
}

static void* upload_index(const int64_t* src, int64_t n, int bytes) {
  void* h = malloc((size_t)(n ? n : 1) * (size_t)bytes);
  for (int64_t i = 0; i < n; ++i) {
    if (bytes == 4) ((int32_t*)h)[i] = (int32_t)src[i];
    else ((int64_t*)h)[i] = src[i];
  }
  void* d = NULL;
  CUDA_OK(cudaMalloc(&d, (size_t)(n ? n : 1) * (size_t)bytes));
  CUDA_OK(cudaMemcpy(d, h, (size_t)n * (size_t)bytes, cudaMemcpyHostToDevice));
  /* a copy from pageable memory may still be in flight when cudaMemcpy
     returns; the sequences read it on a non-blocking stream */
  CUDA_OK(cudaDeviceSynchronize());
  free(h);
  return d;
}

static void* upload_values(const double* src, int64_t n, cudaDataType t, double scale) {
  void* h = malloc((size_t)(n ? n : 1) * value_size(t));
  for (int64_t i = 0; i < n; ++i) put_value(h, i, src[i] * scale, t);
  void* d = NULL;
  CUDA_OK(cudaMalloc(&d, (size_t)(n ? n : 1) * value_size(t)));
  CUDA_OK(cudaMemcpy(d, h, (size_t)n * value_size(t), cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());  /* (as upload_index) */
  free(h);
  return d;
}

/* ---- the result file ----------------------------------------------------- */

typedef struct {
  int32_t magic, status, index_bytes, type;
  int64_t rows, cols, nnz;
} Header;

static void write_result(const char* path, Header h, const void* d_off, const void* d_col,
                         const void* d_val, const void* d_y) {
  FILE* f = fopen(path, "wb");
  if (!f) exit(1);
  fwrite(&h, sizeof h, 1, f);
  if (h.status == 0) {
    const size_t ob = (size_t)h.index_bytes, vb = value_size((cudaDataType)h.type);
    const size_t sizes[4] = {((size_t)h.rows + 1) * ob, (size_t)h.nnz * ob, (size_t)h.nnz * vb,
                             (size_t)h.rows * vb};
    const void* arrays[4] = {d_off, d_col, d_val, d_y};
    for (int i = 0; i < 4; ++i) {
      void* buf = malloc(sizes[i] ? sizes[i] : 1);
      if (sizes[i]) CUDA_OK(cudaMemcpy(buf, arrays[i], sizes[i], cudaMemcpyDeviceToHost));
      fwrite(buf, 1, sizes[i], f);
      free(buf);
    }
  }
  fclose(f);
}

static void* read_all(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void* p = malloc(*bytes ? *bytes : 1);
  if (fread(p, 1, *bytes, f) != *bytes) *bytes = 0;
  fclose(f);
  return p;
}

static double component(const char* base, int64_t i, int part, cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return part ? 0 : ((const float*)base)[i];
    case CUDA_R_64F: return part ? 0 : ((const double*)base)[i];
    case CUDA_C_32F: return ((const float*)base)[2 * i + part];
    default: return ((const double*)base)[2 * i + part];
  }
}

/* Values agree within the type's tolerance: |x_i - y_i| <= rtol * scale_i,
 * where scale_i is the magnitude the result was summed from (for SpMV's y,
 * sum_j |c_ij| |x_j|, since a row whose terms cancel keeps their rounding),
 * or, without scale, |y_i| plus a thousandth of the largest |y|. */
static int64_t value_mismatches(const char* x, const char* y, int64_t n, cudaDataType t,
                                const double* scale, double* worst) {
  const double rtol = (t == CUDA_R_32F || t == CUDA_C_32F) ? 1e-4 : 1e-10;
  double big = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int p = 0; p < 2; ++p) big = fmax(big, fabs(component(y, i, p, t)));
  int64_t bad = 0;
  *worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int p = 0; p < 2; ++p) {
      const double a = component(x, i, p, t), b = component(y, i, p, t);
      const double ref = scale ? scale[i] : fabs(b) + 1e-3 * big;
      const double err = fabs(a - b) / (ref + 1e-300);
      if (err > *worst) *worst = err;
      if (err > rtol) ++bad;
    }
  return bad;
}

/* sum_j |c_ij| max_j |x_j| for every row of C (offsets of index_bytes each,
 * then values): the scale of SpMV's y. x's entries (see the SpMV below) are
 * below 2 in modulus. */
static double* spmv_scale(const char* offsets, const char* values, int64_t rows,
                          size_t index_bytes, cudaDataType t) {
  double* scale = malloc((size_t)(rows ? rows : 1) * sizeof(double));
  for (int64_t i = 0; i < rows; ++i) {
    int64_t begin, end;
    if (index_bytes == 4) {
      begin = ((const int32_t*)offsets)[i];
      end = ((const int32_t*)offsets)[i + 1];
    } else {
      begin = ((const int64_t*)offsets)[i];
      end = ((const int64_t*)offsets)[i + 1];
    }
    double sum = 0;
    for (int64_t k = begin; k < end; ++k)
      sum += fabs(component(values, k, 0, t)) + fabs(component(values, k, 1, t));
    scale[i] = 2 * sum;
  }
  return scale;
}

static int compare(const char* p1, const char* p2) {
  size_t n1 = 0, n2 = 0;
  char* a = read_all(p1, &n1);
  char* b = read_all(p2, &n2);
  if (!a || !b || n1 < sizeof(Header) || n2 < sizeof(Header)) {
    printf("compare: cannot read %s or %s\n", p1, p2);
    return 1;
  }
  Header ha, hb;
  memcpy(&ha, a, sizeof ha);
  memcpy(&hb, b, sizeof hb);
  if (ha.status != hb.status) {
    printf("DIFFERENT status: %d vs %d\n", ha.status, hb.status);
    return 1;
  }
  if (ha.status != 0) {
    printf("same status %d (both runs refused)\n", ha.status);
    return 0;
  }
  if (ha.rows != hb.rows || ha.cols != hb.cols || ha.nnz != hb.nnz || n1 != n2) {
    printf("DIFFERENT shape: %lldx%lld nnz %lld vs %lldx%lld nnz %lld\n", (long long)ha.rows,
           (long long)ha.cols, (long long)ha.nnz, (long long)hb.rows, (long long)hb.cols,
           (long long)hb.nnz);
    return 1;
  }
  const size_t ob = (size_t)ha.index_bytes, vb = value_size((cudaDataType)ha.type);
  const char* pa = a + sizeof(Header);
  const char* pb = b + sizeof(Header);
  const size_t structure = ((size_t)ha.rows + 1) * ob + (size_t)ha.nnz * ob;
  if (memcmp(pa, pb, structure) != 0) {
    printf("DIFFERENT structure (row offsets or column indices)\n");
    return 1;
  }
  double worst_c = 0, worst_y = 0;
  const cudaDataType type = (cudaDataType)ha.type;
  const int64_t bad_c =
      value_mismatches(pa + structure, pb + structure, ha.nnz, type, NULL, &worst_c);
  double* scale = spmv_scale(pb, pb + structure, ha.rows, ob, type);
  const int64_t bad_y = value_mismatches(pa + structure + (size_t)ha.nnz * vb,
                                         pb + structure + (size_t)ha.nnz * vb, ha.rows, type,
                                         scale, &worst_y);
  free(scale);
  printf("%s: %lldx%lld nnz(C) %lld, structure identical, values: %lld off (worst rel %.2e), "
         "SpMV y: %lld off (worst %.2e of sum |c_ij x_j|)\n",
         bad_c || bad_y ? "DIFFERENT" : "same", (long long)ha.rows, (long long)ha.cols,
         (long long)ha.nnz, (long long)bad_c, worst_c, (long long)bad_y, worst_y);
  free(a);
  free(b);
  return bad_c || bad_y ? 1 : 0;
}

/* The 64-bit words of C's descriptor that differ from a snapshot. */
/* 392 bytes: cuSPARSE 12.6 keeps C's row offsets pointer at byte 376, its column
   indices pointer at 384, so the structure is at least that long. */
enum { kDescrWords = 49 };
static void descriptor_changes(const char* when, const void* descr, const uint64_t* before) {
  uint64_t now[kDescrWords];
  memcpy(now, descr, sizeof now);
  printf("C descriptor words changed %s:", when);
  for (int i = 0; i < kDescrWords; ++i)
    if (now[i] != before[i])
      printf(" [%d] %llx->%llx", i * 8, (unsigned long long)before[i], (unsigned long long)now[i]);
  printf("\n");
}

/* One sequence on one value and index type; writes the result to `out`. */
static void run_one(int reuse, const HostCsr* pa, const HostCsr* pb, char t, int ib,
                    const char* out) {
  const HostCsr ha = *pa, hb = *pb;
  g_status = 0;
  g_failed = "";
  const cudaDataType type = t == 's' ? CUDA_R_32F : t == 'd' ? CUDA_R_64F
                            : t == 'c' ? CUDA_C_32F : CUDA_C_64F;
  const cusparseIndexType_t it = ib == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  printf("-- %s %c%d\n", reuse ? "reuse" : "plain", t, ib * 8);
  void* a_off = upload_index(ha.off, ha.rows + 1, ib);
  void* a_col = upload_index(ha.col, ha.nnz, ib);
  void* a_val = upload_values(ha.val, ha.nnz, type, 1.0);
  void* b_off = upload_index(hb.off, hb.rows + 1, ib);
  void* b_col = upload_index(hb.col, hb.nnz, ib);
  void* b_val = upload_values(hb.val, hb.nnz, type, 1.0);

  cusparseHandle_t handle = NULL;
  cusparseSpMatDescr_t A = NULL, B = NULL, C = NULL;
  cusparseSpGEMMDescr_t sp = NULL;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void *c_off = NULL, *c_col = NULL, *c_val = NULL, *x = NULL, *y = NULL;
  void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL, *buf4 = NULL, *buf5 = NULL, *spmv = NULL;
  int64_t c_rows = 0, c_cols = 0, c_nnz = 0;
  uint64_t snapshot[kDescrWords];
  const double one[2] = {1, 0}, zero[2] = {0, 0};
  const float onef[2] = {1, 0}, zerof[2] = {0, 0};
  const void* alpha = (type == CUDA_R_32F || type == CUDA_C_32F) ? (const void*)onef : (const void*)one;
  const void* beta = (type == CUDA_R_32F || type == CUDA_C_32F) ? (const void*)zerof : (const void*)zero;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;

  SP(cusparseCreate(&handle));
  SP(cusparseSetStream(handle, stream));
  SP(cusparseCreateCsr(&A, ha.rows, ha.cols, ha.nnz, a_off, a_col, a_val, it, it,
                       CUSPARSE_INDEX_BASE_ZERO, type));
  SP(cusparseCreateCsr(&B, hb.rows, hb.cols, hb.nnz, b_off, b_col, b_val, it, it,
                       CUSPARSE_INDEX_BASE_ZERO, type));
  if (reuse) CUDA_OK(cudaMalloc(&c_off, ((size_t)ha.rows + 1) * (size_t)ib));
  SP(cusparseCreateCsr(&C, ha.rows, hb.cols, 0, c_off, NULL, NULL, it, it,
                       CUSPARSE_INDEX_BASE_ZERO, type));
  memcpy(snapshot, C, sizeof snapshot);
  SP(cusparseSpGEMM_createDescr(&sp));
  if (!reuse) {
    SP(cusparseSpGEMM_workEstimation(handle, op, op, alpha, A, B, beta, C, type, alg, sp, &s1, NULL));
    CUDA_OK(cudaMalloc(&buf1, s1 ? s1 : 1));
    SP(cusparseSpGEMM_workEstimation(handle, op, op, alpha, A, B, beta, C, type, alg, sp, &s1, s1 ? buf1 : NULL));
    SP(cusparseSpGEMM_compute(handle, op, op, alpha, A, B, beta, C, type, alg, sp, &s2, NULL));
    CUDA_OK(cudaMalloc(&buf2, s2 ? s2 : 1));
    SP(cusparseSpGEMM_compute(handle, op, op, alpha, A, B, beta, C, type, alg, sp, &s2, buf2));
    SP(cusparseSpMatGetSize(C, &c_rows, &c_cols, &c_nnz));
    CUDA_OK(cudaMalloc(&c_off, ((size_t)c_rows + 1) * (size_t)ib));
    CUDA_OK(cudaMalloc(&c_col, (size_t)(c_nnz ? c_nnz : 1) * (size_t)ib));
    CUDA_OK(cudaMalloc(&c_val, (size_t)(c_nnz ? c_nnz : 1) * value_size(type)));
    SP(cusparseCsrSetPointers(C, c_off, c_col, c_val));
    SP(cusparseSpGEMM_copy(handle, op, op, alpha, A, B, beta, C, type, alg, sp));
    printf("buffer sizes: workEstimation %zu, compute %zu\n", s1, s2);
  } else {
    SP(cusparseSpGEMMreuse_workEstimation(handle, op, op, A, B, C, alg, sp, &s1, NULL));
    CUDA_OK(cudaMalloc(&buf1, s1 ? s1 : 1));
    SP(cusparseSpGEMMreuse_workEstimation(handle, op, op, A, B, C, alg, sp, &s1, s1 ? buf1 : NULL));
    SP(cusparseSpGEMMreuse_nnz(handle, op, op, A, B, C, alg, sp, &s2, NULL, &s3, NULL, &s4, NULL));
    CUDA_OK(cudaMalloc(&buf2, s2 ? s2 : 1));
    CUDA_OK(cudaMalloc(&buf3, s3 ? s3 : 1));
    CUDA_OK(cudaMalloc(&buf4, s4 ? s4 : 1));
    SP(cusparseSpGEMMreuse_nnz(handle, op, op, A, B, C, alg, sp, &s2, s2 ? buf2 : NULL, &s3,
                               s3 ? buf3 : NULL, &s4, s4 ? buf4 : NULL));
    CUDA_OK(cudaFree(buf1)); buf1 = NULL;  /* as the example: buffers 1 and 2 go here */
    CUDA_OK(cudaFree(buf2)); buf2 = NULL;
    SP(cusparseSpMatGetSize(C, &c_rows, &c_cols, &c_nnz));
    CUDA_OK(cudaMalloc(&c_col, (size_t)(c_nnz ? c_nnz : 1) * (size_t)ib));
    CUDA_OK(cudaMalloc(&c_val, (size_t)(c_nnz ? c_nnz : 1) * value_size(type)));
    SP(cusparseCsrSetPointers(C, c_off, c_col, c_val));
    SP(cusparseSpGEMMreuse_copy(handle, op, op, A, B, C, alg, sp, &s5, NULL));
    CUDA_OK(cudaMalloc(&buf5, s5 ? s5 : 1));
    SP(cusparseSpGEMMreuse_copy(handle, op, op, A, B, C, alg, sp, &s5, s5 ? buf5 : NULL));
    CUDA_OK(cudaFree(buf3)); buf3 = NULL;  /* buffer 3 goes after copy */
    SP(cusparseSpGEMMreuse_compute(handle, op, op, alpha, A, B, beta, C, type, alg, sp));
    for (int round = 1; round <= 2; ++round) {  /* new values of A, same structure */
      void* fresh = upload_values(ha.val, ha.nnz, type, 1.0 + 0.5 * round);
      CUDA_OK(cudaMemcpyAsync(a_val, fresh, (size_t)ha.nnz * value_size(type),
                              cudaMemcpyDeviceToDevice, stream));
      SP(cusparseSpGEMMreuse_compute(handle, op, op, alpha, A, B, beta, C, type, alg, sp));
      CUDA_OK(cudaStreamSynchronize(stream));
      CUDA_OK(cudaFree(fresh));
    }
    printf("buffer sizes: workEstimation %zu, nnz %zu %zu %zu, copy %zu\n", s1, s2, s3, s4, s5);
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  descriptor_changes("by the sequence", C, snapshot);

  /* A real cuSPARSE SpMV with C's descriptor: y = C * x. */
  {
    double* hx = malloc((size_t)(c_cols ? c_cols : 1) * sizeof(double));
    for (int64_t j = 0; j < c_cols; ++j) hx[j] = 1.0 + (double)(j % 7) / 8.0;
    x = upload_values(hx, c_cols, type, 1.0);
    free(hx);
    CUDA_OK(cudaMalloc(&y, (size_t)(c_rows ? c_rows : 1) * value_size(type)));
    cusparseDnVecDescr_t vx, vy;
    SP(cusparseCreateDnVec(&vx, c_cols, x, type));
    SP(cusparseCreateDnVec(&vy, c_rows, y, type));
    size_t bytes = 0;
    SP(cusparseSpMV_bufferSize(handle, op, alpha, C, vx, beta, vy, type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    CUDA_OK(cudaMalloc(&spmv, bytes ? bytes : 1));
    SP(cusparseSpMV(handle, op, alpha, C, vx, beta, vy, type, CUSPARSE_SPMV_ALG_DEFAULT, spmv));
    CUDA_OK(cudaStreamSynchronize(stream));
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
  }

done:;
  Header h = {0x44524f50, g_status, ib, (int32_t)type, c_rows, c_cols, c_nnz};
  if (g_status) printf("cuSPARSE status %d at %s\n", g_status, g_failed);
  else printf("C: %lld x %lld, nnz %lld\n", (long long)c_rows, (long long)c_cols, (long long)c_nnz);
  cudaDeviceSynchronize();
  write_result(out, h, c_off, c_col, c_val, y);
  if (sp) cusparseSpGEMM_destroyDescr(sp);
  if (A) cusparseDestroySpMat(A);
  if (B) cusparseDestroySpMat(B);
  if (C) cusparseDestroySpMat(C);
  if (handle) cusparseDestroy(handle);
  cudaFree(buf1); cudaFree(buf2); cudaFree(buf3); cudaFree(buf4); cudaFree(buf5); cudaFree(spmv);
  cudaFree(a_off); cudaFree(a_col); cudaFree(a_val); cudaFree(b_off); cudaFree(b_col); cudaFree(b_val);
  cudaFree(c_off); cudaFree(c_col); cudaFree(c_val); cudaFree(x); cudaFree(y);
  cudaStreamDestroy(stream);
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "compare") == 0) return compare(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "info") == 0) { /* the reader alone: no GPU needed */
    HostCsr a = read_matrix(argv[2]);
    printf("%lld %lld %lld\n", (long long)a.rows, (long long)a.cols, (long long)a.nnz);
    return 0;
  }
  if (argc != 6 || (strcmp(argv[1], "plain") && strcmp(argv[1], "reuse"))) {
    fprintf(stderr, "usage: %s plain|reuse MATRIX TYPES INDICES PREFIX | compare OUT1 OUT2\n",
            argv[0]);
    return 1;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  const int reuse = strcmp(argv[1], "reuse") == 0;
  HostCsr ha = read_matrix(argv[2]);
  HostCsr hb = ha.rows == ha.cols ? ha : transpose(&ha);
  printf("A: %lld x %lld, nnz %lld\n", (long long)ha.rows, (long long)ha.cols, (long long)ha.nnz);
  for (const char* t = argv[3]; *t; ++t)
    for (int k = 0; k < 2; ++k) {
      const int bits = k ? 64 : 32;
      if (!strstr(argv[4], k ? "64" : "32")) continue;
      char out[4096];
      snprintf(out, sizeof out, "%s-%c%d.bin", argv[5], *t, bits);
      run_one(reuse, &ha, &hb, *t, bits / 8, out);
    }
  return 0;
}
