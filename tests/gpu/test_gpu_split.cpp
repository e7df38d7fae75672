// SPDX-License-Identifier: Apache-2.0
// Products split among devices (spgemmSetDevices), against the oracle.
// Built twice: test_gpu_split puts every part on the current device (each
// part still has its own stream, so the split, the parts' copies of row
// offsets and the assembly of C all run), test_gpu_split_devices puts them
// on two different GPUs and skips, saying so, where there are fewer. Every
// product is split (spgemmSetPartitionMinProducts 0) unless a case says not.
#include "catch_main_skip.hpp"
#include "csr_defects.hpp"
#include "device_product.hpp"
#include "generators.hpp"
#include "layout_product.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

using namespace spgemm_test;

namespace {

// The device of part p of n: the current one, or (SPGEMM_SPLIT_DISTINCT_DEVICES)
// devices 1, 0, 1, ... so that the handle's device 0 is not the first part's.
int part_device(int p) {
#ifdef SPGEMM_SPLIT_DISTINCT_DEVICES
  return (p + 1) % 2;
#else
  (void)p;
  int device = 0;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  return device;
#endif
}

// The devices of n parts: part_device(0), ..., part_device(n - 1).
std::vector<int> part_devices(size_t n) {
  std::vector<int> devices;
  for (size_t p = 0; p < n; ++p) devices.push_back(part_device(static_cast<int>(p)));
  return devices;
}

// A handle whose products are split in shares.size() parts, on `devices`
// (default: part_devices).
struct SplitHandle : Handle {
  explicit SplitHandle(const std::vector<double>& shares, bool split_all = true)
      : SplitHandle(part_devices(shares.size()), shares, split_all) {}
  SplitHandle(const std::vector<int>& devices, const std::vector<double>& shares,
              bool split_all = true) {
    const int n = static_cast<int>(shares.size());
    spgemm_ok(spgemmSetDevices(h, n, devices.data()), "spgemmSetDevices");
    spgemm_ok(spgemmSetPartitionShares(h, n, shares.data()), "spgemmSetPartitionShares");
    if (split_all) spgemm_ok(spgemmSetPartitionMinProducts(h, 0), "spgemmSetPartitionMinProducts");
  }
};

// A handle whose products are split between the host (the first part) and
// a GPU (part_device(1)); shares forced unless empty.
struct HybridHandle : Handle {
  explicit HybridHandle(const std::vector<double>& shares) {
    const int devices[2] = {SPGEMM_HOST_DEVICE, part_device(1)};
    spgemm_ok(spgemmSetDevices(h, 2, devices), "spgemmSetDevices");
    if (!shares.empty())
      spgemm_ok(spgemmSetPartitionShares(h, 2, shares.data()), "spgemmSetPartitionShares");
    spgemm_ok(spgemmSetPartitionMinProducts(h, 0), "spgemmSetPartitionMinProducts");
  }
};

template <class L, class Case>
void check_all(const Handle& handle, const std::vector<Case>& cases) {
  const auto failures = failed_cases<L>(handle.h, SPGEMM_MEMORY_DEVICE, cases);
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

// The products of each row of A * B.
std::vector<int64_t> row_products(const HostCsr<double>& A, const HostCsr<double>& B) {
  std::vector<int64_t> out(static_cast<size_t>(A.rows), 0);
  for (int64_t i = 0; i < A.rows; ++i)
    for (int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const int32_t b = A.col_ind[k];
      out[i] += B.row_offsets[b + 1] - B.row_offsets[b];
    }
  return out;
}

struct Partition {
  int parts = 0;
  std::vector<int> devices;
  std::vector<int64_t> first, rows, products;
  std::vector<float> ms;
};

Partition partition_of(spgemmHandle_t h, spgemmPlan_t plan) {
  Partition p;
  const int capacity = SPGEMM_MAX_DEVICES;
  p.devices.assign(capacity, -2);
  p.first.assign(capacity, -2);
  p.rows.assign(capacity, -2);
  p.products.assign(capacity, -2);
  p.ms.assign(capacity, -2.0f);
  spgemm_ok(spgemmPlanGetPartition(h, plan, capacity, &p.parts, p.devices.data(), p.first.data(),
                                   p.rows.data(), p.products.data(), p.ms.data()),
            "spgemmPlanGetPartition");
  for (auto* v : {&p.first, &p.rows, &p.products}) v->resize(static_cast<size_t>(p.parts));
  p.devices.resize(static_cast<size_t>(p.parts));
  p.ms.resize(static_cast<size_t>(p.parts));
  return p;
}

// A copy to or from a row block's array on `device` (-1: the host): from
// the current device where it reaches that one (the library lets peers
// address its parts' pools), else from that device.
void block_copy(void* to, const void* from, size_t bytes, int device) {
  int current = 0, reach = 1;
  cuda_ok(cudaGetDevice(&current), "cudaGetDevice");
  if (device >= 0 && device != current)
    cuda_ok(cudaDeviceCanAccessPeer(&reach, current, device), "cudaDeviceCanAccessPeer");
  if (!reach) cuda_ok(cudaSetDevice(device), "cudaSetDevice");
  cuda_ok(cudaMemcpy(to, from, bytes, cudaMemcpyDefault), "block copy");
  if (!reach) cuda_ok(cudaSetDevice(current), "cudaSetDevice");
}

// n copies of `poison` into the block array `to`.
template <class T>
void poison_array(void* to, int64_t n, T poison, int device) {
  const std::vector<T> bad(static_cast<size_t>(n), poison);
  if (n > 0) block_copy(to, bad.data(), sizeof(T) * bad.size(), device);
}

template <class T>
std::vector<T> fetch(const void* from, int64_t n, int device) {
  std::vector<T> out(static_cast<size_t>(n));
  if (n > 0) block_copy(out.data(), from, sizeof(T) * out.size(), device);
  return out;
}

// C as its row blocks (spgemmPlanGetRowBlocks) put together on the host,
// checking that they tile C's rows in order on the expected devices.
HostCsr<double> gather_blocks(spgemmHandle_t h, spgemmPlan_t plan, int64_t rows, int64_t cols,
                              const std::vector<int>& devices) {
  std::vector<spgemmRowBlock_t> blocks(SPGEMM_MAX_DEVICES);
  int count = -1;
  spgemm_ok(spgemmPlanGetRowBlocks(h, plan, SPGEMM_MAX_DEVICES, blocks.data(), &count),
            "spgemmPlanGetRowBlocks");
  REQUIRE(count == static_cast<int>(devices.size()));
  HostCsr<double> C;
  C.rows = rows;
  C.cols = cols;
  C.row_offsets = {0};
  for (int i = 0; i < count; ++i) {
    const spgemmRowBlock_t& b = blocks[static_cast<size_t>(i)];
    CHECK(b.device == devices[static_cast<size_t>(i)]);
    REQUIRE(b.firstRow == static_cast<int64_t>(C.row_offsets.size()) - 1);
    const auto offsets = fetch<int32_t>(b.rowOffsets, b.rows + 1, b.device);
    REQUIRE(offsets.front() == 0);
    REQUIRE(offsets.back() == b.nnz);
    const int32_t before = C.row_offsets.back();
    for (int64_t r = 1; r <= b.rows; ++r) C.row_offsets.push_back(before + offsets[r]);
    for (int32_t c : fetch<int32_t>(b.colInd, b.nnz, b.device)) C.col_ind.push_back(c);
    for (double v : fetch<double>(b.values, b.nnz, b.device)) C.values.push_back(v);
  }
  REQUIRE(static_cast<int64_t>(C.row_offsets.size()) == rows + 1);
  return C;
}

// C (A's rows, B's columns, 32-bit indices, row offsets `offsets`) and a
// plan of A * B into it, destroyed with it; with `caller_workspace`, the
// plan's workspace a buffer of exactly the size it asks for
// (spgemmPlanSetWorkspace), freed after it.
struct ProductPlan {
  std::unique_ptr<DeviceArray<unsigned char>> workspace;
  spgemmMatDescr_t C = nullptr;
  spgemmPlan_t plan = nullptr;
  ProductPlan(spgemmHandle_t h, const DeviceCsr<double>& A, const DeviceCsr<double>& B,
              void* offsets, bool caller_workspace = false) {
    spgemm_ok(spgemmCreateCsr(&C, A.rows, B.cols, 0, offsets, nullptr, nullptr, SPGEMM_INDEX_32I,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
              "spgemmCreateCsr(C)");
    spgemm_ok(spgemmPlanCreate(h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                               SPGEMM_OPERATION_NON_TRANSPOSE, A.descr, B.descr, C, CUDA_R_64F),
              "spgemmPlanCreate");
    if (!caller_workspace) return;
    size_t bytes = 0;
    spgemm_ok(spgemmPlanGetWorkspaceSize(h, plan, &bytes), "spgemmPlanGetWorkspaceSize");
    REQUIRE(bytes > 0);
    workspace = std::make_unique<DeviceArray<unsigned char>>(bytes);
    spgemm_ok(spgemmPlanSetWorkspace(h, plan, workspace->ptr, bytes), "spgemmPlanSetWorkspace");
  }
  ~ProductPlan() {
    spgemmPlanDestroy(plan);
    spgemmDestroyMatrix(C);
  }
  ProductPlan(const ProductPlan&) = delete;
  ProductPlan& operator=(const ProductPlan&) = delete;
};

// The column indices and values of C's row blocks (C distributed, after
// the symbolic phase) poisoned.
void poison_blocks(spgemmHandle_t h, spgemmPlan_t plan) {
  std::vector<spgemmRowBlock_t> blocks(SPGEMM_MAX_DEVICES);
  int count = 0;
  spgemm_ok(spgemmPlanGetRowBlocks(h, plan, SPGEMM_MAX_DEVICES, blocks.data(), &count),
            "spgemmPlanGetRowBlocks");
  cuda_ok(cudaStreamSynchronize(stream_of(h)), "sync");
  for (int i = 0; i < count; ++i) {
    const spgemmRowBlock_t& b = blocks[static_cast<size_t>(i)];
    poison_array<int32_t>(b.colInd, b.nnz, -7, b.device);
    poison_array<double>(b.values, b.nnz, std::nan(""), b.device);
  }
}

// The inputs of the layout cases: short rows, power law, a hub row, banded
// (a part on another device then copies only about its share of B's rows),
// empty.
const std::initializer_list<const char*> kLayoutInputs = {
    "uniform:300:6", "powerlaw:3000", "hub:4000", "banded:3000:4", "empty:7:7", "empty:0:0"};

}  // namespace

TEST_CASE("C left distributed: row blocks on the parts' devices, values again",
          "[gpu][split][distributed]") {
  const HostCsr<double> A = generate("powerlaw:20000");
  HostCsr<double> A2 = A;
  randomize_values(A2, 7);
  int device = -1;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  for (const int layout : {0, 1, 2}) {  // split in two; whole (below the minimum); host + GPU
    CAPTURE(layout);
    const bool split_all = layout != 1;
    std::unique_ptr<Handle> owned;
    if (layout == 2) owned = std::make_unique<HybridHandle>(std::vector<double>{1.0, 2.0});
    else owned = std::make_unique<SplitHandle>(std::vector<double>{1.0, 2.0}, split_all);
    const Handle& handle = *owned;
    spgemm_ok(spgemmSetOutputDistributed(handle.h, 1), "spgemmSetOutputDistributed");
    int on = 0;
    spgemm_ok(spgemmGetOutputDistributed(handle.h, &on), "spgemmGetOutputDistributed");
    CHECK(on == 1);
    const std::vector<int> devices =
        layout == 0   ? std::vector<int>{part_device(0), part_device(1)}
        : layout == 1 ? std::vector<int>{device}
                      : std::vector<int>{SPGEMM_HOST_DEVICE, part_device(1)};
    const cudaStream_t stream = stream_of(handle.h);
    DeviceCsr<double> dA(A, stream);
    // C's own arrays stay as they are: poisoned row offsets, no other array
    DeviceArray<int32_t> untouched(static_cast<size_t>(A.rows) + 1);
    untouched.poison(stream);
    const ProductPlan p(handle.h, dA, dA, untouched.ptr);
    const spgemmPlan_t plan = p.plan;
    int count = -1;
    CHECK(spgemmPlanGetRowBlocks(handle.h, plan, 0, nullptr, &count) ==
          SPGEMM_STATUS_INVALID_STATE);  // before the symbolic phase
    int64_t nnz = 0;
    spgemm_ok(spgemmSymbolic(handle.h, plan, &nnz), "spgemmSymbolic");
    const ReferenceProduct<double> expected[2] = {reference_spgemm(A, A, 0.5),
                                                  reference_spgemm(A2, A2, 0.5)};
    CHECK(nnz == expected[0].C.nnz());
    for (const ReferenceProduct<double>& want : expected) {
      if (&want == &expected[1]) dA.values.upload(A2.values, stream);
      poison_blocks(handle.h, plan);
      const double alpha = 0.5;
      spgemm_ok(spgemmNumeric(handle.h, plan, &alpha), "spgemmNumeric");
      cuda_ok(cudaStreamSynchronize(stream), "numeric");
      const HostCsr<double> got = gather_blocks(handle.h, plan, A.rows, A.cols, devices);
      CHECK(compare_csr(got, want, default_rtol<double>()) == "");
    }
    const std::vector<int32_t> after = untouched.download(stream);
    CHECK(std::all_of(after.begin(), after.end(), [](int32_t v) { return v == -1; }));
  }
}

TEMPLATE_LIST_TEST_CASE("split in two: index layouts and bases, values again",
                        "[gpu][split][layouts]", AllLayouts) {
  const SplitHandle handle({1.0, 1.0});
  check_all<TestType>(
      handle, layout_cases<typename TestType::Value>(kLayoutInputs));
}

TEMPLATE_LIST_TEST_CASE("split in three uneven parts, one without rows: C = alpha*A*B + beta*D",
                        "[gpu][split][addend]", AddendLayouts) {
  const SplitHandle handle({1.0, 0.0, 2.0});
  check_all<TestType>(handle, addend_cases<typename TestType::Value>(true));
}

TEMPLATE_LIST_TEST_CASE("split in two: transposed operands", "[gpu][split][transpose]",
                        AddendLayouts) {
  const SplitHandle handle({1.0, 1.0});
  check_all<TestType>(handle, transpose_cases<typename TestType::Value>());
}

TEST_CASE("the split follows the shares of the products, and is reported", "[gpu][split]") {
  const HostCsr<double> A = generate("powerlaw:20000");
  HostCsr<double> A2 = A;
  randomize_values(A2, 5);
  const std::vector<int64_t> per_row = row_products(A, A);
  const int64_t total = std::accumulate(per_row.begin(), per_row.end(), int64_t{0});
  const int64_t longest = *std::max_element(per_row.begin(), per_row.end());
  const SplitHandle handle({1.0, 3.0});
  DeviceProduct<double> product(handle.h, A, A);
  const double alpha = 0.75;
  const HostCsr<double> C = product.numeric(alpha);
  CHECK(compare_csr(C, reference_spgemm(A, A, alpha), default_rtol<double>()) == "");

  const Partition p = partition_of(handle.h, product.plan());
  REQUIRE(p.parts == 2);
  CHECK(p.devices == std::vector<int>{part_device(0), part_device(1)});
  CHECK(p.first == std::vector<int64_t>{0, p.rows[0]});
  CHECK(p.rows[0] + p.rows[1] == A.rows);
  CHECK(p.products[0] == std::accumulate(per_row.begin(), per_row.begin() + p.rows[0], int64_t{0}));
  CHECK(p.products[0] + p.products[1] == total);
  // the cut is the row boundary nearest a quarter of the products
  CHECK(std::abs(static_cast<double>(p.products[0]) - 0.25 * static_cast<double>(total)) <=
        static_cast<double>(longest));
  CHECK(p.ms[0] >= 0.0f);
  CHECK(p.ms[1] >= 0.0f);

  // new values, same structure; and the same bits again from the same values
  product.set_values(A2, A2);
  const HostCsr<double> again = product.numeric(alpha);
  CHECK(compare_csr(again, reference_spgemm(A2, A2, alpha), default_rtol<double>()) == "");
  const HostCsr<double> same = product.numeric(alpha);
  CHECK(same.col_ind == again.col_ind);
  CHECK(std::memcmp(same.values.data(), again.values.data(), sizeof(double) * same.values.size()) ==
        0);
}

TEMPLATE_LIST_TEST_CASE("the host as a part: index layouts and bases, values again",
                        "[gpu][split][hybrid]", AllLayouts) {
  const HybridHandle handle({1.0, 1.0});
  check_all<TestType>(
      handle, layout_cases<typename TestType::Value>(kLayoutInputs));
}

TEMPLATE_LIST_TEST_CASE("the host as a part: C = alpha*A*B + beta*D, transposes",
                        "[gpu][split][hybrid][addend]", AddendLayouts) {
  const HybridHandle handle({2.0, 1.0});
  check_all<TestType>(handle, addend_cases<typename TestType::Value>(true));
  check_all<TestType>(handle, transpose_cases<typename TestType::Value>());
}

TEST_CASE("the host as a part: the model's split, forced shares, C distributed",
          "[gpu][split][hybrid]") {
  const HostCsr<double> A = generate("powerlaw:20000");
  const std::vector<int64_t> per_row = row_products(A, A);
  const int64_t total = std::accumulate(per_row.begin(), per_row.end(), int64_t{0});
  const ReferenceProduct<double> expected = reference_spgemm(A, A, 1.5);
  int device = -1;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  {
    // the model: the host's share stays below its least (a product this
    // small is over before the host could copy B; with the default rates no
    // product is counted at all), so the GPU takes it whole
    const HybridHandle handle({});
    int got[2] = {0, 0}, count = 0;
    spgemm_ok(spgemmGetDevices(handle.h, 2, got, &count), "spgemmGetDevices");
    CHECK(count == 2);
    CHECK(got[0] == SPGEMM_HOST_DEVICE);
    DeviceProduct<double> product(handle.h, A, A);
    CHECK(compare_csr(product.numeric(1.5), expected, default_rtol<double>()) == "");
    const Partition p = partition_of(handle.h, product.plan());
    REQUIRE(p.parts == 1);
    CHECK(p.devices[0] == part_device(1));
    CHECK((p.products[0] == -1 || p.products[0] == total));
  }
  {
    // forced: everything on the host, reported with its time
    const HybridHandle handle({1.0, 0.0});
    DeviceProduct<double> product(handle.h, A, A);
    CHECK(compare_csr(product.numeric(1.5), expected, default_rtol<double>()) == "");
    const Partition p = partition_of(handle.h, product.plan());
    REQUIRE(p.parts == 2);
    CHECK(p.devices[0] == SPGEMM_HOST_DEVICE);
    CHECK(p.rows[0] == A.rows);
    CHECK(p.products[0] == total);
    CHECK(p.ms[0] > 0.0f);
    CHECK(p.rows[1] == 0);
  }
}

namespace {

// `device` current for the length of a scope.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    cuda_ok(cudaGetDevice(&previous_), "cudaGetDevice");
    cuda_ok(cudaSetDevice(device), "cudaSetDevice");
  }
  ~OnDevice() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

// h's copy on `device`, `of`'s replica there for the length of a scope.
struct Replica {
  spgemmMatDescr_t of;
  int device;
  std::unique_ptr<DeviceCsr<double>> copy;
  Replica(const DeviceCsr<double>& matrix, const HostCsr<double>& h, int on)
      : of(matrix.descr), device(on) {
    const OnDevice scope(device);
    copy = std::make_unique<DeviceCsr<double>>(h);
    spgemm_ok(spgemmCsrSetReplica(of, device, copy->offsets.ptr, copy->cols_.ptr,
                                  copy->values.ptr),
              "spgemmCsrSetReplica");
  }
  ~Replica() {
    spgemmCsrSetReplica(of, device, nullptr, nullptr, nullptr);
    const OnDevice scope(device);
    copy.reset();
  }
};

// C = A * B on the handle's stream (C's arrays allocated after the symbolic
// phase), or the status of the first phase that fails.
struct Product {
  spgemmStatus_t status = SPGEMM_STATUS_SUCCESS;
  HostCsr<double> C;
  int64_t first_part_rows = -1;
};

Product product_of(spgemmHandle_t h, const DeviceCsr<double>& A, const DeviceCsr<double>& B,
                   bool caller_workspace = false) {
  const cudaStream_t stream = stream_of(h);
  Product out;
  DeviceArray<int32_t> offsets(static_cast<size_t>(A.rows) + 1);
  const ProductPlan p(h, A, B, offsets.ptr, caller_workspace);
  int64_t nnz = 0;
  out.status = spgemmAnalyze(h, p.plan);
  if (out.status == SPGEMM_STATUS_SUCCESS) out.status = spgemmSymbolic(h, p.plan, &nnz);
  if (out.status == SPGEMM_STATUS_SUCCESS) {
    DeviceArray<int32_t> cols(static_cast<size_t>(nnz));
    DeviceArray<double> values(static_cast<size_t>(nnz));
    cols.poison(stream);
    values.poison(stream);
    spgemm_ok(spgemmCsrSetPointers(p.C, offsets.ptr, cols.ptr, values.ptr),
              "spgemmCsrSetPointers");
    const double one = 1.0;
    out.status = spgemmNumeric(h, p.plan, &one);
    out.C.rows = A.rows;
    out.C.cols = B.cols;
    out.C.row_offsets = offsets.download(stream);
    out.C.col_ind = cols.download(stream);
    out.C.values = values.download(stream);
    out.first_part_rows = partition_of(h, p.plan).rows.at(0);
  }
  return out;
}

// C = A * B left distributed (spgemmSetOutputDistributed on h), its blocks
// poisoned before the numeric phase, gathered from them on `devices`
// (caller_workspace: ProductPlan's).
HostCsr<double> distributed_product(spgemmHandle_t h, const DeviceCsr<double>& A,
                                    const DeviceCsr<double>& B, const std::vector<int>& devices,
                                    bool caller_workspace = false) {
  DeviceArray<int32_t> unused(static_cast<size_t>(A.rows) + 1);
  const ProductPlan p(h, A, B, unused.ptr, caller_workspace);
  int64_t nnz = 0;
  spgemm_ok(spgemmSymbolic(h, p.plan, &nnz), "spgemmSymbolic");
  poison_blocks(h, p.plan);
  const double one = 1.0;
  spgemm_ok(spgemmNumeric(h, p.plan, &one), "spgemmNumeric");
  cuda_ok(cudaStreamSynchronize(stream_of(h)), "numeric");
  return gather_blocks(h, p.plan, A.rows, B.cols, devices);
}

// The status of A * B while `of` has a replica on `device` of another
// structure: `h` (of's host copy) with the column at `at` moved.
spgemmStatus_t status_with_moved_replica(spgemmHandle_t handle, const DeviceCsr<double>& A,
                                         const DeviceCsr<double>& B, const DeviceCsr<double>& of,
                                         HostCsr<double> h, size_t at, int device) {
  h.col_ind[at] ^= 1;
  const Replica moved(of, h, device);
  return product_of(handle, A, B).status;
}

// from's first `count` rows in place of to's (the same structure): values
// and error bounds.
void take_rows(ReferenceProduct<double>& to, const ReferenceProduct<double>& from, int64_t count) {
  const int32_t end = from.C.row_offsets[static_cast<size_t>(count)];
  std::copy(from.C.values.begin(), from.C.values.begin() + end, to.C.values.begin());
  std::copy(from.abs_bound.begin(), from.abs_bound.begin() + end, to.abs_bound.begin());
}

}  // namespace

// Replicas on the handle's device are never read (its parts read the
// operands themselves); on another device the part there reads them. To
// show which was read, the replicas first hold other values than the
// operands (which a caller must not do): the rows of the part on device 1
// are then A2 * B2's.
TEST_CASE("operands replicated on the parts' devices: read in place, checked",
          "[gpu][split][replicas]") {
  const HostCsr<double> A = generate("banded:6000:5");
  HostCsr<double> B = A, A2 = A, B2 = A;
  randomize_values(B, 11);
  randomize_values(A2, 12);
  randomize_values(B2, 13);
  const SplitHandle handle({1.0, 1.0});
  const cudaStream_t stream = stream_of(handle.h);
  DeviceCsr<double> dA(A, stream), dB(B, stream);
  const int there = part_device(0);  // the first part's device
  int home = -1;
  cuda_ok(cudaGetDevice(&home), "cudaGetDevice");
  const bool read_there = there != home;
  {
    const Replica rA(dA, A2, there), rB(dB, B2, there);
    void *offsets = nullptr, *cols = nullptr, *values = nullptr;
    spgemm_ok(spgemmCsrGetReplica(dB.descr, there, &offsets, &cols, &values),
              "spgemmCsrGetReplica");
    CHECK(values == rB.copy->values.ptr);
    const Product got = product_of(handle.h, dA, dB);
    REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
    ReferenceProduct<double> expected = reference_spgemm(A, B, 1.0);
    CHECK(got.first_part_rows > 0);
    CHECK(got.first_part_rows < A.rows);
    if (read_there) take_rows(expected, reference_spgemm(A2, B2, 1.0), got.first_part_rows);
    CHECK(compare_csr(got.C, expected, default_rtol<double>()) == "");
  }
  for (const int which : {0, 1, 2}) {  // as the caller must keep them: A and B, A, B
    CAPTURE(which);
    std::unique_ptr<Replica> rA, rB;
    if (which != 2) rA = std::make_unique<Replica>(dA, A, there);
    if (which != 1) rB = std::make_unique<Replica>(dB, B, there);
    const Product got = product_of(handle.h, dA, dB);
    REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
    CHECK(compare_csr(got.C, reference_spgemm(A, B, 1.0), default_rtol<double>()) == "");
  }
  // a replica of another structure: refused where it would be read; also
  // beside an intact replica of A, where that device counts a share of the
  // cut's rows and fingerprints its replicas in the same pass
  CHECK(status_with_moved_replica(handle.h, dA, dB, dB, B, B.col_ind.size() / 2, there) ==
        (read_there ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_SUCCESS));
  {
    const Replica intact(dA, A, there);
    CHECK(status_with_moved_replica(handle.h, dA, dB, dB, B, B.col_ind.size() / 2, there) ==
          (read_there ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_SUCCESS));
  }
  // removed: the operands themselves again
  spgemm_ok(spgemmCsrSetReplica(dB.descr, there, nullptr, nullptr, nullptr), "spgemmCsrSetReplica");
  void *offsets = nullptr, *cols = nullptr, *values = nullptr;
  spgemm_ok(spgemmCsrGetReplica(dB.descr, there, &offsets, &cols, &values), "spgemmCsrGetReplica");
  CHECK(offsets == nullptr);
}

// Three parts on devices 1, 0, 1 with two GPUs: the third part, on a thread
// of the handle's thread pool, fingerprints its replicas while the handle's device
// cuts the rows, then reads them in place (the first part too, on the
// caller's thread).
TEST_CASE("replicas read by parts on the thread pool's threads", "[gpu][split][replicas]") {
  const HostCsr<double> A = generate("banded:6000:5");
  HostCsr<double> B = A;
  randomize_values(B, 14);
  const SplitHandle handle({1.0, 1.0, 1.0});
  const cudaStream_t stream = stream_of(handle.h);
  DeviceCsr<double> dA(A, stream), dB(B, stream);
  const int there = part_device(2);
  int home = -1;
  cuda_ok(cudaGetDevice(&home), "cudaGetDevice");
  {
    const Replica rA(dA, A, there), rB(dB, B, there);
    const Product got = product_of(handle.h, dA, dB);
    REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
    CHECK(compare_csr(got.C, reference_spgemm(A, B, 1.0), default_rtol<double>()) == "");
  }
  // a replica of another structure: refused where it would be read
  CHECK(status_with_moved_replica(handle.h, dA, dB, dA, A, A.col_ind.size() / 3, there) ==
        (there != home ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_SUCCESS));
}

// Parts of more products than the small-product mode takes (2^22) take
// their rows' counts from the cut instead of counting them again (the
// engine's CountedRows), ~11M products and 40,000 rows each here: with B's
// rows sorted (the counts' column ranges then bound the symbolic tables),
// reversed (B's disorder is handed on: the deterministic numeric phase must
// not take B's rows whole), read from replicas, with C distributed, and
// left whole by the cut (below the handle's minimum).
TEST_CASE("parts of many products take their rows' counts from the cut", "[gpu][split][counts]") {
  const HostCsr<double> A = generate("banded:80000:8");
  HostCsr<double> B = A;
  randomize_values(B, 16);
  const HostCsr<double> reversed = with_reversed_rows(B);
  const ReferenceProduct<double> expected = reference_spgemm(A, B, 1.0);
  const int there = part_device(0);
  for (const int mode : {0, 1, 2, 3, 4}) {  // sorted, reversed, replicas, distributed, whole
    CAPTURE(mode);
    const SplitHandle handle({1.0, 1.0});
    if (mode == 4) spgemm_ok(spgemmSetPartitionMinProducts(handle.h, 1LL << 40), "min products");
    const cudaStream_t stream = stream_of(handle.h);
    DeviceCsr<double> dA(A, stream), dB(mode == 1 ? reversed : B, stream);
    std::unique_ptr<Replica> rA, rB;
    if (mode == 2) {
      rA = std::make_unique<Replica>(dA, A, there);
      rB = std::make_unique<Replica>(dB, B, there);
    }
    if (mode == 3) {
      spgemm_ok(spgemmSetOutputDistributed(handle.h, 1), "spgemmSetOutputDistributed");
      const HostCsr<double> got = distributed_product(handle.h, dA, dB, {part_device(0),
                                                                        part_device(1)});
      CHECK(compare_csr(got, expected, default_rtol<double>()) == "");
      continue;
    }
    const Product got = product_of(handle.h, dA, dB);
    REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
    if (mode == 4) CHECK(got.first_part_rows == A.rows);
    else CHECK(std::abs(got.first_part_rows - A.rows / 2) <= 1);  // (equal shares, symmetric A)
    CHECK(compare_csr(got.C, expected, default_rtol<double>()) == "");
  }
}

// A split plan in a buffer of the caller's of exactly the size it asks for
// (spgemmPlanGetWorkspaceSize): the cut and its counts, which the handle
// holds until the parts have taken their rows' own, fit in it; also where
// the cut leaves the product whole with C distributed, whose one part then
// takes its row offsets of A and C from that buffer too.
TEST_CASE("split plans in a workspace of the caller's", "[gpu][split][workspace]") {
  const HostCsr<double> A = generate("banded:80000:8");
  HostCsr<double> B = A;
  randomize_values(B, 17);
  const ReferenceProduct<double> expected = reference_spgemm(A, B, 1.0);
  int device = -1;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  for (const bool whole : {false, true}) {
    CAPTURE(whole);
    const SplitHandle handle({1.0, 1.0});
    const cudaStream_t stream = stream_of(handle.h);
    const DeviceCsr<double> dA(A, stream), dB(B, stream);
    if (!whole) {
      const Product got = product_of(handle.h, dA, dB, true);
      REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
      CHECK(std::abs(got.first_part_rows - A.rows / 2) <= 1);
      CHECK(compare_csr(got.C, expected, default_rtol<double>()) == "");
      continue;
    }
    spgemm_ok(spgemmSetPartitionMinProducts(handle.h, 1LL << 40), "min products");
    spgemm_ok(spgemmSetOutputDistributed(handle.h, 1), "spgemmSetOutputDistributed");
    const HostCsr<double> got = distributed_product(handle.h, dA, dB, {device}, true);
    CHECK(compare_csr(got, expected, default_rtol<double>()) == "");
  }
}

// The handle on device 1 with parts on devices 0, 1 (two GPUs): the part on
// the handle's device runs on a thread of the pool, whose threads start on
// device 0, and the operands are on device 1.
TEST_CASE("a split product whose handle is on another device than 0", "[gpu][split]") {
  int count = 0;
  cuda_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  const int home = count > 1 ? 1 : 0;
  const OnDevice scope(home);
  const HostCsr<double> A = generate("banded:6000:5");
  HostCsr<double> B = A;
  randomize_values(B, 15);
  const SplitHandle handle({0, home}, {1.0, 1.0});
  const cudaStream_t stream = stream_of(handle.h);
  DeviceCsr<double> dA(A, stream), dB(B, stream);
  const Product got = product_of(handle.h, dA, dB);
  REQUIRE(got.status == SPGEMM_STATUS_SUCCESS);
  CHECK(got.first_part_rows > 0);
  CHECK(got.first_part_rows < A.rows);
  CHECK(compare_csr(got.C, reference_spgemm(A, B, 1.0), default_rtol<double>()) == "");
}

// The input checks run with the cost pass, whose cut (from the total of the
// handle's last split product) is computed before their verdict is known:
// defective operands are refused, nothing is read outside them, and the
// handle goes on.
TEST_CASE("a split product refuses defective operands at analysis", "[gpu][split][checks]") {
  const HostCsr<double> A = generate("banded:6000:5");
  const SplitHandle handle({1.0, 1.0});
  const cudaStream_t stream = stream_of(handle.h);
  const DeviceCsr<double> dA(A, stream);
  REQUIRE(product_of(handle.h, dA, dA).status == SPGEMM_STATUS_SUCCESS);
  const auto middle = static_cast<size_t>(A.rows / 2);
  for (const int defect : {0, 1, 2}) {
    CAPTURE(defect);
    HostCsr<double> bad = A;
    if (defect == 0) bad.col_ind[bad.col_ind.size() / 2] = static_cast<int32_t>(A.cols) + 1000000;
    if (defect == 1) bad.row_offsets[middle] = bad.row_offsets[middle + 1] + 7;  // decreasing
    if (defect == 2) bad.row_offsets[middle] = -5;
    const DeviceCsr<double> dBad(bad, stream);
    CHECK(product_of(handle.h, dBad, dA).status == SPGEMM_STATUS_INVALID_VALUE);
    CHECK(product_of(handle.h, dA, dBad).status == SPGEMM_STATUS_INVALID_VALUE);
  }
  const Product again = product_of(handle.h, dA, dA);
  REQUIRE(again.status == SPGEMM_STATUS_SUCCESS);
  CHECK(compare_csr(again.C, reference_spgemm(A, A, 1.0), default_rtol<double>()) == "");
}

TEST_CASE("small products run whole on the handle's device", "[gpu][split]") {
  const HostCsr<double> A = generate("uniform:2000:6");
  const std::vector<int64_t> per_row = row_products(A, A);
  const SplitHandle handle({1.0, 1.0}, /*split_all=*/false);  // the default minimum
  DeviceProduct<double> product(handle.h, A, A);
  const HostCsr<double> C = product.numeric(2.0);
  CHECK(compare_csr(C, reference_spgemm(A, A, 2.0), default_rtol<double>()) == "");
  const Partition p = partition_of(handle.h, product.plan());
  int device = -1;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  REQUIRE(p.parts == 1);
  CHECK(p.devices[0] == device);
  CHECK(p.rows[0] == A.rows);
  CHECK(p.products[0] == std::accumulate(per_row.begin(), per_row.end(), int64_t{0}));
  CHECK(p.ms[0] == -1.0f);
}

int main(int argc, char** argv) {
  const char* skip = gpu_skip_reason();
#ifdef SPGEMM_SPLIT_DISTINCT_DEVICES
  int count = 0;
  if (!skip && (cudaGetDeviceCount(&count) != cudaSuccess || count < 2))
    skip = "needs 2 GPUs (products split between devices)";
#endif
  return run_catch_tests(argc, argv, skip);
}
