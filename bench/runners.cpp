// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: the timed pipelines of libspgemm and cuSPARSE.
//
// Per matrix: libspgemm runs first (warmup + reps fresh products, then
// "numeric again" on the last plan) and its C is copied to the host and freed;
// then cuSPARSE does the same; then the two C's are compared on the host.
// Only one library's C is on the device at a time.
//
// Both libraries get A, B and C in the run's index layout (--index) and
// precision (--precision); C comes back to the host as 32-bit indices for
// the check.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "bench.hpp"
#include "agreement.hpp"
#include "cuda_data_type.hpp"
#include "cusparse_reuse.hpp"
#include "heap_count.hpp"
#include "util.hpp"

namespace bench {
namespace {

using spgemm_test::HostCsr;
using spgemm_test::RealOf;

// ---- device state shared by all matrices ----------------------------------------

struct DeviceState {
  cudaStream_t stream = nullptr;
  cudaMemPool_t pool = nullptr;  // --alloc pool only
};
DeviceState g_dev;

// Where C (and cuSPARSE's buffers) go on the device.
MemCtx output_mem() {
  if (g_dev.pool) return {MemKind::device_pool, g_dev.stream, g_dev.pool};
  return {MemKind::device_malloc, g_dev.stream, nullptr};
}

// Pointers, sizes and index widths of a CSR matrix, host or device.
struct CsrView {
  int64_t rows = 0, cols = 0, nnz = 0;
  void* row_offsets = nullptr;
  void* col_ind = nullptr;
  void* values = nullptr;
  IndexWidths index;
};

// `v` as `bytes`-byte integers in host memory: v's own array for 4 bytes,
// else a widened copy held in `copy`.
const void* host_indices(const std::vector<int32_t>& v, int bytes, Buffer& copy) {
  if (bytes == 4) return v.data();
  copy = Buffer::allocate(MemCtx{MemKind::host}, v.size() * sizeof(int64_t), "64-bit indices");
  std::copy(v.begin(), v.end(), copy.as<int64_t>());
  return copy.get();
}

// An input matrix in an index layout where a library reads it: on the host
// (32-bit indices and the values stay the HostCsr's own arrays) or copied to
// the device (plain cudaMalloc; not timed).
struct PlacedCsr {
  CsrView view;
  Buffer row_offsets, col_ind, values;
};

template <class V>
std::unique_ptr<PlacedCsr> place(const HostCsr<V>& h, IndexWidths w, bool on_device,
                                 const char* name) {
  auto d = std::make_unique<PlacedCsr>();
  Buffer wide_offsets, wide_cols;
  const void* offsets = host_indices(h.row_offsets, w.offsets, wide_offsets);
  const void* cols = host_indices(h.col_ind, w.columns, wide_cols);
  if (!on_device) {
    d->row_offsets = std::move(wide_offsets);
    d->col_ind = std::move(wide_cols);
    // The libraries only read A and B; their descriptors take non-const pointers.
    d->view = {h.rows, h.cols, h.nnz(), const_cast<void*>(offsets), const_cast<void*>(cols),
               const_cast<V*>(h.values.data()), w};
    return d;
  }
  const MemCtx mem{MemKind::device_malloc};
  auto upload = [&](Buffer& to, const void* from, size_t bytes) {
    to = Buffer::allocate(mem, bytes, name);
    check_cuda(cudaMemcpy(to.get(), from, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
  };
  upload(d->row_offsets, offsets, h.row_offsets.size() * w.offsets);
  upload(d->col_ind, cols, h.col_ind.size() * w.columns);
  upload(d->values, h.values.data(), h.values.size() * sizeof(V));
  d->view = {h.rows,           h.cols,           h.nnz(), d->row_offsets.get(),
             d->col_ind.get(), d->values.get(), w};
  return d;
}

// Fills `out` from out.size() indices of `bytes` bytes each at `from` (host
// or device memory), narrowed to the check's 32 bits.
void read_indices(std::vector<int32_t>& out, const void* from, int bytes, bool on_host) {
  auto copy = [&](void* to, size_t n) {
    if (on_host)
      std::memcpy(to, from, n);
    else
      check_cuda(cudaMemcpy(to, from, n, cudaMemcpyDeviceToHost), "cudaMemcpy (download C)");
  };
  if (bytes == 4) {
    copy(out.data(), out.size() * sizeof(int32_t));
    return;
  }
  std::vector<int64_t> wide(out.size());
  copy(wide.data(), wide.size() * sizeof(int64_t));
  for (size_t i = 0; i < wide.size(); ++i) {
    if (wide[i] < 0 || wide[i] > std::numeric_limits<int32_t>::max())
      throw BenchError(fmt::format("C's index {} does not fit the check's 32 bits", wide[i]));
    out[i] = static_cast<int32_t>(wide[i]);
  }
}

// Copies a CSR result (host or device arrays, indices of widths w) into a
// HostCsr.
template <class V>
HostCsr<V> download(int64_t rows, int64_t cols, int64_t nnz, IndexWidths w,
                    const void* row_offsets, const void* col_ind, const void* values,
                    bool on_host) {
  HostCsr<V> h;
  h.rows = rows;
  h.cols = cols;
  h.row_offsets.resize(static_cast<size_t>(rows) + 1);
  h.col_ind.resize(static_cast<size_t>(nnz));
  h.values.resize(static_cast<size_t>(nnz));
  if (!on_host) check_cuda(cudaStreamSynchronize(g_dev.stream), "cudaStreamSynchronize");
  read_indices(h.row_offsets, row_offsets, w.offsets, on_host);
  read_indices(h.col_ind, col_ind, w.columns, on_host);
  const size_t n_val = h.values.size() * sizeof(V);
  if (on_host)
    std::memcpy(h.values.data(), values, n_val);
  else
    check_cuda(cudaMemcpy(h.values.data(), values, n_val, cudaMemcpyDeviceToHost),
               "cudaMemcpy (download C)");
  return h;
}

// C's bytes: row offsets, column indices and values.
int64_t c_bytes(int64_t rows, int64_t nnz, IndexWidths w, size_t value_bytes) {
  return (rows + 1) * w.offsets + nnz * (w.columns + static_cast<int64_t>(value_bytes));
}

// The median of `reps` more runs of a pipeline (already warm) whose
// timeline records only its start and end: the total, without the cost of
// the phase marks (Timeline::set_phases). The phases come from the marked
// runs before.
template <class Run>
double unmarked_total(Run&& run, int reps, Timeline& tl) {
  tl.set_phases(false);
  std::vector<double> total;
  for (int rep = 0; rep < reps; ++rep) total.push_back(run());
  tl.set_phases(true);
  return median(total);
}

// ---- libspgemm ---------------------------------------------------------------------

SpgemmMat lib_matrix(const CsrView& m, cudaDataType vt, bool on_host, const char* what) {
  spgemmMatDescr_t raw = nullptr;
  check_spgemm(spgemmCreateCsr(&raw, m.rows, m.cols, m.nnz, m.row_offsets, m.col_ind, m.values,
                               spgemm_index_type(m.index.offsets),
                               spgemm_index_type(m.index.columns), SPGEMM_INDEX_BASE_ZERO, vt),
               what);
  SpgemmMat mat(raw);
  if (on_host)
    check_spgemm(spgemmCsrSetMemoryType(raw, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType");
  return mat;
}

// One fresh product. Members are destroyed plan first, then C's descriptor,
// then C's arrays.
struct LibProduct {
  Buffer row_offsets, col_ind, values;
  SpgemmMat c;
  SpgemmPlan plan;
  int64_t nnz = 0;
  // Host C's arrays, which the caller allocates, held in the heap count
  // (heap_count.hpp) while they live: the library's peak beyond A, B and C
  // is then the count's peak less C, measured as GraphBLAS's is (its C
  // allocated by itself, graphblas_runner.cpp).
  int64_t counted_c_bytes = 0;
  void count_c(const Buffer& array) {
    counted_c_bytes += static_cast<int64_t>(array.bytes());
    heap_count_add(static_cast<int64_t>(array.bytes()));
  }
  ~LibProduct() { heap_count_add(-counted_c_bytes); }
};

// The whole user-visible pipeline for C = A * B, C's indices of widths w,
// marks 0..5 on the timeline.
template <class V>
LibTimes lib_pipeline(spgemmHandle_t handle, spgemmMatDescr_t a, spgemmMatDescr_t b, int64_t m,
                      int64_t n, IndexWidths w, bool on_host, const MemCtx& mem, Timeline& tl,
                      LibProduct& out) {
  const cudaDataType vt = spgemm_test::cuda_data_type<V>();
  const V alpha = 1;
  tl.mark(0);
  out.row_offsets =
      Buffer::allocate(mem, (static_cast<size_t>(m) + 1) * w.offsets, "C row offsets");
  if (on_host) out.count_c(out.row_offsets);
  out.c = lib_matrix({m, n, 0, out.row_offsets.get(), nullptr, nullptr, w}, vt, on_host,
                     "spgemmCreateCsr(C)");
  spgemmPlan_t plan = nullptr;
  check_spgemm(spgemmPlanCreate(handle, &plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                                SPGEMM_OPERATION_NON_TRANSPOSE, a, b, out.c.get(), vt),
               "spgemmPlanCreate");
  out.plan.reset(plan);
  tl.mark(1);
  check_spgemm(spgemmAnalyze(handle, plan), "spgemmAnalyze");
  tl.mark(2);
  check_spgemm(spgemmSymbolic(handle, plan, &out.nnz), "spgemmSymbolic");
  tl.mark(3);
  const size_t nnz = static_cast<size_t>(out.nnz);
  out.col_ind = Buffer::allocate(mem, nnz * w.columns, "C column indices");
  out.values = Buffer::allocate(mem, nnz * sizeof(V), "C values");
  if (on_host) {
    out.count_c(out.col_ind);
    out.count_c(out.values);
  }
  check_spgemm(
      spgemmCsrSetPointers(out.c.get(), out.row_offsets.get(), out.col_ind.get(), out.values.get()),
      "spgemmCsrSetPointers");
  tl.mark(4);
  check_spgemm(spgemmNumeric(handle, plan, &alpha), "spgemmNumeric");
  tl.mark(5);
  tl.finish(5);

  LibTimes t;
  t.setup = tl.ms(0, 1);
  t.analyze = tl.ms(1, 2);
  t.symbolic = tl.ms(2, 3);
  t.alloc = tl.ms(3, 4);
  t.numeric = tl.ms(4, 5);
  t.total = tl.ms(0, 5);
  return t;
}

// Runs libspgemm on a (host or device) A and B; fills rec.lib*, nnz_c and
// c_bytes. When result is given, C is copied there.
template <class V>
void run_lib(const CsrView& a, const CsrView& b, bool on_host, const Options& opts, Record& rec,
             HostCsr<V>* result) {
  const cudaDataType vt = spgemm_test::cuda_data_type<V>();
  const MemCtx mem =
      on_host ? MemCtx{opts.huge_pages ? MemKind::host_huge : MemKind::host} : output_mem();
  Timeline tl(!on_host, g_dev.stream);

  spgemmHandle_t raw_handle = nullptr;
  check_spgemm(spgemmCreate(&raw_handle), "spgemmCreate");
  SpgemmHandle handle(raw_handle);
  if (!on_host) check_spgemm(spgemmSetStream(raw_handle, g_dev.stream), "spgemmSetStream");
  if (opts.no_input_checks)
    check_spgemm(spgemmSetInputChecks(raw_handle, 0), "spgemmSetInputChecks");
  SpgemmMat mat_a = lib_matrix(a, vt, on_host, "spgemmCreateCsr(A)");
  SpgemmMat mat_b = lib_matrix(b, vt, on_host, "spgemmCreateCsr(B)");

  std::vector<double> setup, analyze, symbolic, alloc, numeric;
  size_t peak = 0;
  int64_t heap_before = 0, heap_peak = 0;
  std::unique_ptr<LibProduct> kept;  // the last product, for "numeric again"
  auto fresh_product = [&] {
    kept.reset();  // a fresh product each time: the previous C is freed first
    if (!on_host) check_cuda(cudaStreamSynchronize(g_dev.stream), "cudaStreamSynchronize");
    auto product = std::make_unique<LibProduct>();
    check_spgemm(spgemmResetPeakMemoryUsage(raw_handle), "spgemmResetPeakMemoryUsage");
    heap_count_reset_peak();
    heap_before = heap_count_current();
    const LibTimes t = lib_pipeline<V>(raw_handle, mat_a.get(), mat_b.get(), a.rows, b.cols,
                                       a.index, on_host, mem, tl, *product);
    kept = std::move(product);
    return t;
  };
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    const LibTimes t = fresh_product();
    if (rep >= opts.warmup) {
      setup.push_back(t.setup);
      analyze.push_back(t.analyze);
      symbolic.push_back(t.symbolic);
      alloc.push_back(t.alloc);
      numeric.push_back(t.numeric);
      size_t current = 0, rep_peak = 0;
      check_spgemm(spgemmGetMemoryUsage(raw_handle, &current, &rep_peak), "spgemmGetMemoryUsage");
      peak = std::max(peak, rep_peak);
      heap_peak = std::max(heap_peak, heap_count_peak() - heap_before - kept->counted_c_bytes);
    }
  }
  rec.lib.setup = median(setup);
  rec.lib.analyze = median(analyze);
  rec.lib.symbolic = median(symbolic);
  rec.lib.alloc = median(alloc);
  rec.lib.numeric = median(numeric);
  rec.lib.total = unmarked_total([&] { return fresh_product().total; }, opts.reps, tl);
  rec.lib_peak_bytes = static_cast<int64_t>(peak);
  if (on_host) {
    rec.lib_threads = omp_get_max_threads();
    rec.lib_heap_bytes = heap_peak;
  }
  rec.nnz_c = kept->nnz;
  rec.c_bytes = c_bytes(a.rows, kept->nnz, a.index, sizeof(V));

  // The numeric phase alone, on the existing plan (same values again).
  const V alpha = 1;
  std::vector<double> again;
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    tl.mark(0);
    check_spgemm(spgemmNumeric(raw_handle, kept->plan.get(), &alpha), "spgemmNumeric (again)");
    tl.mark(1);
    tl.finish(1);
    if (rep >= opts.warmup) again.push_back(tl.ms(0, 1));
  }
  rec.lib_numeric_again = median(again);

  if (result) {
    *result = download<V>(a.rows, b.cols, kept->nnz, a.index, kept->row_offsets.get(),
                          kept->col_ind.get(), kept->values.get(), on_host);
  }
}

// ---- cuSPARSE ------------------------------------------------------------------------

CusparseMat cusparse_matrix(const CsrView& m, cudaDataType vt) {
  cusparseSpMatDescr_t raw = nullptr;
  check_cusparse(cusparseCreateCsr(&raw, m.rows, m.cols, m.nnz, m.row_offsets, m.col_ind,
                                   m.values, cusparse_index_type(m.index.offsets),
                                   cusparse_index_type(m.index.columns),
                                   CUSPARSE_INDEX_BASE_ZERO, vt),
                 "cusparseCreateCsr");
  return CusparseMat(raw);
}

// A cuSPARSE handle on the run's stream and descriptors of A and B.
struct CusparseOperands {
  CusparseHandle handle;
  CusparseMat a, b;
  CusparseOperands(const CsrView& x, const CsrView& y, cudaDataType vt) {
    cusparseHandle_t raw = nullptr;
    check_cusparse(cusparseCreate(&raw), "cusparseCreate");
    handle.reset(raw);
    check_cusparse(cusparseSetStream(raw, g_dev.stream), "cusparseSetStream");
    a = cusparse_matrix(x, vt);
    b = cusparse_matrix(y, vt);
  }
};

struct CusparseProduct {
  Buffer buffer1, buffer2, row_offsets, col_ind, values;
  CusparseMat c;
  CusparseSpgemm descr;
  int64_t nnz = 0;
  size_t size1 = 0, size2 = 0;
};

// The generic-API pipeline as its documentation lays it out, C's indices of
// widths w, marks 0..5.
template <class V>
CusparseTimes cusparse_pipeline(cusparseHandle_t handle, cusparseSpMatDescr_t a,
                                cusparseSpMatDescr_t b, int64_t m, int64_t n, IndexWidths w,
                                const MemCtx& mem, Timeline& tl, CusparseProduct& out) {
  const cudaDataType vt = spgemm_test::cuda_data_type<V>();
  const V alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto alg = CUSPARSE_SPGEMM_DEFAULT;
  tl.mark(0);
  out.c = cusparse_matrix({m, n, 0, nullptr, nullptr, nullptr, w}, vt);
  cusparseSpGEMMDescr_t raw = nullptr;
  check_cusparse(cusparseSpGEMM_createDescr(&raw), "cusparseSpGEMM_createDescr");
  out.descr.reset(raw);
  cusparseSpMatDescr_t c = out.c.get();
  tl.mark(1);
  check_cusparse(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c, vt, alg, raw,
                                               &out.size1, nullptr),
                 "cusparseSpGEMM_workEstimation (size)");
  out.buffer1 = Buffer::allocate(mem, out.size1, "cuSPARSE buffer 1");
  check_cusparse(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c, vt, alg, raw,
                                               &out.size1, out.buffer1.get()),
                 "cusparseSpGEMM_workEstimation");
  tl.mark(2);
  check_cusparse(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, vt, alg, raw,
                                        &out.size2, nullptr),
                 "cusparseSpGEMM_compute (size)");
  out.buffer2 = Buffer::allocate(mem, out.size2, "cuSPARSE buffer 2");
  check_cusparse(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, vt, alg, raw,
                                        &out.size2, out.buffer2.get()),
                 "cusparseSpGEMM_compute");
  tl.mark(3);
  out.nnz = allocate_c_arrays(c, m, w, sizeof(V), mem, out.row_offsets, out.col_ind, out.values);
  tl.mark(4);
  check_cusparse(cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, vt, alg, raw),
                 "cusparseSpGEMM_copy");
  tl.mark(5);
  tl.finish(5);

  CusparseTimes t;
  t.setup = tl.ms(0, 1);
  t.work = tl.ms(1, 2);
  t.compute = tl.ms(2, 3);
  t.alloc = tl.ms(3, 4);
  t.copy = tl.ms(4, 5);
  t.total = tl.ms(0, 5);
  return t;
}

