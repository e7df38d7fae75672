// spgemm-split-bench: C = A * A (A * A^T for rectangular A) on the handle's
// device alone and split among devices (spgemmSetDevices), in the same
// process on the same inputs, fp64, 32-bit indices. Per input: the whole
// pipeline (plan, analyze, symbolic, C's allocation, numeric) and the
// numeric phase again, medians; the parts' rows, products and numeric times
// (spgemmPlanGetPartition) and their spread (slowest / fastest); and whether
// both give the same C (same columns, values within 1e-12 relative).
//
//   spgemm-split-bench --devices 0,1 [--reps N] [--warmup N] [--csv FILE]
//                      [--min-products N] (--gen SPEC | FILE.mtx[.gz])...
//
// The handle's device is the current one (0); A, B and C live there.
#include "util.hpp"

#include "generators.hpp"
#include "matrix_market.hpp"

#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <spgemm/spgemm.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using bench::check_cuda;
using bench::check_spgemm;
using spgemm_test::HostCsr;

namespace {

struct Options {
  std::vector<int> devices;
  std::vector<std::pair<bool, std::string>> inputs;  // (is a file, path or spec)
  int reps = 10, warmup = 2;
  long long min_products = 0;  // split everything asked for
  std::string csv;
};

template <class T>
T* upload(const std::vector<T>& host, cudaStream_t stream) {
  T* dev = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&dev), std::max<size_t>(1, host.size()) * sizeof(T)),
             "cudaMalloc");
  check_cuda(cudaMemcpyAsync(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                             stream),
             "upload");
  return dev;
}

template <class T>
std::vector<T> download(const T* dev, size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  check_cuda(cudaMemcpyAsync(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost, stream),
             "download");
  check_cuda(cudaStreamSynchronize(stream), "download");
  return host;
}

spgemmMatDescr_t describe(int64_t rows, int64_t cols, int64_t nnz, void* off, void* col,
                          void* val) {
  spgemmMatDescr_t d = nullptr;
  check_spgemm(spgemmCreateCsr(&d, rows, cols, nnz, off, col, val, SPGEMM_INDEX_32I,
                               SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO, CUDA_R_64F),
               "spgemmCreateCsr");
  return d;
}

struct Result {
  double total_ms = 0, again_ms = 0;
  int parts = 0;
  std::vector<int64_t> rows, products;
  std::vector<float> part_ms;
  std::vector<int32_t> offsets, cols;
  std::vector<double> values;
};

