// SPDX-License-Identifier: Apache-2.0
// The input checks' verdict and the structure fingerprint on the GPU. Both
// run in the analysis kernel (analysis.cu), which keeps the first position p
// of each defect as ~p with a 64-bit atomicMax.
#include "core/csr_checks.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"

#include <cstdint>

namespace spgemm::cuda {

namespace {

template <class T>
int64_t read_one(const T* device_array, int64_t at) {
  T value{};
  SPGEMM_CUDA_CHECK(cudaMemcpy(&value, device_array + at, sizeof(T), cudaMemcpyDeviceToHost));
  return static_cast<int64_t>(value);
}

}  // namespace

template <class Offset, class Col>
void launch_fingerprint(Context& ctx, const MatrixDesc& m, unsigned long long* sum) {
  Fingerprints print;
  print.m[0] = &m;
  print.sums = sum;
  launch_analysis<Offset, Col>(ctx, nullptr, 0, nullptr, nullptr, &print);
}

template <class Offset, class Col>
uint64_t csr_fingerprint(Context& ctx, const MatrixDesc& m) {
  DeviceBuffer<unsigned long long> sum(ctx, 1);
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(unsigned long long), ctx.stream()));
  launch_fingerprint<Offset, Col>(ctx, m, sum.get());
  return ctx.read_back(sum.get());
}

template <class Offset, class Col>
void report_csr_defects(const CheckedOperand* operands, int count, const CsrDefects* found) {
  for (int i = 0; i < count; ++i) {
    const MatrixDesc& m = *operands[i].m;
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    CsrDefects first;
    for (int d = 0; d < kCsrDefects; ++d) first.first[d] = ~found[i].first[d];  // 0: none
    fail_on_defects(
        first, operands[i].name, m, [&](int64_t at) { return read_one(offsets, at); },
        [&](int64_t at) { return read_one(cols, at); });
  }
}

template <class Offset, class Col>
void check_csr_structures(Context& ctx, const CheckedOperand* operands, int count) {
  if (count == 0) return;
  DeviceBuffer<CsrDefects> found(ctx, static_cast<size_t>(count));
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(found.get(), 0, sizeof(CsrDefects) * count, ctx.stream()));
  launch_analysis<Offset, Col>(ctx, operands, count, found.get(), nullptr);
  CsrDefects host[kMaxCheckedOperands];
  ctx.read_back(host, found.get(), sizeof(CsrDefects) * count);
  report_csr_defects<Offset, Col>(operands, count, host);
}

size_t csr_checks_workspace_bytes() {
  return DeviceBuffer<CsrDefects>::workspace_bytes(kMaxCheckedOperands) +
         DeviceBuffer<unsigned long long>::workspace_bytes(1);
}

#define SPGEMM_INSTANTIATE_CHECKS(Offset, Col)                                              \
  template void check_csr_structures<Offset, Col>(Context&, const CheckedOperand*, int);  \
  template void report_csr_defects<Offset, Col>(const CheckedOperand*, int,               \
                                                const CsrDefects*);                        \
  template uint64_t csr_fingerprint<Offset, Col>(Context&, const MatrixDesc&);              \
  template void launch_fingerprint<Offset, Col>(Context&, const MatrixDesc&, unsigned long long*);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_CHECKS)

}  // namespace spgemm::cuda