template <class V>
void run_cusparse(const CsrView& a, const CsrView& b, const Options& opts, Record& rec,
                  HostCsr<V>& result) {
  const cudaDataType vt = spgemm_test::cuda_data_type<V>();
  const MemCtx mem = output_mem();
  Timeline tl(true, g_dev.stream);

  const CusparseOperands ops(a, b, vt);
  cusparseHandle_t raw_handle = ops.handle.get();

  std::vector<double> setup, work, compute, alloc, copy;
  std::unique_ptr<CusparseProduct> kept;
  auto fresh_product = [&] {
    kept.reset();
    check_cuda(cudaStreamSynchronize(g_dev.stream), "cudaStreamSynchronize");
    auto product = std::make_unique<CusparseProduct>();
    const CusparseTimes t = cusparse_pipeline<V>(raw_handle, ops.a.get(), ops.b.get(), a.rows,
                                                 b.cols, a.index, mem, tl, *product);
    kept = std::move(product);
    return t;
  };
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    const CusparseTimes t = fresh_product();
    if (rep >= opts.warmup) {
      setup.push_back(t.setup);
      work.push_back(t.work);
      compute.push_back(t.compute);
      alloc.push_back(t.alloc);
      copy.push_back(t.copy);
    }
  }
  rec.cus.setup = median(setup);
  rec.cus.work = median(work);
  rec.cus.compute = median(compute);
  rec.cus.alloc = median(alloc);
  rec.cus.copy = median(copy);
  rec.cus.total = unmarked_total([&] { return fresh_product().total; }, opts.reps, tl);
  rec.cus_nnz_c = kept->nnz;
  rec.cus_buffer1_bytes = static_cast<int64_t>(kept->size1);
  rec.cus_buffer2_bytes = static_cast<int64_t>(kept->size2);
  rec.cus_peak_bytes = rec.cus_buffer1_bytes + rec.cus_buffer2_bytes;

  result = download<V>(a.rows, b.cols, kept->nnz, a.index, kept->row_offsets.get(),
                       kept->col_ind.get(), kept->values.get(), false);
}

