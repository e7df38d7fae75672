// SPDX-License-Identifier: Apache-2.0
// spgemm-amg-bench: the Galerkin product of AMG setup, A_c = R * (A * P) with
// R = P^T, as solver libraries compute it and recompute it when A's values
// change: libspgemm (two plans; a re-run is spgemmNumeric on both) against
// cuSPARSE's structure-reuse family (cusparseSpGEMMreuse_*, the path PETSc
// and AmgX take; a re-run is reuse_compute on both), in one process, on the
// same device arrays, fp64 and 32-bit indices. A_c of both is compared.
//
// P comes from A by plain aggregation: nodes in order, each not yet
// aggregated whose neighbours (every off-diagonal entry of its row) are all
// free starts an aggregate of itself and them; each node left joins the
// aggregate of its first aggregated neighbour, or else one of its own.
// P(i, aggregate(i)) = 1. With --smoothed, P = (I - 2/3 D^-1 A) P_tent
// (smoothed aggregation's Jacobi step; D: A's diagonal), built on the host.
//
// Usage: spgemm-amg-bench [--smoothed] [--reps N] [--warmup N] [--csv FILE]
//                         INPUT...   (FILE.mtx[.gz] or a spgemm-bench --gen spec)
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <fmt/format.h>
#include <spgemm/spgemm.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "agreement.hpp"
#include "csr_host.hpp"
#include "cusparse_reuse.hpp"
#include "generators.hpp"
#include "matrix_market.hpp"
#include "reference.hpp"
#include "util.hpp"

