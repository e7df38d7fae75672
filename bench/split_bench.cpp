// SPDX-License-Identifier: Apache-2.0
// spgemm-split-bench: C = A * A (A * A^T for rectangular A) on the handle's
// device alone against (--devices) the product split among devices
// (spgemmSetDevices), C assembled on the handle's device and C left
// distributed as the parts' row blocks (spgemmSetOutputDistributed), and
// (--out-of-core) C in pinned host memory computed in
// chunks (spgemmSetOutputChunkBytes), in the same process on the same
// inputs, fp64, 32-bit indices. --replicate adds both split modes with A and
// B replicated on every other listed GPU (spgemmCsrSetReplica: the parts
// there read them in place instead of copying rows at every numeric phase). Per input and mode: the whole pipeline
// (plan, analyze, symbolic, C's allocation (assembled device C only),
// numeric) and the
// numeric phase again, medians; the parts' rows, products and numeric times
// (spgemmPlanGetPartition) and their spread (slowest / fastest); for C on the
// host, the time a device-to-host copy of C's arrays takes alone (the copy
// bound, measured in the same run); and whether both give the same C: the
// same structure, and values the same bits ("same-bits"), or within 1e-11 of
// the magnitude of their terms ("agree:N", N entries differing in the last
// bits: another order of adds, docs/api.md on determinism), else "differ".
//
//   spgemm-split-bench [--devices 0,1] [--shares 1,1] [--replicate] [--out-of-core CHUNK_BYTES]
//                      [--reps N] [--warmup N] [--csv FILE] [--min-products N]
//                      (--gen SPEC | FILE.mtx[.gz])...
//
// The handle's device is the current one (0); A and B live there. -1 in
// --devices is the host (SPGEMM_HOST_DEVICE: the CPU+GPU hybrid); --shares
// forces the parts' shares (default: equal among GPUs, the host's from the
// cost model, which learns the handle's throughputs from one run to the
// next).
#include "util.hpp"

#include "generators.hpp"
#include "matrix_market.hpp"

#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <spgemm/spgemm.h>

#include <algorithm>
#include <chrono>
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
  std::vector<double> shares;  // forced; empty: the library's
  std::vector<std::pair<bool, std::string>> inputs;  // (is a file, path or spec)
  int reps = 10, warmup = 2;
  long long min_products = 0;  // split everything asked for
  size_t out_of_core = 0;      // chunk bytes; 0: not run
  bool replicate = false;
  std::string csv;
};

