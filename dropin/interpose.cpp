// SPDX-License-Identifier: Apache-2.0
// The exported cuSPARSE entry points: cuSPARSE's generic SpGEMM (plain and
// structure reuse) with cuSPARSE's exact signatures, plus cusparseDestroy.
// Each one either forwards to the real libcusparse untouched or computes with
// libspgemm's public C API; docs/dropin.md maps the protocol onto libspgemm's
// phases and buffers.
#include "controls.hpp"
#include "memory_ops.hpp"
#include "state.hpp"

#include <spgemm/spgemm.h>

#include <cstring>
#include <string>

using namespace spgemm_dropin;

namespace {

constexpr size_t kAlign = 256;  // spgemmPlanSetWorkspace's alignment

size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
void* align_up(void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<void*>((v + kAlign - 1) / kAlign * kAlign);
}

cusparseStatus_t to_cusparse(spgemmStatus_t s) {
  switch (s) {
    case SPGEMM_STATUS_SUCCESS: return CUSPARSE_STATUS_SUCCESS;
    case SPGEMM_STATUS_NOT_INITIALIZED: return CUSPARSE_STATUS_NOT_INITIALIZED;
    case SPGEMM_STATUS_ALLOC_FAILED: return CUSPARSE_STATUS_ALLOC_FAILED;
    case SPGEMM_STATUS_INVALID_VALUE: return CUSPARSE_STATUS_INVALID_VALUE;
    case SPGEMM_STATUS_NOT_SUPPORTED: return CUSPARSE_STATUS_NOT_SUPPORTED;
    case SPGEMM_STATUS_EXECUTION_FAILED: return CUSPARSE_STATUS_EXECUTION_FAILED;
    case SPGEMM_STATUS_INVALID_STATE: return CUSPARSE_STATUS_INVALID_VALUE;
    case SPGEMM_STATUS_INDEX_OVERFLOW: return CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    case SPGEMM_STATUS_NO_DEVICE: return CUSPARSE_STATUS_NOT_INITIALIZED;
    default: return CUSPARSE_STATUS_INTERNAL_ERROR;
  }
}

std::string lib_error(const char* call, spgemmStatus_t s) {
  return std::string(call) + ": " + spgemmGetErrorName(s) + ": " + spgemmGetLastErrorMessage();
}

spgemmIndexType_t lib_index(cusparseIndexType_t t) {
  return t == CUSPARSE_INDEX_64I ? SPGEMM_INDEX_64I : SPGEMM_INDEX_32I;
}
spgemmIndexBase_t lib_base(cusparseIndexBase_t b) {
  return b == CUSPARSE_INDEX_BASE_ONE ? SPGEMM_INDEX_BASE_ONE : SPGEMM_INDEX_BASE_ZERO;
}

const RealCusparse& real() { return *process().real; }

// The buffer the libspgemm path asks for where it needs one (plain compute's
// buffer2, reuse nnz's buffer4): the plan's workspace, then C's row offsets
// between symbolic and copy, each aligned to 256 bytes, plus 256 bytes so
// that a buffer at any address can be aligned.
size_t buffer_bytes(const Descr& d) {
  return round_up(d.workspace_bytes) + round_up((d.info_c.rows + 1) * d.offset_bytes) + kAlign;
}

MemoryOps ops_for(cusparseHandle_t handle) {
  MemoryOps ops;
  ops.host = controls().test_host;
  if (real().get_stream(handle, &ops.stream) != CUSPARSE_STATUS_SUCCESS) ops.stream = nullptr;
  return ops;
}

// The libspgemm objects for a request decide() took: handle, descriptors, plan
// (no GPU work). Returns "" or why it cannot (the descriptor then falls back).
std::string set_up(Descr& d, cusparseHandle_t handle, const Request& q) {
  spgemmStatus_t s = SPGEMM_STATUS_SUCCESS;
  d.lib = lib_handle_for(handle, &s);
  if (!d.lib) return lib_error("spgemmCreate", s);
  d.info_a = q.a;
  d.info_b = q.b;
  d.info_c = q.c;
  d.type = q.a.value_type;
  d.offset_bytes = index_bytes(q.c.offset_type);
  auto create = [&](spgemmMatDescr_t* out, const MatInfo& m, bool arrays) {
    return spgemmCreateCsr(out, m.rows, m.cols, arrays ? m.nnz : 0,
                           arrays ? const_cast<void*>(m.offsets) : nullptr,
                           arrays ? const_cast<void*>(m.columns) : nullptr,
                           arrays ? const_cast<void*>(m.values) : nullptr,
                           lib_index(m.offset_type), lib_index(m.index_type), lib_base(m.base),
                           m.value_type);
  };
  if ((s = create(&d.a, q.a, true)) != SPGEMM_STATUS_SUCCESS) return lib_error("spgemmCreateCsr", s);
  if ((s = create(&d.b, q.b, true)) != SPGEMM_STATUS_SUCCESS) return lib_error("spgemmCreateCsr", s);
  if ((s = create(&d.c, q.c, false)) != SPGEMM_STATUS_SUCCESS) return lib_error("spgemmCreateCsr", s);
  if (controls().test_host)
    for (spgemmMatDescr_t m : {d.a, d.b, d.c}) spgemmCsrSetMemoryType(m, SPGEMM_MEMORY_HOST);
  s = spgemmPlanCreate(d.lib->handle, &d.plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                       SPGEMM_OPERATION_NON_TRANSPOSE, d.a, d.b, d.c, d.type);
  if (s != SPGEMM_STATUS_SUCCESS) return lib_error("spgemmPlanCreate", s);
  s = spgemmPlanGetWorkspaceSize(d.lib->handle, d.plan, &d.workspace_bytes);
  if (s != SPGEMM_STATUS_SUCCESS) return lib_error("spgemmPlanGetWorkspaceSize", s);
  return {};
}

// A descriptor's libspgemm objects go, for a new product on it.
void tear_down(Descr& d) {
  spgemmPlanDestroy(d.plan);
  spgemmDestroyMatrix(d.a);
  spgemmDestroyMatrix(d.b);
  spgemmDestroyMatrix(d.c);
  d.plan = nullptr;
  d.a = d.b = d.c = nullptr;
  d.workspace = d.staging = nullptr;
  d.workspace_bytes = 0;
  d.nnz_c = -1;
  d.symbolic_done = d.structure_done = false;
  d.structure_columns = nullptr;
  d.path = Path::undecided;
}

bool same_matrix(const MatInfo& x, const MatInfo& y, bool arrays) {
  return x.readable == y.readable && x.format == y.format && x.batches == y.batches &&
         x.rows == y.rows && x.cols == y.cols && x.offset_type == y.offset_type &&
         x.index_type == y.index_type && x.base == y.base && x.value_type == y.value_type &&
         (!arrays || (x.nnz == y.nnz && x.offsets == y.offsets && x.columns == y.columns &&
                      x.values == y.values));
}

// The decision at a descriptor's first call, kept to the end of the product:
// a workEstimation call (`restart`) on a descriptor that already computed a
// product, or with other operands, an operation or algorithm, starts a new
// product and decides again (the program's handle is the real descriptor, so
// either path can follow).
void decide_once(Descr& d, cusparseHandle_t handle, const Request& q, CallLog& log,
                 bool restart = false) {
  if (d.path != Path::undecided) {
    const bool same = d.api == q.api && d.alg == q.alg && d.op_a == q.op_a && d.op_b == q.op_b &&
                      same_matrix(d.info_a, q.a, true) && same_matrix(d.info_b, q.b, true) &&
                      same_matrix(d.info_c, q.c, false);
    if (!restart || (same && !d.symbolic_done)) return;
    tear_down(d);
  }
  d.api = q.api;
  d.alg = q.alg;
  d.op_a = q.op_a;
  d.op_b = q.op_b;
  d.info_a = q.a;
  d.info_b = q.b;
  d.info_c = q.c;
  Decision decision = decide(q);
  if (decision.take) {
    std::string why = set_up(d, handle, q);
    if (!why.empty()) {
      tear_down(d);
      decision = Decision{false, why};
    }
  }
  d.path = decision.take ? Path::libspgemm : Path::cusparse;
  d.reason = decision.reason;
  log.path(d.path == Path::libspgemm ? "libspgemm" : "cusparse", "decided: " + d.reason);
}

Request plain_request(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                      const void* alpha, cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B,
                      const void* beta, cusparseSpMatDescr_t C, cudaDataType computeType,
                      cusparseSpGEMMAlg_t alg) {
  Request q;
  q.api = Api::plain;
  q.op_a = opA;
  q.op_b = opB;
  q.alg = alg;
  q.compute_type = computeType;
  if (real().get_pointer_mode(handle, &q.pointer_mode) != CUSPARSE_STATUS_SUCCESS)
    q.pointer_mode = CUSPARSE_POINTER_MODE_DEVICE;  // unknown: not taken
  q.alpha = alpha;
  q.beta = beta;
  q.a = read_matrix(real(), A);
  q.b = read_matrix(real(), B);
  q.c = read_matrix(real(), C);
  return q;
}

Request reuse_request(cusparseOperation_t opA, cusparseOperation_t opB,
                      cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B,
                      cusparseSpMatDescr_t C, cusparseSpGEMMAlg_t alg) {
  Request q;
  q.api = Api::reuse;
  q.op_a = opA;
  q.op_b = opB;
  q.alg = alg;
  q.a = read_matrix(real(), A);
  q.b = read_matrix(real(), B);
  q.c = read_matrix(real(), C);
  return q;
}

// A and B's current arrays into libspgemm's descriptors (cusparseSpMatSetValues
// or cusparseCsrSetPointers may have moved them since the decision). Their
// shapes must be the decision's.
bool refresh_operands(Descr& d, cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B) {
  const MatInfo a = read_matrix(real(), A), b = read_matrix(real(), B);
  if (!a.readable || !b.readable || a.rows != d.info_a.rows || a.cols != d.info_a.cols ||
      a.nnz != d.info_a.nnz || b.rows != d.info_b.rows || b.cols != d.info_b.cols ||
      b.nnz != d.info_b.nnz)
    return false;
  spgemmCsrSetPointers(d.a, const_cast<void*>(a.offsets), const_cast<void*>(a.columns),
                       const_cast<void*>(a.values));
  spgemmCsrSetPointers(d.b, const_cast<void*>(b.offsets), const_cast<void*>(b.columns),
                       const_cast<void*>(b.values));
  return true;
}

// Gives the plan its workspace inside `buffer` (a new plan if an earlier call
// gave it another buffer), then analysis and symbolic phase: C's row offsets
// into the staging area, nnz(C) into C's real descriptor.
cusparseStatus_t structure(Descr& d, cusparseHandle_t handle, void* buffer,
                           cusparseSpMatDescr_t C, CallLog& log) {
  void* base = align_up(buffer);
  void* workspace = base;
  d.staging = static_cast<char*>(base) + round_up(d.workspace_bytes);
  spgemmHandle_t h = d.lib->handle;
  spgemmStatus_t s;
  if (d.workspace != workspace) {
    if (d.workspace) {  // the plan holds another buffer: a new plan
      spgemmPlanDestroy(d.plan);
      d.plan = nullptr;
      s = spgemmPlanCreate(h, &d.plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                           SPGEMM_OPERATION_NON_TRANSPOSE, d.a, d.b, d.c, d.type);
      if (s != SPGEMM_STATUS_SUCCESS) {
        log.path("libspgemm", lib_error("spgemmPlanCreate", s));
        return to_cusparse(s);
      }
    }
    if (d.workspace_bytes > 0 &&
        (s = spgemmPlanSetWorkspace(h, d.plan, workspace, d.workspace_bytes)) !=
            SPGEMM_STATUS_SUCCESS) {
      log.path("libspgemm", lib_error("spgemmPlanSetWorkspace", s));
      return to_cusparse(s);
    }
    d.workspace = workspace;
  }
  const MemoryOps ops = ops_for(handle);
  spgemmSetStream(h, ops.stream);
  spgemmCsrSetPointers(d.c, d.staging, nullptr, nullptr);
  int64_t nnz = 0;
  if ((s = spgemmAnalyze(h, d.plan)) != SPGEMM_STATUS_SUCCESS ||
      (s = spgemmSymbolic(h, d.plan, &nnz)) != SPGEMM_STATUS_SUCCESS) {
    log.path("libspgemm", lib_error("spgemmAnalyze/spgemmSymbolic", s));
    return to_cusparse(s);
  }
  std::string why;
  if (!write_nnz(real(), process().slot, C, nnz, &why)) {
    log.path("libspgemm", "nnz(C) not set: " + why);
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  }
  d.nnz_c = nnz;
  d.symbolic_done = true;
  d.structure_done = false;
  return CUSPARSE_STATUS_SUCCESS;
}

// C's arrays as set by cusparseCsrSetPointers: row offsets from the staging
// area, then the numeric phase into them with `alpha`.
cusparseStatus_t fill(Descr& d, cusparseHandle_t handle, cusparseSpMatDescr_t C,
                      const void* alpha, CallLog& log) {
  const MatInfo c = read_matrix(real(), C);
  if (!c.readable || !c.offsets || (d.nnz_c > 0 && (!c.columns || !c.values))) {
    log.path("libspgemm", "C's arrays are not set (cusparseCsrSetPointers)");
    return CUSPARSE_STATUS_INVALID_VALUE;
  }
  const MemoryOps ops = ops_for(handle);
  spgemmHandle_t h = d.lib->handle;
  spgemmSetStream(h, ops.stream);
  if (!ops.copy(const_cast<void*>(c.offsets), d.staging, (d.info_c.rows + 1) * d.offset_bytes)) {
    log.path("libspgemm", "copy of C's row offsets failed");
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  }
  spgemmCsrSetPointers(d.c, const_cast<void*>(c.offsets), const_cast<void*>(c.columns),
                       const_cast<void*>(c.values));
  const spgemmStatus_t s = spgemmNumeric(h, d.plan, alpha);
  if (s != SPGEMM_STATUS_SUCCESS) {
    log.path("libspgemm", lib_error("spgemmNumeric", s));
    return to_cusparse(s);
  }
  d.structure_columns = c.columns;
  d.structure_done = true;
  return CUSPARSE_STATUS_SUCCESS;
}

// Calls before the decision, or on a descriptor that is not ours.
#define FORWARD_IF_NOT_OURS(descr, call, ...)                                  \
  const Process& proc = process();                                             \
  Descr* d = proc.enabled ? ours(descr) : nullptr;                             \
  if (!d) {                                                                    \
    log.path("cusparse", proc.enabled ? "not a drop-in descriptor" : "off");   \
    if (!real().call) return log.finish(CUSPARSE_STATUS_NOT_SUPPORTED);        \
    return log.finish(real().call(__VA_ARGS__));                               \
  }

#define FORWARD_IF_CUSPARSE_PATH(call, ...)                                    \
  if (d->path == Path::cusparse) {                                             \
    if (!log.has_reason()) log.path("cusparse", d->reason);                    \
    return log.finish(real().call(__VA_ARGS__));                               \
  }                                                                            \
  if (!log.has_reason()) log.path("libspgemm");

}  // namespace

