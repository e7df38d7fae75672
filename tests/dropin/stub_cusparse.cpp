// SPDX-License-Identifier: Apache-2.0
// A stand-in for libcusparse, for the drop-in's tests without a GPU: the
// descriptor, handle and SpGEMM functions the drop-in reads or forwards to,
// each recording its call. Its matrix descriptor keeps nnz in one int64_t
// field, like cuSPARSE's; STUB_CUSPARSE_LAYOUT changes that for the probe's
// tests: "twin" keeps a second copy of nnz, "cached" makes the getters read
// nnz from a table beside the descriptor (writes to the field are not seen).
#define DISABLE_CUSPARSE_DEPRECATED
#include "stub_cusparse.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct StubMat {
  uint64_t magic = 0x5354554253504d41ULL;
  int32_t format = CUSPARSE_FORMAT_CSR;
  int32_t batches = 1;
  int64_t rows = 0, cols = 0;
  void* offsets = nullptr;
  void* columns = nullptr;
  void* values = nullptr;
  int32_t offset_type = 0, index_type = 0, base = 0, value_type = 0;
  int64_t padding = 0;
  int64_t nnz = 0;
  int64_t twin = 0;
  char tail[512] = {};
};

struct StubHandle {
  cudaStream_t stream = nullptr;
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
};

struct StubSpGEMM {
  uint64_t magic = 0x5354554247454d4dULL;
};

std::mutex g_mutex;
std::vector<StubCall> g_calls;
std::unordered_map<const void*, int64_t> g_cached_nnz;

std::string layout() {
  const char* v = std::getenv("STUB_CUSPARSE_LAYOUT");
  return v ? v : "";
}

void record(const char* name, const void* descr, int alg = -1, const void* buffer = nullptr,
            const void* matC = nullptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_calls.push_back(StubCall{name, descr, alg, buffer, matC});
}

int64_t nnz_of(const StubMat* m) {
  if (layout() == "cached") {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_cached_nnz.find(m);
    return it == g_cached_nnz.end() ? 0 : it->second;
  }
  return m->nnz;
}

}  // namespace

extern "C" {

int stub_call_count(const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  int n = 0;
  for (const StubCall& c : g_calls) n += std::strcmp(c.name, name) == 0;
  return n;
}

StubCall stub_last_call(const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto it = g_calls.rbegin(); it != g_calls.rend(); ++it)
    if (std::strcmp(it->name, name) == 0) return *it;
  return StubCall{};
}

void stub_reset(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_calls.clear();
}

int stub_is_stub_spgemm_descr(const void* p) {
  return p && static_cast<const StubSpGEMM*>(p)->magic == StubSpGEMM{}.magic;
}