// Runs the product with the handle's devices set to `devices` (empty: none).
Result run_config(const HostCsr<double>& A, const HostCsr<double>& B,
                  const std::vector<int>& devices, const Options& opts) {
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  spgemmHandle_t h = nullptr;
  check_spgemm(spgemmCreate(&h), "spgemmCreate");
  check_spgemm(spgemmSetStream(h, stream), "spgemmSetStream");
  if (!devices.empty()) {
    check_spgemm(spgemmSetDevices(h, static_cast<int>(devices.size()), devices.data()),
                 "spgemmSetDevices");
    check_spgemm(spgemmSetPartitionMinProducts(h, opts.min_products),
                 "spgemmSetPartitionMinProducts");
  }
  int32_t *a_off = upload(A.row_offsets, stream), *a_col = upload(A.col_ind, stream);
  double* a_val = upload(A.values, stream);
  int32_t *b_off = upload(B.row_offsets, stream), *b_col = upload(B.col_ind, stream);
  double* b_val = upload(B.values, stream);
  int32_t* c_off = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&c_off), (A.rows + 1) * sizeof(int32_t)),
             "cudaMalloc");
  spgemmMatDescr_t a = describe(A.rows, A.cols, A.nnz(), a_off, a_col, a_val);
  spgemmMatDescr_t b = describe(B.rows, B.cols, B.nnz(), b_off, b_col, b_val);
  cudaEvent_t start, end;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&end), "cudaEventCreate");
  auto elapsed = [&] {
    check_cuda(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  };

  spgemmMatDescr_t c = nullptr;
  spgemmPlan_t plan = nullptr;
  void *c_col = nullptr, *c_val = nullptr;
  int64_t nnz = 0;
  auto release = [&] {
    spgemmPlanDestroy(plan);
    spgemmDestroyMatrix(c);
    if (c_col) cudaFreeAsync(c_col, stream);
    if (c_val) cudaFreeAsync(c_val, stream);
    plan = nullptr, c = nullptr, c_col = c_val = nullptr;
  };
  const double alpha = 1.0;
  std::vector<double> totals, agains;
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    release();
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    c = describe(A.rows, B.cols, 0, c_off, nullptr, nullptr);
    check_spgemm(spgemmPlanCreate(h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                  SPGEMM_OPERATION_NON_TRANSPOSE, a, b, c, CUDA_R_64F),
                 "spgemmPlanCreate");
    check_spgemm(spgemmAnalyze(h, plan), "spgemmAnalyze");
    check_spgemm(spgemmSymbolic(h, plan, &nnz), "spgemmSymbolic");
    check_cuda(cudaMallocAsync(&c_col, std::max<int64_t>(1, nnz) * sizeof(int32_t), stream),
               "cudaMallocAsync");
    check_cuda(cudaMallocAsync(&c_val, std::max<int64_t>(1, nnz) * sizeof(double), stream),
               "cudaMallocAsync");
    check_spgemm(spgemmCsrSetPointers(c, c_off, c_col, c_val), "spgemmCsrSetPointers");
    check_spgemm(spgemmNumeric(h, plan, &alpha), "spgemmNumeric");
    check_cuda(cudaEventRecord(end, stream), "cudaEventRecord");
    const double ms = elapsed();
    if (rep >= opts.warmup) totals.push_back(ms);
  }
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    check_spgemm(spgemmNumeric(h, plan, &alpha), "spgemmNumeric (again)");
    check_cuda(cudaEventRecord(end, stream), "cudaEventRecord");
    const double ms = elapsed();
    if (rep >= opts.warmup) agains.push_back(ms);
  }
  Result r;
  r.total_ms = bench::median(totals);
  r.again_ms = bench::median(agains);
  const int cap = SPGEMM_MAX_DEVICES;
  r.rows.assign(cap, 0);
  r.products.assign(cap, 0);
  r.part_ms.assign(cap, 0);
  std::vector<int> devs(cap);
  std::vector<int64_t> firsts(cap);
  check_spgemm(spgemmPlanGetPartition(h, plan, cap, &r.parts, devs.data(), firsts.data(),
                                      r.rows.data(), r.products.data(), r.part_ms.data()),
               "spgemmPlanGetPartition");
  r.rows.resize(r.parts);
  r.products.resize(r.parts);
  r.part_ms.resize(r.parts);
  r.offsets = download(c_off, A.rows + 1, stream);
  r.cols = download(static_cast<int32_t*>(c_col), nnz, stream);
  r.values = download(static_cast<double*>(c_val), nnz, stream);
  release();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  spgemmDestroyMatrix(a);
  spgemmDestroyMatrix(b);
  spgemmDestroy(h);
  for (void* p : {static_cast<void*>(a_off), static_cast<void*>(a_col), static_cast<void*>(a_val),
                  static_cast<void*>(b_off), static_cast<void*>(b_col), static_cast<void*>(b_val),
                  static_cast<void*>(c_off)})
    cudaFree(p);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
  return r;
}

bool same_c(const Result& x, const Result& y) {
  if (x.offsets != y.offsets || x.cols != y.cols) return false;
  for (size_t i = 0; i < x.values.size(); ++i)
    if (std::abs(x.values[i] - y.values[i]) >
        1e-12 * (std::abs(x.values[i]) + std::abs(y.values[i])) + 1e-300)
      return false;
  return true;
}

