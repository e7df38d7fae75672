// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: times libspgemm against cuSPARSE on C = A*A (or A*A^T) and
// checks that both give the same C. See --help, and bench.hpp for the layout.
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <fmt/format.h>
#include <spgemm/spgemm.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench.hpp"
#include "generators.hpp"
#include "matrix_market.hpp"
#include "util.hpp"

namespace bench {
namespace {

constexpr const char* kDefaultSpec = "stencil27:48";

constexpr const char* kHelp = R"(Usage: spgemm-bench [options] [MATRIX.mtx | MATRIX.mtx.gz ...]

Times sparse matrix-matrix multiplication with libspgemm (public C API) and,
on a GPU, with cuSPARSE's generic SpGEMM (CUSPARSE_SPGEMM_DEFAULT) on the same
device inputs, and checks that both compute the same C.
  C = A*A for square A, C = A*A^T for rectangular A (A^T built on the host).
Both libraries get A, B and C in one index layout and value type (--index,
--precision). Without a CUDA device libspgemm's host backend is timed
(std::chrono) and cuSPARSE is skipped.

Inputs, run in the order given (with none: the built-in problem stencil27:48):
  MATRIX.mtx[.gz]          a Matrix Market file (general/symmetric, real/pattern)
  --gen SPEC               a generated matrix (repeatable), e.g. poisson2d:700,
                           stencil27:64, rmat:16:16, uniform:500000:8,
                           banded:500000:16, powerlaw:100000, longrows:20000
  --all-generators         every default spec (see --list-generators)
  --dir DIR                every *.mtx and *.mtx.gz in DIR, sorted by name

Options:
  --precision TYPE         value and compute type: double (default), float,
                           cdouble (or complex: complex<double>, CUDA_C_64F),
                           cfloat (complex<float>, CUDA_C_32F). Inputs are real:
                           a complex run gives each entry of A an imaginary part
                           of magnitude in [0.5, 1.5) and random sign, fixed by
                           the entry's position in A (B = A^T: the transpose of
                           that A, not conjugated)
  --index LAYOUT           row offset / column index bits of A, B and C for
                           both libraries: 32 (32/32, default), 64/32, 64/64.
                           Where cuSPARSE returns CUSPARSE_STATUS_NOT_SUPPORTED
                           for the layout or type, its columns stay empty and
                           the record says why (cusparse_note,
                           cusparse_reuse_note); it is never run in another
                           layout than libspgemm
  --warmup N               untimed runs before the timed ones (default 2)
  --reps N                 timed runs; medians are reported (default 10)
  --alloc pool|malloc      how C and cuSPARSE's buffers are allocated, the same
                           for both libraries: cudaMallocFromPoolAsync/cudaFreeAsync
                           on a stream-ordered pool that keeps freed memory
                           (default), or cudaMalloc/cudaFree
  --device N               CUDA device to use (default 0)
  --host                   time libspgemm's host backend even with a GPU
                           (cuSPARSE still runs on the GPU for the check)
  --no-cusparse            skip cuSPARSE (and so the check)
  --no-input-checks        libspgemm with its input checks off (their cost is
                           the difference to a run with them, the default)
  --reuse                  also cuSPARSE's structure-reuse family (the path
                           PETSc and AmgX take when values change): its first
                           full run and reuse_compute again, against
                           libspgemm's total and numeric again (num2)
  --threads N              host threads for libspgemm's host backend
                           (omp_set_num_threads) and GraphBLAS (GxB_NTHREADS);
                           default: OpenMP's default (OMP_NUM_THREADS or all)
  --no-graphblas           skip SuiteSparse:GraphBLAS (run beside the host
                           backend when the bench was built with it)
  --huge-pages             the host backend's C, and GraphBLAS's arrays, advised
                           to transparent huge pages (madvise MADV_HUGEPAGE)
                           where 4 MiB or more, as NumPy advises SciPy's C
  --save-inputs DIR        write each input A as DIR/NAME.mtx (Matrix Market;
                           DIR is created if missing),
                           e.g. for bench/host_scipy.py to time SciPy on them
  --csv FILE               write one record per matrix, all fields, as CSV
  --json FILE              write the records and run information as JSON
  --list-generators        print the default generator specs and exit
  -h, --help               this text

