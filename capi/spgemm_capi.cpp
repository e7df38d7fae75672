// SPDX-License-Identifier: Apache-2.0
// The C boundary: argument checks on the public objects, and the one
// try/catch per entry point that turns every exception into a status plus a
// thread-local message. Nothing else in the library knows about statuses'
// transport; nothing here computes.
#include "capi/objects.hpp"
#include "core/error.hpp"

#include <spgemm/spgemm.h>

#include <algorithm>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace {

thread_local std::string t_last_message;

template <class Body>
spgemmStatus_t guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return SPGEMM_STATUS_SUCCESS;
  } catch (const spgemm::Error& e) {
    t_last_message = std::string(function) + ": " + e.what();
    return e.status();
  } catch (const std::bad_alloc&) {
    t_last_message = std::string(function) + ": out of host memory";
    return SPGEMM_STATUS_ALLOC_FAILED;
  } catch (const std::exception& e) {
    t_last_message = std::string(function) + ": internal error: " + e.what();
    return SPGEMM_STATUS_INTERNAL_ERROR;
  } catch (...) {
    t_last_message = std::string(function) + ": internal error: unknown exception";
    return SPGEMM_STATUS_INTERNAL_ERROR;
  }
}

using spgemm::fail;

template <class T>
void require_object(const T* object, const char* what) {
  if (!object) fail(SPGEMM_STATUS_NOT_INITIALIZED, std::string(what) + " is NULL");
}

template <class T>
void require_output(const T* pointer, const char* what) {
  if (!pointer) fail(SPGEMM_STATUS_INVALID_VALUE, std::string(what) + " (output pointer) is NULL");
}

bool valid_index_type(spgemmIndexType_t t) { return t == SPGEMM_INDEX_32I || t == SPGEMM_INDEX_64I; }
bool valid_base(spgemmIndexBase_t b) {
  return b == SPGEMM_INDEX_BASE_ZERO || b == SPGEMM_INDEX_BASE_ONE;
}
bool valid_operation(spgemmOperation_t op) {
  return op == SPGEMM_OPERATION_NON_TRANSPOSE || op == SPGEMM_OPERATION_TRANSPOSE ||
         op == SPGEMM_OPERATION_CONJUGATE_TRANSPOSE;
}
bool valid_memory(spgemmMemoryType_t m) {
  return m == SPGEMM_MEMORY_DEVICE || m == SPGEMM_MEMORY_HOST;
}
// Every cudaDataType a sparse matrix could name; which ones are computed on
// is the plan's decision (NOT_SUPPORTED), not the descriptor's.
bool valid_data_type(cudaDataType t) {
  switch (t) {
    case CUDA_R_16F: case CUDA_C_16F: case CUDA_R_16BF: case CUDA_C_16BF:
    case CUDA_R_32F: case CUDA_C_32F: case CUDA_R_64F: case CUDA_C_64F:
    case CUDA_R_8I: case CUDA_C_8I: case CUDA_R_32I: case CUDA_C_32I:
      return true;
    default:
      return false;
  }
}

void require_plan(spgemmHandle_t handle, spgemmPlan_t plan) {
  require_object(handle, "handle");
  require_object(plan, "plan");
  // (by context, not by the handle's address: the plan keeps its context
  // alive, so a handle made where a destroyed one was has another)
  if (plan->plan->context() != handle->ctx.get())
    fail(SPGEMM_STATUS_INVALID_VALUE, "the plan was created with a different handle");
}