// cuSPARSE's structure-reuse family (cusparse_reuse.hpp): the first full
// run timed whole once per repetition, then reuse_compute again on the last
// run's descriptors, the values of A and B unchanged (the kernels read them
// all the same). C from the last reuse_compute into `result`.
template <class V>
void run_cusparse_reuse(const CsrView& a, const CsrView& b, const Options& opts, Record& rec,
                        HostCsr<V>& result) {
  const cudaDataType vt = spgemm_test::cuda_data_type<V>();
  const MemCtx mem = output_mem();
  Timeline tl(true, g_dev.stream);
  const CusparseOperands ops(a, b, vt);
  cusparseHandle_t raw_handle = ops.handle.get();
  std::unique_ptr<ReuseProduct> last;
  auto first_run = [&] {
    last.reset();
    check_cuda(cudaStreamSynchronize(g_dev.stream), "cudaStreamSynchronize");
    auto r = std::make_unique<ReuseProduct>();
    tl.mark(0);
    reuse_setup(raw_handle, ops.a.get(), ops.b.get(), a.rows, b.cols, a.index, vt, mem, *r);
    tl.mark(1);
    tl.finish(1);
    last = std::move(r);
    return tl.ms(0, 1);
  };
  auto compute_again = [&] {
    tl.mark(0);
    reuse_compute(raw_handle, ops.a.get(), ops.b.get(), vt, *last);
    tl.mark(1);
    tl.finish(1);
    return tl.ms(0, 1);
  };
  std::vector<double> first, again;
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    const double ms = first_run();
    if (rep >= opts.warmup) first.push_back(ms);
  }
  for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
    const double ms = compute_again();
    if (rep >= opts.warmup) again.push_back(ms);
  }
  rec.cus_reuse_first = median(first);
  rec.cus_reuse_compute = median(again);
  rec.cus_reuse_peak_bytes = static_cast<int64_t>(last->peak);
  rec.cus_reuse_kept_bytes = static_cast<int64_t>(last->kept);
  result = download<V>(a.rows, b.cols, last->nnz, a.index, last->row_offsets.get(),
                       last->col_ind.get(), last->values.get(), false);
}

