// SPDX-License-Identifier: Apache-2.0
#include "core/csr_checks.hpp"

#include "core/error.hpp"

namespace spgemm {

void fail_csr_defect(const char* name, const MatrixDesc& m, CsrDefect defect, int64_t position,
                     int64_t value, int64_t next_value) {
  const std::string who = std::string(name) + ": ";
  const std::string base = std::to_string(static_cast<int>(m.base));
  std::string what;
  switch (defect) {
    case kFirstOffset:
      what = "rowOffsets[0] is " + std::to_string(value) + ", expected the index base " + base;
      break;
    case kLastOffset:
      what = "rowOffsets[rows=" + std::to_string(position) + "] is " + std::to_string(value) +
             ", expected nnz + base = " + std::to_string(m.nnz + m.base);
      break;
    case kDecreasingOffsets:
      what = "row offsets decrease at row " + std::to_string(position) + " (rowOffsets[" +
             std::to_string(position) + "] = " + std::to_string(value) + " > rowOffsets[" +
             std::to_string(position + 1) + "] = " + std::to_string(next_value) + ")";
      break;
    case kColumnOutOfRange:
      what = "colInd[" + std::to_string(position) + "] = " + std::to_string(value) +
             " is outside [" + base + ", " + std::to_string(m.cols + m.base) + ")";
      break;
    default:
      what = "invalid CSR structure";
      break;
  }
  fail(SPGEMM_STATUS_INVALID_VALUE,
       who + what + " (input checks can be turned off with spgemmSetInputChecks)");
}

}  // namespace spgemm
