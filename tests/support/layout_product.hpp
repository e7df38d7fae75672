// SPDX-License-Identifier: Apache-2.0
// One product C = alpha * A * B through the C API with the matrices stored in
// a given index layout (offset type, column index type, index base) and
// memory type, converted from and back to the tests' HostCsr (32-bit,
// zero-based). Used by the host and the GPU layout tests; errors throw.
#pragma once

#include <spgemm/spgemm.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <string>
#include <type_traits>
#include <vector>

#include "compare.hpp"
#include "csr_host.hpp"
#include "cuda_data_type.hpp"
#include "generators.hpp"
#include "reference.hpp"
#include "status_check.hpp"

namespace spgemm_test {

template <class T>
constexpr spgemmIndexType_t index_type_of() {
  return sizeof(T) == 4 ? SPGEMM_INDEX_32I : SPGEMM_INDEX_64I;
}

// An array in host or device memory holding a copy of `host`.
template <class T>
class LayoutArray {
 public:
  LayoutArray(const std::vector<T>& host, spgemmMemoryType_t memory)
      : memory_(memory), host_(host) {
    if (memory_ == SPGEMM_MEMORY_DEVICE && !host.empty()) {
      check(cudaMalloc(reinterpret_cast<void**>(&device_), host.size() * sizeof(T)));
      check(cudaMemcpy(device_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
  ~LayoutArray() { cudaFree(device_); }
  LayoutArray(const LayoutArray&) = delete;
  LayoutArray& operator=(const LayoutArray&) = delete;

  T* get() {
    if (host_.empty()) return nullptr;
    return memory_ == SPGEMM_MEMORY_DEVICE ? device_ : host_.data();
  }
  std::vector<T> read() {
    if (memory_ == SPGEMM_MEMORY_DEVICE && !host_.empty())
      check(cudaMemcpy(host_.data(), device_, host_.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return host_;
  }
  void write(const std::vector<T>& values) {
    host_ = values;
    if (memory_ == SPGEMM_MEMORY_DEVICE && !host_.empty())
      check(cudaMemcpy(device_, host_.data(), host_.size() * sizeof(T), cudaMemcpyHostToDevice));
  }

 private:
  static void check(cudaError_t err) {
    if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err));
  }
  spgemmMemoryType_t memory_;
  std::vector<T> host_;
  T* device_ = nullptr;
};

template <class To, class From>
std::vector<To> shifted(const std::vector<From>& v, int base) {
  std::vector<To> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<To>(static_cast<int64_t>(v[i]) + base);
  return out;
}

// A matrix stored in the layout, with its descriptor.
template <class V, class Offset, class Col>
struct LayoutCsr {
  LayoutArray<Offset> offsets;
  LayoutArray<Col> cols;
  LayoutArray<V> values;
  spgemmMatDescr_t descr = nullptr;

  LayoutCsr(const HostCsr<V>& m, int base, spgemmMemoryType_t memory)
      : offsets(shifted<Offset>(m.row_offsets, base), memory),
        cols(shifted<Col>(m.col_ind, base), memory),
        values(m.values, memory) {
    spgemm_ok(spgemmCreateCsr(&descr, m.rows, m.cols, m.nnz(), offsets.get(), cols.get(),
                              values.get(), index_type_of<Offset>(), index_type_of<Col>(),
                              static_cast<spgemmIndexBase_t>(base), cuda_data_type<V>()),
              "spgemmCreateCsr");
    spgemm_ok(spgemmCsrSetMemoryType(descr, memory), "spgemmCsrSetMemoryType");
  }
  ~LayoutCsr() { spgemmDestroyMatrix(descr); }
  LayoutCsr(const LayoutCsr&) = delete;
  LayoutCsr& operator=(const LayoutCsr&) = delete;
};

// What a test may add to a run: a call on the new plan before anything else
// (spgemmPlanSetWorkspace, say), and a re-analysis (Analyze + Symbolic)
// before the second numeric phase.
struct PlanHooks {
  std::function<void(spgemmPlan_t)> on_plan;
  bool reanalyze = false;
  bool c_on_host = false;  // C in host memory whatever the operands' (out of core)
};

// Operations on A and B, and an optional addend: C = alpha * op(A) * op(B)
// + beta * D, with D2 (D's structure, new values) in the second run.
template <class V>
struct ProductOptions {
  spgemmOperation_t op_a = SPGEMM_OPERATION_NON_TRANSPOSE;
  spgemmOperation_t op_b = SPGEMM_OPERATION_NON_TRANSPOSE;
  const HostCsr<V>* D = nullptr;
  const HostCsr<V>* D2 = nullptr;
  V beta = V(0);
  PlanHooks hooks = {};
};

// C = alpha * op(A) * op(B) (+ beta * D), then (structure reuse) the same
// with A2, B2 (and D2): A's, B's (and D's) structure, new values. Outputs are
// poisoned first (0x7f.. indices, NaN values); both results come back
// zero-based, 32-bit.
template <class V, class Offset, class Col>
std::pair<HostCsr<V>, HostCsr<V>> layout_product(spgemmHandle_t handle, const HostCsr<V>& A,
                                                 const HostCsr<V>& B, const HostCsr<V>& A2,
                                                 const HostCsr<V>& B2, V alpha, int base,
                                                 spgemmMemoryType_t memory,
                                                 const ProductOptions<V>& options = {}) {
  LayoutCsr<V, Offset, Col> a(A, base, memory), b(B, base, memory);
  std::unique_ptr<LayoutCsr<V, Offset, Col>> d;
  if (options.D) d = std::make_unique<LayoutCsr<V, Offset, Col>>(*options.D, base, memory);
  const int64_t c_rows = options.op_a == SPGEMM_OPERATION_NON_TRANSPOSE ? A.rows : A.cols;
  const int64_t c_cols = options.op_b == SPGEMM_OPERATION_NON_TRANSPOSE ? B.cols : B.rows;
  HostCsr<V> shape;
  shape.rows = c_rows;
  shape.cols = c_cols;
  const spgemmMemoryType_t c_memory = options.hooks.c_on_host ? SPGEMM_MEMORY_HOST : memory;
  LayoutArray<Offset> c_offsets(std::vector<Offset>(static_cast<size_t>(c_rows) + 1, 0x7f7f7f7f),
                                c_memory);
  spgemmMatDescr_t c = nullptr;
  spgemm_ok(spgemmCreateCsr(&c, c_rows, c_cols, 0, c_offsets.get(), nullptr, nullptr,
                            index_type_of<Offset>(), index_type_of<Col>(),
                            static_cast<spgemmIndexBase_t>(base), cuda_data_type<V>()),
            "spgemmCreateCsr(C)");
  spgemmPlan_t plan = nullptr;
  std::pair<HostCsr<V>, HostCsr<V>> results;
  try {
    spgemm_ok(spgemmCsrSetMemoryType(c, c_memory), "spgemmCsrSetMemoryType(C)");
    if (d)
      spgemm_ok(spgemmPlanCreateWithAddend(handle, &plan, options.op_a, options.op_b, a.descr,
                                           b.descr, d->descr, c, cuda_data_type<V>()),
                "spgemmPlanCreateWithAddend");
    else
      spgemm_ok(spgemmPlanCreate(handle, &plan, options.op_a, options.op_b, a.descr, b.descr, c,
                                 cuda_data_type<V>()),
                "spgemmPlanCreate");
    if (options.hooks.on_plan) options.hooks.on_plan(plan);
    auto numeric = [&] {
      if (d)
        spgemm_ok(spgemmNumericWithAddend(handle, plan, &alpha, &options.beta),
                  "spgemmNumericWithAddend");
      else
        spgemm_ok(spgemmNumeric(handle, plan, &alpha), "spgemmNumeric");
    };
    int64_t nnz = -1;
    spgemm_ok(spgemmSymbolic(handle, plan, &nnz), "spgemmSymbolic");
    LayoutArray<Col> c_cols(std::vector<Col>(static_cast<size_t>(nnz), 0x7f7f7f7f), c_memory);
    LayoutArray<V> c_values(std::vector<V>(static_cast<size_t>(nnz), std::numeric_limits<V>::quiet_NaN()), c_memory);
    spgemm_ok(spgemmCsrSetPointers(c, c_offsets.get(), c_cols.get(), c_values.get()),
              "spgemmCsrSetPointers");
    auto read_c = [&] {
      if (memory == SPGEMM_MEMORY_DEVICE && cudaDeviceSynchronize() != cudaSuccess)
        throw std::runtime_error("cudaDeviceSynchronize failed after spgemmNumeric");
      HostCsr<V> out = shape;
      out.row_offsets = shifted<int32_t>(c_offsets.read(), -base);
      out.col_ind = shifted<int32_t>(c_cols.read(), -base);
      out.values = c_values.read();
      return out;
    };
    numeric();
    results.first = read_c();
    a.values.write(A2.values);
    b.values.write(B2.values);
    if (d) d->values.write(options.D2->values);
    c_values.write(std::vector<V>(static_cast<size_t>(nnz), std::numeric_limits<V>::quiet_NaN()));
    if (options.hooks.reanalyze) {
      spgemm_ok(spgemmAnalyze(handle, plan), "spgemmAnalyze (again)");
      int64_t again = -1;
      spgemm_ok(spgemmSymbolic(handle, plan, &again), "spgemmSymbolic (again)");
      if (again != nnz) throw std::runtime_error("nnz(C) changed on re-analysis");
    }
    numeric();
    results.second = read_c();
  } catch (...) {
    spgemmPlanDestroy(plan);
    spgemmDestroyMatrix(c);
    throw;
  }
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(c);
  return results;
}

// The value type and index layout of one typed test.
template <class V, class O, class C>
struct Layout {
  using Value = V;
  using Offset = O;
  using Col = C;
};
using AllLayouts =
    std::tuple<Layout<float, int32_t, int32_t>, Layout<double, int32_t, int32_t>,
               Layout<float, int64_t, int32_t>, Layout<double, int64_t, int32_t>,
               Layout<float, int64_t, int64_t>, Layout<double, int64_t, int64_t>,
               Layout<std::complex<float>, int32_t, int32_t>,
               Layout<std::complex<double>, int64_t, int64_t>>;

using AddendLayouts = std::tuple<Layout<float, int32_t, int32_t>, Layout<double, int64_t, int64_t>,
                                 Layout<std::complex<double>, int32_t, int32_t>>;

// `spec` (generators.hpp) squared, and squared again with new values (same
// structure), with the oracle's results: computed once, run in every layout.
template <class V>
struct LayoutCase {
  std::string spec;
  HostCsr<V> A, A2;
  ReferenceProduct<V> C, C2;
  static constexpr V alpha = V(-1.5);

  explicit LayoutCase(const std::string& s)
      : spec(s), A(convert_values<V>(generate(s))), A2(A) {
    randomize_values(A2, 77);
    C = reference_spgemm(A, A, alpha);
    C2 = reference_spgemm(A2, A2, alpha);
  }
};

template <class V>
std::vector<LayoutCase<V>> layout_cases(std::initializer_list<const char*> specs) {
  std::vector<LayoutCase<V>> cases;
  for (const char* spec : specs) cases.emplace_back(spec);
  return cases;
}

// One case in layout L with index base `base`: "" or what differs.
template <class L>
std::string check_case(spgemmHandle_t handle, spgemmMemoryType_t memory,
                       const LayoutCase<typename L::Value>& c, int base,
                       const PlanHooks& hooks = {}) {
  using V = typename L::Value;
  ProductOptions<V> options;
  options.hooks = hooks;
  const auto [got, got2] = layout_product<V, typename L::Offset, typename L::Col>(
      handle, c.A, c.A, c.A2, c.A2, c.alpha, base, memory, options);
  std::string diff = compare_csr(got, c.C, default_rtol<V>());
  if (diff.empty()) diff = compare_csr(got2, c.C2, default_rtol<V>());
  return diff.empty() ? diff : c.spec + " base " + std::to_string(base) + ": " + diff;
}

// C = alpha * A * B + beta * D cases, each with new values for a second
// numeric phase and the oracle's results.
template <class V>
struct AddendCase {
  std::string name;
  HostCsr<V> A, B, D, A2, B2, D2;
  ReferenceProduct<V> C, C2;
  static constexpr V alpha = V(-1.5);
  static constexpr V beta = V(0.75);

  AddendCase(std::string n, HostCsr<double> a, HostCsr<double> b, HostCsr<double> d)
      : name(std::move(n)),
        A(convert_values<V>(a)),
        B(convert_values<V>(b)),
        D(convert_values<V>(d)),
        A2(A),
        B2(B),
        D2(D) {
    randomize_values(A2, 31);
    randomize_values(B2, 32);
    randomize_values(D2, 33);
    C = reference_spgemm(A, B, alpha, &D, beta);
    C2 = reference_spgemm(A2, B2, alpha, &D2, beta);
  }
};

// D with its own pattern; D covering rows where A * B is empty; D = the
// pattern of A * B (accumulating into a previous product); an empty D; with
// long_rows, long rows of C (hub: the GPU's dense windows; the host backend
// has no such path, and its oracle takes seconds).
template <class V>
std::vector<AddendCase<V>> addend_cases(bool long_rows) {
  const auto a = uniform_random(200, 150, 5, 41), b = uniform_random(150, 180, 4, 42);
  const auto sparse_a = with_empty_rows(a, 0.3, 43);
  auto previous = reference_spgemm(a, b, 1.0).C;
  randomize_values(previous, 44);
  std::vector<AddendCase<V>> cases;
  cases.emplace_back("own pattern", a, b, random_rect(200, 180, 0.02, 45));
  cases.emplace_back("rows where A*B is empty", sparse_a, b, uniform_random(200, 180, 3, 46));
  cases.emplace_back("D = previous C", a, b, previous);
  cases.emplace_back("empty D", a, b, empty_matrix(200, 180));
  if (long_rows) {
    const auto hub = generate("hub:20000");
    cases.emplace_back("hub:20000 + D", hub, hub, uniform_random(20000, 20000, 20, 47));
    // binned rows of 169 terms in 25 columns, each with 40 of D's entries
    // outside them: the symbolic phase's tables are bounded by the columns'
    // range only if D's columns count in it (binning.cuh's RowSizes)
    const auto band = generate("banded:70000:6");
    cases.emplace_back("banded:70000:6 + D outside the band", band, band,
                       uniform_random(70000, 70000, 40, 48));
    // rows of 41 columns, 16 of them D's alone on either side of A*B's: the
    // numeric phase maps a row's columns straight to slots where its range
    // fits the table (accumulators/direct_row.cuh) if D's columns count in it
    cases.emplace_back("banded:70000:6 + D of a wider band", band, band,
                       generate("banded:70000:20"));
    // 270,400 rows of 25 products in 13 columns, 30% of them with 7 of D's
    // entries (32 terms, up to 20 columns): a thread each in both phases on
    // devices of up to 264 SMs (configs/bins.hpp's thread bin: D's terms
    // come after the products in a thread's slots)
    const auto grid = generate("poisson2d:520");
    cases.emplace_back("poisson2d:520 + D, a thread a row", grid, grid,
                       with_empty_rows(uniform_random(grid.rows, grid.cols, 7, 49), 0.7, 50));
  }
  return cases;
}

template <class L>
std::string check_case(spgemmHandle_t handle, spgemmMemoryType_t memory,
                       const AddendCase<typename L::Value>& c, int base,
                       const PlanHooks& hooks = {}) {
  using V = typename L::Value;
  const auto [got, got2] = layout_product<V, typename L::Offset, typename L::Col>(
      handle, c.A, c.B, c.A2, c.B2, c.alpha, base, memory,
      ProductOptions<V>{SPGEMM_OPERATION_NON_TRANSPOSE, SPGEMM_OPERATION_NON_TRANSPOSE, &c.D,
                        &c.D2, c.beta, hooks});
  std::string diff = compare_csr(got, c.C, default_rtol<V>());
  if (diff.empty()) diff = compare_csr(got2, c.C2, default_rtol<V>());
  return diff.empty() ? diff : c.name + " base " + std::to_string(base) + ": " + diff;
}

// op(A) * op(B) cases with op in {N, T, C}: A^T * B, A * B^T, A^T * B^T,
// and the Galerkin product P^T * (A * P) of two plans; rectangular, with
// the oracle computing on explicit transposes.
template <class V>
struct TransposeCase {
  std::string name;
  spgemmOperation_t op_a, op_b;
  HostCsr<V> A, B, A2, B2;
  ReferenceProduct<V> C, C2;
  static constexpr V alpha = V(2);

  TransposeCase(std::string n, spgemmOperation_t oa, spgemmOperation_t ob, HostCsr<double> a,
                HostCsr<double> b)
      : name(std::move(n)), op_a(oa), op_b(ob), A(convert_values<V>(a)),
        B(convert_values<V>(b)), A2(A), B2(B) {
    randomize_values(A2, 51);
    randomize_values(B2, 52);
    auto op = [](const HostCsr<V>& m, spgemmOperation_t o) {
      if (o == SPGEMM_OPERATION_NON_TRANSPOSE) return m;
      HostCsr<V> t = transpose(m);
      if (o == SPGEMM_OPERATION_CONJUGATE_TRANSPOSE)
        for (V& v : t.values) v = conjugate(v);
      return t;
    };
    C = reference_spgemm(op(A, op_a), op(B, op_b), alpha);
    C2 = reference_spgemm(op(A2, op_a), op(B2, op_b), alpha);
  }
};

template <class V>
std::vector<TransposeCase<V>> transpose_cases() {
  const auto N = SPGEMM_OPERATION_NON_TRANSPOSE, T = SPGEMM_OPERATION_TRANSPOSE,
             H = SPGEMM_OPERATION_CONJUGATE_TRANSPOSE;
  const auto a = with_empty_rows(uniform_random(300, 200, 6, 61), 0.1, 62);  // 300 x 200
  const auto b = uniform_random(300, 250, 5, 63);                            // 300 x 250
  const auto c = uniform_random(250, 300, 4, 64);                            // 250 x 300
  const auto d = uniform_random(400, 250, 5, 66);                            // 400 x 250
  const auto fine = generate("poisson2d:40");                               // 1600 x 1600
  const auto p = uniform_random(1600, 400, 2, 65);  // a prolongation-like 1600 x 400
  std::vector<TransposeCase<V>> cases;
  cases.emplace_back("A^T * B", T, N, a, b);
  cases.emplace_back("A^H * B", H, N, a, b);
  cases.emplace_back("A^T * B^H", T, H, a, transpose(b));
  cases.emplace_back("B * D^T", N, T, b, d);
  cases.emplace_back("A^T * C^T", T, T, a, c);
  cases.emplace_back("P^T * (A P)", T, N, p, reference_spgemm(fine, p, 1.0).C);
  cases.emplace_back("A * A^T", N, T, generate("longrows:2000"), generate("longrows:2000"));
  return cases;
}

template <class L>
std::string check_case(spgemmHandle_t handle, spgemmMemoryType_t memory,
                       const TransposeCase<typename L::Value>& c, int base,
                       const PlanHooks& hooks = {}) {
  using V = typename L::Value;
  ProductOptions<V> options;
  options.op_a = c.op_a;
  options.op_b = c.op_b;
  options.hooks = hooks;
  const auto [got, got2] = layout_product<V, typename L::Offset, typename L::Col>(
      handle, c.A, c.B, c.A2, c.B2, c.alpha, base, memory, options);
  std::string diff = compare_csr(got, c.C, default_rtol<V>());
  if (diff.empty()) diff = compare_csr(got2, c.C2, default_rtol<V>());
  return diff.empty() ? diff : c.name + " base " + std::to_string(base) + ": " + diff;
}

// Every case in layout L with both index bases: the differences found.
template <class L, class Case>
std::vector<std::string> failed_cases(spgemmHandle_t handle, spgemmMemoryType_t memory,
                                      const std::vector<Case>& cases,
                                      const PlanHooks& hooks = {}) {
  std::vector<std::string> failures;
  for (const Case& c : cases)
    for (const int base : {0, 1}) {
      std::string diff = check_case<L>(handle, memory, c, base, hooks);
      if (!diff.empty()) failures.push_back(std::move(diff));
    }
  return failures;
}

}  // namespace spgemm_test
