// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: SuiteSparse:GraphBLAS's C = A*B (GrB_mxm, PLUS_TIMES on
// GrB_FP64, GrB_FP32, GxB_FC32 or GxB_FC64, CSR by row) beside libspgemm's host backend, on the
// same A and B, timed the same way (std::chrono, medians), its peak memory
// counted through GxB_init's allocator. Built only where CMake finds
// GraphBLAS (SPGEMM_BENCH_GRAPHBLAS); otherwise graphblas_available() is
// false and nothing else here is called.
#include "bench.hpp"

#if SPGEMM_BENCH_GRAPHBLAS

extern "C" {  // (GraphBLAS.h 7.4 declares no C linkage itself)
#include <GraphBLAS.h>
}
#include <fmt/format.h>
#include <malloc.h>

#include <chrono>
#include <complex>
#include <cstdlib>

#include "heap_count.hpp"
#include "util.hpp"

namespace bench {
namespace {

bool huge_pages = false;  // --huge-pages: GraphBLAS's arrays advised as libspgemm's C

void* grb_malloc(size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p) return p;
  heap_count_add(static_cast<int64_t>(malloc_usable_size(p)));
  if (huge_pages) advise_huge_pages(p, bytes);
  return p;
}
void* grb_calloc(size_t n, size_t size) {
  void* p = std::calloc(n, size);
  if (!p) return p;
  heap_count_add(static_cast<int64_t>(malloc_usable_size(p)));
  if (huge_pages) advise_huge_pages(p, n * size);
  return p;
}
void* grb_realloc(void* old, size_t bytes) {
  const int64_t before = old ? static_cast<int64_t>(malloc_usable_size(old)) : 0;
  void* p = std::realloc(old, bytes);
  if (!p) return p;
  heap_count_add(static_cast<int64_t>(malloc_usable_size(p)) - before);
  if (huge_pages) advise_huge_pages(p, bytes);
  return p;
}
void grb_free(void* p) {
  if (!p) return;
  heap_count_add(-static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

void check_grb(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS) throw BenchError(fmt::format("{} failed: GrB_Info {}", what, info));
}

struct GrbMatrix {
  GrB_Matrix m = nullptr;
  GrbMatrix() = default;
  GrbMatrix(const GrbMatrix&) = delete;
  GrbMatrix& operator=(const GrbMatrix&) = delete;
  ~GrbMatrix() { reset(); }
  void reset() {
    if (m) GrB_Matrix_free(&m);
    m = nullptr;
  }
};

// GraphBLAS's type, PLUS_TIMES semiring, CSR import and export of a value
// type (GxB_FC32_t and GxB_FC64_t are std::complex in C++).
template <class V>
struct Grb;
template <>
struct Grb<double> {
  static GrB_Type type() { return GrB_FP64; }
  static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP64; }
  static constexpr auto import = GrB_Matrix_import_FP64;
  static constexpr auto export_to = GrB_Matrix_export_FP64;
};
template <>
struct Grb<float> {
  static GrB_Type type() { return GrB_FP32; }
  static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP32; }
  static constexpr auto import = GrB_Matrix_import_FP32;
  static constexpr auto export_to = GrB_Matrix_export_FP32;
};
template <>
struct Grb<std::complex<float>> {
  static GrB_Type type() { return GxB_FC32; }
  static GrB_Semiring semiring() { return GxB_PLUS_TIMES_FC32; }
  static constexpr auto import = GxB_Matrix_import_FC32;
  static constexpr auto export_to = GxB_Matrix_export_FC32;
};
template <>
struct Grb<std::complex<double>> {
  static GrB_Type type() { return GxB_FC64; }
  static GrB_Semiring semiring() { return GxB_PLUS_TIMES_FC64; }
  static constexpr auto import = GxB_Matrix_import_FC64;
  static constexpr auto export_to = GxB_Matrix_export_FC64;
};

template <class V>
void import(GrbMatrix& out, const spgemm_test::HostCsr<V>& h) {
  std::vector<GrB_Index> p(h.row_offsets.begin(), h.row_offsets.end());
  std::vector<GrB_Index> i(h.col_ind.begin(), h.col_ind.end());
  const GrB_Index rows = static_cast<GrB_Index>(h.rows), cols = static_cast<GrB_Index>(h.cols);
  check_grb(Grb<V>::import(&out.m, Grb<V>::type(), rows, cols, p.data(), i.data(),
                           h.values.data(), p.size(), i.size(), h.values.size(), GrB_CSR_FORMAT),
            "GrB_Matrix_import");
}

