/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libspgemm - sparse matrix-matrix multiplication (SpGEMM) for NVIDIA GPUs.
 *
 * Public C API. Opaque handles and a two-phase workflow modeled on cuSPARSE:
 *
 *   spgemmCreate(&handle); spgemmSetStream(handle, stream);
 *   spgemmCreateCsr(&A, ...); spgemmCreateCsr(&B, ...);
 *   spgemmCreateCsr(&C, m, n, 0, dC_rowOffsets, NULL, NULL, ...);
 *   spgemmPlanCreate(handle, &plan, opA, opB, A, B, C, computeType);
 *   spgemmAnalyze(handle, plan);
 *   spgemmSymbolic(handle, plan, &nnzC);          -- writes C's row offsets
 *   (allocate nnzC column indices and values)
 *   spgemmCsrSetPointers(C, dC_rowOffsets, dC_colInd, dC_values);
 *   spgemmNumeric(handle, plan, &alpha);          -- C = alpha * A * B
 *   (change the values of A/B, same structure: call spgemmNumeric again)
 *   spgemmPlanDestroy(plan); spgemmDestroyMatrix(...); spgemmDestroy(handle);
 *
 * Every function returns a spgemmStatus_t; no C++ exception crosses this
 * boundary. spgemmGetLastErrorMessage() gives the detail of the last failure
 * on the calling thread. See docs/api.md for the full reference.
 *
 * The header compiles as C99 and as C++.
 */
#ifndef SPGEMM_SPGEMM_H
#define SPGEMM_SPGEMM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h> /* cudaStream_t */
#include <library_types.h>    /* cudaDataType  */

#define SPGEMM_VERSION_MAJOR 0
#define SPGEMM_VERSION_MINOR 5
#define SPGEMM_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define SPGEMM_VERSION \
  (SPGEMM_VERSION_MAJOR * 10000 + SPGEMM_VERSION_MINOR * 100 + SPGEMM_VERSION_PATCH)

#if defined(_WIN32)
#define SPGEMM_API
#elif defined(__GNUC__)
#define SPGEMM_API __attribute__((visibility("default")))
#else
#define SPGEMM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------ */
typedef enum spgemmStatus_t {
  SPGEMM_STATUS_SUCCESS = 0,
  SPGEMM_STATUS_NOT_INITIALIZED = 1,  /* null handle / plan / descriptor    */
  SPGEMM_STATUS_ALLOC_FAILED = 2,     /* host or device allocation failed   */
  SPGEMM_STATUS_INVALID_VALUE = 3,    /* a bad argument                     */
  SPGEMM_STATUS_NOT_SUPPORTED = 4,    /* valid, but not implemented         */
  SPGEMM_STATUS_EXECUTION_FAILED = 5, /* a CUDA launch or call failed       */
  SPGEMM_STATUS_INTERNAL_ERROR = 6,   /* a bug in libspgemm                 */
  SPGEMM_STATUS_INVALID_STATE = 7,    /* phases called out of order         */
  SPGEMM_STATUS_INDEX_OVERFLOW = 8,   /* result does not fit the index type */
  SPGEMM_STATUS_NO_DEVICE = 9         /* device work asked, no usable GPU   */
} spgemmStatus_t;

/* ---- enums (values fixed for ABI stability) ----------------------------- */
typedef enum spgemmOperation_t {
  SPGEMM_OPERATION_NON_TRANSPOSE = 0,
  SPGEMM_OPERATION_TRANSPOSE = 1,
  SPGEMM_OPERATION_CONJUGATE_TRANSPOSE = 2
} spgemmOperation_t;

typedef enum spgemmIndexType_t {
  SPGEMM_INDEX_32I = 1, /* int32_t */
  SPGEMM_INDEX_64I = 2  /* int64_t */
} spgemmIndexType_t;

typedef enum spgemmIndexBase_t {
  SPGEMM_INDEX_BASE_ZERO = 0,
  SPGEMM_INDEX_BASE_ONE = 1
} spgemmIndexBase_t;

/* Where a descriptor's arrays live. Device matrices run on the GPU; host
 * matrices run on the multithreaded CPU backend. */
typedef enum spgemmMemoryType_t {
  SPGEMM_MEMORY_DEVICE = 0,
  SPGEMM_MEMORY_HOST = 1
} spgemmMemoryType_t;

/* ---- opaque objects ---------------------------------------------------- */
typedef struct spgemmContext* spgemmHandle_t;
typedef struct spgemmMatrix* spgemmMatDescr_t;
typedef struct spgemmMatrix const* spgemmConstMatDescr_t;
typedef struct spgemmPlanObject* spgemmPlan_t;

