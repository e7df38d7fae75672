// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: the table on stdout and the CSV / JSON files.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "util.hpp"

namespace bench {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::f64:
      return "double";
    case Precision::f32:
      return "float";
    case Precision::c64:
      return "cfloat";
    default:
      return "cdouble";
  }
}

std::string index_name(IndexWidths w) {
  return fmt::format("{}/{}", 8 * w.offsets, 8 * w.columns);
}

std::string index_description(IndexWidths w) {
  if (w.offsets == w.columns) return fmt::format("{}-bit indices", 8 * w.offsets);
  return fmt::format("{}-bit row offsets, {}-bit column indices", 8 * w.offsets, 8 * w.columns);
}

const char* check_name(Check c) {
  switch (c) {
    case Check::agree:
      return "AGREE";
    case Check::disagree:
      return "DISAGREE";
    default:
      return "-";
  }
}

namespace {

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// A few significant digits in a narrow field: 0.123, 1.23, 12.3, 123.
std::string short_num(double x) {
  if (std::isnan(x)) return "-";
  const double a = std::abs(x);
  if (a < 1) return fmt::format("{:.3f}", x);
  if (a < 10) return fmt::format("{:.2f}", x);
  if (a < 100) return fmt::format("{:.1f}", x);
  return fmt::format("{:.0f}", x);
}

std::string ms_or(double ms, bool ran, bool ok, const char* not_run = "-") {
  if (!ran) return not_run;
  if (!ok) return "FAIL";
  return short_num(ms);
}

std::string mb(int64_t bytes) {
  return bytes < 0 ? "-" : short_num(static_cast<double>(bytes) / 1e6);
}

std::string count(int64_t n) { return n < 0 ? "-" : fmt::format("{}", n); }

std::string truncate(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 2) + "..";
}

// Column layout of the table (the header and rows share it).
constexpr const char* kRowFormat =
    "{:<26} {:>9} {:>11} {:>12} {:>11} {:>8} | {:>8} {:>6} {:>25} {:>8} {:>7} | {:>8} {:>6} "
    "{:>7} | {:>7} {:<8}\n";

}  // namespace

void print_header(const RunInfo& info, const Options& opts) {
  // "label          : text", continuation lines indented under the text.
  auto line = [](const char* label, const std::string& text) {
    fmt::print("{:<15}: {}\n", label, text);
  };
  const char* indent = "\n                 ";

  fmt::print("spgemm-bench (libspgemm {}.{}.{})\n", info.spgemm / 10000, (info.spgemm / 100) % 100,
             info.spgemm % 100);
  if (!info.have_gpu) fmt::print("no CUDA device: running the host backend\n");
  line("device", info.device_name);
  std::string versions = cuda_version(info.cuda_runtime);
  if (info.cuda_driver) versions += ", driver " + cuda_version(info.cuda_driver);
  if (info.cusparse)
    versions += fmt::format(", cuSPARSE {}.{}.{}", info.cusparse / 1000, (info.cusparse / 100) % 10,
                            info.cusparse % 100);
  line("CUDA runtime", versions);
  line("libspgemm", info.lib_on_host ? "host (CPU) backend" : "CUDA backend");
  line("precision", fmt::format("{} values and compute, {}", precision_name(opts.precision),
                                index_description(opts.index)));
  line("product", "C = A*A for square A, C = A*A^T for rectangular A (A^T built on the host)");
  line("timing", fmt::format("{}; {} warmup + {} timed runs, medians; totals from {} more runs "
                             "without phase marks",
                             info.timer_description, opts.warmup, opts.reps, opts.reps));
  line("allocation", info.alloc_description);
  line("lib total", fmt::format("C row offsets + C descriptor + plan, analyze, symbolic (incl. "
                                "nnz readback),{}alloc C, numeric; 'num2' = spgemmNumeric again "
                                "on the existing plan",
                                indent));
  if (info.have_gpu && !opts.no_cusparse) {
    line("cuSPARSE total",
         fmt::format("C + SpGEMM descriptors, workEstimation x2, compute x2 (incl. allocating "
                     "their{}buffers), alloc C, copy (CUSPARSE_SPGEMM_DEFAULT); speedup = "
                     "cuSPARSE/lib",
                     indent));
  }
  if (info.have_gpu && !opts.no_cusparse && opts.reuse)
    line("cuSPARSE reuse",
         fmt::format("cusparseSpGEMMreuse_*: first run (workEstimation x2, nnz x2, alloc C,{}copy "
                     "x2, compute) and compute again, in the details and CSV",
                     indent));
  if (info.lib_on_host)
    line("threads", fmt::format("libspgemm host backend {}{}", info.host_threads,
                                info.graphblas ? fmt::format(", GraphBLAS {}", info.host_threads)
                                               : std::string()));
  if (info.graphblas)
    line("GraphBLAS", fmt::format("{}: GrB_Matrix_new(C), GrB_mxm (PLUS_TIMES), "
                                  "GrB_Matrix_wait; its columns replace cuSPARSE's{}"
                                  "(speedup = GraphBLAS/lib, check = lib vs GraphBLAS)",
                                  info.graphblas_version, indent));
  else if (info.lib_on_host)
    line("GraphBLAS", info.graphblas_version + (opts.no_graphblas ? " (--no-graphblas)" : ""));
  line("peak MB", info.lib_on_host
                      ? "heap held during a product beyond A, B and C: the peak, C included, less C"
                        "\n                 (libspgemm: operator new and C's arrays; GraphBLAS: its allocator)"
                      : "lib: spgemmGetMemoryUsage peak workspace; cuSPARSE: buffer1 + buffer2");
  line("started", info.started);
  fmt::print("\n");
}