template <class V>
spgemm_test::HostCsr<V> export_csr(GrB_Matrix c, int64_t rows, int64_t cols) {
  GrB_Index np = 0, ni = 0, nx = 0;
  check_grb(GrB_Matrix_exportSize(&np, &ni, &nx, GrB_CSR_FORMAT, c), "GrB_Matrix_exportSize");
  std::vector<GrB_Index> p(np), i(ni);
  spgemm_test::HostCsr<V> h;
  h.rows = rows;
  h.cols = cols;
  h.values.resize(nx);
  check_grb(Grb<V>::export_to(p.data(), i.data(), h.values.data(), &np, &ni, &nx, GrB_CSR_FORMAT,
                              c),
            "GrB_Matrix_export");
  h.row_offsets.assign(p.begin(), p.begin() + rows + 1);
  h.col_ind.assign(i.begin(), i.begin() + static_cast<int64_t>(nx));
  h.values.resize(nx);
  return h;
}

}  // namespace

bool graphblas_available() { return true; }

std::string graphblas_version() {
  return fmt::format("SuiteSparse:GraphBLAS {}.{}.{}", GxB_IMPLEMENTATION_MAJOR,
                     GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB);
}

void graphblas_setup(int threads, bool advise_huge) {
  huge_pages = advise_huge;
  check_grb(GxB_init(GrB_NONBLOCKING, grb_malloc, grb_calloc, grb_realloc, grb_free), "GxB_init");
  if (threads > 0)
    check_grb(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, threads), "GxB_Global_Option_set(NTHREADS)");
}

void graphblas_teardown() { GrB_finalize(); }

template <class V>
void run_graphblas(const spgemm_test::HostCsr<V>& a, const spgemm_test::HostCsr<V>& b,
                   bool b_is_a, const Options& opts, Record& rec, spgemm_test::HostCsr<V>* result) {
  rec.grb_ran = true;
  int32_t threads = 0;
  check_grb(GxB_Global_Option_get_INT32(GxB_GLOBAL_NTHREADS, &threads), "GxB_Global_Option_get(NTHREADS)");
  rec.grb_threads = threads;
  GrbMatrix ga, gb;
  import(ga, a);
  if (!b_is_a) import(gb, b);
  const GrB_Matrix B = b_is_a ? ga.m : gb.m;
  const GrB_Semiring semiring = Grb<V>::semiring();
  const GrB_Type type = Grb<V>::type();
  GrbMatrix c;
  int64_t extra = 0;
  std::vector<double> total;
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    c.reset();  // a fresh product each time: the previous C is freed first
    heap_count_reset_peak();
    const auto start = std::chrono::steady_clock::now();
    check_grb(GrB_Matrix_new(&c.m, type, static_cast<GrB_Index>(a.rows),
                             static_cast<GrB_Index>(b.cols)),
              "GrB_Matrix_new(C)");
    check_grb(GrB_mxm(c.m, nullptr, nullptr, semiring, ga.m, B, nullptr), "GrB_mxm");
    check_grb(GrB_Matrix_wait(c.m, GrB_MATERIALIZE), "GrB_Matrix_wait(C)");
    const auto end = std::chrono::steady_clock::now();
    if (rep >= opts.warmup) {
      total.push_back(std::chrono::duration<double, std::milli>(end - start).count());
      // beyond A, B and C: the peak less what is held with C done
      extra = std::max(extra, heap_count_peak() - heap_count_current());
    }
  }
  rec.grb_total = median(total);
  rec.grb_peak_bytes = extra;
  GrB_Index nvals = 0;
  check_grb(GrB_Matrix_nvals(&nvals, c.m), "GrB_Matrix_nvals");
  rec.grb_nnz_c = static_cast<int64_t>(nvals);
  if (result) *result = export_csr<V>(c.m, a.rows, b.cols);
  rec.grb_ok = true;
}

}  // namespace bench

#else  // without GraphBLAS

namespace bench {

bool graphblas_available() { return false; }
std::string graphblas_version() {
  return "not built in (CMake found no GraphBLAS, or SPGEMM_BENCH_GRAPHBLAS=OFF)";
}
void graphblas_setup(int, bool) {}
void graphblas_teardown() {}
template <class V>
void run_graphblas(const spgemm_test::HostCsr<V>&, const spgemm_test::HostCsr<V>&, bool,
                   const Options&, Record& rec, spgemm_test::HostCsr<V>*) {
  rec.grb_ran = false;
}

}  // namespace bench

#endif

namespace bench {

#define SPGEMM_BENCH_RUN_GRAPHBLAS(V)                                                       \
  template void run_graphblas<V>(const spgemm_test::HostCsr<V>&, const spgemm_test::HostCsr<V>&, \
                                 bool, const Options&, Record&, spgemm_test::HostCsr<V>*);
SPGEMM_BENCH_RUN_GRAPHBLAS(double)
SPGEMM_BENCH_RUN_GRAPHBLAS(float)
SPGEMM_BENCH_RUN_GRAPHBLAS(std::complex<float>)
SPGEMM_BENCH_RUN_GRAPHBLAS(std::complex<double>)
#undef SPGEMM_BENCH_RUN_GRAPHBLAS

}  // namespace bench
