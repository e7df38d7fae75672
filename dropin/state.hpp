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

struct Descr {
  static constexpr uint64_t kMagic = 0x73706765'6d6d6475ULL;
  uint64_t magic = kMagic;
  Path path = Path::undecided;
  std::string reason;
  cusparseSpGEMMDescr_t real = nullptr;  // created at the first forwarded call
  Api api = Api::plain;

  // libspgemm side (path == libspgemm)
  std::shared_ptr<LibHandle> lib;
  spgemmMatDescr_t a = nullptr, b = nullptr, c = nullptr;
  spgemmPlan_t plan = nullptr;
  size_t workspace_bytes = 0;      // spgemmPlanGetWorkspaceSize
  void* workspace = nullptr;       // the buffer given to the plan (aligned)
  void* staging = nullptr;         // C's row offsets between symbolic and copy
  MatInfo info_a, info_b, info_c;  // as read at the decision
  cudaDataType type = CUDA_R_32F;
  size_t offset_bytes = 4;
  int64_t nnz_c = -1;              // after symbolic
  bool symbolic_done = false;
  unsigned char alpha[16] = {};    // compute's alpha, used by copy (plain)
  const void* structure_columns = nullptr;  // C's columns when last written
  bool structure_done = false;     // reuse: C's columns written

  ~Descr();
};

// Our descriptor, if d is one (the registry is consulted: a descriptor that
// the real cuSPARSE created is never read as ours).
Descr* ours(cusparseSpGEMMDescr_t d);
void register_descr(Descr* d);
void unregister_descr(Descr* d);

}  // namespace spgemm_dropin