void print_table_header(const RunInfo& info) {
  const std::string header =
      fmt::format(kRowFormat, "matrix", "rows", "nnz(A)", "products", "nnz(C)", "C MB", "lib ms",
                  "GFLOPS", "ana/sym/alloc/num ms", "num2 ms", "peak MB",
                  info.graphblas ? "GrB ms" : "cuS ms", "GFLOPS", "peak MB", "speedup", "check");
  fmt::print("{}{}\n", header, std::string(header.size() - 1, '-'));
  std::fflush(stdout);
}

void print_table_row(const Record& r, const RunInfo& info) {
  if (info.graphblas) {
    const bool grb_fail = r.grb_ran && !r.grb_ok;
    const bool lib_fail = r.lib_ran && !r.lib_ok;
    std::string phases = lib_fail ? "FAIL" : "-";
    if (r.lib_ok)
      phases = fmt::format("{}/{}/{}/{}", short_num(r.lib.analyze), short_num(r.lib.symbolic),
                           short_num(r.lib.alloc), short_num(r.lib.numeric));
    const double ratio = r.lib_ok && r.grb_ok ? r.grb_total / r.lib.total : kNaN;
    fmt::print(kRowFormat, truncate(r.name, 26), count(r.rows), count(r.nnz_a), count(r.products),
               count(r.nnz_c), r.c_bytes < 0 ? "-" : mb(r.c_bytes),
               r.load_error.empty() ? ms_or(r.lib.total, r.lib_ran, r.lib_ok) : "LOAD FAIL",
               short_num(r.lib_gflops()), phases,
               lib_fail ? "FAIL" : short_num(r.lib_numeric_again),
               lib_fail ? "FAIL" : mb(r.lib_heap_bytes), ms_or(r.grb_total, r.grb_ran, r.grb_ok),
               short_num(r.grb_gflops()), grb_fail ? "FAIL" : mb(r.grb_peak_bytes),
               std::isnan(ratio) ? "-" : fmt::format("{:.2f}x", ratio), check_name(r.grb_check));
    std::fflush(stdout);
    return;
  }
  std::string phases = "-";
  if (r.lib_ran && !r.lib_ok) phases = "FAIL";
  if (r.lib_ok)
    phases = fmt::format("{}/{}/{}/{}", short_num(r.lib.analyze), short_num(r.lib.symbolic),
                         short_num(r.lib.alloc), short_num(r.lib.numeric));
  const bool lib_fail = r.lib_ran && !r.lib_ok;
  const bool cus_fail = r.cus_ran && !r.cus_ok;
  fmt::print(kRowFormat, truncate(r.name, 26), count(r.rows), count(r.nnz_a), count(r.products),
             count(r.nnz_c), r.c_bytes < 0 ? "-" : mb(r.c_bytes),
             r.load_error.empty() ? ms_or(r.lib.total, r.lib_ran, r.lib_ok) : "LOAD FAIL",
             short_num(r.lib_gflops()), phases, lib_fail ? "FAIL" : short_num(r.lib_numeric_again),
             lib_fail ? "FAIL" : mb(r.lib_peak_bytes),
             ms_or(r.cus.total, r.cus_ran, r.cus_ok, r.cus_note.empty() ? "-" : "n/a"),
             short_num(r.cus_gflops()), cus_fail ? "FAIL" : mb(r.cus_peak_bytes),
             std::isnan(r.speedup()) ? "-" : fmt::format("{:.2f}x", r.speedup()),
             check_name(r.check));
  std::fflush(stdout);
}