// spgemmPlanCreate and spgemmPlanCreateWithAddend (D may be NULL here).
void create_plan(spgemmHandle_t handle, spgemmPlan_t* plan, spgemmOperation_t opA,
                 spgemmOperation_t opB, spgemmConstMatDescr_t A, spgemmConstMatDescr_t B,
                 spgemmConstMatDescr_t D, spgemmMatDescr_t C, cudaDataType computeType) {
  require_object(handle, "handle");
  require_output(plan, "plan");
  require_object(A, "A");
  require_object(B, "B");
  require_object(C, "C");
  if (!valid_operation(opA) || !valid_operation(opB))
    fail(SPGEMM_STATUS_INVALID_VALUE, "unknown spgemmOperation_t");
  if (!valid_data_type(computeType)) fail(SPGEMM_STATUS_INVALID_VALUE, "unknown computeType");
  auto object = std::make_unique<spgemmPlanObject>();
  object->plan =
      std::make_unique<spgemm::Plan>(handle->ctx, handle->settings, handle->split, opA, opB,
                                     &A->desc, &B->desc, D ? &D->desc : nullptr, &C->desc,
                                     computeType);
  *plan = object.release();
}

}  // namespace

extern "C" {

SPGEMM_API const char* spgemmGetLastErrorMessage(void) { return t_last_message.c_str(); }

SPGEMM_API spgemmStatus_t spgemmGetVersion(int* version) {
  return guarded(__func__, [&] {
    require_output(version, "version");
    *version = SPGEMM_VERSION;
  });
}

SPGEMM_API spgemmStatus_t spgemmCreate(spgemmHandle_t* handle) {
  return guarded(__func__, [&] {
    require_output(handle, "handle");
    *handle = new spgemmContext{};
  });
}

SPGEMM_API spgemmStatus_t spgemmDestroy(spgemmHandle_t handle) {
  return guarded(__func__, [&] { delete handle; });
}

SPGEMM_API spgemmStatus_t spgemmSetStream(spgemmHandle_t handle, cudaStream_t stream) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->ctx->set_stream(stream);
  });
}

SPGEMM_API spgemmStatus_t spgemmGetStream(spgemmHandle_t handle, cudaStream_t* stream) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(stream, "stream");
    *stream = handle->ctx->stream();
  });
}

SPGEMM_API spgemmStatus_t spgemmGetMemoryUsage(spgemmHandle_t handle, size_t* currentBytes,
                                               size_t* peakBytes) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    if (!currentBytes && !peakBytes)
      fail(SPGEMM_STATUS_INVALID_VALUE, "currentBytes and peakBytes are both NULL");
    if (currentBytes) *currentBytes = handle->ctx->used_bytes();
    if (peakBytes) *peakBytes = handle->ctx->peak_bytes();
  });
}

SPGEMM_API spgemmStatus_t spgemmResetPeakMemoryUsage(spgemmHandle_t handle) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->ctx->reset_peak();
  });
}

SPGEMM_API spgemmStatus_t spgemmSetDeviceAllocator(spgemmHandle_t handle,
                                                   spgemmDeviceAllocFn alloc,
                                                   spgemmDeviceFreeFn free, void* user) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    if ((alloc == nullptr) != (free == nullptr))
      fail(SPGEMM_STATUS_INVALID_VALUE, "alloc and free must both be set or both be NULL");
    handle->ctx->set_allocator({alloc, free, user});
  });
}

SPGEMM_API spgemmStatus_t spgemmSetInputChecks(spgemmHandle_t handle, int enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->settings->input_checks = enabled != 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmGetInputChecks(spgemmHandle_t handle, int* enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(enabled, "enabled");
    *enabled = handle->settings->input_checks ? 1 : 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmSetStructureVerification(spgemmHandle_t handle, int enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->settings->verify_structure = enabled != 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmGetStructureVerification(spgemmHandle_t handle, int* enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(enabled, "enabled");
    *enabled = handle->settings->verify_structure ? 1 : 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmSetDeterministic(spgemmHandle_t handle, int enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->settings->deterministic = enabled != 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmGetDeterministic(spgemmHandle_t handle, int* enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(enabled, "enabled");
    *enabled = handle->settings->deterministic ? 1 : 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmSetDevices(spgemmHandle_t handle, int count, const int* devices) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->split->set_devices(*handle->ctx, devices, count);
  });
}

SPGEMM_API spgemmStatus_t spgemmGetDevices(spgemmHandle_t handle, int capacity, int* devices,
                                           int* count) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(count, "count");
    if (capacity < 0 || (capacity > 0 && !devices))
      fail(SPGEMM_STATUS_INVALID_VALUE, "capacity must be >= 0, devices not NULL if it is > 0");
    const auto& parts = handle->split->partitioning().parts;
    *count = static_cast<int>(parts.size());
    for (int i = 0; i < capacity && i < *count; ++i)
      devices[i] = parts[i] ? parts[i]->device() : SPGEMM_HOST_DEVICE;
  });
}

