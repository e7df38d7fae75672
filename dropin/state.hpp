// SPDX-License-Identifier: Apache-2.0
// The drop-in's own objects: the process-wide state (real functions, the nnz
// field, whether the drop-in is on), one libspgemm handle per cuSPARSE handle,
// and the SpGEMM descriptor it hands out in place of cuSPARSE's.
#pragma once

#include "nnz_slot.hpp"
#include "policy.hpp"
#include "real_cusparse.hpp"

#include <spgemm/spgemm.h>

#include <memory>
#include <string>

namespace spgemm_dropin {

struct Process {
  const RealCusparse* real = nullptr;
  NnzSlot slot;
  bool enabled = false;     // false: every call is forwarded untouched
  std::string why_disabled;
};

// Initialized once (std::call_once): controls, real functions, the probe.
const Process& process();

// A libspgemm handle, shared by the descriptors computed on one cuSPARSE handle.
struct LibHandle {
  spgemmHandle_t handle = nullptr;
  ~LibHandle() { spgemmDestroy(handle); }
};

// The libspgemm handle for a cuSPARSE handle (created at first use), or null
// (with the libspgemm status in *status).
std::shared_ptr<LibHandle> lib_handle_for(cusparseHandle_t handle, spgemmStatus_t* status);
// cusparseDestroy: the mapping goes (descriptors keep their handle alive).
void forget_handle(cusparseHandle_t handle);

enum class Path { undecided, cusparse, libspgemm };

// The drop-in's state for one SpGEMM descriptor. The handle the program
// holds is the real cuSPARSE descriptor itself (created by the real
// cusparseSpGEMM_createDescr), so that a call reaching the real library by
// another route still gets a valid descriptor; the state is found from it.
struct Descr {
  cusparseSpGEMMDescr_t real = nullptr;  // the program's handle
  Path path = Path::undecided;
  std::string reason;
  // the product decided on
  Api api = Api::plain;
  cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  cusparseOperation_t op_a = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseOperation_t op_b = CUSPARSE_OPERATION_NON_TRANSPOSE;

  // libspgemm side (path == libspgemm)
  std::shared_ptr<LibHandle> lib;
  spgemmMatDescr_t a = nullptr, b = nullptr, c = nullptr;
  spgemmPlan_t plan = nullptr;
  size_t workspace_bytes = 0;      // spgemmPlanGetWorkspaceSize
  void* workspace = nullptr;       // the buffer given to the plan (aligned)
  void* staging = nullptr;         // C's row offsets between symbolic and copy
  MatInfo info_a, info_b, info_c;  // as read at the decision (both paths)
  cudaDataType type = CUDA_R_32F;
  size_t offset_bytes = 4;
  int64_t nnz_c = -1;              // after symbolic
  bool symbolic_done = false;
  unsigned char alpha[16] = {};    // compute's alpha, used by copy (plain)
  const void* structure_columns = nullptr;  // C's columns when last written
  bool structure_done = false;     // reuse: C's columns written

  ~Descr();
};

// The state of a descriptor created through the drop-in, or null (one the
// program got from the real library by another route).
Descr* ours(cusparseSpGEMMDescr_t d);
void register_descr(Descr* d);          // keyed by d->real
Descr* unregister_descr(cusparseSpGEMMDescr_t d);  // the state, no longer registered

}  // namespace spgemm_dropin