/* ---- library and handle ------------------------------------------------ */
SPGEMM_API spgemmStatus_t spgemmGetVersion(int* version);
SPGEMM_API const char* spgemmGetErrorName(spgemmStatus_t status);
SPGEMM_API const char* spgemmGetErrorString(spgemmStatus_t status);
/* Detail of the last failed call made by this thread ("" if none). */
SPGEMM_API const char* spgemmGetLastErrorMessage(void);

/* Works without a GPU (host matrices only); binds to the current device if
 * there is one. */
SPGEMM_API spgemmStatus_t spgemmCreate(spgemmHandle_t* handle);
SPGEMM_API spgemmStatus_t spgemmDestroy(spgemmHandle_t handle); /* NULL ok */
SPGEMM_API spgemmStatus_t spgemmSetStream(spgemmHandle_t handle, cudaStream_t stream);
SPGEMM_API spgemmStatus_t spgemmGetStream(spgemmHandle_t handle, cudaStream_t* stream);
/* Device workspace held by the handle's plans now, and its peak since the
 * handle was created or the peak was last reset: from the handle's pool, the
 * caller's allocator, or buffers given with spgemmPlanSetWorkspace alike. */
SPGEMM_API spgemmStatus_t spgemmGetMemoryUsage(spgemmHandle_t handle, size_t* currentBytes,
                                               size_t* peakBytes);
SPGEMM_API spgemmStatus_t spgemmResetPeakMemoryUsage(spgemmHandle_t handle);

/* The caller's device allocator, for frameworks with their own memory pools.
 * alloc stores a pointer to `bytes` bytes of device memory usable in stream
 * order on `stream` and returns 0, or returns non-zero when it has no memory
 * (the call then fails with SPGEMM_STATUS_ALLOC_FAILED, frees what it took and
 * leaves the handle and plan usable). free gets back exactly what alloc gave,
 * with the same byte count, on the handle's stream at that time. Both NULL:
 * back to the handle's own pool. Workspace already held by plans goes back
 * to the allocator it came from, which must stay valid until those plans are
 * destroyed. */
typedef int (*spgemmDeviceAllocFn)(void* user, void** ptr, size_t bytes, cudaStream_t stream);
typedef void (*spgemmDeviceFreeFn)(void* user, void* ptr, size_t bytes, cudaStream_t stream);
SPGEMM_API spgemmStatus_t spgemmSetDeviceAllocator(spgemmHandle_t handle,
                                                   spgemmDeviceAllocFn alloc,
                                                   spgemmDeviceFreeFn free, void* user);

/* Input checks (default on): spgemmAnalyze first checks the CSR structure of
 * A and B in one light pass (row offsets start at the index base, never
 * decrease and end at nnz + base; column indices within range) and returns
 * SPGEMM_STATUS_INVALID_VALUE, naming the first defect, before any kernel
 * reads the matrices. Unsorted rows and repeated column indices are valid
 * (repeated entries are summed). Turn off only for inputs known to be valid:
 * invalid input is then undefined behaviour. */
SPGEMM_API spgemmStatus_t spgemmSetInputChecks(spgemmHandle_t handle, int enabled);
SPGEMM_API spgemmStatus_t spgemmGetInputChecks(spgemmHandle_t handle, int* enabled);

/* Debug option (default off): spgemmAnalyze records a 64-bit fingerprint of
 * the structure of A, B (and D), and every numeric phase recomputes it and
 * returns SPGEMM_STATUS_INVALID_VALUE if a row offset or column index changed
 * (reuse with a different structure). Costs one pass over the structures and
 * one synchronization per call. */
SPGEMM_API spgemmStatus_t spgemmSetStructureVerification(spgemmHandle_t handle, int enabled);
SPGEMM_API spgemmStatus_t spgemmGetStructureVerification(spgemmHandle_t handle, int* enabled);

/* Deterministic results: the numeric phase adds the terms of every entry of
 * C in an order fixed by the structure of the operands, so the same inputs
 * on the same device give the same bits in every run, with any stream,
 * handle or plan, whatever this setting holds (default 1). enabled = 0 is
 * accepted and read back, and changes no result: both backends are
 * deterministic (docs/api.md). */
SPGEMM_API spgemmStatus_t spgemmSetDeterministic(spgemmHandle_t handle, int enabled);
SPGEMM_API spgemmStatus_t spgemmGetDeterministic(spgemmHandle_t handle, int* enabled);