template <class T>
T* upload(const std::vector<T>& host, cudaStream_t stream) {
  T* dev = nullptr;
  check_cuda(
      cudaMalloc(reinterpret_cast<void**>(&dev), std::max<size_t>(1, host.size()) * sizeof(T)),
      "cudaMalloc");
  check_cuda(
      cudaMemcpyAsync(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
      "upload");
  return dev;
}

template <class T>
std::vector<T> download(const T* dev, size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  check_cuda(cudaMemcpyAsync(host.data(), dev, n * sizeof(T), cudaMemcpyDefault, stream),
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
  // the whole pipeline's phases, medians of the host's clock from one call's
  // return to the next: plan and analysis, symbolic phase, C's allocation and
  // numeric phase (to the end event)
  double analyze_ms = 0, symbolic_ms = 0, numeric_ms = 0;
  int parts = 0;
  std::vector<int64_t> rows, products;
  std::vector<float> part_ms;
  std::vector<int32_t> offsets, cols;
  std::vector<double> values;
};

// How a product runs: the handle's devices (empty: none), C left
// distributed, or (host_chunk > 0) C in pinned host memory (allocated once,
// outside the timed pipeline) computed in chunks of that many bytes.
struct Config {
  std::vector<int> devices;
  bool distributed = false;
  size_t host_chunk = 0;
  bool replicated = false;  // A and B replicated on the other listed GPUs
};

// A CSR matrix's arrays on another device than the handle's, uploaded there.
struct Replica {
  int device;
  int32_t *off, *col;
  double* val;
  Replica(const HostCsr<double>& m, int on) : device(on) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    off = upload(m.row_offsets, nullptr);
    col = upload(m.col_ind, nullptr);
    val = upload(m.values, nullptr);
    check_cuda(cudaDeviceSynchronize(), "upload");
    check_cuda(cudaSetDevice(0), "cudaSetDevice");
  }
  void set_on(spgemmMatDescr_t m) const {
    check_spgemm(spgemmCsrSetReplica(m, device, off, col, val), "spgemmCsrSetReplica");
  }
  void release() const {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    for (void* p : {static_cast<void*>(off), static_cast<void*>(col), static_cast<void*>(val)})
      cudaFree(p);
    check_cuda(cudaSetDevice(0), "cudaSetDevice");
  }
};

// C's row blocks (spgemmPlanGetRowBlocks) put together on the host.
void gather_blocks(spgemmHandle_t h, spgemmPlan_t plan, cudaStream_t stream, Result& r) {
  int count = 0;
  check_spgemm(spgemmPlanGetRowBlocks(h, plan, 0, nullptr, &count), "spgemmPlanGetRowBlocks");
  std::vector<spgemmRowBlock_t> blocks(static_cast<size_t>(count));
  check_spgemm(spgemmPlanGetRowBlocks(h, plan, count, blocks.data(), &count),
               "spgemmPlanGetRowBlocks");
  r.offsets = {0};
  for (const spgemmRowBlock_t& b : blocks) {
    const int32_t before = r.offsets.back();
    const auto n = static_cast<size_t>(b.nnz);
    const std::vector<int32_t> offsets = download(static_cast<const int32_t*>(b.rowOffsets),
                                                  static_cast<size_t>(b.rows) + 1, stream);
    for (size_t i = 1; i < offsets.size(); ++i) r.offsets.push_back(before + offsets[i]);
    for (int32_t c : download(static_cast<const int32_t*>(b.colInd), n, stream))
      r.cols.push_back(c);
    for (double v : download(static_cast<const double*>(b.values), n, stream))
      r.values.push_back(v);
  }
}

Result run_config(const HostCsr<double>& A, const HostCsr<double>& B, const Config& config,
                  const Options& opts) {
  const std::vector<int>& devices = config.devices;
  const size_t host_chunk = config.host_chunk;
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
    check_spgemm(spgemmSetOutputDistributed(h, config.distributed ? 1 : 0),
                 "spgemmSetOutputDistributed");
    if (!opts.shares.empty())
      check_spgemm(spgemmSetPartitionShares(h, static_cast<int>(opts.shares.size()),
                                            opts.shares.data()),
                   "spgemmSetPartitionShares");
  }
  const bool c_on_host = host_chunk > 0;
  if (c_on_host)
    check_spgemm(spgemmSetOutputChunkBytes(h, host_chunk), "spgemmSetOutputChunkBytes");
  int32_t *a_off = upload(A.row_offsets, stream), *a_col = upload(A.col_ind, stream);
  double* a_val = upload(A.values, stream);
  int32_t *b_off = upload(B.row_offsets, stream), *b_col = upload(B.col_ind, stream);
  double* b_val = upload(B.values, stream);
  int32_t* c_off = nullptr;
  if (c_on_host)
    check_cuda(cudaMallocHost(reinterpret_cast<void**>(&c_off), (A.rows + 1) * sizeof(int32_t)),
               "cudaMallocHost");
  else
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&c_off), (A.rows + 1) * sizeof(int32_t)),
               "cudaMalloc");
  void *pinned_col = nullptr, *pinned_val = nullptr;  // C's arrays on the host
  int64_t pinned_nnz = -1;
  spgemmMatDescr_t a = describe(A.rows, A.cols, A.nnz(), a_off, a_col, a_val);
  spgemmMatDescr_t b = describe(B.rows, B.cols, B.nnz(), b_off, b_col, b_val);
  std::vector<Replica> replicas;  // A's and B's, device by device
  if (config.replicated)
    for (size_t i = 0; i < devices.size(); ++i) {
      const int d = devices[i];
      if (d <= 0 || std::find(devices.begin(), devices.begin() + i, d) != devices.begin() + i)
        continue;  // the handle's device 0, the host, or already there
      replicas.emplace_back(A, d);
      replicas.back().set_on(a);
      replicas.emplace_back(B, d);
      replicas.back().set_on(b);
    }
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
    if (c_col && !c_on_host) cudaFreeAsync(c_col, stream);
    if (c_val && !c_on_host) cudaFreeAsync(c_val, stream);
    plan = nullptr, c = nullptr, c_col = c_val = nullptr;
  };
  const double alpha = 1.0;
  std::vector<double> totals, agains, analyzes, symbolics, numerics;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point& t) {
    const Clock::time_point now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
    return ms;
  };
  auto pipeline = [&] {
    release();
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    Clock::time_point at = Clock::now();
    c = describe(A.rows, B.cols, 0, c_off, nullptr, nullptr);
    if (c_on_host) check_spgemm(spgemmCsrSetMemoryType(c, SPGEMM_MEMORY_HOST), "SetMemoryType");
    check_spgemm(spgemmPlanCreate(h, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                  SPGEMM_OPERATION_NON_TRANSPOSE, a, b, c, CUDA_R_64F),
                 "spgemmPlanCreate");
    check_spgemm(spgemmAnalyze(h, plan), "spgemmAnalyze");
    analyzes.push_back(since(at));
    check_spgemm(spgemmSymbolic(h, plan, &nnz), "spgemmSymbolic");
    symbolics.push_back(since(at));
    if (c_on_host) {
      if (pinned_nnz != nnz) {  // the first run only
        cudaFreeHost(pinned_col);
        cudaFreeHost(pinned_val);
        check_cuda(cudaMallocHost(&pinned_col, std::max<int64_t>(1, nnz) * sizeof(int32_t)),
                   "cudaMallocHost");
        check_cuda(cudaMallocHost(&pinned_val, std::max<int64_t>(1, nnz) * sizeof(double)),
                   "cudaMallocHost");
        pinned_nnz = nnz;
      }
      c_col = pinned_col;
      c_val = pinned_val;
    } else if (!config.distributed) {
      check_cuda(cudaMallocAsync(&c_col, std::max<int64_t>(1, nnz) * sizeof(int32_t), stream),
                 "cudaMallocAsync");
      check_cuda(cudaMallocAsync(&c_val, std::max<int64_t>(1, nnz) * sizeof(double), stream),
                 "cudaMallocAsync");
    }
    if (!config.distributed)
      check_spgemm(spgemmCsrSetPointers(c, c_off, c_col, c_val), "spgemmCsrSetPointers");
    check_spgemm(spgemmNumeric(h, plan, &alpha), "spgemmNumeric");
    check_cuda(cudaEventRecord(end, stream), "cudaEventRecord");
    const double ms = elapsed();
    numerics.push_back(since(at));
    return ms;
  };
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    const double ms = pipeline();
    if (rep >= opts.warmup) totals.push_back(ms);
  }
  const auto timed = [&](std::vector<double>& phase) {
    return bench::median(std::vector<double>(phase.begin() + opts.warmup, phase.end()));
  };
  const double analyze_ms = timed(analyzes), symbolic_ms = timed(symbolics),
               numeric_ms = timed(numerics);
  // Split: the plan timed again is the handle's third to run its numeric
  // phase again, so its cut follows what the two before measured doing so
  // (the second cut from the first's rates, the third from a line through
  // both: multi/shares.hpp).
  const int rounds = devices.empty() ? 1 : 3;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) pipeline();
    for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
      check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
      check_spgemm(spgemmNumeric(h, plan, &alpha), "spgemmNumeric (again)");
      check_cuda(cudaEventRecord(end, stream), "cudaEventRecord");
      const double ms = elapsed();
      if (rep >= opts.warmup && round == rounds - 1) agains.push_back(ms);
    }
  }
  Result r;
  r.total_ms = bench::median(totals);
  r.again_ms = bench::median(agains);
  r.analyze_ms = analyze_ms, r.symbolic_ms = symbolic_ms, r.numeric_ms = numeric_ms;
  check_spgemm(
      spgemmPlanGetPartition(h, plan, 0, &r.parts, nullptr, nullptr, nullptr, nullptr, nullptr),
      "spgemmPlanGetPartition");
  r.rows.assign(static_cast<size_t>(r.parts), 0);
  r.products.assign(static_cast<size_t>(r.parts), 0);
  r.part_ms.assign(static_cast<size_t>(r.parts), 0);
  check_spgemm(spgemmPlanGetPartition(h, plan, r.parts, &r.parts, nullptr, nullptr, r.rows.data(),
                                      r.products.data(), r.part_ms.data()),
               "spgemmPlanGetPartition");
  if (config.distributed) {
    gather_blocks(h, plan, stream, r);
  } else {
    r.offsets = download(c_off, A.rows + 1, stream);
    r.cols = download(static_cast<int32_t*>(c_col), nnz, stream);
    r.values = download(static_cast<double*>(c_val), nnz, stream);
  }
  release();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  spgemmDestroyMatrix(a);
  spgemmDestroyMatrix(b);
  spgemmDestroy(h);
  for (const Replica& r : replicas) r.release();
  for (void* p : {static_cast<void*>(a_off), static_cast<void*>(a_col), static_cast<void*>(a_val),
                  static_cast<void*>(b_off), static_cast<void*>(b_col), static_cast<void*>(b_val)})
    cudaFree(p);
  if (c_on_host) {
    cudaFreeHost(c_off);
    cudaFreeHost(pinned_col);
    cudaFreeHost(pinned_val);
  } else {
    cudaFree(c_off);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
  return r;
}