SPGEMM_API spgemmStatus_t spgemmSetPartitionShares(spgemmHandle_t handle, int count,
                                                   const double* shares) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->split->set_shares(shares, count);
  });
}

SPGEMM_API spgemmStatus_t spgemmSetPartitionMinProducts(spgemmHandle_t handle,
                                                        int64_t minProducts) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->split->set_min_products(minProducts);
  });
}

SPGEMM_API spgemmStatus_t spgemmSetOutputDistributed(spgemmHandle_t handle, int enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->split->set_output_distributed(enabled != 0);
  });
}

SPGEMM_API spgemmStatus_t spgemmGetOutputDistributed(spgemmHandle_t handle, int* enabled) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(enabled, "enabled");
    *enabled = handle->split->partitioning().distributed ? 1 : 0;
  });
}

SPGEMM_API spgemmStatus_t spgemmSetOutputChunkBytes(spgemmHandle_t handle, size_t bytes) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    handle->split->set_output_chunk_bytes(bytes);
  });
}

SPGEMM_API spgemmStatus_t spgemmGetOutputChunkBytes(spgemmHandle_t handle, size_t* bytes) {
  return guarded(__func__, [&] {
    require_object(handle, "handle");
    require_output(bytes, "bytes");
    *bytes = handle->split->output_chunk_bytes();
  });
}

SPGEMM_API spgemmStatus_t spgemmCreateCsr(spgemmMatDescr_t* mat, int64_t rows, int64_t cols,
                                          int64_t nnz, void* rowOffsets, void* colInd,
                                          void* values, spgemmIndexType_t offsetType,
                                          spgemmIndexType_t indexType, spgemmIndexBase_t indexBase,
                                          cudaDataType valueType) {
  return guarded(__func__, [&] {
    require_output(mat, "mat");
    if (rows < 0 || cols < 0 || nnz < 0)
      fail(SPGEMM_STATUS_INVALID_VALUE, "rows, cols and nnz must be non-negative");
    if (!valid_index_type(offsetType) || !valid_index_type(indexType))
      fail(SPGEMM_STATUS_INVALID_VALUE, "unknown spgemmIndexType_t");
    if (!valid_base(indexBase)) fail(SPGEMM_STATUS_INVALID_VALUE, "unknown spgemmIndexBase_t");
    if (!valid_data_type(valueType)) fail(SPGEMM_STATUS_INVALID_VALUE, "unknown cudaDataType");
    spgemm::MatrixDesc d;
    d.rows = rows;
    d.cols = cols;
    d.nnz = nnz;
    d.row_offsets = rowOffsets;
    d.col_ind = colInd;
    d.values = values;
    d.offset_type = offsetType;
    d.index_type = indexType;
    d.base = indexBase;
    d.value_type = valueType;
    *mat = new spgemmMatrix{d};
  });
}

SPGEMM_API spgemmStatus_t spgemmDestroyMatrix(spgemmMatDescr_t mat) {
  return guarded(__func__, [&] { delete mat; });
}

SPGEMM_API spgemmStatus_t spgemmCsrSetPointers(spgemmMatDescr_t mat, void* rowOffsets,
                                               void* colInd, void* values) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    mat->desc.row_offsets = rowOffsets;
    mat->desc.col_ind = colInd;
    mat->desc.values = values;
  });
}

