// SPDX-License-Identifier: Apache-2.0
// The drop-in as a program sees it: cuSPARSE's SpGEMM calls resolve to
// libspgemm_cusparse.so, which forwards to the stub libcusparse the tests
// build. Run under several environments (tests/dropin/CMakeLists.txt):
//   [host]      SPGEMM_CUSPARSE_TEST_HOST=1: the taken path end to end on host
//               arrays (libspgemm's host backend), and every fallback
//   [disabled]  SPGEMM_CUSPARSE_DISABLE=1, or a stub layout the probe refuses:
//               every call forwarded untouched
//   [nogpu]     no environment, no GPU: libspgemm cannot compute, so even a
//               request it would take is forwarded
#include "stub_cusparse.h"

#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <complex>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

template <class V> constexpr cudaDataType type_of();
template <> constexpr cudaDataType type_of<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType type_of<double>() { return CUDA_R_64F; }
template <> constexpr cudaDataType type_of<std::complex<float>>() { return CUDA_C_32F; }
template <> constexpr cudaDataType type_of<std::complex<double>>() { return CUDA_C_64F; }
template <class I> constexpr cusparseIndexType_t index_of() {
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

constexpr auto N = CUSPARSE_OPERATION_NON_TRANSPOSE;

// A handle destroyed by a static destructor, after the tests: the drop-in's
// cusparseDestroy then runs during exit, when function-local statics
// constructed after this object are gone (the drop-in keeps none).
struct HandleDestroyedAtExit {
  cusparseHandle_t handle = nullptr;
  HandleDestroyedAtExit() { cusparseCreate(&handle); }
  ~HandleDestroyedAtExit() { cusparseDestroy(handle); }
} g_handle_destroyed_at_exit;

template <class V, class I>
struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<I> offsets;
  std::vector<I> columns;
  std::vector<V> values;
  int base = 0;
};

// A small matrix with an empty row, a full row and repeated patterns.
template <class V, class I>
Csr<V, I> sample(int64_t rows, int64_t cols, int seed, int base) {
  Csr<V, I> m;
  m.rows = rows;
  m.cols = cols;
  m.base = base;
  m.offsets.push_back(static_cast<I>(base));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const bool keep = r == 1 ? false : r == 2 ? true : ((r * 7 + c * 3 + seed) % 4 == 0);
      if (!keep) continue;
      m.columns.push_back(static_cast<I>(c + base));
      m.values.push_back(V(static_cast<float>((r + 1) * 0.5 + c * 0.25 + seed)));
    }
    m.offsets.push_back(static_cast<I>(m.columns.size() + base));
  }
  return m;
}

template <class V, class I>
Csr<V, I> reference(const Csr<V, I>& a, const Csr<V, I>& b, V alpha) {
  Csr<V, I> c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.base = a.base;
  c.offsets.push_back(static_cast<I>(a.base));
  for (int64_t r = 0; r < a.rows; ++r) {
    std::map<int64_t, V> row;
    for (I i = a.offsets[r] - a.base; i < a.offsets[r + 1] - a.base; ++i) {
      const int64_t k = a.columns[i] - a.base;
      for (I j = b.offsets[k] - b.base; j < b.offsets[k + 1] - b.base; ++j)
        row[b.columns[j] - b.base] += alpha * a.values[i] * b.values[j];
    }
    for (auto& [col, v] : row) {
      c.columns.push_back(static_cast<I>(col + a.base));
      c.values.push_back(v);
    }
    c.offsets.push_back(static_cast<I>(c.columns.size() + a.base));
  }
  return c;
}

template <class V>
bool close(V x, V y) {
  return std::abs(x - y) <= 1e-4 * (1 + std::abs(y));
}

template <class V, class I>
cusparseSpMatDescr_t describe(Csr<V, I>& m) {
  cusparseSpMatDescr_t d = nullptr;
  REQUIRE(cusparseCreateCsr(&d, m.rows, m.cols, static_cast<int64_t>(m.columns.size()),
                            m.offsets.data(), m.columns.data(), m.values.data(), index_of<I>(),
                            index_of<I>(),
                            m.base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO,
                            type_of<V>()) == CUSPARSE_STATUS_SUCCESS);
  return d;
}