cusparseStatus_t CUSPARSEAPI cusparseCreate(cusparseHandle_t* handle) {
  *handle = reinterpret_cast<cusparseHandle_t>(new StubHandle);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseDestroy(cusparseHandle_t handle) {
  record("cusparseDestroy", handle);
  delete reinterpret_cast<StubHandle*>(handle);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSetStream(cusparseHandle_t handle, cudaStream_t stream) {
  reinterpret_cast<StubHandle*>(handle)->stream = stream;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseGetStream(cusparseHandle_t handle, cudaStream_t* stream) {
  *stream = reinterpret_cast<StubHandle*>(handle)->stream;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSetPointerMode(cusparseHandle_t handle,
                                                    cusparsePointerMode_t mode) {
  reinterpret_cast<StubHandle*>(handle)->mode = mode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseGetPointerMode(cusparseHandle_t handle,
                                                    cusparsePointerMode_t* mode) {
  *mode = reinterpret_cast<StubHandle*>(handle)->mode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseCreateCsr(cusparseSpMatDescr_t* descr, int64_t rows,
                                               int64_t cols, int64_t nnz, void* offsets,
                                               void* columns, void* values,
                                               cusparseIndexType_t offset_type,
                                               cusparseIndexType_t index_type,
                                               cusparseIndexBase_t base, cudaDataType type) {
  auto* m = new StubMat;
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  if (layout() == "twin") m->twin = nnz;
  if (layout() == "cached") {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_cached_nnz[m] = nnz;
  }
  m->offsets = offsets;
  m->columns = columns;
  m->values = values;
  m->offset_type = offset_type;
  m->index_type = index_type;
  m->base = base;
  m->value_type = type;
  *descr = reinterpret_cast<cusparseSpMatDescr_t>(m);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseCreateCoo(cusparseSpMatDescr_t* descr, int64_t rows,
                                               int64_t cols, int64_t nnz, void* rowInd,
                                               void* colInd, void* values,
                                               cusparseIndexType_t index_type,
                                               cusparseIndexBase_t base, cudaDataType type) {
  cusparseCreateCsr(descr, rows, cols, nnz, rowInd, colInd, values, index_type, index_type, base,
                    type);
  reinterpret_cast<StubMat*>(*descr)->format = CUSPARSE_FORMAT_COO;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseDestroySpMat(cusparseConstSpMatDescr_t descr) {
  delete reinterpret_cast<const StubMat*>(descr);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpMatGetSize(cusparseConstSpMatDescr_t descr, int64_t* rows,
                                                  int64_t* cols, int64_t* nnz) {
  auto* m = reinterpret_cast<const StubMat*>(descr);
  *rows = m->rows;
  *cols = m->cols;
  *nnz = nnz_of(m);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpMatGetFormat(cusparseConstSpMatDescr_t descr,
                                                    cusparseFormat_t* format) {
  *format = static_cast<cusparseFormat_t>(reinterpret_cast<const StubMat*>(descr)->format);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpMatGetIndexBase(cusparseConstSpMatDescr_t descr,
                                                       cusparseIndexBase_t* base) {
  *base = static_cast<cusparseIndexBase_t>(reinterpret_cast<const StubMat*>(descr)->base);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpMatGetStridedBatch(cusparseConstSpMatDescr_t descr,
                                                          int* batches) {
  *batches = reinterpret_cast<const StubMat*>(descr)->batches;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseCsrSetStridedBatch(cusparseSpMatDescr_t descr, int batches,
                                                        int64_t, int64_t) {
  reinterpret_cast<StubMat*>(descr)->batches = batches;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseConstCsrGet(cusparseConstSpMatDescr_t descr, int64_t* rows,
                                                 int64_t* cols, int64_t* nnz,
                                                 const void** offsets, const void** columns,
                                                 const void** values,
                                                 cusparseIndexType_t* offset_type,
                                                 cusparseIndexType_t* index_type,
                                                 cusparseIndexBase_t* base, cudaDataType* type) {
  auto* m = reinterpret_cast<const StubMat*>(descr);
  if (m->format != CUSPARSE_FORMAT_CSR) return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = m->rows;
  *cols = m->cols;
  *nnz = nnz_of(m);
  *offsets = m->offsets;
  *columns = m->columns;
  *values = m->values;
  *offset_type = static_cast<cusparseIndexType_t>(m->offset_type);
  *index_type = static_cast<cusparseIndexType_t>(m->index_type);
  *base = static_cast<cusparseIndexBase_t>(m->base);
  *type = static_cast<cudaDataType>(m->value_type);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseCsrSetPointers(cusparseSpMatDescr_t descr, void* offsets,
                                                    void* columns, void* values) {
  auto* m = reinterpret_cast<StubMat*>(descr);
  m->offsets = offsets;
  m->columns = columns;
  m->values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

// ---- SpGEMM: recorded; size queries answer kStubBufferSize ----------------

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t* descr) {
  *descr = reinterpret_cast<cusparseSpGEMMDescr_t>(new StubSpGEMM);
  record("cusparseSpGEMM_createDescr", *descr);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr) {
  record("cusparseSpGEMM_destroyDescr", descr);
  delete reinterpret_cast<StubSpGEMM*>(descr);
  return CUSPARSE_STATUS_SUCCESS;
}

#define STUB_PLAIN(name, size, buffer)                                                       \
  cusparseStatus_t CUSPARSEAPI name(                                                         \
      cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void*,               \
      cusparseConstSpMatDescr_t, cusparseConstSpMatDescr_t, const void*,                     \
      cusparseSpMatDescr_t matC, cudaDataType, cusparseSpGEMMAlg_t alg,                      \
      cusparseSpGEMMDescr_t descr, size_t* size, void* buffer) {                             \
    record(#name, descr, alg, buffer, matC);                                                 \
    if (size && !buffer) *size = kStubBufferSize;                                            \
    return CUSPARSE_STATUS_SUCCESS;                                                          \
  }

STUB_PLAIN(cusparseSpGEMM_workEstimation, bufferSize1, externalBuffer1)
STUB_PLAIN(cusparseSpGEMM_compute, bufferSize2, externalBuffer2)

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t descr,
                                                           int64_t* products) {
  record("cusparseSpGEMM_getNumProducts", descr);
  *products = 4242;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_estimateMemory(
    cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void*,
    cusparseConstSpMatDescr_t, cusparseConstSpMatDescr_t, const void*, cusparseSpMatDescr_t matC,
    cudaDataType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t descr, float, size_t* size3,
    void* buffer3, size_t* size2) {
  record("cusparseSpGEMM_estimateMemory", descr, alg, buffer3, matC);
  if (size3 && !buffer3) *size3 = kStubBufferSize;
  if (size2) *size2 = kStubBufferSize;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_copy(cusparseHandle_t, cusparseOperation_t,
                                                 cusparseOperation_t, const void*,
                                                 cusparseConstSpMatDescr_t,
                                                 cusparseConstSpMatDescr_t, const void*,
                                                 cusparseSpMatDescr_t matC, cudaDataType,
                                                 cusparseSpGEMMAlg_t alg,
                                                 cusparseSpGEMMDescr_t descr) {
  record("cusparseSpGEMM_copy", descr, alg, nullptr, matC);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_workEstimation(
    cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, cusparseConstSpMatDescr_t,
    cusparseConstSpMatDescr_t, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t descr, size_t* size1, void* buffer1) {
  record("cusparseSpGEMMreuse_workEstimation", descr, alg, buffer1, matC);
  if (size1 && !buffer1) *size1 = kStubBufferSize;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_nnz(
    cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, cusparseConstSpMatDescr_t,
    cusparseConstSpMatDescr_t, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t descr, size_t* size2, void* buffer2, size_t* size3, void* buffer3,
    size_t* size4, void* buffer4) {
  record("cusparseSpGEMMreuse_nnz", descr, alg, buffer4, matC);
  if (!buffer2 || !buffer3 || !buffer4) *size2 = *size3 = *size4 = kStubBufferSize;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_copy(
    cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, cusparseConstSpMatDescr_t,
    cusparseConstSpMatDescr_t, cusparseSpMatDescr_t matC, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t descr, size_t* size5, void* buffer5) {
  record("cusparseSpGEMMreuse_copy", descr, alg, buffer5, matC);
  if (size5 && !buffer5) *size5 = kStubBufferSize;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_compute(
    cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void*,
    cusparseConstSpMatDescr_t, cusparseConstSpMatDescr_t, const void*, cusparseSpMatDescr_t matC,
    cudaDataType, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t descr) {
  record("cusparseSpGEMMreuse_compute", descr, alg, nullptr, matC);
  return CUSPARSE_STATUS_SUCCESS;
}

}  // extern "C"