Timings, per matrix (ms, medians over the timed runs):
  lib total      fresh product, all the user sees: allocate C's row offsets,
                 C descriptor, spgemmPlanCreate, spgemmAnalyze, spgemmSymbolic
                 (incl. its nnz readback), allocate C, spgemmNumeric
  ana/sym/alloc/num   the phases of lib total (the totals come from
                 separate runs that record no events between the phases:
                 each event record costs the host ~1.4 us, which small
                 products would otherwise pay four times)
  num2           spgemmNumeric again on the existing plan (values only)
  cuS ms         cuSPARSE total: C and SpGEMM descriptors, workEstimation x2,
                 compute x2 (incl. allocating buffers 1 and 2), allocate C,
                 copy
  GFLOPS         2 * products / total, products = sum over a_ik of nnz(B(k,:))
  peak MB        libspgemm: spgemmGetMemoryUsage peak workspace (beyond A, B,
                 C); cuSPARSE: buffer1 + buffer2 (alive at once)
  speedup        cuSPARSE total / libspgemm total
  GrB ms         host backend runs, GraphBLAS built in: SuiteSparse:GraphBLAS's
                 C = A*B (GrB_Matrix_new, GrB_mxm with PLUS_TIMES, GrB_Matrix_wait),
                 same inputs and threads; 'GrB/lib' = GraphBLAS total / lib total;
                 host peak MB (both): the most heap bytes held during a
                 product beyond A, B and C: the peak of what is held, C's
                 arrays included (libspgemm's scratch through operator new
                 and its C as the bench allocates it, GraphBLAS's through its
                 allocator), less C
  check          AGREE when both C's have identical row offsets and column
                 indices and |x - y| <= tol * max|C(i,:)| for every entry
                 (tol 1e-10 double, 1e-4 float; complex: the real parts and
                 the imaginary parts each so, tol of their real type); the max
                 elementwise relative difference is printed in the details

Exit status: 0 when every matrix loaded, libspgemm succeeded and the checks
agreed; 1 otherwise (a cuSPARSE failure alone is reported, not counted);
2 for a usage error.
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=./:,@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int parse_int(const std::string& option, const std::string& text, int min_value) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < min_value)
    throw UsageError(fmt::format("{} needs an integer >= {}, got '{}'", option, min_value, text));
  return v;
}

std::vector<std::string> matrix_files_in(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("--dir: '{}' is not a directory", dir));
  std::vector<std::string> files;
  try {
    files = spgemm_test::matrix_market_files(dir);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("--dir: {}", e.what()));
  }
  if (files.empty())
    fmt::print(stderr, "spgemm-bench: warning: no *.mtx / *.mtx.gz in '{}'\n", dir);
  return files;
}

// Returns false when the program should exit successfully right away.
bool parse_args(int argc, char** argv, Options& opts) {
  opts.command_line = "spgemm-bench";
  for (int i = 1; i < argc; ++i) opts.command_line += " " + shell_quote(argv[i]);

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fmt::print("{}", kHelp);
      return false;
    }
    if (arg.rfind("--", 0) != 0) {
      if (arg.size() > 1 && arg[0] == '-')
        throw UsageError(fmt::format("unknown option '{}'", arg));
      opts.inputs.push_back({true, arg});
      continue;
    }
    // --name VALUE or --name=VALUE
    std::string value;
    bool has_inline_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_inline_value) return value;
      if (i + 1 >= argc) throw UsageError(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    auto no_value = [&]() {
      if (has_inline_value) throw UsageError(fmt::format("{} takes no value", arg));
    };

    if (arg == "--gen") {
      opts.inputs.push_back({false, take_value()});
    } else if (arg == "--all-generators") {
      no_value();
      for (const std::string& spec : spgemm_test::generator_families())
        opts.inputs.push_back({false, spec});
    } else if (arg == "--dir") {
      for (const std::string& f : matrix_files_in(take_value())) opts.inputs.push_back({true, f});
    } else if (arg == "--precision") {
      const std::string p = take_value();
      if (p == "double")
        opts.precision = Precision::f64;
      else if (p == "float")
        opts.precision = Precision::f32;
      else if (p == "cfloat")
        opts.precision = Precision::c64;
      else if (p == "cdouble" || p == "complex")
        opts.precision = Precision::c128;
      else
        throw UsageError(fmt::format(
            "--precision must be double, float, cdouble (complex) or cfloat, got '{}'", p));
    } else if (arg == "--index") {
      const std::string layout = take_value();
      if (layout == "32" || layout == "32/32")
        opts.index = {4, 4};
      else if (layout == "64/32")
        opts.index = {8, 4};
      else if (layout == "64/64")
        opts.index = {8, 8};
      else
        throw UsageError(fmt::format("--index must be 32, 64/32 or 64/64, got '{}'", layout));
    } else if (arg == "--warmup") {
      opts.warmup = parse_int(arg, take_value(), 0);
    } else if (arg == "--reps") {
      opts.reps = parse_int(arg, take_value(), 1);
    } else if (arg == "--alloc") {
      const std::string a = take_value();
      if (a == "pool")
        opts.alloc = AllocMode::pool;
      else if (a == "malloc")
        opts.alloc = AllocMode::malloc;
      else
        throw UsageError(fmt::format("--alloc must be pool or malloc, got '{}'", a));
    } else if (arg == "--device") {
      opts.device = parse_int(arg, take_value(), 0);
    } else if (arg == "--host") {
      no_value();
      opts.force_host = true;
    } else if (arg == "--no-cusparse") {
      no_value();
      opts.no_cusparse = true;
    } else if (arg == "--threads") {
      opts.threads = parse_int(arg, take_value(), 1);
    } else if (arg == "--no-graphblas") {
      no_value();
      opts.no_graphblas = true;
    } else if (arg == "--huge-pages") {
      no_value();
      opts.huge_pages = true;
    } else if (arg == "--no-input-checks") {
      no_value();
      opts.no_input_checks = true;
    } else if (arg == "--reuse") {
      no_value();
      opts.reuse = true;
    } else if (arg == "--save-inputs") {
      opts.save_inputs = take_value();
    } else if (arg == "--csv") {
      opts.csv_path = take_value();
    } else if (arg == "--json") {
      opts.json_path = take_value();
    } else if (arg == "--list-generators") {
      no_value();
      for (const std::string& spec : spgemm_test::generator_families()) fmt::print("{}\n", spec);
      return false;
    } else {
      throw UsageError(fmt::format("unknown option '{}'", arg));
    }
  }
  return true;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "CPU";
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[64] = "";
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

