// SPDX-License-Identifier: Apache-2.0
// spgemm-host-ab: two builds of libspgemm's host backend in one process, on
// the same inputs, rep by rep in alternating order, so that a machine whose
// speed drifts (a shared VM: 15-35% between rounds) moves both alike. Each
// library is dlopen'ed with its own symbols (RTLD_LOCAL | RTLD_DEEPBIND);
// fp64 values, 32-bit indices, C = A*A (A*A^T for rectangular A).
//
//   spgemm-host-ab LIB_A LIB_B [--threads N] [--reps N] [--warmup N]
//                  [--huge-pages] [--csv FILE] (FILE.mtx[.gz] | --gen SPEC)...
//
// Per input and library: the whole product as spgemm-bench times it (C's
// descriptor, plan, analyze, symbolic, C's allocation, numeric), its
// symbolic and numeric phases, and numeric again on the plan; medians and
// minima over --reps (default 15), then B / A of each and their geometric
// means. Built with the benchmarks; needs no GPU.
#include "generators.hpp"
#include "host_util.hpp"
#include "matrix_market.hpp"

#include <dlfcn.h>
#include <omp.h>
#include <spgemm/spgemm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The C API functions the product calls, from one dlopen'ed library.
struct Api {
  void* so = nullptr;
  decltype(&spgemmCreate) create;
  decltype(&spgemmDestroy) destroy;
  decltype(&spgemmCreateCsr) create_csr;
  decltype(&spgemmDestroyMatrix) destroy_matrix;
  decltype(&spgemmCsrSetPointers) set_pointers;
  decltype(&spgemmCsrSetMemoryType) set_memory;
  decltype(&spgemmPlanCreate) plan_create;
  decltype(&spgemmPlanDestroy) plan_destroy;
  decltype(&spgemmAnalyze) analyze;
  decltype(&spgemmSymbolic) symbolic;
  decltype(&spgemmNumeric) numeric;
  decltype(&spgemmGetLastErrorMessage) last_error;

  explicit Api(const std::string& path) {
    so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!so) throw std::runtime_error("dlopen " + path + ": " + dlerror());
    load(create, "spgemmCreate");
    load(destroy, "spgemmDestroy");
    load(create_csr, "spgemmCreateCsr");
    load(destroy_matrix, "spgemmDestroyMatrix");
    load(set_pointers, "spgemmCsrSetPointers");
    load(set_memory, "spgemmCsrSetMemoryType");
    load(plan_create, "spgemmPlanCreate");
    load(plan_destroy, "spgemmPlanDestroy");
    load(analyze, "spgemmAnalyze");
    load(symbolic, "spgemmSymbolic");
    load(numeric, "spgemmNumeric");
    load(last_error, "spgemmGetLastErrorMessage");
  }
  template <class F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(so, name));
    if (!f) throw std::runtime_error(std::string("dlsym ") + name);
  }
  void check(spgemmStatus_t s, const char* what) const {
    if (s != SPGEMM_STATUS_SUCCESS)
      throw std::runtime_error(std::string(what) + ": " + last_error());
  }
};

struct Times {
  double total, symbolic, numeric, again;
};

// Host memory for one of C's arrays, advised to huge pages with --huge-pages
// as spgemm-bench advises its C.
struct HostArray {
  void* p = nullptr;
  HostArray(size_t bytes, bool huge) : p(std::malloc(std::max<size_t>(bytes, 1))) {
    if (!p) throw std::bad_alloc();
    if (huge) bench::advise_huge_pages(p, bytes);
  }
  ~HostArray() { std::free(p); }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
};