std::string log_text() {
  const char* path = std::getenv("SPGEMM_CUSPARSE_LOG");
  if (!path) return {};
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int forwarded_spgemm_calls() {
  int n = 0;
  for (const char* f : {"cusparseSpGEMM_workEstimation", "cusparseSpGEMM_compute",
                        "cusparseSpGEMM_copy", "cusparseSpGEMMreuse_workEstimation",
                        "cusparseSpGEMMreuse_nnz", "cusparseSpGEMMreuse_copy",
                        "cusparseSpGEMMreuse_compute"})
    n += stub_call_count(f);
  return n;
}

// NVIDIA's documented sequence (cuSPARSE's spgemm_example.c), on host arrays.
template <class V, class I>
void plain_product(int base) {
  stub_reset();
  auto a = sample<V, I>(5, 4, 1, base);
  auto b = sample<V, I>(4, 6, 2, base);
  const V alpha = V(2), beta = V(0);
  const auto expected = reference(a, b, alpha);
  cusparseHandle_t handle;
  REQUIRE(cusparseCreate(&handle) == CUSPARSE_STATUS_SUCCESS);
  cusparseSpMatDescr_t A = describe(a), B = describe(b), C = nullptr;
  REQUIRE(cusparseCreateCsr(&C, a.rows, b.cols, 0, nullptr, nullptr, nullptr, index_of<I>(),
                            index_of<I>(), base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO,
                            type_of<V>()) == CUSPARSE_STATUS_SUCCESS);
  cusparseSpGEMMDescr_t sp;
  REQUIRE(cusparseSpGEMM_createDescr(&sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_is_stub_spgemm_descr(sp));  // the program holds a real descriptor
  size_t size1 = 99, size2 = 0;
  const auto alg = CUSPARSE_SPGEMM_DEFAULT;
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, type_of<V>(), alg,
                                        sp, &size1, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(size1 == 0);
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, type_of<V>(), alg,
                                        sp, &size1, nullptr) == CUSPARSE_STATUS_SUCCESS);
  int64_t products = 0;
  REQUIRE(cusparseSpGEMM_getNumProducts(sp, &products) == CUSPARSE_STATUS_SUCCESS);
  int64_t expected_products = 0;
  for (I i = 0; i < static_cast<I>(a.columns.size()); ++i) {
    const int64_t k = a.columns[i] - base;
    expected_products += b.offsets[k + 1] - b.offsets[k];
  }
  CHECK(products == expected_products);
  REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, type_of<V>(), alg, sp,
                                 &size2, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(size2 >= (a.rows + 1) * sizeof(I));
  CHECK(size2 <= (a.rows + 1) * sizeof(I) + 512);  // workspace 0 on the host backend
  std::vector<char> buffer2(size2);
  REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, type_of<V>(), alg, sp,
                                 &size2, buffer2.data()) == CUSPARSE_STATUS_SUCCESS);
  int64_t rows, cols, nnz;
  REQUIRE(cusparseSpMatGetSize(C, &rows, &cols, &nnz) == CUSPARSE_STATUS_SUCCESS);
  CHECK(rows == a.rows);
  CHECK(cols == b.cols);
  REQUIRE(nnz == static_cast<int64_t>(expected.columns.size()));
  std::vector<I> offsets(a.rows + 1, -7), columns(nnz);
  std::vector<V> values(nnz);
  REQUIRE(cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data()) ==
          CUSPARSE_STATUS_SUCCESS);
  REQUIRE(cusparseSpGEMM_copy(handle, N, N, &alpha, A, B, &beta, C, type_of<V>(), alg, sp) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(offsets == expected.offsets);
  CHECK(columns == expected.columns);
  for (int64_t i = 0; i < nnz; ++i) CHECK(close(values[i], expected.values[i]));
  CHECK(forwarded_spgemm_calls() == 0);
  REQUIRE(cusparseSpGEMM_destroyDescr(sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_call_count("cusparseSpGEMM_destroyDescr") == 1);
  CHECK(stub_last_call("cusparseSpGEMM_destroyDescr").descr == sp);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  REQUIRE(cusparseDestroy(handle) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_call_count("cusparseDestroy") == 1);
}

// The documented reuse sequence (spgemm_reuse_example.c): C's row offsets set
// at creation, then reuse_compute again after the values of A change.
template <class V>
void reuse_product(V beta_value) {
  using I = int32_t;
  stub_reset();
  auto a = sample<V, I>(6, 5, 3, 0);
  auto b = sample<V, I>(5, 4, 4, 0);
  cusparseHandle_t handle;
  REQUIRE(cusparseCreate(&handle) == CUSPARSE_STATUS_SUCCESS);
  cusparseSpMatDescr_t A = describe(a), B = describe(b), C = nullptr;
  std::vector<I> offsets(a.rows + 1, -1);
  REQUIRE(cusparseCreateCsr(&C, a.rows, b.cols, 0, offsets.data(), nullptr, nullptr,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                            type_of<V>()) == CUSPARSE_STATUS_SUCCESS);
  cusparseSpGEMMDescr_t sp;
  REQUIRE(cusparseSpGEMM_createDescr(&sp) == CUSPARSE_STATUS_SUCCESS);
  const auto alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t s1 = 5, s2 = 5, s3 = 5, s4 = 0, s5 = 5;
  REQUIRE(cusparseSpGEMMreuse_workEstimation(handle, N, N, A, B, C, alg, sp, &s1, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(s1 == 0);
  REQUIRE(cusparseSpGEMMreuse_nnz(handle, N, N, A, B, C, alg, sp, &s2, nullptr, &s3, nullptr, &s4,
                                  nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(s2 == 0);
  CHECK(s3 == 0);
  REQUIRE(s4 > 0);
  std::vector<char> buffer4(s4);
  REQUIRE(cusparseSpGEMMreuse_nnz(handle, N, N, A, B, C, alg, sp, &s2, nullptr, &s3, nullptr, &s4,
                                  buffer4.data()) == CUSPARSE_STATUS_SUCCESS);
  const auto structure = reference(a, b, V(1));
  int64_t rows, cols, nnz;
  REQUIRE(cusparseSpMatGetSize(C, &rows, &cols, &nnz) == CUSPARSE_STATUS_SUCCESS);
  REQUIRE(nnz == static_cast<int64_t>(structure.columns.size()));
  CHECK(offsets == structure.offsets);  // written by reuse_nnz
  std::vector<I> columns(nnz, -1);
  std::vector<V> values(nnz, V(3));
  // A size query before C's arrays are set answers 0 bytes and writes nothing.
  REQUIRE(cusparseSpGEMMreuse_copy(handle, N, N, A, B, C, alg, sp, &s5, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(s5 == 0);
  REQUIRE(cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data()) ==
          CUSPARSE_STATUS_SUCCESS);
  REQUIRE(cusparseSpGEMMreuse_copy(handle, N, N, A, B, C, alg, sp, &s5, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(s5 == 0);
  REQUIRE(cusparseSpGEMMreuse_copy(handle, N, N, A, B, C, alg, sp, &s5, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(columns == structure.columns);
  for (int round = 0; round < 3; ++round) {
    for (auto& v : a.values) v = v * V(1.5f);  // new values, same structure
    const V alpha = V(static_cast<float>(round + 1));
    const std::vector<V> old = values;
    REQUIRE(cusparseSpGEMMreuse_compute(handle, N, N, &alpha, A, B, &beta_value, C, type_of<V>(),
                                        alg, sp) == CUSPARSE_STATUS_SUCCESS);
    const auto expected = reference(a, b, alpha);
    for (int64_t i = 0; i < nnz; ++i)
      CHECK(close(values[i], expected.values[i] + beta_value * old[i]));
  }
  CHECK(forwarded_spgemm_calls() == 0);
  cusparseSpGEMM_destroyDescr(sp);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

// A request that must go to cuSPARSE: every call reaches the stub, with the
// stub's own SpGEMM descriptor and the caller's buffers untouched.
struct Fallback {
  cudaDataType type = CUDA_R_64F;
  cusparseIndexType_t offsets = CUSPARSE_INDEX_32I, indices = CUSPARSE_INDEX_32I;
  cusparseOperation_t op_a = N;
  cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  double beta = 0;
  bool device_pointers = false;
  bool coo = false;
};

void expect_forwarded_plain(const Fallback& f, const char* reason) {
  stub_reset();
  cusparseHandle_t handle;
  REQUIRE(cusparseCreate(&handle) == CUSPARSE_STATUS_SUCCESS);
  if (f.device_pointers) cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_DEVICE);
  std::vector<int64_t> off(5, 0), col(1, 0);
  std::vector<double> val(4, 0);
  cusparseSpMatDescr_t A, B, C;
  if (f.coo)
    cusparseCreateCoo(&A, 4, 4, 0, off.data(), col.data(), val.data(), f.indices,
                      CUSPARSE_INDEX_BASE_ZERO, f.type);
  else
    cusparseCreateCsr(&A, 4, 4, 0, off.data(), col.data(), val.data(), f.offsets, f.indices,
                      CUSPARSE_INDEX_BASE_ZERO, f.type);
  cusparseCreateCsr(&B, 4, 4, 0, off.data(), col.data(), val.data(), f.offsets, f.indices,
                    CUSPARSE_INDEX_BASE_ZERO, f.type);
  cusparseCreateCsr(&C, 4, 4, 0, nullptr, nullptr, nullptr, f.offsets, f.indices,
                    CUSPARSE_INDEX_BASE_ZERO, f.type);
  cusparseSpGEMMDescr_t sp;
  REQUIRE(cusparseSpGEMM_createDescr(&sp) == CUSPARSE_STATUS_SUCCESS);
  const double alpha[2] = {1, 0}, beta[2] = {f.beta, 0};
  size_t size = 0;
  char buffer[64];
  REQUIRE(cusparseSpGEMM_workEstimation(handle, f.op_a, N, alpha, A, B, beta, C, f.type, f.alg,
                                        sp, &size, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(size == kStubBufferSize);
  REQUIRE(cusparseSpGEMM_workEstimation(handle, f.op_a, N, alpha, A, B, beta, C, f.type, f.alg,
                                        sp, &size, buffer) == CUSPARSE_STATUS_SUCCESS);
  const StubCall work = stub_last_call("cusparseSpGEMM_workEstimation");
  CHECK(work.buffer == buffer);
  CHECK(work.alg == f.alg);
  CHECK(work.matC == C);
  CHECK(work.descr == sp);  // the program's handle is the real descriptor
  REQUIRE(cusparseSpGEMM_compute(handle, f.op_a, N, alpha, A, B, beta, C, f.type, f.alg, sp,
                                 &size, buffer) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_compute").descr == work.descr);
  int64_t products = 0;
  REQUIRE(cusparseSpGEMM_getNumProducts(sp, &products) == CUSPARSE_STATUS_SUCCESS);
  CHECK(products == 4242);
  REQUIRE(cusparseSpGEMM_copy(handle, f.op_a, N, alpha, A, B, beta, C, f.type, f.alg, sp) ==
          CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_copy").descr == work.descr);
  REQUIRE(cusparseSpGEMM_destroyDescr(sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_destroyDescr").descr == work.descr);
  if (reason) CHECK_THAT(log_text(), Catch::Contains(reason));
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

}  // namespace

TEST_CASE("plain sequence on libspgemm, every value and index type", "[host]") {
  plain_product<float, int32_t>(0);
  plain_product<double, int32_t>(0);
  plain_product<std::complex<float>, int32_t>(0);
  plain_product<std::complex<double>, int32_t>(0);
  plain_product<float, int64_t>(0);
  plain_product<double, int64_t>(0);
  plain_product<std::complex<float>, int64_t>(0);
  plain_product<std::complex<double>, int64_t>(0);
}

TEST_CASE("plain sequence with one-based indices", "[host]") {
  plain_product<double, int32_t>(1);
  plain_product<std::complex<float>, int64_t>(1);
}

TEST_CASE("reuse sequence: values recomputed, beta 0 and beta != 0", "[host]") {
  reuse_product<double>(0.0);
  reuse_product<float>(0.0f);
  reuse_product<std::complex<double>>({0.0, 0.0});
  reuse_product<std::complex<float>>({0.0f, 0.0f});
  reuse_product<double>(0.5);
  reuse_product<std::complex<double>>({0.5, -1.0});
}

TEST_CASE("requests libspgemm does not reproduce go to cuSPARSE", "[host]") {
  Fallback f;
  SECTION("ALG2") {
    f.alg = CUSPARSE_SPGEMM_ALG2;
    expect_forwarded_plain(f, "decided: algorithm 4");
  }
  SECTION("ALG3") {
    f.alg = CUSPARSE_SPGEMM_ALG3;
    expect_forwarded_plain(f, "algorithm 5");
  }
  SECTION("beta != 0") {
    f.beta = 1;
    expect_forwarded_plain(f, "beta != 0");
  }
  SECTION("device pointer mode") {
    f.device_pointers = true;
    expect_forwarded_plain(f, "device pointer mode");
  }
  SECTION("half values") {
    f.type = CUDA_R_16F;
    expect_forwarded_plain(f, "value type R_16F");
  }
  SECTION("transposed A") {
    f.op_a = CUSPARSE_OPERATION_TRANSPOSE;
    expect_forwarded_plain(f, "NON_TRANSPOSE");
  }
  SECTION("64-bit offsets with 32-bit indices") {
    f.offsets = CUSPARSE_INDEX_64I;
    expect_forwarded_plain(f, "different types");
  }
  SECTION("a COO operand") {
    f.coo = true;
    expect_forwarded_plain(f, "not CSR");
  }
}

TEST_CASE("reuse with 64-bit indices goes to cuSPARSE", "[host]") {
  stub_reset();
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  std::vector<int64_t> off(3, 0);
  cusparseSpMatDescr_t A, B, C;
  for (cusparseSpMatDescr_t* m : {&A, &B, &C})
    cusparseCreateCsr(m, 2, 2, 0, off.data(), off.data(), off.data(), CUSPARSE_INDEX_64I,
                      CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseSpGEMMDescr_t sp;
  cusparseSpGEMM_createDescr(&sp);
  size_t s1 = 0;
  REQUIRE(cusparseSpGEMMreuse_workEstimation(handle, N, N, A, B, C, CUSPARSE_SPGEMM_DEFAULT, sp,
                                             &s1, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(s1 == kStubBufferSize);
  CHECK(stub_call_count("cusparseSpGEMMreuse_workEstimation") == 1);
  size_t s2, s3, s4;
  REQUIRE(cusparseSpGEMMreuse_nnz(handle, N, N, A, B, C, CUSPARSE_SPGEMM_DEFAULT, sp, &s2, nullptr,
                                  &s3, nullptr, &s4, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_call_count("cusparseSpGEMMreuse_nnz") == 1);
  CHECK_THAT(log_text(), Catch::Contains("reuse API with indices other than 32-bit"));
  cusparseSpGEMM_destroyDescr(sp);
  for (cusparseSpMatDescr_t m : {A, B, C}) cusparseDestroySpMat(m);
  cusparseDestroy(handle);
}

TEST_CASE("a descriptor the real library created stays with it", "[host][disabled]") {
  stub_reset();
  // The stub's own createDescr, past the drop-in (as a program that resolved
  // it from the library's handle would have it).
  void* stub = dlopen("libcusparse_stub.so", RTLD_LAZY | RTLD_NOLOAD);
  REQUIRE(stub);
  auto create = reinterpret_cast<decltype(&cusparseSpGEMM_createDescr)>(
      dlsym(stub, "cusparseSpGEMM_createDescr"));
  REQUIRE(create);
  cusparseSpGEMMDescr_t sp;
  REQUIRE(create(&sp) == CUSPARSE_STATUS_SUCCESS);
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  std::vector<int32_t> off(3, 0);
  cusparseSpMatDescr_t A;
  cusparseCreateCsr(&A, 2, 2, 0, off.data(), off.data(), off.data(), CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  const double one = 1, zero = 0;
  size_t size = 0;
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &one, A, A, &zero, A, CUDA_R_64F,
                                        CUSPARSE_SPGEMM_DEFAULT, sp, &size,
                                        nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_workEstimation").descr == sp);
  CHECK(size == kStubBufferSize);
  REQUIRE(cusparseSpGEMM_destroyDescr(sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_destroyDescr").descr == sp);
  cusparseDestroySpMat(A);
  cusparseDestroy(handle);
}

TEST_CASE("estimateMemory: refused for the algorithms taken, forwarded for ALG2", "[host]") {
  stub_reset();
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  std::vector<int32_t> off(3, 0);
  std::vector<double> val(1, 0);
  cusparseSpMatDescr_t A, C;
  cusparseCreateCsr(&A, 2, 2, 0, off.data(), off.data(), val.data(), CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateCsr(&C, 2, 2, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  const double one = 1, zero = 0;
  for (auto alg : {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG2}) {
    cusparseSpGEMMDescr_t sp;
    cusparseSpGEMM_createDescr(&sp);
    size_t size1 = 0, size3 = 0, size2 = 0;
    REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &one, A, A, &zero, C, CUDA_R_64F, alg, sp,
                                          &size1, nullptr) == CUSPARSE_STATUS_SUCCESS);
    const cusparseStatus_t s = cusparseSpGEMM_estimateMemory(
        handle, N, N, &one, A, A, &zero, C, CUDA_R_64F, alg, sp, 0.2f, &size3, nullptr, &size2);
    if (alg == CUSPARSE_SPGEMM_ALG2) {
      CHECK(s == CUSPARSE_STATUS_SUCCESS);
      CHECK(stub_call_count("cusparseSpGEMM_estimateMemory") == 1);
    } else {
      CHECK(s == CUSPARSE_STATUS_NOT_SUPPORTED);
      CHECK(stub_call_count("cusparseSpGEMM_estimateMemory") == 0);
    }
    cusparseSpGEMM_destroyDescr(sp);
  }
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

TEST_CASE("the log names the path and the real library", "[host]") {
  const size_t before = log_text().size();  // the lines of earlier cases
  plain_product<double, int32_t>(0);
  const std::string log = log_text();
  CHECK_THAT(log, Catch::Contains("on; descriptor probe: nnz at byte"));
  CHECK_THAT(log, Catch::Contains("libcusparse_stub.so"));
  const std::string product = log.substr(before);
  CHECK_THAT(product, Catch::Contains("cusparseSpGEMM_compute -> libspgemm"));
  CHECK_THAT(product, Catch::Contains("decided: R_64F 32-bit indices"));
  CHECK_THAT(product, Catch::Contains(" ms"));
  // every SpGEMM call of a product libspgemm takes says so, the size query too
  CHECK_THAT(product, !Catch::Contains("cusparseSpGEMM_workEstimation -> cusparse"));
  CHECK_THAT(product, !Catch::Contains("cusparseSpGEMM_compute -> cusparse"));
  CHECK_THAT(product, !Catch::Contains("cusparseSpGEMM_copy -> cusparse"));
}

TEST_CASE("off: every call goes to cuSPARSE untouched", "[disabled]") {
  stub_reset();
  cusparseSpGEMMDescr_t sp;
  REQUIRE(cusparseSpGEMM_createDescr(&sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_is_stub_spgemm_descr(sp));  // the stub's own, not wrapped
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  std::vector<int32_t> off(3, 0);
  std::vector<double> val(1, 0);
  cusparseSpMatDescr_t A, C;
  cusparseCreateCsr(&A, 2, 2, 0, off.data(), off.data(), val.data(), CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateCsr(&C, 2, 2, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  const double one = 1, zero = 0;
  size_t size = 0;
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &one, A, A, &zero, C, CUDA_R_64F,
                                        CUSPARSE_SPGEMM_DEFAULT, sp, &size,
                                        nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(size == kStubBufferSize);
  CHECK(stub_last_call("cusparseSpGEMM_workEstimation").descr == sp);
  size_t s1 = 0;
  REQUIRE(cusparseSpGEMMreuse_workEstimation(handle, N, N, A, A, C, CUSPARSE_SPGEMM_DEFAULT, sp,
                                             &s1, nullptr) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_call_count("cusparseSpGEMMreuse_workEstimation") == 1);
  cusparseSpGEMM_destroyDescr(sp);
  CHECK(stub_call_count("cusparseSpGEMM_destroyDescr") == 1);
  const char* expect = std::getenv("DROPIN_EXPECT_LOG");
  if (expect) CHECK_THAT(log_text(), Catch::Contains(expect));
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

TEST_CASE("no GPU: a request libspgemm would take still gets an answer", "[nogpu]") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    WARN("a GPU is present: nothing to check here");
    return;
  }
  Fallback f;
  expect_forwarded_plain(f, "NO_DEVICE");
}

namespace {

// The plain sequence without Catch's macros (not thread-safe): true if C is
// the reference product.
bool quiet_plain_product(int seed) {
  using V = double;
  using I = int32_t;
  auto a = sample<V, I>(40 + seed, 30, seed, 0);
  auto b = sample<V, I>(30, 50, seed + 1, 0);
  const V alpha = 1.5, beta = 0;
  const auto expected = reference(a, b, alpha);
  cusparseHandle_t handle;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) return false;
  cusparseSpMatDescr_t A, B, C;
  cusparseCreateCsr(&A, a.rows, a.cols, static_cast<int64_t>(a.columns.size()), a.offsets.data(),
                    a.columns.data(), a.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateCsr(&B, b.rows, b.cols, static_cast<int64_t>(b.columns.size()), b.offsets.data(),
                    b.columns.data(), b.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateCsr(&C, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  bool ok = true;
  for (int round = 0; round < 20 && ok; ++round) {
    cusparseSpGEMMDescr_t sp;
    cusparseSpGEMM_createDescr(&sp);
    size_t s1 = 0, s2 = 0;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    ok = ok && cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F,
                                             alg, sp, &s1, nullptr) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp,
                                      &s2, nullptr) == CUSPARSE_STATUS_SUCCESS;
    std::vector<char> buffer2(s2);
    ok = ok && cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp,
                                      &s2, buffer2.data()) == CUSPARSE_STATUS_SUCCESS;
    int64_t rows, cols, nnz = -1;
    cusparseSpMatGetSize(C, &rows, &cols, &nnz);
    ok = ok && nnz == static_cast<int64_t>(expected.columns.size());
    if (ok) {
      std::vector<I> offsets(a.rows + 1), columns(nnz);
      std::vector<V> values(nnz);
      cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data());
      ok = cusparseSpGEMM_copy(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp) ==
               CUSPARSE_STATUS_SUCCESS &&
           offsets == expected.offsets && columns == expected.columns;
      for (int64_t i = 0; ok && i < nnz; ++i) ok = close(values[i], expected.values[i]);
      cusparseCsrSetPointers(C, nullptr, nullptr, nullptr);
    }
    cusparseSpGEMM_destroyDescr(sp);
  }
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
  return ok;
}

}  // namespace

TEST_CASE("threads with their own handles compute at once", "[host]") {
  constexpr int kThreads = 8;
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&ok, t] { ok[t] = quiet_plain_product(t) ? 1 : 0; });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(ok[t] == 1);
}

TEST_CASE("plain: compute and copy again with new values and a new buffer2", "[host]") {
  using V = double;
  using I = int32_t;
  stub_reset();
  auto a = sample<V, I>(7, 6, 5, 0);
  auto b = sample<V, I>(6, 8, 6, 0);
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpMatDescr_t A = describe(a), B = describe(b), C = nullptr;
  cusparseCreateCsr(&C, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseSpGEMMDescr_t sp;
  cusparseSpGEMM_createDescr(&sp);
  const V alpha = 1, beta = 0;
  const auto alg = CUSPARSE_SPGEMM_ALG1;
  size_t s1 = 0, s2 = 0;
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp,
                                        &s1, nullptr) == CUSPARSE_STATUS_SUCCESS);
  std::vector<I> offsets(a.rows + 1);
  std::vector<I> columns;
  std::vector<V> values;
  for (int round = 0; round < 3; ++round) {
    if (round) for (auto& v : b.values) v = v * V(-2);
    REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp, &s2,
                                   nullptr) == CUSPARSE_STATUS_SUCCESS);
    std::vector<char> buffer2(s2 + 64 * round);  // another buffer each round
    REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp, &s2,
                                   buffer2.data() + 8 * round) == CUSPARSE_STATUS_SUCCESS);
    int64_t rows, cols, nnz;
    cusparseSpMatGetSize(C, &rows, &cols, &nnz);
    columns.assign(nnz, -1);
    values.assign(nnz, V(0));
    cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data());
    REQUIRE(cusparseSpGEMM_copy(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp) ==
            CUSPARSE_STATUS_SUCCESS);
    const auto expected = reference(a, b, alpha);
    CHECK(offsets == expected.offsets);
    CHECK(columns == expected.columns);
    for (int64_t i = 0; i < nnz; ++i) CHECK(close(values[i], expected.values[i]));
  }
  CHECK(forwarded_spgemm_calls() == 0);
  cusparseSpGEMM_destroyDescr(sp);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

TEST_CASE("an empty product: nnz(C) = 0, C's arrays may be NULL", "[host]") {
  using V = float;
  using I = int64_t;
  Csr<V, I> a;
  a.rows = 3;
  a.cols = 4;
  a.offsets.assign(4, 0);
  auto b = sample<V, I>(4, 5, 1, 0);
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpMatDescr_t A = describe(a), B = describe(b), C = nullptr;
  cusparseCreateCsr(&C, 3, 5, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_64I,
                    CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseSpGEMMDescr_t sp;
  cusparseSpGEMM_createDescr(&sp);
  const V alpha = 1, beta = 0;
  size_t s1 = 0, s2 = 0;
  REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_32F,
                                        CUSPARSE_SPGEMM_DEFAULT, sp, &s1,
                                        nullptr) == CUSPARSE_STATUS_SUCCESS);
  int64_t products = -1;
  REQUIRE(cusparseSpGEMM_getNumProducts(sp, &products) == CUSPARSE_STATUS_SUCCESS);
  CHECK(products == 0);
  REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_32F,
                                 CUSPARSE_SPGEMM_DEFAULT, sp, &s2, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  std::vector<char> buffer2(s2);
  REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_32F,
                                 CUSPARSE_SPGEMM_DEFAULT, sp, &s2, buffer2.data()) ==
          CUSPARSE_STATUS_SUCCESS);
  int64_t rows, cols, nnz = -1;
  cusparseSpMatGetSize(C, &rows, &cols, &nnz);
  CHECK(nnz == 0);
  std::vector<I> offsets(4, -1);
  cusparseCsrSetPointers(C, offsets.data(), nullptr, nullptr);
  REQUIRE(cusparseSpGEMM_copy(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_32F,
                              CUSPARSE_SPGEMM_DEFAULT, sp) == CUSPARSE_STATUS_SUCCESS);
  CHECK(offsets == std::vector<I>(4, 0));
  cusparseSpGEMM_destroyDescr(sp);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(B);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

TEST_CASE("reuse_compute reads alpha and beta in device pointer mode", "[host]") {
  using V = double;
  using I = int32_t;
  auto a = sample<V, I>(5, 5, 2, 0);
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpMatDescr_t A = describe(a), C = nullptr;
  std::vector<I> offsets(a.rows + 1);
  cusparseCreateCsr(&C, a.rows, a.cols, 0, offsets.data(), nullptr, nullptr, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseSpGEMMDescr_t sp;
  cusparseSpGEMM_createDescr(&sp);
  const auto alg = CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC;
  size_t s1, s2, s3, s4 = 0, s5;
  REQUIRE(cusparseSpGEMMreuse_workEstimation(handle, N, N, A, A, C, alg, sp, &s1, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  REQUIRE(cusparseSpGEMMreuse_nnz(handle, N, N, A, A, C, alg, sp, &s2, nullptr, &s3, nullptr, &s4,
                                  nullptr) == CUSPARSE_STATUS_SUCCESS);
  std::vector<char> buffer4(s4);
  REQUIRE(cusparseSpGEMMreuse_nnz(handle, N, N, A, A, C, alg, sp, &s2, nullptr, &s3, nullptr, &s4,
                                  buffer4.data()) == CUSPARSE_STATUS_SUCCESS);
  int64_t rows, cols, nnz;
  cusparseSpMatGetSize(C, &rows, &cols, &nnz);
  std::vector<I> columns(nnz);
  std::vector<V> values(nnz, V(1));
  cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data());
  REQUIRE(cusparseSpGEMMreuse_copy(handle, N, N, A, A, C, alg, sp, &s5, nullptr) ==
          CUSPARSE_STATUS_SUCCESS);
  cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_DEVICE);
  const V alpha = 3, beta = 0;  // "device" scalars: host memory in the tests' host mode
  REQUIRE(cusparseSpGEMMreuse_compute(handle, N, N, &alpha, A, A, &beta, C, CUDA_R_64F, alg, sp) ==
          CUSPARSE_STATUS_SUCCESS);
  const auto expected = reference(a, a, alpha);
  CHECK(columns == expected.columns);
  for (int64_t i = 0; i < nnz; ++i) CHECK(close(values[i], expected.values[i]));
  cusparseSpGEMM_destroyDescr(sp);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(C);
  cusparseDestroy(handle);
}

TEST_CASE("a descriptor the drop-in computes with is still a real one", "[host]") {
  // A program that reaches the real library by another route (dlsym on its
  // handle) with a descriptor created through the drop-in passes the real
  // library a descriptor of its own.
  stub_reset();
  cusparseSpGEMMDescr_t sp;
  REQUIRE(cusparseSpGEMM_createDescr(&sp) == CUSPARSE_STATUS_SUCCESS);
  void* stub = dlopen("libcusparse_stub.so", RTLD_LAZY | RTLD_NOLOAD);
  REQUIRE(stub);
  auto products = reinterpret_cast<decltype(&cusparseSpGEMM_getNumProducts)>(
      dlsym(stub, "cusparseSpGEMM_getNumProducts"));
  int64_t n = 0;
  REQUIRE(products(sp, &n) == CUSPARSE_STATUS_SUCCESS);
  CHECK(stub_last_call("cusparseSpGEMM_getNumProducts").descr == sp);
  CHECK(stub_is_stub_spgemm_descr(sp));
  REQUIRE(cusparseSpGEMM_destroyDescr(sp) == CUSPARSE_STATUS_SUCCESS);
}

TEST_CASE("one descriptor, two products: a workEstimation starts the second", "[host]") {
  using V = double;
  using I = int32_t;
  stub_reset();
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpGEMMDescr_t sp;
  cusparseSpGEMM_createDescr(&sp);
  const V alpha = 1, beta = 0;
  for (int round = 0; round < 3; ++round) {
    auto a = sample<V, I>(4 + 3 * round, 5 + round, round, 0);
    auto b = sample<V, I>(5 + round, 6 + 2 * round, round + 1, 0);
    // the last round asks for ALG2: cuSPARSE's, on the same descriptor
    const auto alg = round == 2 ? CUSPARSE_SPGEMM_ALG2 : CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpMatDescr_t A = describe(a), B = describe(b), C = nullptr;
    cusparseCreateCsr(&C, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    size_t s1 = 0, s2 = 0;
    REQUIRE(cusparseSpGEMM_workEstimation(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg,
                                          sp, &s1, nullptr) == CUSPARSE_STATUS_SUCCESS);
    REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp,
                                   &s2, nullptr) == CUSPARSE_STATUS_SUCCESS);
    std::vector<char> buffer2(s2);
    REQUIRE(cusparseSpGEMM_compute(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp,
                                   &s2, buffer2.data()) == CUSPARSE_STATUS_SUCCESS);
    if (round < 2) {
      CHECK(forwarded_spgemm_calls() == 0);
      int64_t rows, cols, nnz;
      cusparseSpMatGetSize(C, &rows, &cols, &nnz);
      const auto expected = reference(a, b, alpha);
      REQUIRE(nnz == static_cast<int64_t>(expected.columns.size()));
      std::vector<I> offsets(a.rows + 1), columns(nnz);
      std::vector<V> values(nnz);
      cusparseCsrSetPointers(C, offsets.data(), columns.data(), values.data());
      REQUIRE(cusparseSpGEMM_copy(handle, N, N, &alpha, A, B, &beta, C, CUDA_R_64F, alg, sp) ==
              CUSPARSE_STATUS_SUCCESS);
      CHECK(offsets == expected.offsets);
      CHECK(columns == expected.columns);
    } else {
      CHECK(stub_call_count("cusparseSpGEMM_workEstimation") == 1);
      CHECK(stub_last_call("cusparseSpGEMM_compute").descr == sp);
    }
    cusparseDestroySpMat(A);
    cusparseDestroySpMat(B);
    cusparseDestroySpMat(C);
  }
  cusparseSpGEMM_destroyDescr(sp);
  cusparseDestroy(handle);
}