// Finds the GPU (if any) and describes the run.
RunInfo make_run_info(const Options& opts) {
  RunInfo info;
  info.started = now_iso8601();
  cudaRuntimeGetVersion(&info.cuda_runtime);
  cudaDriverGetVersion(&info.cuda_driver);
  spgemmGetVersion(&info.spgemm);
  int major = 0, minor = 0, patch = 0;
  if (cusparseGetProperty(MAJOR_VERSION, &major) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(MINOR_VERSION, &minor) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(PATCH_LEVEL, &patch) == CUSPARSE_STATUS_SUCCESS)
    info.cusparse = major * 1000 + minor * 100 + patch;

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  std::string no_gpu_reason;
  if (err != cudaSuccess) {
    no_gpu_reason = fmt::format("{}: {}", cudaGetErrorName(err), cudaGetErrorString(err));
    cudaGetLastError();
  } else if (count == 0) {
    no_gpu_reason = "no devices";
  }
  info.have_gpu = no_gpu_reason.empty();
  if (info.have_gpu && opts.device >= count)
    throw UsageError(
        fmt::format("--device {}: there are only {} CUDA devices", opts.device, count));
  info.lib_on_host = !info.have_gpu || opts.force_host;
  if (opts.threads > 0) omp_set_num_threads(opts.threads);
  info.host_threads = omp_get_max_threads();
  info.graphblas = info.lib_on_host && graphblas_available() && !opts.no_graphblas;
  info.graphblas_version = graphblas_version();

  const unsigned threads = std::thread::hardware_concurrency();
  const std::string host_name =
      fmt::format("{} ({} hardware threads, {} used{})", cpu_model(), threads,
                  omp_get_max_threads(),
                  std::getenv("OMP_NUM_THREADS")
                      ? fmt::format(", OMP_NUM_THREADS={}", std::getenv("OMP_NUM_THREADS"))
                      : std::string());
  if (info.have_gpu) {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, opts.device), "cudaGetDeviceProperties");
    info.device_name = fmt::format("{} (device {}, sm_{}{}, {} SMs, {:.1f} GB)", prop.name,
                                   opts.device, prop.major, prop.minor, prop.multiProcessorCount,
                                   static_cast<double>(prop.totalGlobalMem) / 1e9);
    if (opts.force_host) info.device_name += "; libspgemm on host: " + host_name;
  } else {
    info.device_name = fmt::format("none ({}); host: {}", no_gpu_reason, host_name);
  }

  info.timer_description =
      info.lib_on_host ? "libspgemm: std::chrono::steady_clock" : "CUDA events on one stream";
  if (info.lib_on_host && info.have_gpu && !opts.no_cusparse)
    info.timer_description += "; cuSPARSE: CUDA events on one stream";

  const std::string host_alloc =
      opts.huge_pages ? "malloc/free, madvise MADV_HUGEPAGE from 4 MiB (GraphBLAS's too)"
                      : "malloc/free";
  const std::string device_alloc =
      opts.alloc == AllocMode::pool
          ? "cudaMallocFromPoolAsync/cudaFreeAsync on one stream-ordered pool (freed memory kept "
            "between runs, trimmed between matrices)"
          : "cudaMalloc/cudaFree";
  if (!info.lib_on_host)
    info.alloc_description = "C of both libraries and cuSPARSE's buffers: " + device_alloc;
  else if (info.have_gpu && !opts.no_cusparse)
    info.alloc_description =
        "libspgemm's C: " + host_alloc + " (host); cuSPARSE's C and buffers: " + device_alloc;
  else
    info.alloc_description = "C: " + host_alloc + " (host backend)";
  return info;
}