void print_details(const std::vector<Record>& records, const RunInfo& info) {
  fmt::print("\nDetails (ms, medians):\n");
  for (const Record& r : records) {
    fmt::print("  {}", r.name);
    if (r.source != r.name) fmt::print(" ({})", r.source);
    if (!r.load_error.empty()) {
      fmt::print("\n    load      : FAILED: {}\n", r.load_error);
      continue;
    }
    fmt::print("  [{} x {}, nnz(A) {}, B = {}, loaded in {:.0f} ms]\n", r.rows, r.cols, r.nnz_a,
               r.b_is_transpose ? "A^T" : "A", r.load_ms);
    if (r.nnz_c >= 0) fmt::print("    C         : nnz {}, {} bytes\n", r.nnz_c, r.c_bytes);
    if (r.lib_ok) {
      fmt::print(
          "    libspgemm : setup {} analyze {} symbolic {} alloc {} numeric {} total {} "
          "({} GFLOPS) | numeric again {} ({} GFLOPS) | peak workspace {}\n",
          short_num(r.lib.setup), short_num(r.lib.analyze), short_num(r.lib.symbolic),
          short_num(r.lib.alloc), short_num(r.lib.numeric), short_num(r.lib.total),
          short_num(r.lib_gflops()), short_num(r.lib_numeric_again),
          short_num(r.lib_numeric_again_gflops()),
          format_bytes(static_cast<double>(r.lib_peak_bytes)));
    } else if (r.lib_ran) {
      fmt::print("    libspgemm : FAILED: {}\n", r.lib_error);
    }
    if (r.cus_ok) {
      fmt::print(
          "    cuSPARSE  : setup {} workEstimation {} compute {} alloc {} copy {} total {} "
          "({} GFLOPS) | buffers {} + {}\n",
          short_num(r.cus.setup), short_num(r.cus.work), short_num(r.cus.compute),
          short_num(r.cus.alloc), short_num(r.cus.copy), short_num(r.cus.total),
          short_num(r.cus_gflops()), format_bytes(static_cast<double>(r.cus_buffer1_bytes)),
          format_bytes(static_cast<double>(r.cus_buffer2_bytes)));
    } else if (r.cus_ran) {
      fmt::print("    cuSPARSE  : failed: {}\n", r.cus_error);
    } else if (!r.cus_note.empty()) {
      fmt::print("    cuSPARSE  : not run: {}\n", r.cus_note);
    } else if (info.have_gpu) {
      fmt::print("    cuSPARSE  : not run\n");
    }
    if (!r.cus_reuse_note.empty())
      fmt::print("    cuS reuse : not run: {}\n", r.cus_reuse_note);
    else if (!r.cus_reuse_error.empty())
      fmt::print("    cuS reuse : failed: {}\n", r.cus_reuse_error);
    else if (!std::isnan(r.cus_reuse_first))
      fmt::print("    cuS reuse : first run {} | reuse_compute {} | buffers {} at most, {} kept\n",
                 short_num(r.cus_reuse_first), short_num(r.cus_reuse_compute),
                 format_bytes(static_cast<double>(r.cus_reuse_peak_bytes)),
                 format_bytes(static_cast<double>(r.cus_reuse_kept_bytes)));
    if (r.lib_threads > 0)
      fmt::print("    host      : libspgemm {} threads, heap beyond A, B, C {}\n", r.lib_threads,
                 format_bytes(static_cast<double>(r.lib_heap_bytes)));
    if (r.grb_ok)
      fmt::print("    GraphBLAS : total {} ({} GFLOPS), {} threads, heap beyond A, B, C {}, nnz(C) {}"
                 " | vs lib: {}{} (max row-scaled diff {:.3g})\n",
                 short_num(r.grb_total), short_num(r.grb_gflops()), r.grb_threads,
                 format_bytes(static_cast<double>(r.grb_peak_bytes)), r.grb_nnz_c,
                 check_name(r.grb_check),
                 r.grb_check_message.empty() ? "" : ": " + r.grb_check_message,
                 r.grb_max_row_scaled_diff);
    else if (r.grb_ran)
      fmt::print("    GraphBLAS : failed: {}\n", r.grb_error);
    switch (r.check) {
      case Check::agree:
        fmt::print("    check     : AGREE (max rel diff {:.3g}, max row-scaled diff {:.3g})\n",
                   r.max_rel_diff, r.max_row_scaled_diff);
        break;
      case Check::disagree:
        fmt::print(
            "    check     : DISAGREE: {} (max rel diff {:.3g}, max row-scaled diff {:.3g})\n",
            r.check_message, r.max_rel_diff, r.max_row_scaled_diff);
        break;
      default:
        fmt::print("    check     : not run ({})\n",
                   !info.have_gpu           ? "no cuSPARSE without a GPU"
                   : r.cus_ran              ? "a library failed"
                   : !r.cus_note.empty()    ? "cuSPARSE does not take this layout or type"
                                            : "cuSPARSE skipped");
    }
  }
  std::fflush(stdout);
}

