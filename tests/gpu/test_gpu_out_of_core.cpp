// SPDX-License-Identifier: Apache-2.0
// C in host memory with A and B (and D) on the device: the product computed
// in chunks of rows whose C is copied to the host (spgemmSetOutputChunkBytes),
// against the oracle: layouts, bases, new values, the addend, transposed
// operands, chunks of a few rows up to one chunk; the chunks reported; the
// product within a device allocator capped below C's size, C in pinned host
// memory.
#include "capped_allocator.hpp"
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "generators.hpp"
#include "layout_product.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace spgemm_test;

namespace {

// A handle whose out-of-core plans hold at most `bytes` of C on the device.
struct ChunkHandle : Handle {
  explicit ChunkHandle(size_t bytes) {
    spgemm_ok(spgemmSetOutputChunkBytes(h, bytes), "spgemmSetOutputChunkBytes");
  }
};

template <class L, class Case>
void check_all(spgemmHandle_t h, const std::vector<Case>& cases) {
  PlanHooks hooks;
  hooks.c_on_host = true;
  const auto failures = failed_cases<L>(h, SPGEMM_MEMORY_DEVICE, cases, hooks);
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

template <class T>
struct PinnedArray {
  T* ptr = nullptr;
  size_t count = 0;
  explicit PinnedArray(size_t n, T fill) : count(n) {
    cuda_ok(cudaMallocHost(reinterpret_cast<void**>(&ptr), std::max<size_t>(n, 1) * sizeof(T)),
            "cudaMallocHost");
    std::fill(ptr, ptr + n, fill);
  }
  ~PinnedArray() { cudaFreeHost(ptr); }
  std::vector<T> vector() const { return std::vector<T>(ptr, ptr + count); }
};

}  // namespace

// 4 KB: a chunk of at most 170 double entries, so most products here take
// tens to hundreds of chunks; hub:4000's longest row alone exceeds it.
TEMPLATE_LIST_TEST_CASE("C on the host: index layouts and bases, values again",
                        "[gpu][out-of-core][layouts]", AllLayouts) {
  const ChunkHandle handle(4096);
  check_all<TestType>(
      handle.h, layout_cases<typename TestType::Value>(
                    {"uniform:300:6", "powerlaw:3000", "hub:4000", "empty:7:7", "empty:0:0"}));
}

TEMPLATE_LIST_TEST_CASE("C on the host: C = alpha*A*B + beta*D", "[gpu][out-of-core][addend]",
                        AddendLayouts) {
  const ChunkHandle handle(16384);
  check_all<TestType>(handle.h, addend_cases<typename TestType::Value>(true));
}

TEMPLATE_LIST_TEST_CASE("C on the host: transposed operands", "[gpu][out-of-core][transpose]",
                        AddendLayouts) {
  const ChunkHandle handle(16384);
  check_all<TestType>(handle.h, transpose_cases<typename TestType::Value>());
}

TEST_CASE("C on the host: one chunk by default", "[gpu][out-of-core]") {
  const Handle handle;
  check_all<Layout<double, int32_t, int32_t>>(handle.h, layout_cases<double>({"powerlaw:3000"}));
}

TEST_CASE("C larger than the device memory given to the plan, in pinned host memory",
          "[gpu][out-of-core]") {
  const HostCsr<double> A = generate("uniform:20000:8");
  HostCsr<double> A2 = A;
  randomize_values(A2, 9);
  const ReferenceProduct<double> expected = reference_spgemm(A, A, 1.0);
  const ReferenceProduct<double> expected2 = reference_spgemm(A2, A2, 1.0);
  const size_t c_bytes = expected.C.col_ind.size() * (sizeof(int32_t) + sizeof(double));
  CappedAllocator cap;
  cap.cap = c_bytes / 4;  // C is 4x what the plan may hold on the device
  const ChunkHandle handle(cap.cap / 4);
  spgemm_ok(
      spgemmSetDeviceAllocator(handle.h, &CappedAllocator::alloc, &CappedAllocator::free, &cap),
      "spgemmSetDeviceAllocator");
  const cudaStream_t stream = stream_of(handle.h);
  cap.stream = stream;
  DeviceCsr<double> a(A, stream);
  PinnedArray<int32_t> offsets(A.rows + 1, -1);
  spgemmMatDescr_t c = nullptr;
  spgemm_ok(spgemmCreateCsr(&c, A.rows, A.cols, 0, offsets.ptr, nullptr, nullptr, SPGEMM_INDEX_32I,
                            SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
            "spgemmCreateCsr(C)");
  spgemm_ok(spgemmCsrSetMemoryType(c, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType");
  spgemmPlan_t plan = nullptr;
  spgemm_ok(spgemmPlanCreate(handle.h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                             SPGEMM_OPERATION_NON_TRANSPOSE, a.descr, a.descr, c, CUDA_R_64F),
            "spgemmPlanCreate");
  int64_t nnz = -1;
  spgemm_ok(spgemmSymbolic(handle.h, plan, &nnz), "spgemmSymbolic");
  REQUIRE(nnz == static_cast<int64_t>(expected.C.col_ind.size()));
  PinnedArray<int32_t> cols(static_cast<size_t>(nnz), -1);
  PinnedArray<double> values(static_cast<size_t>(nnz), std::numeric_limits<double>::quiet_NaN());
  spgemm_ok(spgemmCsrSetPointers(c, offsets.ptr, cols.ptr, values.ptr), "spgemmCsrSetPointers");
  auto result = [&] {
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    HostCsr<double> C;
    C.rows = A.rows;
    C.cols = A.cols;
    C.row_offsets = offsets.vector();
    C.col_ind = cols.vector();
    C.values = values.vector();
    return C;
  };
  const double alpha = 1.0;
  const int before_first = cap.allocations;
  spgemm_ok(spgemmNumeric(handle.h, plan, &alpha), "spgemmNumeric");
  CHECK(compare_csr(result(), expected, default_rtol<double>()) == "");
  const int first_numeric = cap.allocations - before_first;

  int parts = 0;
  std::vector<int64_t> first(64), rows(64);
  spgemm_ok(spgemmPlanGetPartition(handle.h, plan, 64, &parts, nullptr, first.data(), rows.data(),
                                   nullptr, nullptr),
            "spgemmPlanGetPartition");
  CHECK(parts >= 8);  // C is 16x the chunk bytes
  int64_t covered = 0;
  for (int p = 0; p < std::min(parts, 64); ++p) {
    CHECK(first[p] == covered);
    covered += rows[p];
  }
  if (parts <= 64) CHECK(covered == A.rows);

  // new values, same structure; C's arrays poisoned again
  a.values.upload(A2.values, stream);
  std::fill(cols.ptr, cols.ptr + nnz, -1);
  std::fill(values.ptr, values.ptr + nnz, std::numeric_limits<double>::quiet_NaN());
  const int before_again = cap.allocations;
  spgemm_ok(spgemmNumeric(handle.h, plan, &alpha), "spgemmNumeric (again)");
  CHECK(compare_csr(result(), expected2, default_rtol<double>()) == "");
  // the chunks (at most configs/bins.hpp's 64 kept) were not analyzed again:
  // the first numeric phase allocated each chunk's analysis, this one only
  // the two chunk buffers
  if (parts <= 64) CHECK(2 * (cap.allocations - before_again) < first_numeric);
  CHECK(cap.peak > 0);  // the workspace came from the capped allocator
  CHECK(cap.refusals == 0);
  CHECK_FALSE(cap.wrong_stream);
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(c);
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  CHECK(cap.outstanding == 0);
  CHECK_FALSE(cap.bad_free);
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