std::string display_name(const Input& in) {
  return in.is_file ? matrix_name(in.value) : in.value;
}

// Loads an input and fills the shape fields of rec.
Problem load(const Input& in, Record& rec) {
  const auto start = std::chrono::steady_clock::now();
  Problem p;
  p.name = rec.name;
  p.source = rec.source;
  p.a = in.is_file ? spgemm_test::read_matrix_market(in.value) : spgemm_test::generate(in.value);
  if (p.a.rows != p.a.cols) {
    p.at = spgemm_test::transpose(p.a);
    p.b_is_transpose = true;
  }
  p.products = spgemm_test::product_count(p.a, p.b());
  rec.load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  rec.rows = p.a.rows;
  rec.cols = p.a.cols;
  rec.nnz_a = p.a.nnz();
  rec.nnz_b = p.b().nnz();
  rec.b_is_transpose = p.b_is_transpose;
  rec.products = p.products;
  return p;
}

int run(int argc, char** argv) {
  Options opts;
  if (!parse_args(argc, argv, opts)) return 0;
  const bool default_problem = opts.inputs.empty();
  if (default_problem) opts.inputs.push_back({false, kDefaultSpec});

  if (!opts.save_inputs.empty()) std::filesystem::create_directories(opts.save_inputs);
  const RunInfo info = make_run_info(opts);
  if (info.have_gpu) device_setup(opts);
  if (info.graphblas) graphblas_setup(info.host_threads, opts.huge_pages);
  print_header(info, opts);
  if (default_problem)
    fmt::print("no inputs given: running the built-in default problem {}\n\n", kDefaultSpec);
  print_table_header(info);

  std::vector<Record> records;
  bool context_broken = false;
  const size_t n = opts.inputs.size();
  for (size_t i = 0; i < n; ++i) {
    const Input& in = opts.inputs[i];
    Record rec;
    rec.name = display_name(in);
    rec.source = in.value;
    fmt::print(stderr, "[{}/{}] {}: loading\n", i + 1, n, rec.name);
    try {
      const Problem problem = load(in, rec);
      if (!opts.save_inputs.empty())
        spgemm_test::write_matrix_market(
            (std::filesystem::path(opts.save_inputs) / (rec.name + ".mtx")).string(), problem.a);
      fmt::print(stderr, "[{}/{}] {}: {} x {}, nnz(A) {}, products {}: running\n", i + 1, n,
                 rec.name, rec.rows, rec.cols, rec.nnz_a, rec.products);
      run_problem(problem, opts, info, rec);
    } catch (const std::exception& e) {  // loading failed
      rec.load_error = e.what();
      fmt::print(stderr, "  loading FAILED: {}\n", rec.load_error);
    }
    print_table_row(rec, info);
    records.push_back(std::move(rec));

    std::string why;
    if (info.have_gpu && !device_between_matrices(&why)) {
      fmt::print(
          stderr,
          "spgemm-bench: the CUDA context is unusable ({}): stopping after {} of {} inputs\n", why,
          i + 1, n);
      context_broken = true;
      break;
    }
  }

  print_details(records, info);
  int failures = 0;
  for (const Record& r : records) failures += r.failed() ? 1 : 0;
  fmt::print("\n{} matrices, {} failed or disagreed{}\n", records.size(), failures,
             context_broken ? "; stopped early: CUDA context unusable" : "");

  bool write_failed = false;
  try {
    if (!opts.csv_path.empty()) write_csv(opts.csv_path, records, info, opts);
    if (!opts.json_path.empty()) write_json(opts.json_path, records, info, opts);
  } catch (const std::exception& e) {
    fmt::print(stderr, "spgemm-bench: {}\n", e.what());
    write_failed = true;
  }
  if (info.have_gpu && !context_broken) device_teardown();
  if (info.graphblas) graphblas_teardown();
  return (failures || context_broken || write_failed) ? 1 : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  try {
    return bench::run(argc, argv);
  } catch (const bench::UsageError& e) {
    fmt::print(stderr, "spgemm-bench: {} (see --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "spgemm-bench: {}\n", e.what());
    return 1;
  }
}
