// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: shared types of the benchmark driver.
//
//   spgemm_bench.cpp  command line, inputs, main loop
//   runners.cpp       libspgemm (device and host backend) and cuSPARSE runs
//   graphblas_runner.cpp  SuiteSparse:GraphBLAS beside the host backend (optional)
//   heap_count.cpp    host heap bytes held, for the host libraries' peak memory
//   (the agreement check of two C's is tests/support/agreement.hpp)
//   report.cpp        table on stdout, CSV and JSON files
//   util.hpp/.cpp     error checks, buffers, timers
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "csr_host.hpp"
#include "util.hpp"

namespace bench {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Value and compute type: double, float, complex<float>, complex<double>.
enum class Precision { f64, f32, c64, c128 };
enum class AllocMode { pool, malloc };

// An input as named on the command line (order kept).
struct Input {
  bool is_file = false;  // Matrix Market file, else a generator spec
  std::string value;
};

struct Options {
  std::vector<Input> inputs;
  Precision precision = Precision::f64;
  IndexWidths index;  // both libraries' A, B and C (--index)
  int warmup = 2;
  int reps = 10;
  AllocMode alloc = AllocMode::pool;
  int device = 0;
  bool force_host = false;  // libspgemm host backend even with a GPU
  bool no_cusparse = false;
  bool no_input_checks = false;  // spgemmSetInputChecks(handle, 0): their cost, by difference
  bool reuse = false;            // also cuSPARSE's reuse family (cusparseSpGEMMreuse_*)
  bool no_graphblas = false;     // skip GraphBLAS even where it was built in
  bool huge_pages = false;       // the host backend's C in huge pages (--huge-pages)
  int threads = 0;               // host threads (omp_set_num_threads, GxB_NTHREADS); 0: default
  std::string csv_path, json_path;
  std::string save_inputs;  // directory to write each input A to (Matrix Market)
  std::string command_line;
};

// What the run as a whole used; printed at the top and written to CSV/JSON.
struct RunInfo {
  bool have_gpu = false;     // cuSPARSE and device buffers available
  bool lib_on_host = false;  // libspgemm ran its host backend
  std::string device_name;   // GPU name, or "host (N threads)"
  int cuda_runtime = 0, cuda_driver = 0, cusparse = 0, spgemm = 0;
  std::string alloc_description;
  std::string timer_description;
  std::string started;  // local time, ISO 8601
  int host_threads = 0;      // libspgemm host backend's threads (omp_get_max_threads)
  bool graphblas = false;    // GraphBLAS runs beside the host backend
  std::string graphblas_version;
};

// One input matrix, loaded and prepared: C = A * B with B = A (square) or
// B = A^T (rectangular). Real values and 32-bit indices: each run converts
// them to its precision and index layout.
struct Problem {
  std::string name;    // short name for the table
  std::string source;  // path or generator spec
  spgemm_test::HostCsr<double> a;
  spgemm_test::HostCsr<double> at;  // A^T, only when b_is_transpose
  bool b_is_transpose = false;
  int64_t products = 0;

  const spgemm_test::HostCsr<double>& b() const { return b_is_transpose ? at : a; }
};

// Medians over the timed repetitions, milliseconds.
struct LibTimes {
  double setup = kNaN;     // C row offsets + C descriptor + plan creation
  double analyze = kNaN;   // spgemmAnalyze
  double symbolic = kNaN;  // spgemmSymbolic incl. the nnz(C) readback
  double alloc = kNaN;     // allocating C's column indices and values
  double numeric = kNaN;   // spgemmNumeric
  double total = kNaN;     // all of the above, start to end
};

struct CusparseTimes {
  double setup = kNaN;    // C descriptor + SpGEMM descriptor
  double work = kNaN;     // workEstimation x2 incl. allocating buffer 1
  double compute = kNaN;  // compute x2 incl. allocating buffer 2
  double alloc = kNaN;    // nnz(C) query + allocating C + CsrSetPointers
  double copy = kNaN;     // cusparseSpGEMM_copy
  double total = kNaN;    // all of the above, start to end
};

enum class Check { not_run, agree, disagree };

// Everything known about one matrix; one row of the table / CSV / JSON.
struct Record {
  std::string name, source;
  std::string load_error;  // non-empty: the input could not be loaded
  int64_t rows = -1, cols = -1, nnz_a = -1, nnz_b = -1;
  bool b_is_transpose = false;
  int64_t products = -1;
  double load_ms = kNaN;
  int64_t nnz_c = -1;    // from libspgemm, or from cuSPARSE if it failed
  int64_t c_bytes = -1;  // (rows + 1) * offset bytes + nnz(C) * (index bytes + value bytes)

  bool lib_ran = false, lib_ok = false;
  std::string lib_error;
  LibTimes lib;
  double lib_numeric_again = kNaN;  // median of spgemmNumeric on an existing plan
  int64_t lib_peak_bytes = -1;      // spgemmGetMemoryUsage peak, max over reps
  int lib_threads = -1;             // host backend: OpenMP threads (omp_get_max_threads)
  int64_t lib_heap_bytes = -1;      // host backend: peak heap beyond A, B and C, max over reps

