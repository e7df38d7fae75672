// SPDX-License-Identifier: Apache-2.0
#include "real_cusparse.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace spgemm_dropin {
namespace {

constexpr const char* kSoname = "libcusparse.so.12";

// Fills every pointer from `handle` (RTLD_NEXT or a dlopen handle).
void resolve(RealCusparse& r, void* handle) {
  r.missing.clear();
  auto get = [&](auto& fn, const char* name) {
    void* symbol = dlsym(handle, name);
    if (!symbol && r.missing.empty()) r.missing = name;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(symbol);
  };
  get(r.create_csr, "cusparseCreateCsr");
  get(r.destroy_sp_mat, "cusparseDestroySpMat");
  get(r.sp_mat_get_size, "cusparseSpMatGetSize");
  get(r.sp_mat_get_format, "cusparseSpMatGetFormat");
  get(r.sp_mat_get_index_base, "cusparseSpMatGetIndexBase");
  get(r.sp_mat_get_strided_batch, "cusparseSpMatGetStridedBatch");
  get(r.const_csr_get, "cusparseConstCsrGet");
  get(r.get_stream, "cusparseGetStream");
  get(r.get_pointer_mode, "cusparseGetPointerMode");
  get(r.destroy, "cusparseDestroy");
  get(r.spgemm_create_descr, "cusparseSpGEMM_createDescr");
  get(r.spgemm_destroy_descr, "cusparseSpGEMM_destroyDescr");
  get(r.spgemm_work_estimation, "cusparseSpGEMM_workEstimation");
  get(r.spgemm_get_num_products, "cusparseSpGEMM_getNumProducts");
  get(r.spgemm_estimate_memory, "cusparseSpGEMM_estimateMemory");
  get(r.spgemm_compute, "cusparseSpGEMM_compute");
  get(r.spgemm_copy, "cusparseSpGEMM_copy");
  get(r.reuse_work_estimation, "cusparseSpGEMMreuse_workEstimation");
  get(r.reuse_nnz, "cusparseSpGEMMreuse_nnz");
  get(r.reuse_copy, "cusparseSpGEMMreuse_copy");
  get(r.reuse_compute, "cusparseSpGEMMreuse_compute");
}

// The library that holds `symbol`, for the log.
std::string library_of(void* symbol) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return "?";
}

RealCusparse find() {
  RealCusparse r;
  if (const char* path = std::getenv("SPGEMM_CUSPARSE_LIBRARY"); path && *path) {
    void* handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
      r.missing = std::string("dlopen(") + path + ") failed";
      return r;
    }
    resolve(r, handle);
  } else if (void* loaded = dlopen(kSoname, RTLD_LAZY | RTLD_NOLOAD)) {
    resolve(r, loaded);
  } else {
    resolve(r, RTLD_NEXT);
    if (!r.complete()) {
      void* handle = dlopen(kSoname, RTLD_LAZY | RTLD_LOCAL);
      if (!handle) {
        r.missing = std::string("no libcusparse found (") + kSoname + ")";
        return r;
      }
      resolve(r, handle);
    }
  }
  r.origin = library_of(reinterpret_cast<void*>(r.spgemm_compute));
  return r;
}

}  // namespace

const RealCusparse& real_cusparse() {
  static std::once_flag once;
  static RealCusparse* table = nullptr;  // never destroyed: calls may come during exit
  std::call_once(once, [] { table = new RealCusparse(find()); });
  return *table;
}

}  // namespace spgemm_dropin