extern "C" {

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t* descr) {
  CallLog log(__func__);
  const Process& proc = process();
  if (!real().spgemm_create_descr) return log.finish(CUSPARSE_STATUS_NOT_INITIALIZED);
  // The program's handle is always a real descriptor (state kept beside it).
  const cusparseStatus_t status = real().spgemm_create_descr(descr);
  if (!proc.enabled || status != CUSPARSE_STATUS_SUCCESS) {
    log.path("cusparse", proc.enabled ? "" : "off");
    return log.finish(status);
  }
  auto* d = new (std::nothrow) Descr;
  if (!d) {
    real().spgemm_destroy_descr(*descr);
    *descr = nullptr;
    return log.finish(CUSPARSE_STATUS_ALLOC_FAILED);
  }
  d->real = *descr;
  register_descr(d);
  log.path("drop-in", "path decided at the first call");
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr) {
  CallLog log(__func__);
  Descr* d = process().enabled ? unregister_descr(descr) : nullptr;
  log.path(d && d->path == Path::libspgemm ? "libspgemm" : "cusparse");
  delete d;
  if (!real().spgemm_destroy_descr) return log.finish(CUSPARSE_STATUS_NOT_INITIALIZED);
  return log.finish(real().spgemm_destroy_descr(descr));
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_workEstimation(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void* beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize1, void* externalBuffer1) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, spgemm_work_estimation, handle, opA, opB, alpha, matA, matB,
                      beta, matC, computeType, alg, spgemmDescr, bufferSize1, externalBuffer1)
  decide_once(*d, handle,
              plain_request(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg),
              log, /*restart=*/true);
  FORWARD_IF_CUSPARSE_PATH(spgemm_work_estimation, handle, opA, opB, alpha, matA, matB, beta,
                           matC, computeType, alg, spgemmDescr, bufferSize1, externalBuffer1)
  if (!bufferSize1) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  *bufferSize1 = 0;  // nothing to estimate: the plan's workspace goes in buffer2
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t spgemmDescr,
                                                           int64_t* num_prods) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, spgemm_get_num_products, spgemmDescr, num_prods)
  FORWARD_IF_CUSPARSE_PATH(spgemm_get_num_products, spgemmDescr, num_prods)
  if (!num_prods) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  if (d->path != Path::libspgemm) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  log.path("libspgemm", "products counted on the last stream used");
  MemoryOps ops;
  ops.host = controls().test_host;
  spgemmGetStream(d->lib->handle, &ops.stream);
  if (!ops.count_products(d->info_a.columns, d->info_a.nnz, d->info_b.offsets,
                          d->info_a.index_type == CUSPARSE_INDEX_64I,
                          d->info_a.base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0, num_prods))
    return log.finish(CUSPARSE_STATUS_EXECUTION_FAILED);
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_estimateMemory(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void* beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, float chunk_fraction, size_t* bufferSize3,
    void* externalBuffer3, size_t* bufferSize2) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, spgemm_estimate_memory, handle, opA, opB, alpha, matA, matB,
                      beta, matC, computeType, alg, spgemmDescr, chunk_fraction, bufferSize3,
                      externalBuffer3, bufferSize2)
  FORWARD_IF_CUSPARSE_PATH(spgemm_estimate_memory, handle, opA, opB, alpha, matA, matB, beta,
                           matC, computeType, alg, spgemmDescr, chunk_fraction, bufferSize3,
                           externalBuffer3, bufferSize2)
  // Only ALG2/ALG3 (which go to cuSPARSE) estimate memory; cuSPARSE refuses
  // the algorithms the drop-in takes.
  log.path("libspgemm", "estimateMemory runs only with ALG2/ALG3");
  return log.finish(CUSPARSE_STATUS_NOT_SUPPORTED);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_compute(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void* beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize2, void* externalBuffer2) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, spgemm_compute, handle, opA, opB, alpha, matA, matB, beta,
                      matC, computeType, alg, spgemmDescr, bufferSize2, externalBuffer2)
  decide_once(*d, handle,
              plain_request(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg),
              log);
  FORWARD_IF_CUSPARSE_PATH(spgemm_compute, handle, opA, opB, alpha, matA, matB, beta, matC,
                           computeType, alg, spgemmDescr, bufferSize2, externalBuffer2)
  log.path("libspgemm");
  if (!bufferSize2 || !alpha || !beta) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
  real().get_pointer_mode(handle, &mode);
  if (mode != CUSPARSE_POINTER_MODE_HOST || !scalar_is_zero(beta, d->type)) {
    log.path("libspgemm", "device pointer mode or beta != 0 after a workEstimation without");
    return log.finish(CUSPARSE_STATUS_NOT_SUPPORTED);
  }
  const size_t needed = buffer_bytes(*d);
  if (!externalBuffer2) {
    *bufferSize2 = needed;
    return log.finish(CUSPARSE_STATUS_SUCCESS);
  }
  if (*bufferSize2 < needed) {
    log.path("libspgemm", "bufferSize2 smaller than the size query gave");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  if (!refresh_operands(*d, matA, matB)) {
    log.path("libspgemm", "A or B changed shape since workEstimation");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  std::memcpy(d->alpha, alpha, value_bytes(d->type));
  return log.finish(structure(*d, handle, externalBuffer2, matC, log));
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMM_copy(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void* beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, spgemm_copy, handle, opA, opB, alpha, matA, matB, beta, matC,
                      computeType, alg, spgemmDescr)
  FORWARD_IF_CUSPARSE_PATH(spgemm_copy, handle, opA, opB, alpha, matA, matB, beta, matC,
                           computeType, alg, spgemmDescr)
  log.path("libspgemm");
  if (d->path != Path::libspgemm || !d->symbolic_done) {
    log.path("libspgemm", "copy before compute");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  if (!refresh_operands(*d, matA, matB)) {
    log.path("libspgemm", "A or B changed shape since workEstimation");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  // cuSPARSE computes the values at compute: compute's alpha is the one used.
  return log.finish(fill(*d, handle, matC, d->alpha, log));
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_workEstimation(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
    cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize1,
    void* externalBuffer1) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, reuse_work_estimation, handle, opA, opB, matA, matB, matC,
                      alg, spgemmDescr, bufferSize1, externalBuffer1)
  decide_once(*d, handle, reuse_request(opA, opB, matA, matB, matC, alg), log,
              /*restart=*/true);
  FORWARD_IF_CUSPARSE_PATH(reuse_work_estimation, handle, opA, opB, matA, matB, matC, alg,
                           spgemmDescr, bufferSize1, externalBuffer1)
  if (!bufferSize1) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  *bufferSize1 = 0;  // the plan's workspace goes in buffer4, which lives to the end
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_nnz(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
    cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize2,
    void* externalBuffer2, size_t* bufferSize3, void* externalBuffer3, size_t* bufferSize4,
    void* externalBuffer4) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, reuse_nnz, handle, opA, opB, matA, matB, matC, alg,
                      spgemmDescr, bufferSize2, externalBuffer2, bufferSize3, externalBuffer3,
                      bufferSize4, externalBuffer4)
  decide_once(*d, handle, reuse_request(opA, opB, matA, matB, matC, alg), log);
  FORWARD_IF_CUSPARSE_PATH(reuse_nnz, handle, opA, opB, matA, matB, matC, alg, spgemmDescr,
                           bufferSize2, externalBuffer2, bufferSize3, externalBuffer3,
                           bufferSize4, externalBuffer4)
  log.path("libspgemm");
  if (!bufferSize2 || !bufferSize3 || !bufferSize4)
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  const size_t needed = buffer_bytes(*d);
  if (!externalBuffer4) {  // buffers 2 and 3 are not needed: 0 bytes
    *bufferSize2 = 0;
    *bufferSize3 = 0;
    *bufferSize4 = needed;
    return log.finish(CUSPARSE_STATUS_SUCCESS);
  }
  if (*bufferSize4 < needed) {
    log.path("libspgemm", "bufferSize4 smaller than the size query gave");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  if (!refresh_operands(*d, matA, matB)) {
    log.path("libspgemm", "A or B changed shape since workEstimation");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  cusparseStatus_t status = structure(*d, handle, externalBuffer4, matC, log);
  if (status != CUSPARSE_STATUS_SUCCESS) return log.finish(status);
  // cuSPARSE writes C's row offsets here when C has them (set at creation).
  const MatInfo c = read_matrix(real(), matC);
  if (c.offsets &&
      !ops_for(handle).copy(const_cast<void*>(c.offsets), d->staging,
                            (d->info_c.rows + 1) * d->offset_bytes))
    return log.finish(CUSPARSE_STATUS_EXECUTION_FAILED);
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_copy(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
    cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr, size_t* bufferSize5,
    void* externalBuffer5) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, reuse_copy, handle, opA, opB, matA, matB, matC, alg,
                      spgemmDescr, bufferSize5, externalBuffer5)
  FORWARD_IF_CUSPARSE_PATH(reuse_copy, handle, opA, opB, matA, matB, matC, alg, spgemmDescr,
                           bufferSize5, externalBuffer5)
  log.path("libspgemm");
  if (!bufferSize5) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  if (d->path != Path::libspgemm || !d->symbolic_done) {
    log.path("libspgemm", "reuse_copy before reuse_nnz");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  *bufferSize5 = 0;  // no buffer: C's columns are written at the first call with C's arrays
  const MatInfo c = read_matrix(real(), matC);
  if (d->structure_done && c.columns == d->structure_columns)
    return log.finish(CUSPARSE_STATUS_SUCCESS);  // the size query already wrote them
  if (!externalBuffer5 && d->nnz_c > 0 && (!c.columns || !c.values)) {
    log.path("libspgemm", "size query before cusparseCsrSetPointers: C written at the next call");
    return log.finish(CUSPARSE_STATUS_SUCCESS);
  }
  if (!refresh_operands(*d, matA, matB)) {
    log.path("libspgemm", "A or B changed shape since workEstimation");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  unsigned char one[16] = {};
  if (d->type == CUDA_R_32F || d->type == CUDA_C_32F) {
    const float v = 1.0f;
    std::memcpy(one, &v, sizeof v);
  } else {
    const double v = 1.0;
    std::memcpy(one, &v, sizeof v);
  }
  return log.finish(fill(*d, handle, matC, one, log));
}

cusparseStatus_t CUSPARSEAPI cusparseSpGEMMreuse_compute(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void* beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr) {
  CallLog log(__func__);
  FORWARD_IF_NOT_OURS(spgemmDescr, reuse_compute, handle, opA, opB, alpha, matA, matB, beta,
                      matC, computeType, alg, spgemmDescr)
  FORWARD_IF_CUSPARSE_PATH(reuse_compute, handle, opA, opB, alpha, matA, matB, beta, matC,
                           computeType, alg, spgemmDescr)
  log.path("libspgemm");
  if (d->path != Path::libspgemm || !d->structure_done) {
    log.path("libspgemm", "reuse_compute before reuse_copy");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  if (!alpha || !beta) return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  if (computeType != d->type) {
    log.path("libspgemm", "compute type differs from the value type");
    return log.finish(CUSPARSE_STATUS_NOT_SUPPORTED);
  }
  if (!refresh_operands(*d, matA, matB)) {
    log.path("libspgemm", "A or B changed shape since workEstimation");
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  }
  const MemoryOps ops = ops_for(handle);
  const size_t vb = value_bytes(d->type);
  unsigned char a[16] = {}, b[16] = {};
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
  real().get_pointer_mode(handle, &mode);
  if (mode == CUSPARSE_POINTER_MODE_HOST) {
    std::memcpy(a, alpha, vb);
    std::memcpy(b, beta, vb);
  } else if (!ops.read_scalar(a, alpha, vb) || !ops.read_scalar(b, beta, vb)) {
    return log.finish(CUSPARSE_STATUS_EXECUTION_FAILED);
  }
  const MatInfo c = read_matrix(real(), matC);
  if (!c.readable || (d->nnz_c > 0 && (!c.columns || !c.values)))
    return log.finish(CUSPARSE_STATUS_INVALID_VALUE);
  spgemmHandle_t h = d->lib->handle;
  spgemmSetStream(h, ops.stream);
  spgemmCsrSetPointers(d->c, const_cast<void*>(c.offsets), const_cast<void*>(c.columns),
                       const_cast<void*>(c.values));
  // beta != 0: C = alpha * A * B + beta * C, C's old values kept aside.
  void* old = nullptr;
  const bool add = !scalar_is_zero(b, d->type) && d->nnz_c > 0;
  if (add) {
    log.path("libspgemm", "beta != 0: old values of C added after the numeric phase");
    old = ops.scratch(d->nnz_c * vb);
    if (!old || !ops.copy(old, c.values, d->nnz_c * vb)) {
      ops.free_scratch(old);
      return log.finish(CUSPARSE_STATUS_ALLOC_FAILED);
    }
  }
  const spgemmStatus_t s = spgemmNumeric(h, d->plan, a);
  if (s != SPGEMM_STATUS_SUCCESS) {
    ops.free_scratch(old);
    log.path("libspgemm", lib_error("spgemmNumeric", s));
    return log.finish(to_cusparse(s));
  }
  if (add && !ops.add_scaled(const_cast<void*>(c.values), old, b, d->nnz_c, d->type)) {
    ops.free_scratch(old);
    return log.finish(CUSPARSE_STATUS_EXECUTION_FAILED);
  }
  ops.free_scratch(old);
  return log.finish(CUSPARSE_STATUS_SUCCESS);
}

cusparseStatus_t CUSPARSEAPI cusparseDestroy(cusparseHandle_t handle) {
  CallLog log(__func__);
  log.path("cusparse");
  forget_handle(handle);
  return log.finish(real().destroy ? real().destroy(handle) : CUSPARSE_STATUS_NOT_INITIALIZED);
}

}  // extern "C"