  // SuiteSparse:GraphBLAS (host backend runs only, where built in)
  bool grb_ran = false, grb_ok = false;
  std::string grb_error;
  double grb_total = kNaN;          // C = A*B: GrB_Matrix_new, GrB_mxm, GrB_Matrix_wait
  int grb_threads = -1;             // GxB_NTHREADS
  int64_t grb_nnz_c = -1;
  int64_t grb_peak_bytes = -1;      // peak heap beyond A, B and C, max over reps
  Check grb_check = Check::not_run;  // libspgemm's C against GraphBLAS's
  std::string grb_check_message;
  double grb_max_row_scaled_diff = kNaN;

  bool cus_ran = false, cus_ok = false;
  std::string cus_error;
  // cuSPARSE returned CUSPARSE_STATUS_NOT_SUPPORTED (the index layout or value
  // type): why it has no times; the reuse family's likewise
  std::string cus_note, cus_reuse_note;
  CusparseTimes cus;
  int64_t cus_nnz_c = -1;
  int64_t cus_buffer1_bytes = -1, cus_buffer2_bytes = -1;
  int64_t cus_peak_bytes = -1;  // buffer1 + buffer2 (alive at once)
  // --reuse: cuSPARSE's reuse family, its first full run and reuse_compute
  // again (medians), its buffers' most bytes at once and those kept for
  // reuse_compute (buffers 4 and 5)
  double cus_reuse_first = kNaN, cus_reuse_compute = kNaN;
  int64_t cus_reuse_peak_bytes = -1, cus_reuse_kept_bytes = -1;
  std::string cus_reuse_error;

  Check check = Check::not_run;
  std::string check_message;
  double max_rel_diff = kNaN;         // max |x-y| / max(|x|,|y|)
  double max_row_scaled_diff = kNaN;  // max |x-y| / max |C(i,:)|  (the check)

  static double gflops(int64_t products, double ms) {
    return (products >= 0 && ms > 0) ? 2.0 * static_cast<double>(products) / (ms * 1e6) : kNaN;
  }
  double lib_gflops() const { return lib_ok ? gflops(products, lib.total) : kNaN; }
  double lib_numeric_again_gflops() const {
    return lib_ok ? gflops(products, lib_numeric_again) : kNaN;
  }
  double cus_gflops() const { return cus_ok ? gflops(products, cus.total) : kNaN; }
  double grb_gflops() const { return grb_ok ? gflops(products, grb_total) : kNaN; }
  double speedup() const {  // cuSPARSE total / libspgemm total
    return (lib_ok && cus_ok && lib.total > 0) ? cus.total / lib.total : kNaN;
  }
  // Whether this record makes the exit status non-zero (cuSPARSE failures
  // do not: it is the baseline).
  bool failed() const {
    return !load_error.empty() || (lib_ran && !lib_ok) || check == Check::disagree ||
           grb_check == Check::disagree;
  }
};

const char* precision_name(Precision p);
std::string index_name(IndexWidths w);         // "32/32", "64/32", "64/64"
std::string index_description(IndexWidths w);  // "32-bit indices", ...
const char* check_name(Check c);

// runners.cpp ---------------------------------------------------------------
// Prepares the GPU side (stream, memory pool); call once when have_gpu.
void device_setup(const Options& opts);
void device_teardown();
// Frees what the pool keeps between matrices and reports a broken context:
// returns false when the CUDA context is unusable (a sticky error).
bool device_between_matrices(std::string* why);
// Runs libspgemm (device or host backend) and, with a GPU, cuSPARSE, and
// compares the results. Fills the library parts of rec; never throws.
void run_problem(const Problem& problem, const Options& opts, const RunInfo& info, Record& rec);

// graphblas_runner.cpp -------------------------------------------------------
bool graphblas_available();  // built with GraphBLAS (CMake found it)
std::string graphblas_version();
// GxB_init with counting allocators (advise_huge: advise_huge_pages on its arrays);
// threads > 0: GxB_NTHREADS
void graphblas_setup(int threads, bool advise_huge);
void graphblas_teardown();
// C = A*B with GraphBLAS (b_is_a: B is A); fills rec.grb*; C copied to result
// when given. Throws on a GraphBLAS error.
template <class V>
void run_graphblas(const spgemm_test::HostCsr<V>& a, const spgemm_test::HostCsr<V>& b, bool b_is_a,
                   const Options& opts, Record& rec, spgemm_test::HostCsr<V>* result);

// report.cpp ----------------------------------------------------------------
void print_header(const RunInfo& info, const Options& opts);
void print_table_header(const RunInfo& info);
void print_table_row(const Record& rec, const RunInfo& info);
void print_details(const std::vector<Record>& records, const RunInfo& info);
// Throw std::runtime_error when the file cannot be written.
void write_csv(const std::string& path, const std::vector<Record>& records, const RunInfo& info,
               const Options& opts);
void write_json(const std::string& path, const std::vector<Record>& records, const RunInfo& info,
                const Options& opts);

}  // namespace bench