// The agreement two libraries' C must reach: each value within this share
// of its row's largest.
template <class V>
constexpr double kAgreement = std::is_same_v<RealOf<V>, double> ? 1e-10 : 1e-4;

// The real parts (imaginary false) or the imaginary parts of a complex C, as
// a real C of the same structure.
template <class V>
HostCsr<RealOf<V>> part(const HostCsr<V>& c, bool imaginary) {
  HostCsr<RealOf<V>> p;
  p.rows = c.rows;
  p.cols = c.cols;
  p.row_offsets = c.row_offsets;
  p.col_ind = c.col_ind;
  p.values.resize(c.values.size());
  for (size_t i = 0; i < c.values.size(); ++i)
    p.values[i] = imaginary ? c.values[i].imag() : c.values[i].real();
  return p;
}

// agreement.hpp's check of two C's. Complex C's agree where their real parts
// and their imaginary parts do, each held to the check as a real C (scaled
// by its row's largest real, or imaginary, part).
template <class V>
spgemm_test::Agreement agreement(const HostCsr<V>& x, const HostCsr<V>& y) {
  if constexpr (!spgemm_test::ValueTraits<V>::is_complex) {
    return spgemm_test::check_agreement(x, y, kAgreement<V>);
  } else {
    spgemm_test::Agreement re =
        spgemm_test::check_agreement(part(x, false), part(y, false), kAgreement<V>);
    const spgemm_test::Agreement im =
        spgemm_test::check_agreement(part(x, true), part(y, true), kAgreement<V>);
    if (!re.agree)
      re.message = "real parts: " + re.message;
    else if (!im.agree)
      re.message = "imaginary parts: " + im.message;
    re.agree = re.agree && im.agree;
    for (auto [mine, theirs] : {std::pair{&re.max_rel_diff, im.max_rel_diff},
                                std::pair{&re.max_row_scaled_diff, im.max_row_scaled_diff}})
      *mine = std::isnan(*mine) || std::isnan(theirs) ? kNaN : std::max(*mine, theirs);
    return re;
  }
}