/* ---- several GPUs (docs/scaling.md) ------------------------------------ */
/* The devices that compute the products of plans created on this handle from
 * now on (plans created before keep what they were created with). Each entry
 * is one part of every large product, with a stream and a memory pool of its
 * own; an ordinal may appear more than once. A, B, D and C stay on the
 * handle's device: the rows of op(A) are split among the parts by predicted
 * cost (the products of each row), each part computes its rows of C, and C
 * is assembled on the handle's device, ordered on the handle's stream like
 * any call. Parts on other devices get copies of their operands (peer to peer
 * where the devices allow it), values again at every numeric phase.
 * Products of fewer than spgemmSetPartitionMinProducts products run whole on
 * the handle's device. count 0 (devices NULL): the handle's device alone.
 * Host-memory plans and plans whose C is in host memory ignore the setting.
 * SPGEMM_HOST_DEVICE (once at most) makes the host one of the parts: the
 * CPU+GPU hybrid. Its rows of op(A) (and D) and all of B are copied to pinned
 * host memory, the host backend computes its rows of C while the GPUs
 * compute theirs, and they are copied into C (or stay on the host as a row
 * block, spgemmSetOutputDistributed). Without forced shares its share comes
 * from a cost model of measured throughputs (docs/scaling.md), 0 where the
 * host would not finish before the GPUs. spgemmNumeric then returns once the
 * host part is done (the GPU parts stay asynchronous).
 * SPGEMM_STATUS_INVALID_VALUE for an ordinal that does not exist or count
 * outside [0, SPGEMM_MAX_DEVICES]; SPGEMM_STATUS_NO_DEVICE without a GPU. */
#define SPGEMM_MAX_DEVICES 16
#define SPGEMM_HOST_DEVICE (-1)
SPGEMM_API spgemmStatus_t spgemmSetDevices(spgemmHandle_t handle, int count, const int* devices);
/* *count receives the number of devices set (0: none); the first `capacity`
 * of them go to devices (NULL ok with capacity 0). */
SPGEMM_API spgemmStatus_t spgemmGetDevices(spgemmHandle_t handle, int capacity, int* devices,
                                           int* count);
/* The parts' shares of the products: count entries (that of spgemmSetDevices),
 * each >= 0, not all 0; count 0 (shares NULL): equal shares among the GPUs,
 * the host's from the cost model (the default). */
SPGEMM_API spgemmStatus_t spgemmSetPartitionShares(spgemmHandle_t handle, int count,
                                                   const double* shares);
/* Products below which a product is not split (negative: the library's
 * default, docs/scaling.md; 0: every product with rows is split). */
SPGEMM_API spgemmStatus_t spgemmSetPartitionMinProducts(spgemmHandle_t handle,
                                                        int64_t minProducts);

/* C left where the parts computed it, as row blocks, instead of assembled on
 * the handle's device (docs/scaling.md): for plans created from now on on a
 * handle with spgemmSetDevices (ignored without). Such a plan's C descriptor
 * gives the shape and types only: spgemmSymbolic stores nnz(C) in it and
 * writes no array; spgemmNumeric writes the blocks, which the library owns
 * (spgemmPlanGetRowBlocks). A product that runs whole is one block on the
 * handle's device. Default 0: C assembled in C's arrays. */
SPGEMM_API spgemmStatus_t spgemmSetOutputDistributed(spgemmHandle_t handle, int enabled);
SPGEMM_API spgemmStatus_t spgemmGetOutputDistributed(spgemmHandle_t handle, int* enabled);

/* One row block of a distributed C: rows [firstRow, firstRow + rows) of C,
 * a CSR matrix of its own with C's types and index base, on `device`. */
typedef struct spgemmRowBlock {
  int device;
  int64_t firstRow;
  int64_t rows;
  int64_t nnz;
  void* rowOffsets; /* rows + 1 entries, from the index base   */
  void* colInd;     /* nnz entries, sorted in every row         */
  void* values;     /* nnz entries                              */
} spgemmRowBlock_t;

/* ---- C larger than the GPU (docs/scaling.md) ---------------------------- */
/* A plan whose C is in host memory while A and B (and D) are on the device
 * computes C on the device in chunks of rows and copies each chunk into C's
 * host arrays, one chunk's copy overlapping the next chunk's work (pinned host
 * memory, cudaMallocHost or cudaHostRegister, lets them overlap; pageable
 * memory works, without overlap). This sets the most bytes of C's column
 * indices and values such a plan holds on the device at once (two chunks;
 * a chunk holds at least one row of C). 0: the default, an eighth of the
 * device's memory. Read at every spgemmNumeric. */