// ---- CSV / JSON -----------------------------------------------------------------

namespace {

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A field's value, rendered for both files; missing: JSON null, empty CSV cell.
struct Value {
  std::string json = "null", csv;
  Value() = default;
  Value(bool b) : json(b ? "true" : "false"), csv(json) {}
  Value(int64_t i) : json(fmt::format("{}", i)), csv(json) {}
  Value(double d) : json(fmt::format("{}", d)), csv(json) {}
  Value(const std::string& s) : json(json_quote(s)), csv(csv_quote(s)) {}
  Value(const char* s) : Value(std::string(s)) {}
};
using Fields = std::vector<std::pair<const char*, Value>>;

Value opt_int(int64_t v) { return v < 0 ? Value{} : Value{v}; }
Value opt_num(double v) { return std::isfinite(v) ? Value{v} : Value{}; }
Value opt_str(const std::string& s) { return s.empty() ? Value{} : Value{s}; }

// Run-wide fields: repeated on every CSV row, once at the top of the JSON.
Fields run_fields(const RunInfo& info, const Options& opts) {
  Fields f;
  f.emplace_back("device", info.device_name);
  f.emplace_back("lib_backend", std::string(info.lib_on_host ? "host" : "cuda"));
  f.emplace_back("precision", std::string(precision_name(opts.precision)));
  f.emplace_back("index", index_name(opts.index));
  const char* alloc = !info.have_gpu                  ? (opts.huge_pages ? "host_huge" : "host")
                      : opts.alloc == AllocMode::pool ? "pool"
                                                      : "malloc";
  f.emplace_back("alloc", std::string(alloc));
  f.emplace_back("warmup", int64_t{opts.warmup});
  f.emplace_back("reps", int64_t{opts.reps});
  f.emplace_back("host_threads", int64_t{info.host_threads});
  f.emplace_back("graphblas", info.graphblas ? info.graphblas_version : std::string("-"));
  f.emplace_back("command_line", opts.command_line);
  return f;
}

// All fields of one matrix's record, in file order.
Fields record_fields(const Record& r) {
  Fields f;
  f.emplace_back("name", r.name);
  f.emplace_back("source", r.source);
  f.emplace_back("load_error", opt_str(r.load_error));
  f.emplace_back("load_ms", opt_num(r.load_ms));
  f.emplace_back("rows", opt_int(r.rows));
  f.emplace_back("cols", opt_int(r.cols));
  f.emplace_back("nnz_a", opt_int(r.nnz_a));
  f.emplace_back("b", std::string(r.b_is_transpose ? "A^T" : "A"));
  f.emplace_back("nnz_b", opt_int(r.nnz_b));
  f.emplace_back("products", opt_int(r.products));
  f.emplace_back("nnz_c", opt_int(r.nnz_c));
  f.emplace_back("c_bytes", opt_int(r.c_bytes));

  f.emplace_back("lib_ok", r.lib_ran ? Value{r.lib_ok} : Value{});
  f.emplace_back("lib_error", opt_str(r.lib_error));
  f.emplace_back("lib_setup_ms", opt_num(r.lib.setup));
  f.emplace_back("lib_analyze_ms", opt_num(r.lib.analyze));
  f.emplace_back("lib_symbolic_ms", opt_num(r.lib.symbolic));
  f.emplace_back("lib_alloc_ms", opt_num(r.lib.alloc));
  f.emplace_back("lib_numeric_ms", opt_num(r.lib.numeric));
  f.emplace_back("lib_total_ms", opt_num(r.lib.total));
  f.emplace_back("lib_gflops", opt_num(r.lib_gflops()));
  f.emplace_back("lib_numeric_again_ms", opt_num(r.lib_numeric_again));
  f.emplace_back("lib_numeric_again_gflops", opt_num(r.lib_numeric_again_gflops()));
  f.emplace_back("lib_peak_bytes", opt_int(r.lib_peak_bytes));
  f.emplace_back("lib_threads", opt_int(r.lib_threads));
  f.emplace_back("lib_heap_bytes", opt_int(r.lib_heap_bytes));

  f.emplace_back("graphblas_ok", r.grb_ran ? Value{r.grb_ok} : Value{});
  f.emplace_back("graphblas_error", opt_str(r.grb_error));
  f.emplace_back("graphblas_total_ms", opt_num(r.grb_total));
  f.emplace_back("graphblas_gflops", opt_num(r.grb_gflops()));
  f.emplace_back("graphblas_threads", opt_int(r.grb_threads));
  f.emplace_back("graphblas_nnz_c", opt_int(r.grb_nnz_c));
  f.emplace_back("graphblas_heap_bytes", opt_int(r.grb_peak_bytes));
  f.emplace_back("graphblas_check", r.grb_check == Check::not_run
                                        ? Value{}
                                        : Value{std::string(check_name(r.grb_check))});
  f.emplace_back("graphblas_max_row_scaled_diff", opt_num(r.grb_max_row_scaled_diff));

  f.emplace_back("cusparse_ok", r.cus_ran ? Value{r.cus_ok} : Value{});
  f.emplace_back("cusparse_error", opt_str(r.cus_error));
  f.emplace_back("cusparse_note", opt_str(r.cus_note));
  f.emplace_back("cusparse_setup_ms", opt_num(r.cus.setup));
  f.emplace_back("cusparse_work_estimation_ms", opt_num(r.cus.work));
  f.emplace_back("cusparse_compute_ms", opt_num(r.cus.compute));
  f.emplace_back("cusparse_alloc_ms", opt_num(r.cus.alloc));
  f.emplace_back("cusparse_copy_ms", opt_num(r.cus.copy));
  f.emplace_back("cusparse_total_ms", opt_num(r.cus.total));
  f.emplace_back("cusparse_gflops", opt_num(r.cus_gflops()));
  f.emplace_back("cusparse_nnz_c", opt_int(r.cus_nnz_c));
  f.emplace_back("cusparse_buffer1_bytes", opt_int(r.cus_buffer1_bytes));
  f.emplace_back("cusparse_buffer2_bytes", opt_int(r.cus_buffer2_bytes));
  f.emplace_back("cusparse_peak_bytes", opt_int(r.cus_peak_bytes));
  f.emplace_back("cusparse_reuse_first_ms", opt_num(r.cus_reuse_first));
  f.emplace_back("cusparse_reuse_compute_ms", opt_num(r.cus_reuse_compute));
  f.emplace_back("cusparse_reuse_peak_bytes", opt_int(r.cus_reuse_peak_bytes));
  f.emplace_back("cusparse_reuse_kept_bytes", opt_int(r.cus_reuse_kept_bytes));
  f.emplace_back("cusparse_reuse_error", opt_str(r.cus_reuse_error));
  f.emplace_back("cusparse_reuse_note", opt_str(r.cus_reuse_note));

  f.emplace_back("speedup", opt_num(r.speedup()));
  f.emplace_back("check",
                 r.check == Check::not_run ? Value{} : Value{std::string(check_name(r.check))});
  f.emplace_back("check_message", opt_str(r.check_message));
  f.emplace_back("max_rel_diff", opt_num(r.max_rel_diff));
  f.emplace_back("max_row_scaled_diff", opt_num(r.max_row_scaled_diff));
  return f;
}

std::ofstream open_out(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot open '{}' for writing", path));
  return out;
}

void close_out(std::ofstream& out, const std::string& path) {
  out.close();
  if (!out) throw std::runtime_error(fmt::format("writing '{}' failed", path));
}

}  // namespace