// The median time of one device-to-pinned-host copy of `bytes`: how fast C
// can reach the host at best.
double copy_bound_ms(size_t bytes, const Options& opts) {
  void *dev = nullptr, *host = nullptr;
  check_cuda(cudaMalloc(&dev, std::max<size_t>(bytes, 1)), "cudaMalloc");
  check_cuda(cudaMallocHost(&host, std::max<size_t>(bytes, 1)), "cudaMallocHost");
  check_cuda(cudaMemset(dev, 1, bytes), "cudaMemset");
  cudaEvent_t start, end;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&end), "cudaEventCreate");
  std::vector<double> times;
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    check_cuda(cudaEventRecord(start, nullptr), "cudaEventRecord");
    check_cuda(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, nullptr), "copy");
    check_cuda(cudaEventRecord(end, nullptr), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
    if (rep >= opts.warmup) times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaFree(dev);
  cudaFreeHost(host);
  return bench::median(times);
}

// The sum over k of |a_ik * b_kj|: what the rounding error of any order of
// adding entry (i, j)'s terms is relative to (B's rows searched as sorted; an
// unsorted row can only make this smaller, so the check below stricter).
double magnitude(const HostCsr<double>& A, const HostCsr<double>& B, int64_t i, int32_t j) {
  double sum = 0;
  for (int32_t e = A.row_offsets[i]; e < A.row_offsets[i + 1]; ++e) {
    const int32_t k = A.col_ind[e];
    const auto first = B.col_ind.begin() + B.row_offsets[k];
    const auto last = B.col_ind.begin() + B.row_offsets[k + 1];
    for (auto at = std::lower_bound(first, last, j); at != last && *at == j; ++at)
      sum += std::abs(A.values[e] * B.values[at - B.col_ind.begin()]);
  }
  return sum;
}