SPGEMM_API spgemmStatus_t spgemmSetOutputChunkBytes(spgemmHandle_t handle, size_t bytes);
SPGEMM_API spgemmStatus_t spgemmGetOutputChunkBytes(spgemmHandle_t handle, size_t* bytes);

/* ---- CSR descriptors (never own the arrays) ---------------------------- */
SPGEMM_API spgemmStatus_t spgemmCreateCsr(spgemmMatDescr_t* mat, int64_t rows, int64_t cols,
                                          int64_t nnz, void* rowOffsets, void* colInd,
                                          void* values, spgemmIndexType_t offsetType,
                                          spgemmIndexType_t indexType, spgemmIndexBase_t indexBase,
                                          cudaDataType valueType);
SPGEMM_API spgemmStatus_t spgemmDestroyMatrix(spgemmMatDescr_t mat); /* NULL ok */
SPGEMM_API spgemmStatus_t spgemmCsrSetPointers(spgemmMatDescr_t mat, void* rowOffsets,
                                               void* colInd, void* values);
SPGEMM_API spgemmStatus_t spgemmCsrGet(spgemmConstMatDescr_t mat, int64_t* rows, int64_t* cols,
                                       int64_t* nnz, void** rowOffsets, void** colInd,
                                       void** values, spgemmIndexType_t* offsetType,
                                       spgemmIndexType_t* indexType,
                                       spgemmIndexBase_t* indexBase, cudaDataType* valueType);
/* Replicas: the same matrix, structure and values, also stored on `device`
 * (device memory there, the descriptor's types and shape). A part of a split
 * product (spgemmSetDevices) on that device reads the replica in place
 * instead of copying rows from the matrix's own device, at analysis and at
 * every spgemmNumeric: the caller keeps the replica's values equal to the
 * matrix's. With the handle's input checks on, spgemmAnalyze compares each
 * replica's structure with the matrix's (INVALID_VALUE if they differ).
 * At most SPGEMM_MAX_DEVICES devices; setting a device again replaces its
 * replica, and rowOffsets NULL removes it. Replicas of an operand used
 * transposed (op != N) are not used. */
SPGEMM_API spgemmStatus_t spgemmCsrSetReplica(spgemmMatDescr_t mat, int device, void* rowOffsets,
                                              void* colInd, void* values);
/* The replica on `device`: NULL pointers where there is none. */
SPGEMM_API spgemmStatus_t spgemmCsrGetReplica(spgemmConstMatDescr_t mat, int device,
                                              void** rowOffsets, void** colInd, void** values);
/* Default SPGEMM_MEMORY_DEVICE. */
SPGEMM_API spgemmStatus_t spgemmCsrSetMemoryType(spgemmMatDescr_t mat, spgemmMemoryType_t memory);
SPGEMM_API spgemmStatus_t spgemmCsrGetMemoryType(spgemmConstMatDescr_t mat,
                                                 spgemmMemoryType_t* memory);

/* ---- a plan for C = alpha * op(A) * op(B) ------------------------------ */
/* The plan keeps the three descriptors (not copies): they must outlive it.
 * A handle and its plans are used by one host thread at a time. */
SPGEMM_API spgemmStatus_t spgemmPlanCreate(spgemmHandle_t handle, spgemmPlan_t* plan,
                                           spgemmOperation_t opA, spgemmOperation_t opB,
                                           spgemmConstMatDescr_t A, spgemmConstMatDescr_t B,
                                           spgemmMatDescr_t C, cudaDataType computeType);
/* C = alpha * op(A) * op(B) + beta * D: D has C's shape, types and memory
 * and any sparsity pattern; C's pattern is the union of the product's and
 * D's. D may be a previous product's C (never this plan's C). Numeric phases
 * of such a plan take beta: spgemmNumericWithAddend. */
SPGEMM_API spgemmStatus_t spgemmPlanCreateWithAddend(spgemmHandle_t handle, spgemmPlan_t* plan,
                                                     spgemmOperation_t opA, spgemmOperation_t opB,
                                                     spgemmConstMatDescr_t A,
                                                     spgemmConstMatDescr_t B,
                                                     spgemmConstMatDescr_t D, spgemmMatDescr_t C,
                                                     cudaDataType computeType);
SPGEMM_API spgemmStatus_t spgemmPlanDestroy(spgemmPlan_t plan); /* NULL ok */

/* Optional: the plan's device workspace in a buffer of the caller's (by
 * default it comes from the handle's pool or the caller's allocator).
 * spgemmPlanGetWorkspaceSize: the most device workspace the plan can hold
 * at once over its whole life (spgemmAnalyze with input checks and
 * structure verification, transposes for op != N, spgemmSymbolic, any
 * number of numeric phases, re-analysis). An upper bound from the shapes,
 * types and operations given at spgemmPlanCreate; runs no kernel. 0 for
 * host-memory plans. */