SPGEMM_API spgemmStatus_t spgemmCsrGet(spgemmConstMatDescr_t mat, int64_t* rows, int64_t* cols,
                                       int64_t* nnz, void** rowOffsets, void** colInd,
                                       void** values, spgemmIndexType_t* offsetType,
                                       spgemmIndexType_t* indexType,
                                       spgemmIndexBase_t* indexBase, cudaDataType* valueType) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    const spgemm::MatrixDesc& d = mat->desc;
    if (rows) *rows = d.rows;
    if (cols) *cols = d.cols;
    if (nnz) *nnz = d.nnz;
    if (rowOffsets) *rowOffsets = d.row_offsets;
    if (colInd) *colInd = d.col_ind;
    if (values) *values = d.values;
    if (offsetType) *offsetType = d.offset_type;
    if (indexType) *indexType = d.index_type;
    if (indexBase) *indexBase = d.base;
    if (valueType) *valueType = d.value_type;
  });
}

SPGEMM_API spgemmStatus_t spgemmCsrSetReplica(spgemmMatDescr_t mat, int device, void* rowOffsets,
                                              void* colInd, void* values) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    if (device < 0) fail(SPGEMM_STATUS_INVALID_VALUE, "device must be a device ordinal (>= 0)");
    auto& replicas = mat->desc.replicas;
    // the device's replica, else a free entry
    const spgemm::Replica* had = mat->desc.replica_on(device);
    const auto slot = had ? replicas.begin() + (had - replicas.data())
                          : std::find_if(replicas.begin(), replicas.end(),
                                         [](const spgemm::Replica& r) { return r.device < 0; });
    if (!rowOffsets) {
      if (had) *slot = {};
      return;
    }
    if (mat->desc.nnz > 0 && (!colInd || !values))
      fail(SPGEMM_STATUS_INVALID_VALUE, "a replica with entries needs colInd and values");
    if (slot == replicas.end())
      fail(SPGEMM_STATUS_INVALID_VALUE, "a matrix has at most SPGEMM_MAX_DEVICES replicas");
    *slot = {device, rowOffsets, colInd, values};
  });
}

SPGEMM_API spgemmStatus_t spgemmCsrGetReplica(spgemmConstMatDescr_t mat, int device,
                                              void** rowOffsets, void** colInd, void** values) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    require_output(rowOffsets, "rowOffsets");
    require_output(colInd, "colInd");
    require_output(values, "values");
    const spgemm::Replica* r = mat->desc.replica_on(device);
    *rowOffsets = r ? r->row_offsets : nullptr;
    *colInd = r ? r->col_ind : nullptr;
    *values = r ? r->values : nullptr;
  });
}

SPGEMM_API spgemmStatus_t spgemmCsrSetMemoryType(spgemmMatDescr_t mat, spgemmMemoryType_t memory) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    if (!valid_memory(memory)) fail(SPGEMM_STATUS_INVALID_VALUE, "unknown spgemmMemoryType_t");
    mat->desc.memory = memory;
  });
}

SPGEMM_API spgemmStatus_t spgemmCsrGetMemoryType(spgemmConstMatDescr_t mat,
                                                 spgemmMemoryType_t* memory) {
  return guarded(__func__, [&] {
    require_object(mat, "mat");
    require_output(memory, "memory");
    *memory = mat->desc.memory;
  });
}

SPGEMM_API spgemmStatus_t spgemmPlanCreate(spgemmHandle_t handle, spgemmPlan_t* plan,
                                           spgemmOperation_t opA, spgemmOperation_t opB,
                                           spgemmConstMatDescr_t A, spgemmConstMatDescr_t B,
                                           spgemmMatDescr_t C, cudaDataType computeType) {
  return guarded(__func__,
                 [&] { create_plan(handle, plan, opA, opB, A, B, nullptr, C, computeType); });
}