void write_csv(const std::string& path, const std::vector<Record>& records, const RunInfo& info,
               const Options& opts) {
  std::ofstream out = open_out(path);
  const Fields run = run_fields(info, opts);
  Fields header = run;
  for (auto& field : record_fields(Record{})) header.push_back(field);
  for (size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i].first;
  out << "\n";
  for (const Record& r : records) {
    Fields f = run;
    for (auto& field : record_fields(r)) f.push_back(std::move(field));
    for (size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << f[i].second.csv;
    out << "\n";
  }
  close_out(out, path);
}

void write_json(const std::string& path, const std::vector<Record>& records, const RunInfo& info,
                const Options& opts) {
  std::ofstream out = open_out(path);
  out << "{\n";
  out << "  \"tool\": \"spgemm-bench\",\n";
  out << "  \"libspgemm_version\": " << info.spgemm << ",\n";
  for (const auto& [name, value] : run_fields(info, opts))
    out << "  " << json_quote(name) << ": " << value.json << ",\n";
  out << "  \"have_gpu\": " << (info.have_gpu ? "true" : "false") << ",\n";
  out << "  \"cuda_runtime_version\": " << info.cuda_runtime << ",\n";
  out << "  \"cuda_driver_version\": " << info.cuda_driver << ",\n";
  out << "  \"cusparse_version\": " << info.cusparse << ",\n";
  const auto int_type = [](int bytes) { return bytes == 8 ? "int64" : "int32"; };
  out << "  \"index_type\": \""
      << (opts.index.offsets == opts.index.columns
              ? std::string(int_type(opts.index.offsets))
              : fmt::format("{}/{}", int_type(opts.index.offsets), int_type(opts.index.columns)))
      << "\",\n";
  out << "  \"alloc_description\": " << json_quote(info.alloc_description) << ",\n";
  out << "  \"timer\": " << json_quote(info.timer_description) << ",\n";
  out << "  \"started\": " << json_quote(info.started) << ",\n";
  out << "  \"records\": [";
  for (size_t k = 0; k < records.size(); ++k) {
    out << (k ? ",\n" : "\n") << "    {";
    const Fields f = record_fields(records[k]);
    for (size_t i = 0; i < f.size(); ++i)
      out << (i ? ", " : "") << json_quote(f[i].first) << ": " << f[i].second.json;
    out << "}";
  }
  out << "\n  ]\n}\n";
  close_out(out, path);
}

}  // namespace bench