// Why cuSPARSE has no times for this run's layout and precision.
std::string unsupported_note(const Options& opts, const CusparseUnsupported& e) {
  return fmt::format("cuSPARSE does not take {} indices with {} values: {}",
                     index_name(opts.index), precision_name(opts.precision), e.what());
}

// After a failure: drop a non-sticky CUDA error so the next calls start clean.
void clear_cuda_error(const RunInfo& info) {
  if (!info.have_gpu) return;
  cudaStreamSynchronize(g_dev.stream);
  cudaGetLastError();
}

template <class V>
void run_typed(const Problem& p, const Options& opts, const RunInfo& info, Record& rec) {
  // Inputs in the requested precision (a converted copy except for double).
  // Complex values get an imaginary part fixed by the entry's position in A
  // (convert_values); B = A^T is then the transpose of the converted A (not
  // conjugated), so that C is still A * A^T.
  HostCsr<V> conv_a, conv_b;
  const HostCsr<V>* ha;
  const HostCsr<V>* hb;
  if constexpr (std::is_same_v<V, double>) {
    ha = &p.a;
    hb = &p.b();
  } else {
    conv_a = spgemm_test::convert_values<V>(p.a);
    if (p.b_is_transpose) conv_b = spgemm_test::transpose(conv_a);
    ha = &conv_a;
    hb = p.b_is_transpose ? &conv_b : &conv_a;
  }

  const bool lib_on_device = !info.lib_on_host;
  const bool run_cus = info.have_gpu && !opts.no_cusparse;

  // Device copies of A and B in the run's index layout (B = A shares A's
  // arrays).
  std::unique_ptr<PlacedCsr> da, db;
  std::string upload_error;
  if (lib_on_device || run_cus) {
    try {
      da = place(*ha, opts.index, true, "A");
      if (p.b_is_transpose) db = place(*hb, opts.index, true, "A^T");
    } catch (const std::exception& e) {
      upload_error = fmt::format("uploading the inputs: {}", e.what());
      clear_cuda_error(info);
    }
  }
  const CsrView dev_a = da ? da->view : CsrView{};
  const CsrView dev_b = db ? db->view : dev_a;

  HostCsr<V> lib_c, cus_c;
  rec.lib_ran = true;
  try {
    if (lib_on_device && !upload_error.empty()) throw BenchError(upload_error);
    if (lib_on_device) {
      run_lib<V>(dev_a, dev_b, false, opts, rec, run_cus ? &lib_c : nullptr);
    } else {
      const auto host_a = place(*ha, opts.index, false, "A");
      const auto host_b = p.b_is_transpose ? place(*hb, opts.index, false, "A^T") : nullptr;
      run_lib<V>(host_a->view, host_b ? host_b->view : host_a->view, true, opts, rec,
                 run_cus || info.graphblas ? &lib_c : nullptr);
    }
    rec.lib_ok = true;
  } catch (const std::exception& e) {
    rec.lib_error = e.what();
    fmt::print(stderr, "  libspgemm FAILED: {}\n", rec.lib_error);
    clear_cuda_error(info);
  }

  if (run_cus) {
    rec.cus_ran = true;
    try {
      if (!upload_error.empty()) throw BenchError(upload_error);
      run_cusparse<V>(dev_a, dev_b, opts, rec, cus_c);
      rec.cus_ok = true;
      if (!rec.lib_ok) {
        rec.nnz_c = rec.cus_nnz_c;
        rec.c_bytes = c_bytes(p.a.rows, rec.cus_nnz_c, opts.index, sizeof(V));
      }
    } catch (const CusparseUnsupported& e) {
      rec.cus_ran = false;
      rec.cus_note = unsupported_note(opts, e);
      fmt::print(stderr, "  {}\n", rec.cus_note);
      clear_cuda_error(info);
    } catch (const std::exception& e) {
      rec.cus_error = e.what();
      fmt::print(stderr, "  cuSPARSE failed: {}\n", rec.cus_error);
      clear_cuda_error(info);
    }
  }

  if (info.graphblas) {
    HostCsr<V> grb_c;
    try {
      run_graphblas<V>(*ha, *hb, !p.b_is_transpose, opts, rec, rec.lib_ok ? &grb_c : nullptr);
    } catch (const std::exception& e) {
      rec.grb_error = e.what();
      fmt::print(stderr, "  GraphBLAS failed: {}\n", rec.grb_error);
    }
    if (rec.lib_ok && rec.grb_ok) {
      const spgemm_test::Agreement cmp = agreement(lib_c, grb_c);
      rec.grb_check = cmp.agree ? Check::agree : Check::disagree;
      rec.grb_check_message = cmp.message;
      rec.grb_max_row_scaled_diff = cmp.max_row_scaled_diff;
    }
  }

  if (rec.lib_ok && rec.cus_ok) {
    const spgemm_test::Agreement cmp = agreement(lib_c, cus_c);
    rec.check = cmp.agree ? Check::agree : Check::disagree;
    rec.check_message = cmp.message;
    rec.max_rel_diff = cmp.max_rel_diff;
    rec.max_row_scaled_diff = cmp.max_row_scaled_diff;
  }

  if (run_cus && opts.reuse && upload_error.empty()) {
    HostCsr<V> reuse_c;
    try {
      run_cusparse_reuse<V>(dev_a, dev_b, opts, rec, reuse_c);
      if (rec.lib_ok) {  // the reuse family's C is held to the same check
        const spgemm_test::Agreement cmp = agreement(lib_c, reuse_c);
        if (!cmp.agree) throw BenchError("its C differs from libspgemm's: " + cmp.message);
      }
    } catch (const CusparseUnsupported& e) {
      rec.cus_reuse_note = unsupported_note(opts, e);
      fmt::print(stderr, "  reuse family: {}\n", rec.cus_reuse_note);
      clear_cuda_error(info);
    } catch (const std::exception& e) {
      rec.cus_reuse_first = rec.cus_reuse_compute = kNaN;
      rec.cus_reuse_error = e.what();
      fmt::print(stderr, "  cuSPARSE reuse failed: {}\n", rec.cus_reuse_error);
      clear_cuda_error(info);
    }
  }
}

}  // namespace