namespace bench {
namespace {

using spgemm_test::HostCsr;
using Csr = HostCsr<double>;

struct Options {
  std::vector<std::string> inputs;
  bool smoothed = false;
  int reps = 10, warmup = 2;
  std::string csv;
};

Csr tentative_prolongator(const Csr& a) {
  const auto n = static_cast<size_t>(a.rows);
  std::vector<int32_t> aggregate(n, -1);
  int32_t count = 0;
  auto neighbours = [&](size_t i, auto&& f) {
    for (int32_t e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e)
      if (static_cast<size_t>(a.col_ind[e]) != i) f(static_cast<size_t>(a.col_ind[e]));
  };
  for (size_t i = 0; i < n; ++i) {
    if (aggregate[i] >= 0) continue;
    bool free = true;
    neighbours(i, [&](size_t j) { free = free && aggregate[j] < 0; });
    if (!free) continue;
    aggregate[i] = count;
    neighbours(i, [&](size_t j) { aggregate[j] = count; });
    ++count;
  }
  for (size_t i = 0; i < n; ++i) {
    if (aggregate[i] >= 0) continue;
    int32_t joined = -1;
    neighbours(i, [&](size_t j) {
      if (joined < 0 && aggregate[j] >= 0) joined = aggregate[j];
    });
    aggregate[i] = joined >= 0 ? joined : count++;
  }
  Csr p;
  p.rows = a.rows;
  p.cols = count;
  p.row_offsets.resize(n + 1);
  for (size_t i = 0; i <= n; ++i) p.row_offsets[i] = static_cast<int32_t>(i);
  p.col_ind = aggregate;
  p.values.assign(n, 1.0);
  return p;
}

// (I - 2/3 D^-1 A) P: P minus 2/3 of each row of A * P over A's diagonal.
Csr smoothed(const Csr& a, const Csr& p) {
  const Csr ap = spgemm_test::reference_spgemm(a, p, 1.0).C;
  Csr out;
  out.rows = ap.rows;
  out.cols = ap.cols;
  out.row_offsets.assign(1, 0);
  std::vector<std::pair<int32_t, double>> row;
  for (int64_t i = 0; i < a.rows; ++i) {
    double diag = 1;
    for (int32_t e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e)
      if (a.col_ind[e] == i && a.values[e] != 0) diag = a.values[e];
    const int32_t own = p.col_ind[static_cast<size_t>(i)];  // P_tent: one entry a row
    row.clear();
    bool placed = false;
    for (int32_t e = ap.row_offsets[i]; e < ap.row_offsets[i + 1]; ++e) {
      const bool mine = ap.col_ind[e] == own;
      row.emplace_back(ap.col_ind[e], -2.0 / 3.0 / diag * ap.values[e] + (mine ? 1 : 0));
      placed = placed || mine;
    }
    if (!placed) row.emplace_back(own, 1.0);  // A's row i is empty
    std::sort(row.begin(), row.end());
    for (const auto& [col, value] : row) {
      out.col_ind.push_back(col);
      out.values.push_back(value);
    }
    out.row_offsets.push_back(static_cast<int32_t>(out.col_ind.size()));
  }
  return out;
}

int64_t products(const Csr& x, const Csr& y) {
  int64_t sum = 0;
  for (int32_t k : x.col_ind) sum += y.row_length(k);
  return sum;
}

// A matrix on the device (plain cudaMalloc, not timed) and its view.
struct DeviceCsr {
  int64_t rows = 0, cols = 0, nnz = 0;
  Buffer offsets, col_ind, values;
};

DeviceCsr upload(const Csr& h) {
  const MemCtx mem{MemKind::device_malloc};
  DeviceCsr d;
  d.rows = h.rows;
  d.cols = h.cols;
  d.nnz = h.nnz();
  d.offsets = Buffer::allocate(mem, h.row_offsets.size() * 4, "upload");
  d.col_ind = Buffer::allocate(mem, h.col_ind.size() * 4, "upload");
  d.values = Buffer::allocate(mem, h.values.size() * 8, "upload");
  check_cuda(cudaMemcpy(d.offsets.get(), h.row_offsets.data(), h.row_offsets.size() * 4,
                        cudaMemcpyHostToDevice), "cudaMemcpy");
  check_cuda(cudaMemcpy(d.col_ind.get(), h.col_ind.data(), h.col_ind.size() * 4,
                        cudaMemcpyHostToDevice), "cudaMemcpy");
  check_cuda(cudaMemcpy(d.values.get(), h.values.data(), h.values.size() * 8,
                        cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

Csr download(int64_t rows, int64_t cols, int64_t nnz, const Buffer& offsets,
             const Buffer& col_ind, const Buffer& values) {
  Csr h;
  h.rows = rows;
  h.cols = cols;
  h.row_offsets.resize(static_cast<size_t>(rows) + 1);
  h.col_ind.resize(static_cast<size_t>(nnz));
  h.values.resize(static_cast<size_t>(nnz));
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check_cuda(cudaMemcpy(h.row_offsets.data(), offsets.get(), h.row_offsets.size() * 4,
                        cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(h.col_ind.data(), col_ind.get(), h.col_ind.size() * 4,
                        cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(h.values.data(), values.get(), h.values.size() * 8,
                        cudaMemcpyDeviceToHost), "cudaMemcpy");
  return h;
}

// A product's output: C's arrays from the pool, as a solver allocates them.
struct Output {
  int64_t rows = 0, cols = 0, nnz = 0;
  Buffer offsets, col_ind, values;
};

// ---- libspgemm: a plan per product ------------------------------------------

struct LibProduct {
  Output c;
  SpgemmMat c_descr;
  SpgemmPlan plan;
};

SpgemmMat lib_matrix(int64_t rows, int64_t cols, int64_t nnz, void* offsets, void* col_ind,
                     void* values) {
  spgemmMatDescr_t raw = nullptr;
  check_spgemm(spgemmCreateCsr(&raw, rows, cols, nnz, offsets, col_ind, values, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
               "spgemmCreateCsr");
  return SpgemmMat(raw);
}

void lib_setup(spgemmHandle_t h, spgemmMatDescr_t x, spgemmMatDescr_t y, int64_t rows,
               int64_t cols, const MemCtx& mem, LibProduct& out) {
  const double one = 1;
  out.c.rows = rows;
  out.c.cols = cols;
  out.c.offsets = Buffer::allocate(mem, (static_cast<size_t>(rows) + 1) * 4, "C offsets");
  out.c_descr = lib_matrix(rows, cols, 0, out.c.offsets.get(), nullptr, nullptr);
  spgemmPlan_t plan = nullptr;
  check_spgemm(spgemmPlanCreate(h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, x, y, out.c_descr.get(),
                                CUDA_R_64F),
               "spgemmPlanCreate");
  out.plan.reset(plan);
  check_spgemm(spgemmAnalyze(h, plan), "spgemmAnalyze");
  check_spgemm(spgemmSymbolic(h, plan, &out.c.nnz), "spgemmSymbolic");
  out.c.col_ind = Buffer::allocate(mem, static_cast<size_t>(out.c.nnz) * 4, "C columns");
  out.c.values = Buffer::allocate(mem, static_cast<size_t>(out.c.nnz) * 8, "C values");
  check_spgemm(spgemmCsrSetPointers(out.c_descr.get(), out.c.offsets.get(), out.c.col_ind.get(),
                                    out.c.values.get()),
               "spgemmCsrSetPointers");
  check_spgemm(spgemmNumeric(h, plan, &one), "spgemmNumeric");
}

// ---- cuSPARSE: the reuse family per product (cusparse_reuse.hpp) ------------

CusparseMat cus_matrix(int64_t rows, int64_t cols, int64_t nnz, void* offsets, void* col_ind,
                       void* values) {
  cusparseSpMatDescr_t raw = nullptr;
  check_cusparse(cusparseCreateCsr(&raw, rows, cols, nnz, offsets, col_ind, values,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                 "cusparseCreateCsr");
  return CusparseMat(raw);
}

// ---- one input ----------------------------------------------------------------

struct Result {
  std::string name, error;
  int64_t rows = 0, coarse = 0, nnz_a = 0, nnz_p = 0, nnz_ac = 0, products = 0;
  double lib_setup = NAN, lib_rerun = NAN, cus_setup = NAN, cus_rerun = NAN;
  std::string check;
};

// Median ms of `reps` timed runs of f after `warmup` untimed ones, events on
// the stream around each; `before` runs untimed ahead of each (freeing the
// last run's products).
template <class Before, class F>
double timed(cudaStream_t stream, int warmup, int reps, Before&& before, F&& f) {
  Timeline tl(true, stream);
  std::vector<double> ms;
  for (int i = 0; i < warmup + reps; ++i) {
    before();
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    tl.mark(0);
    f();
    tl.mark(1);
    tl.finish(1);
    if (i >= warmup) ms.push_back(tl.ms(0, 1));
  }
  return median(ms);
}

Result run(const std::string& input, const Options& o, cudaStream_t stream, const MemCtx& mem) {
  Result r;
  r.name = input;
  const bool file = input.find(".mtx") != std::string::npos;
  const Csr a = file ? spgemm_test::read_matrix_market(input) : spgemm_test::generate(input);
  if (a.rows != a.cols) throw BenchError("not square");
  const Csr p0 = tentative_prolongator(a);
  const Csr p = o.smoothed ? smoothed(a, p0) : p0;
  const Csr rt = spgemm_test::transpose(p);
  r.rows = a.rows;
  r.coarse = p.cols;
  r.nnz_a = a.nnz();
  r.nnz_p = p.nnz();
  const DeviceCsr da = upload(a), dp = upload(p), dr = upload(rt);

  // libspgemm
  spgemmHandle_t raw_h = nullptr;
  check_spgemm(spgemmCreate(&raw_h), "spgemmCreate");
  SpgemmHandle h(raw_h);
  check_spgemm(spgemmSetStream(raw_h, stream), "spgemmSetStream");
  SpgemmMat la = lib_matrix(da.rows, da.cols, da.nnz, da.offsets.get(), da.col_ind.get(),
                            da.values.get());
  SpgemmMat lp = lib_matrix(dp.rows, dp.cols, dp.nnz, dp.offsets.get(), dp.col_ind.get(),
                            dp.values.get());
  SpgemmMat lr = lib_matrix(dr.rows, dr.cols, dr.nnz, dr.offsets.get(), dr.col_ind.get(),
                            dr.values.get());
  std::unique_ptr<LibProduct> lib_ap, lib_ac;
  auto lib_free = [&] {
    lib_ac.reset();
    lib_ap.reset();
  };
  r.lib_setup = timed(stream, o.warmup, o.reps, lib_free, [&] {
    lib_ap = std::make_unique<LibProduct>();
    lib_ac = std::make_unique<LibProduct>();
    lib_setup(raw_h, la.get(), lp.get(), a.rows, p.cols, mem, *lib_ap);
    lib_setup(raw_h, lr.get(), lib_ap->c_descr.get(), p.cols, p.cols, mem, *lib_ac);
  });
  const double one = 1;
  r.lib_rerun = timed(stream, o.warmup, o.reps, [] {}, [&] {
    check_spgemm(spgemmNumeric(raw_h, lib_ap->plan.get(), &one), "spgemmNumeric");
    check_spgemm(spgemmNumeric(raw_h, lib_ac->plan.get(), &one), "spgemmNumeric");
  });
  const Output& lc = lib_ac->c;
  const Csr lib_result = download(lc.rows, lc.cols, lc.nnz, lc.offsets, lc.col_ind, lc.values);
  r.nnz_ac = lc.nnz;
  const Output& lap = lib_ap->c;
  r.products = products(a, p) + products(rt, download(lap.rows, lap.cols, lap.nnz, lap.offsets,
                                                     lap.col_ind, lap.values));
  lib_free();

  // cuSPARSE
  cusparseHandle_t raw_c = nullptr;
  check_cusparse(cusparseCreate(&raw_c), "cusparseCreate");
  CusparseHandle c(raw_c);
  check_cusparse(cusparseSetStream(raw_c, stream), "cusparseSetStream");
  CusparseMat ca = cus_matrix(da.rows, da.cols, da.nnz, da.offsets.get(), da.col_ind.get(),
                              da.values.get());
  CusparseMat cp = cus_matrix(dp.rows, dp.cols, dp.nnz, dp.offsets.get(), dp.col_ind.get(),
                              dp.values.get());
  CusparseMat cr = cus_matrix(dr.rows, dr.cols, dr.nnz, dr.offsets.get(), dr.col_ind.get(),
                              dr.values.get());
  std::unique_ptr<ReuseProduct> cus_ap, cus_ac;
  auto cus_free = [&] {
    cus_ac.reset();
    cus_ap.reset();
  };
  r.cus_setup = timed(stream, o.warmup, o.reps, cus_free, [&] {
    cus_ap = std::make_unique<ReuseProduct>();
    cus_ac = std::make_unique<ReuseProduct>();
    reuse_setup(raw_c, ca.get(), cp.get(), a.rows, p.cols, IndexWidths{}, CUDA_R_64F, mem,
                *cus_ap);
    reuse_setup(raw_c, cr.get(), cus_ap->c.get(), p.cols, p.cols, IndexWidths{}, CUDA_R_64F, mem,
                *cus_ac);
  });
  r.cus_rerun = timed(stream, o.warmup, o.reps, [] {}, [&] {
    reuse_compute(raw_c, ca.get(), cp.get(), CUDA_R_64F, *cus_ap);
    reuse_compute(raw_c, cr.get(), cus_ap->c.get(), CUDA_R_64F, *cus_ac);
  });
  const ReuseProduct& cc = *cus_ac;
  const Csr cus_result =
      download(cc.rows, cc.cols, cc.nnz, cc.row_offsets, cc.col_ind, cc.values);
  const spgemm_test::Agreement agree = spgemm_test::check_agreement(lib_result, cus_result, 1e-10);
  r.check = agree.agree ? "agree" : "DISAGREE: " + agree.message;
  return r;
}

int main_(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw BenchError(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--smoothed") o.smoothed = true;
    else if (arg == "--reps") o.reps = std::max(1, std::stoi(value()));
    else if (arg == "--warmup") o.warmup = std::max(0, std::stoi(value()));
    else if (arg == "--csv") o.csv = value();
    else if (arg == "--help" || arg == "-h") {
      std::puts("spgemm-amg-bench [--smoothed] [--reps N] [--warmup N] [--csv FILE] INPUT...\n"
                "  INPUT: FILE.mtx[.gz] or a spgemm-bench --gen spec (square matrices)");
      return 0;
    } else o.inputs.push_back(arg);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("SKIPPED: no CUDA device");
    return 77;
  }
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaMemPool_t pool = nullptr;
  check_cuda(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
  uint64_t keep = UINT64_MAX;  // freed memory stays in the pool, as in spgemm-bench
  check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
             "cudaMemPoolSetAttribute");
  const MemCtx mem{MemKind::device_pool, stream, pool};
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  fmt::print("device: {}; fp64, 32-bit indices; P by {} aggregation; medians of {} after {} "
             "warm-up; ms\n", prop.name, o.smoothed ? "smoothed" : "plain", o.reps, o.warmup);
  fmt::print("{:24s} {:>9s} {:>8s} {:>10s} {:>11s} {:>9s} {:>9s} {:>9s} {:>9s} {:>7s} {:>7s}  {}\n",
             "input", "rows", "coarse", "nnz(A_c)", "products", "lib set", "lib re",
             "cuS set", "cuS re", "set x", "re x", "check");
  std::vector<Result> results;
  bool failed = false;
  for (const std::string& input : o.inputs) {
    Result r;
    try {
      r = run(input, o, stream, mem);
    } catch (const std::exception& e) {
      r.name = input;
      r.error = e.what();
      cudaGetLastError();
    }
    const std::string name = matrix_name(r.name);
    r.name = name;
    if (!r.error.empty()) {
      fmt::print("{:24s} skipped: {}\n", name, r.error);
      if (r.error != "not square") failed = true;
      continue;
    }
    failed = failed || r.check != "agree";
    fmt::print("{:24s} {:>9} {:>8} {:>10} {:>11.3g} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>7.2f} "
               "{:>7.2f}  {}\n",
               name, r.rows, r.coarse, r.nnz_ac, static_cast<double>(r.products), r.lib_setup,
               r.lib_rerun, r.cus_setup, r.cus_rerun, r.cus_setup / r.lib_setup,
               r.cus_rerun / r.lib_rerun, r.check);
    results.push_back(r);
  }
  double log_set = 0, log_re = 0;
  for (const Result& r : results) {
    log_set += std::log(r.cus_setup / r.lib_setup);
    log_re += std::log(r.cus_rerun / r.lib_rerun);
  }
  if (!results.empty())
    fmt::print("geometric mean over {} inputs: setup {:.2f}x, re-run {:.2f}x cuSPARSE's reuse "
               "family\n",
               results.size(), std::exp(log_set / results.size()),
               std::exp(log_re / results.size()));
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    out << "input,rows,coarse,nnz_a,nnz_p,nnz_ac,products,lib_setup_ms,lib_rerun_ms,"
           "cusparse_setup_ms,cusparse_rerun_ms,prolongator,check\n";
    for (const Result& r : results)
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.name, r.rows, r.coarse,
                         r.nnz_a, r.nnz_p, r.nnz_ac, r.products, r.lib_setup, r.lib_rerun,
                         r.cus_setup, r.cus_rerun, o.smoothed ? "smoothed" : "plain", r.check);
  }
  cudaStreamDestroy(stream);
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  try {
    return bench::main_(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spgemm-amg-bench: %s\n", e.what());
    return 1;
  }
}