SPGEMM_API spgemmStatus_t spgemmPlanCreateWithAddend(spgemmHandle_t handle, spgemmPlan_t* plan,
                                                     spgemmOperation_t opA, spgemmOperation_t opB,
                                                     spgemmConstMatDescr_t A,
                                                     spgemmConstMatDescr_t B,
                                                     spgemmConstMatDescr_t D, spgemmMatDescr_t C,
                                                     cudaDataType computeType) {
  return guarded(__func__, [&] {
    require_object(D, "D");
    create_plan(handle, plan, opA, opB, A, B, D, C, computeType);
  });
}

SPGEMM_API spgemmStatus_t spgemmPlanDestroy(spgemmPlan_t plan) {
  return guarded(__func__, [&] { delete plan; });
}

SPGEMM_API spgemmStatus_t spgemmPlanGetWorkspaceSize(spgemmHandle_t handle, spgemmPlan_t plan,
                                                     size_t* bytes) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    require_output(bytes, "bytes");
    *bytes = plan->plan->workspace_bytes();
  });
}

SPGEMM_API spgemmStatus_t spgemmPlanSetWorkspace(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 void* buffer, size_t bytes) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    plan->plan->set_workspace(buffer, bytes);
  });
}

SPGEMM_API spgemmStatus_t spgemmAnalyze(spgemmHandle_t handle, spgemmPlan_t plan) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    plan->plan->analyze();
  });
}

SPGEMM_API spgemmStatus_t spgemmSymbolic(spgemmHandle_t handle, spgemmPlan_t plan,
                                         int64_t* nnzC) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    require_output(nnzC, "nnzC");
    *nnzC = plan->plan->symbolic();
  });
}

SPGEMM_API spgemmStatus_t spgemmNumeric(spgemmHandle_t handle, spgemmPlan_t plan,
                                        const void* alpha) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    if (plan->plan->has_addend())
      fail(SPGEMM_STATUS_INVALID_VALUE,
           "the plan has an addend D: use spgemmNumericWithAddend to give beta");
    plan->plan->numeric(alpha, nullptr);
  });
}

SPGEMM_API spgemmStatus_t spgemmNumericWithAddend(spgemmHandle_t handle, spgemmPlan_t plan,
                                                  const void* alpha, const void* beta) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    plan->plan->numeric(alpha, beta);
  });
}

SPGEMM_API spgemmStatus_t spgemmPlanGetPartition(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 int capacity, int* parts, int* devices,
                                                 int64_t* firstRows, int64_t* rows,
                                                 int64_t* products, float* numericMs) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    require_output(parts, "parts");
    if (capacity < 0) fail(SPGEMM_STATUS_INVALID_VALUE, "capacity must be >= 0");
    const std::vector<spgemm::PartReport> report = plan->plan->partition();
    *parts = static_cast<int>(report.size());
    for (int i = 0; i < capacity && i < *parts; ++i) {
      const spgemm::PartReport& r = report[static_cast<size_t>(i)];
      if (devices) devices[i] = r.device;
      if (firstRows) firstRows[i] = r.first_row;
      if (rows) rows[i] = r.rows;
      if (products) products[i] = r.products;
      if (numericMs) numericMs[i] = r.numeric_ms;
    }
  });
}

SPGEMM_API spgemmStatus_t spgemmPlanGetRowBlocks(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 int capacity, spgemmRowBlock_t* blocks,
                                                 int* count) {
  return guarded(__func__, [&] {
    require_plan(handle, plan);
    require_output(count, "count");
    if (capacity < 0) fail(SPGEMM_STATUS_INVALID_VALUE, "capacity must be >= 0");
    if (capacity > 0 && !blocks)
      fail(SPGEMM_STATUS_INVALID_VALUE, "blocks is NULL with capacity > 0");
    const std::vector<spgemm::RowBlock> found = plan->plan->row_blocks();
    *count = static_cast<int>(found.size());
    for (int i = 0; i < capacity && i < *count; ++i) {
      const spgemm::RowBlock& b = found[static_cast<size_t>(i)];
      blocks[i] = {b.device, b.first_row, b.rows, b.nnz, b.row_offsets, b.col_ind, b.values};
    }
  });
}

}  // extern "C"