void device_setup(const Options& opts) {
  check_cuda(cudaSetDevice(opts.device), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&g_dev.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  if (opts.alloc == AllocMode::pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = opts.device;
    check_cuda(cudaMemPoolCreate(&g_dev.pool, &props), "cudaMemPoolCreate");
    // Keep freed memory in the pool (until trimmed between matrices), so a
    // timed allocation is what an application with a warm pool sees.
    uint64_t keep = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(g_dev.pool, cudaMemPoolAttrReleaseThreshold, &keep),
               "cudaMemPoolSetAttribute");
  }
}

void device_teardown() {
  if (g_dev.stream) cudaStreamSynchronize(g_dev.stream);
  if (g_dev.pool) cudaMemPoolDestroy(g_dev.pool);
  if (g_dev.stream) cudaStreamDestroy(g_dev.stream);
  g_dev = {};
}

bool device_between_matrices(std::string* why) {
  cudaGetLastError();  // a non-sticky error is already reported
  cudaError_t err = cudaStreamSynchronize(g_dev.stream);
  if (err == cudaSuccess && g_dev.pool) err = cudaMemPoolTrimTo(g_dev.pool, 0);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return true;
  if (why) *why = fmt::format("{} ({})", cudaGetErrorName(err), cudaGetErrorString(err));
  return false;
}

void run_problem(const Problem& problem, const Options& opts, const RunInfo& info, Record& rec) {
  try {
    switch (opts.precision) {
      case Precision::f64:
        run_typed<double>(problem, opts, info, rec);
        break;
      case Precision::f32:
        run_typed<float>(problem, opts, info, rec);
        break;
      case Precision::c64:
        run_typed<std::complex<float>>(problem, opts, info, rec);
        break;
      case Precision::c128:
        run_typed<std::complex<double>>(problem, opts, info, rec);
        break;
    }
  } catch (const std::exception& e) {  // e.g. host memory for the converted copies
    rec.lib_ran = true;
    if (rec.lib_error.empty()) rec.lib_error = e.what();
    rec.lib_ok = false;
  }
}

}  // namespace bench