// Whether y is x's C (the whole product, alpha 1): the same structure, and
// values within 1e-11 of their terms' magnitude (docs/testing.md's double
// tolerance; computed only where they differ by more than 1e-12 of their own
// size). `differing` counts the entries whose bits differ; `why` says where
// the first difference beyond that is.
bool same_c(const Result& x, const Result& y, const HostCsr<double>& A, const HostCsr<double>& B,
            int64_t& differing, std::string& why) {
  differing = 0;
  if (x.offsets.size() != y.offsets.size() || x.cols.size() != y.cols.size()) {
    why = "sizes";
    return false;
  }
  for (int64_t i = 0; i + 1 < static_cast<int64_t>(x.offsets.size()); ++i) {
    if (x.offsets[i + 1] != y.offsets[i + 1]) {
      why = fmt::format("row {} length", i);
      return false;
    }
    for (int32_t e = x.offsets[i]; e < x.offsets[i + 1]; ++e) {
      if (x.cols[e] != y.cols[e]) {
        why = fmt::format("row {} entry {} column {} vs {}", i, e, x.cols[e], y.cols[e]);
        return false;
      }
      const double a = x.values[e], b = y.values[e];
      if (a == b) continue;
      ++differing;
      if (std::abs(a - b) <= 1e-12 * (std::abs(a) + std::abs(b))) continue;
      if (!(std::abs(a - b) <= 1e-11 * magnitude(A, B, i, x.cols[e]))) {
        why = fmt::format("row {} column {}: {:.17g} vs {:.17g}", i, x.cols[e], a, b);
        return false;
      }
    }
  }
  return true;
}