SPGEMM_API spgemmStatus_t spgemmPlanGetWorkspaceSize(spgemmHandle_t handle, spgemmPlan_t plan,
                                                     size_t* bytes);
/* spgemmPlanSetWorkspace: the plan then takes all of its device workspace
 * from [buffer, buffer + bytes) instead of the handle's pool or allocator.
 * Rules:
 * - call it before the plan's first spgemmAnalyze (or spgemmSymbolic, which
 *   analyzes): SPGEMM_STATUS_INVALID_STATE after;
 * - buffer: device memory of the handle's device, aligned to 256 bytes
 *   (cudaMalloc's pointers are), and bytes >= spgemmPlanGetWorkspaceSize:
 *   SPGEMM_STATUS_INVALID_VALUE otherwise;
 * - buffer NULL and bytes 0: back to the handle's pool or allocator;
 * - the buffer must stay valid until spgemmPlanDestroy; the library never
 *   frees it. Work on it is ordered on the handle's stream: reuse it only
 *   after that stream's work is done (after spgemmPlanDestroy, once the
 *   stream has been synchronized);
 * - its blocks count in spgemmGetMemoryUsage like any workspace.
 * Host-memory plans accept a buffer (same rules) and never use it. */
SPGEMM_API spgemmStatus_t spgemmPlanSetWorkspace(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 void* buffer, size_t bytes);

/* Row statistics of the product (structure of A and B only). */
SPGEMM_API spgemmStatus_t spgemmAnalyze(spgemmHandle_t handle, spgemmPlan_t plan);
/* Writes C's row offsets (C's rowOffsets pointer must be set), stores nnz(C)
 * in C's descriptor and returns it. Runs spgemmAnalyze first if needed. */
SPGEMM_API spgemmStatus_t spgemmSymbolic(spgemmHandle_t handle, spgemmPlan_t plan,
                                         int64_t* nnzC);
/* Fills C's column indices (sorted in every row) and values. alpha points to
 * a host value of the compute type. May be called again after the values of
 * A and B changed (same structure): the analysis and symbolic phases are not
 * repeated. Asynchronous on the handle's stream. */
SPGEMM_API spgemmStatus_t spgemmNumeric(spgemmHandle_t handle, spgemmPlan_t plan,
                                        const void* alpha);
/* The same with beta (a host value of the compute type) for a plan with an
 * addend D: C = alpha * op(A) * op(B) + beta * D. New values of D (same
 * structure) are picked up like those of A and B. */
SPGEMM_API spgemmStatus_t spgemmNumericWithAddend(spgemmHandle_t handle, spgemmPlan_t plan,
                                                  const void* alpha, const void* beta);

/* After spgemmAnalyze: how the plan's rows are split among the handle's
 * devices (spgemmSetDevices), or, for a C in host memory, the chunks of its
 * last numeric phase. *parts receives the number of parts: 1 when the
 * product runs whole, on the handle's device or the host. For each of the
 * first `capacity` parts, the arrays that are not NULL receive its device
 * ordinal (-1: the host), its first row of C, its number of rows, its
 * predicted cost in products (-1 where not computed: products that run
 * whole without a split), and the milliseconds of its last numeric phase
 * (-1 before the first, or where not timed: products that run whole); with
 * numericMs the call waits for that phase to finish. */
SPGEMM_API spgemmStatus_t spgemmPlanGetPartition(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 int capacity, int* parts, int* devices,
                                                 int64_t* firstRows, int64_t* rows,
                                                 int64_t* products, float* numericMs);

/* After spgemmSymbolic, for a plan created with spgemmSetOutputDistributed:
 * C's row blocks in row order. *count receives their number; the first
 * `capacity` go to blocks (NULL ok with capacity 0). Row offsets are valid
 * after spgemmSymbolic, column indices and values after spgemmNumeric
 * (ordered on the handle's stream: each numeric phase rewrites them). The
 * arrays belong to the plan until it is analyzed again or destroyed.
 * SPGEMM_STATUS_INVALID_STATE before spgemmSymbolic or for a C that is not
 * distributed. */
SPGEMM_API spgemmStatus_t spgemmPlanGetRowBlocks(spgemmHandle_t handle, spgemmPlan_t plan,
                                                 int capacity, spgemmRowBlock_t* blocks,
                                                 int* count);

#ifdef __cplusplus
}
#endif

#endif /* SPGEMM_SPGEMM_H */