// A fresh product on one library's descriptors, as spgemm-bench's total.
Times product(const Api& api, spgemmHandle_t h, spgemmMatDescr_t a, spgemmMatDescr_t b,
              int64_t rows, int64_t cols, bool huge) {
  const auto ms = [](Clock::time_point x, Clock::time_point y) {
    return std::chrono::duration<double, std::milli>(y - x).count();
  };
  const auto t0 = Clock::now();
  HostArray offsets((static_cast<size_t>(rows) + 1) * sizeof(int32_t), huge);
  spgemmMatDescr_t c = nullptr;
  api.check(api.create_csr(&c, rows, cols, 0, offsets.p, nullptr, nullptr, SPGEMM_INDEX_32I,
                           SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
            "spgemmCreateCsr(C)");
  api.check(api.set_memory(c, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType(C)");
  spgemmPlan_t plan = nullptr;
  api.check(api.plan_create(h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                            SPGEMM_OPERATION_NON_TRANSPOSE, a, b, c, CUDA_R_64F),
            "spgemmPlanCreate");
  api.check(api.analyze(h, plan), "spgemmAnalyze");
  const auto t1 = Clock::now();
  int64_t nnz = 0;
  api.check(api.symbolic(h, plan, &nnz), "spgemmSymbolic");
  const auto t2 = Clock::now();
  HostArray col_ind(static_cast<size_t>(nnz) * sizeof(int32_t), huge);
  HostArray values(static_cast<size_t>(nnz) * sizeof(double), huge);
  api.check(api.set_pointers(c, offsets.p, col_ind.p, values.p), "spgemmCsrSetPointers");
  const auto t3 = Clock::now();
  const double alpha = 1;
  api.check(api.numeric(h, plan, &alpha), "spgemmNumeric");
  const auto t4 = Clock::now();
  api.check(api.numeric(h, plan, &alpha), "spgemmNumeric (again)");
  const auto t5 = Clock::now();
  api.plan_destroy(plan);
  api.destroy_matrix(c);
  return {ms(t0, t4), ms(t1, t2), ms(t3, t4), ms(t4, t5)};
}

struct Input {
  std::string name;
  spgemm_test::HostCsr<double> a;
  spgemm_test::HostCsr<double> at;  // A^T for rectangular A; empty for square A (B = A)
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: spgemm-host-ab LIB_A LIB_B [--threads N] [--reps N] [--warmup N] "
                 "[--huge-pages] [--csv FILE] (FILE.mtx[.gz] | --gen SPEC)...\n");
    return 2;
  }
  const Api libs[2] = {Api(argv[1]), Api(argv[2])};
  int reps = 15, warmup = 1;
  bool huge = false;
  std::string csv_path;
  std::vector<std::pair<std::string, bool>> specs;  // (path or spec, generated)
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--threads") omp_set_num_threads(std::stoi(value()));
    else if (arg == "--reps") reps = std::max(1, std::stoi(value()));
    else if (arg == "--warmup") warmup = std::stoi(value());
    else if (arg == "--huge-pages") huge = true;
    else if (arg == "--csv") csv_path = value();
    else if (arg == "--gen") specs.emplace_back(value(), true);
    else specs.emplace_back(arg, false);
  }
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv)
    std::fprintf(csv, "name,lib,rep,total_ms,symbolic_ms,numeric_ms,again_ms\n");
  std::printf("A = %s\nB = %s\nthreads %d, reps %d after %d warm-up, alternating A,B / B,A\n\n",
              argv[1], argv[2], omp_get_max_threads(), reps, warmup);
  std::printf("%-18s %10s %10s %6s %6s | %6s %6s | %6s\n", "input", "A total", "B total",
              "B/A", "min", "num", "min", "again");
  const char* field[4] = {"total", "symbolic", "numeric", "again"};
  std::vector<double> logs[4], low_logs[4];  // log(B / A) of medians, of minima
  for (const auto& [spec, generated] : specs) {
    Input in;
    in.name = generated ? spec : bench::matrix_name(spec);
    in.a = generated ? spgemm_test::generate(spec) : spgemm_test::read_matrix_market(spec);
    // B = A shares A's arrays, as in spgemm-bench (a copy would double the
    // memory the product reads)
    if (in.a.rows != in.a.cols) in.at = spgemm_test::transpose(in.a);
    spgemm_test::HostCsr<double>& b = in.a.rows == in.a.cols ? in.a : in.at;
    std::vector<Times> t[2];
    // one handle and pair of descriptors per library, for all reps
    spgemmHandle_t handle[2] = {};
    spgemmMatDescr_t da[2] = {}, db[2] = {};
    for (int l = 0; l < 2; ++l) {
      const Api& api = libs[l];
      api.check(api.create(&handle[l]), "spgemmCreate");
      auto describe = [&](spgemm_test::HostCsr<double>& m, spgemmMatDescr_t* d) {
        api.check(api.create_csr(d, m.rows, m.cols, static_cast<int64_t>(m.col_ind.size()),
                                 m.row_offsets.data(), m.col_ind.data(), m.values.data(),
                                 SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                                 CUDA_R_64F),
                  "spgemmCreateCsr");
        api.check(api.set_memory(*d, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType");
      };
      describe(in.a, &da[l]);
      describe(b, &db[l]);
    }
    for (int rep = 0; rep < warmup + reps; ++rep)
      for (int k = 0; k < 2; ++k) {
        const int l = (rep + k) % 2;  // A,B then B,A
        const Times x = product(libs[l], handle[l], da[l], db[l], in.a.rows, b.cols, huge);
        if (rep < warmup) continue;
        t[l].push_back(x);
        if (csv)
          std::fprintf(csv, "%s,%c,%d,%.6g,%.6g,%.6g,%.6g\n", in.name.c_str(), "AB"[l],
                       rep - warmup, x.total, x.symbolic, x.numeric, x.again);
      }
    for (int l = 0; l < 2; ++l) {
      libs[l].destroy_matrix(da[l]);
      libs[l].destroy_matrix(db[l]);
      libs[l].destroy(handle[l]);
    }
    double med[2][4], low[2][4];
    for (int l = 0; l < 2; ++l)
      for (int f = 0; f < 4; ++f) {
        std::vector<double> v;
        for (const Times& x : t[l]) v.push_back((&x.total)[f]);
        med[l][f] = bench::median(v);
        low[l][f] = *std::min_element(v.begin(), v.end());
      }
    for (int f = 0; f < 4; ++f) {
      logs[f].push_back(std::log(med[1][f] / med[0][f]));
      low_logs[f].push_back(std::log(low[1][f] / low[0][f]));
    }
    std::printf("%-18s %10.4g %10.4g %6.3f %6.3f | %6.3f %6.3f | %6.3f\n", in.name.c_str(),
                med[0][0], med[1][0], med[1][0] / med[0][0], low[1][0] / low[0][0],
                med[1][2] / med[0][2], low[1][2] / low[0][2], med[1][3] / med[0][3]);
    std::fflush(stdout);
  }
  const auto geomean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? NAN : std::exp(s / static_cast<double>(v.size()));
  };
  std::printf("\ngeometric means of B / A over %zu inputs, medians (minima):", logs[0].size());
  for (int f = 0; f < 4; ++f)
    std::printf(" %s %.3f (%.3f)", field[f], geomean(logs[f]), geomean(low_logs[f]));
  std::printf("\n");
  if (csv) std::fclose(csv);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spgemm-host-ab: %s\n", e.what());
  return 1;
}
