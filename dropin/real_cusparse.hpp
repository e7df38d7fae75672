// SPDX-License-Identifier: Apache-2.0
// The real libcusparse's functions, found once (std::call_once) without
// linking it: the drop-in exports some of the same names, so every call it
// forwards goes through these pointers, never through the dynamic linker.
#pragma once

#ifndef DISABLE_CUSPARSE_DEPRECATED
#define DISABLE_CUSPARSE_DEPRECATED
#endif
#include <cusparse.h>

#include <string>

namespace spgemm_dropin {

struct RealCusparse {
  // descriptors and handle: read, never written through these
  decltype(&cusparseCreateCsr) create_csr = nullptr;
  decltype(&cusparseDestroySpMat) destroy_sp_mat = nullptr;
  decltype(&cusparseSpMatGetSize) sp_mat_get_size = nullptr;
  decltype(&cusparseSpMatGetFormat) sp_mat_get_format = nullptr;
  decltype(&cusparseSpMatGetIndexBase) sp_mat_get_index_base = nullptr;
  decltype(&cusparseSpMatGetStridedBatch) sp_mat_get_strided_batch = nullptr;
  decltype(&cusparseConstCsrGet) const_csr_get = nullptr;
  decltype(&cusparseGetStream) get_stream = nullptr;
  decltype(&cusparseGetPointerMode) get_pointer_mode = nullptr;
  decltype(&cusparseDestroy) destroy = nullptr;
  // the generic SpGEMM, for the calls that go to cuSPARSE
  decltype(&cusparseSpGEMM_createDescr) spgemm_create_descr = nullptr;
  decltype(&cusparseSpGEMM_destroyDescr) spgemm_destroy_descr = nullptr;
  decltype(&cusparseSpGEMM_workEstimation) spgemm_work_estimation = nullptr;
  decltype(&cusparseSpGEMM_getNumProducts) spgemm_get_num_products = nullptr;
  decltype(&cusparseSpGEMM_estimateMemory) spgemm_estimate_memory = nullptr;
  decltype(&cusparseSpGEMM_compute) spgemm_compute = nullptr;
  decltype(&cusparseSpGEMM_copy) spgemm_copy = nullptr;
  decltype(&cusparseSpGEMMreuse_workEstimation) reuse_work_estimation = nullptr;
  decltype(&cusparseSpGEMMreuse_nnz) reuse_nnz = nullptr;
  decltype(&cusparseSpGEMMreuse_copy) reuse_copy = nullptr;
  decltype(&cusparseSpGEMMreuse_compute) reuse_compute = nullptr;

  std::string origin;   // where the functions came from (for the log)
  std::string missing;  // the first function not found ("" when all were)
  bool complete() const { return missing.empty(); }
};

// Looked up once per process: SPGEMM_CUSPARSE_LIBRARY (a path) if set, else
// libcusparse.so.12 if already loaded (RTLD_NOLOAD), else the next definition
// after the drop-in in the lookup order (RTLD_NEXT), else dlopen of
// libcusparse.so.12. Never null; check complete().
const RealCusparse& real_cusparse();

}  // namespace spgemm_dropin
