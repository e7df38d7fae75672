// SPDX-License-Identifier: Apache-2.0
// The nnz probe on the real libcusparse (host-only calls, no GPU needed):
// the field is found, and a C descriptor made as the SpGEMM sequence makes it
// (nnz 0, no arrays) reports the nnz written, also after the real
// cusparseCsrSetPointers. Skips (77) where no libcusparse.so.12 is found.
#include "nnz_slot.hpp"
#include "real_cusparse.hpp"

#include <dlfcn.h>

#include <cstdio>

using namespace spgemm_dropin;

int main() {
  const RealCusparse& real = real_cusparse();
  if (!real.complete()) {
    std::printf("SKIPPED: %s\n", real.missing.c_str());
    return 77;
  }
  std::printf("real cuSPARSE: %s\n", real.origin.c_str());
  const NnzSlot slot = probe_nnz_slot(real);
  std::printf("probe: %s\n", slot.detail.c_str());
  if (!slot.found) return 1;
  auto set_pointers = reinterpret_cast<decltype(&cusparseCsrSetPointers)>(
      dlsym(dlopen(real.origin.c_str(), RTLD_LAZY | RTLD_NOLOAD), "cusparseCsrSetPointers"));
  int failures = 0;
  for (cusparseIndexType_t index : {CUSPARSE_INDEX_32I, CUSPARSE_INDEX_64I}) {
    cusparseSpMatDescr_t C = nullptr;
    if (real.create_csr(&C, 1000, 2000, 0, nullptr, nullptr, nullptr, index, index,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS)
      return 1;
    std::string why;
    const bool written = write_nnz(real, slot, C, 123457, &why);
    int64_t rows = 0, cols = 0, nnz = 0;
    real.sp_mat_get_size(C, &rows, &cols, &nnz);
    const bool ok1 = written && nnz == 123457 && rows == 1000 && cols == 2000;
    int dummy[4];
    if (!set_pointers || set_pointers(C, dummy, dummy, dummy) != CUSPARSE_STATUS_SUCCESS) return 1;
    real.sp_mat_get_size(C, &rows, &cols, &nnz);
    const bool ok2 = nnz == 123457;
    std::printf("index %d: written %d (%s), after cusparseCsrSetPointers nnz=%lld: %s\n",
                static_cast<int>(index), written ? 1 : 0, why.c_str(),
                static_cast<long long>(nnz), ok1 && ok2 ? "ok" : "FAILED");
    failures += !(ok1 && ok2);
    real.destroy_sp_mat(C);
  }
  return failures ? 1 : 0;
}