// A result's phases (Result::analyze_ms ...), ';'-separated.
std::string phases(const Result& r) {
  return fmt::format("{:.3f};{:.3f};{:.3f}", r.analyze_ms, r.symbolic_ms, r.numeric_ms);
}

std::string joined(const std::vector<float>& v) {
  std::string s;
  for (float x : v) s += (s.empty() ? "" : ";") + fmt::format("{:.3f}", x);
  return s;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(
      stderr,
      "%s\nusage: spgemm-split-bench [--devices 0,1] [--out-of-core CHUNK_BYTES] [--reps N] "
      "[--warmup N] [--csv FILE] [--min-products N] [--shares S,S] [--replicate] "
      "(--gen SPEC | FILE)...\n",
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
    auto list = [&] {
      const std::string text = value();
      std::vector<double> items;
      for (size_t at = 0; at <= text.size();) {
        const size_t comma = std::min(text.find(',', at), text.size());
        items.push_back(std::atof(text.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
      return items;
    };
    if (arg == "--devices") {
      for (double d : list()) o.devices.push_back(static_cast<int>(d));
    } else if (arg == "--replicate") {
      o.replicate = true;
    } else if (arg == "--shares") {
      o.shares = list();
    } else if (arg == "--reps") {
      o.reps = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--warmup") {
      o.warmup = std::max(0, std::atoi(value().c_str()));
    } else if (arg == "--min-products") {
      o.min_products = std::atoll(value().c_str());
    } else if (arg == "--out-of-core") {
      o.out_of_core = static_cast<size_t>(std::atoll(value().c_str()));
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
  if ((o.devices.empty() && o.out_of_core == 0) || o.inputs.empty())
    usage("--devices or --out-of-core, and at least one input, are needed");
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
                 "# %s\nmatrix,mode,rows,products,nnz_c,parts,one_total_ms,other_total_ms,"
                 "one_again_ms,other_again_ms,part_numeric_ms,part_products,spread,"
                 "copy_bound_ms,check,one_phases_ms,other_phases_ms\n",
                 command.c_str());
  fmt::print(
      "{:<24} {:<14} {:>11} {:>5} | {:>8} {:>8} {:>5} | {:>8} {:>8} {:>5} | {:>6} {:>8} {}\n",
      "matrix", "mode", "products", "parts", "one ms", "other", "x", "again 1", "other", "x",
      "spread", "copy ms", "check / part numeric ms");
  int failures = 0;
  for (const auto& [is_file, source] : opts.inputs) {
    const HostCsr<double> A =
        is_file ? spgemm_test::read_matrix_market(source) : spgemm_test::generate(source);
    const HostCsr<double> At = A.rows == A.cols ? HostCsr<double>{} : spgemm_test::transpose(A);
    const HostCsr<double>& B = A.rows == A.cols ? A : At;
    const int64_t products = spgemm_test::product_count(A, B);
    const std::string name = is_file ? source.substr(source.find_last_of('/') + 1) : source;
    const Result one = run_config(A, B, Config{}, opts);
    auto report = [&](const std::string& mode, const Result& other, double copy_ms) {
      int64_t differing = 0;
      std::string why;
      const bool agree = same_c(one, other, A, B, differing, why);
      const std::string verdict = !agree          ? "differ (" + why + ")"
                                  : differing > 0 ? "agree:" + std::to_string(differing)
                                                  : "same-bits";
      failures += agree ? 0 : 1;
      float slowest = 0, fastest = 1e30f;
      for (size_t p = 0; p < other.part_ms.size(); ++p)
        if (other.rows[p] > 0 && other.part_ms[p] >= 0) {
          slowest = std::max(slowest, other.part_ms[p]);
          fastest = std::min(fastest, other.part_ms[p]);
        }
      const double spread = slowest > 0 && fastest > 0 ? slowest / fastest : std::nan("");
      fmt::print(
          "{:<24} {:<14} {:>11} {:>5} | {:>8.3f} {:>8.3f} {:>5.2f} | {:>8.3f} {:>8.3f} "
          "{:>5.2f} | {:>6.2f} {:>8.3f} {} {} | phases {} / {}\n",
          name, mode, products, other.parts, one.total_ms, other.total_ms,
          one.total_ms / other.total_ms, one.again_ms, other.again_ms,
          one.again_ms / other.again_ms, spread, copy_ms, verdict, joined(other.part_ms),
          phases(one), phases(other));
      if (!csv) return;
      std::string part_products;
      for (int64_t x : other.products)
        part_products += (part_products.empty() ? "" : ";") + std::to_string(x);
      std::fprintf(csv,
                   "%s,\"%s\",%lld,%lld,%zu,%d,%.4f,%.4f,%.4f,%.4f,%s,%s,%.3f,%.4f,%s,%s,%s\n",
                   name.c_str(), mode.c_str(), static_cast<long long>(A.rows),
                   static_cast<long long>(products), other.values.size(), other.parts, one.total_ms,
                   other.total_ms, one.again_ms, other.again_ms, joined(other.part_ms).c_str(),
                   part_products.c_str(), spread, copy_ms, verdict.c_str(), phases(one).c_str(),
                   phases(other).c_str());
    };
    if (!opts.devices.empty()) {
      std::string mode = "split:";
      for (int d : opts.devices) mode += std::to_string(d) + (d == opts.devices.back() ? "" : ",");
      report(mode, run_config(A, B, Config{opts.devices, false, 0}, opts), std::nan(""));
      report(mode + "/dist", run_config(A, B, Config{opts.devices, true, 0}, opts), std::nan(""));
      if (opts.replicate) {
        report(mode + "/repl", run_config(A, B, Config{opts.devices, false, 0, true}, opts),
               std::nan(""));
        report(mode + "/dist+repl", run_config(A, B, Config{opts.devices, true, 0, true}, opts),
               std::nan(""));
      }
    }
    if (opts.out_of_core > 0) {
      const size_t c_bytes = one.offsets.size() * sizeof(int32_t) +
                             one.cols.size() * (sizeof(int32_t) + sizeof(double));
      report("host-C:" + std::to_string(opts.out_of_core),
             run_config(A, B, Config{{}, false, opts.out_of_core}, opts),
             copy_bound_ms(c_bytes, opts));
    }
  }
  if (csv) std::fclose(csv);
  return failures == 0 ? 0 : 1;
}