std::string joined(const std::vector<float>& v) {
  std::string s;
  for (float x : v) s += (s.empty() ? "" : ";") + fmt::format("{:.3f}", x);
  return s;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "%s\nusage: spgemm-split-bench --devices 0,1 [--reps N] [--warmup N] [--csv FILE] "
               "[--min-products N] (--gen SPEC | FILE)...\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--devices") {
      const std::string list = value();
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        o.devices.push_back(std::atoi(list.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else if (arg == "--reps") {
      o.reps = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--warmup") {
      o.warmup = std::max(0, std::atoi(value().c_str()));
    } else if (arg == "--min-products") {
      o.min_products = std::atoll(value().c_str());
    } else if (arg == "--csv") {
      o.csv = value();
    } else if (arg == "--gen") {
      o.inputs.push_back({false, value()});
    } else if (arg.rfind("--", 0) == 0) {
      usage("unknown option " + arg);
    } else {
      o.inputs.push_back({true, arg});
    }
  }
  if (o.devices.empty() || o.inputs.empty()) usage("--devices and at least one input are needed");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opts = parse(argc, argv);
  std::string command = "spgemm-split-bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  fmt::print("{}\n{} devices, the handle's: {}\n", command, count, prop.name);
  cudaMemPool_t pool = nullptr;  // C's allocations keep their memory between runs
  check_cuda(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
  uint64_t keep = UINT64_MAX;
  check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
             "cudaMemPoolSetAttribute");
  std::FILE* csv = opts.csv.empty() ? nullptr : std::fopen(opts.csv.c_str(), "w");
  if (csv)
    std::fprintf(csv,
                 "# %s\nmatrix,rows,products,nnz_c,parts,one_total_ms,split_total_ms,"
                 "one_again_ms,split_again_ms,part_numeric_ms,part_products,spread,check\n",
                 command.c_str());
  fmt::print("{:<28} {:>12} {:>5} | {:>9} {:>9} {:>6} | {:>9} {:>9} {:>6} | {:>6} {}\n", "matrix",
             "products", "parts", "one ms", "split ms", "x", "again 1", "again N", "x", "spread",
             "check / part numeric ms");
  int failures = 0;
  for (const auto& [is_file, source] : opts.inputs) {
    const HostCsr<double> A =
        is_file ? spgemm_test::read_matrix_market(source) : spgemm_test::generate(source);
    const HostCsr<double> At = A.rows == A.cols ? HostCsr<double>{} : spgemm_test::transpose(A);
    const HostCsr<double>& B = A.rows == A.cols ? A : At;
    const int64_t products = spgemm_test::product_count(A, B);
    const Result one = run_config(A, B, {}, opts);
    const Result split = run_config(A, B, opts.devices, opts);
    const bool agree = same_c(one, split);
    failures += agree ? 0 : 1;
    float slowest = 0, fastest = 1e30f;
    for (size_t p = 0; p < split.part_ms.size(); ++p)
      if (split.rows[p] > 0) {
        slowest = std::max(slowest, split.part_ms[p]);
        fastest = std::min(fastest, split.part_ms[p]);
      }
    const double spread = split.parts > 1 && fastest > 0 ? slowest / fastest : 1.0;
    std::string name = is_file ? source.substr(source.find_last_of('/') + 1) : source;
    fmt::print("{:<28} {:>12} {:>5} | {:>9.3f} {:>9.3f} {:>6.2f} | {:>9.3f} {:>9.3f} {:>6.2f} | "
               "{:>6.2f} {} {}\n",
               name, products, split.parts, one.total_ms, split.total_ms,
               one.total_ms / split.total_ms, one.again_ms, split.again_ms,
               one.again_ms / split.again_ms, spread, agree ? "AGREE" : "DIFFER",
               joined(split.part_ms));
    if (csv) {
      std::string part_products;
      for (int64_t x : split.products)
        part_products += (part_products.empty() ? "" : ";") + std::to_string(x);
      std::fprintf(csv, "%s,%lld,%lld,%zu,%d,%.4f,%.4f,%.4f,%.4f,%s,%s,%.3f,%s\n", name.c_str(),
                   static_cast<long long>(A.rows), static_cast<long long>(products),
                   split.values.size(), split.parts, one.total_ms, split.total_ms, one.again_ms,
                   split.again_ms, joined(split.part_ms).c_str(), part_products.c_str(), spread,
                   agree ? "agree" : "differ");
    }
  }
  if (csv) std::fclose(csv);
  return failures == 0 ? 0 : 1;
}
