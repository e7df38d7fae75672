// SPDX-License-Identifier: Apache-2.0
// spgemm-host-floor: what one core gives with the plainest serial loops of a
// row-by-row (Gustavson) product, beside which the host backend's times and
// SciPy's (bench/host_scipy.py) are read. fp64 values, 32-bit indices,
// C = A*A (A*A^T for rectangular A), C's arrays allocated per rep and
// advised to huge pages as SciPy's are.
//
//   spgemm-host-floor [--reps N] [--warmup N] [--csv FILE] (FILE.mtx[.gz] | --gen SPEC)...
//
// Three loops, each a pass over every product a_ik * b_kj in row order:
//  - count: each row's distinct columns, by a mark per column of C holding
//    the last row that set it (SciPy's first pass, csr_matmat_maxnnz);
//  - unsorted: each row summed in a dense array over C's columns, its
//    columns chained in a linked list as they first come and written in
//    that order (SciPy's second pass, csr_matmat; exact zeros kept);
//  - sorted: the same dense sums, the row's columns listed as they first
//    come, then sorted (insertion sort up to 32, else std::sort), as C with
//    sorted rows (libspgemm's and GraphBLAS's) needs.
// Medians over --reps (default 7); count + unsorted is SciPy's algorithm
// without Python, count + sorted a serial floor for sorted rows. The three
// counts of nnz(C) are checked against each other.
#include "generators.hpp"
#include "host_util.hpp"
#include "matrix_market.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Csr = spgemm_test::HostCsr<double>;

// One of C's arrays, allocated per rep as a fresh product's would be.
template <class T>
struct Fresh {
  explicit Fresh(size_t n) : p(static_cast<T*>(std::malloc(std::max<size_t>(n, 1) * sizeof(T)))) {
    if (!p) throw std::runtime_error("out of memory");
    bench::advise_huge_pages(p, n * sizeof(T));
  }
  ~Fresh() {
    // C is written to be kept: the compiler must not drop the stores as dead
    asm volatile("" : : "r"(p) : "memory");
    std::free(p);
  }
  Fresh(const Fresh&) = delete;
  Fresh& operator=(const Fresh&) = delete;
  T* p;
};

int64_t count(const Csr& a, const Csr& b) {
  std::vector<int32_t> mark(static_cast<size_t>(b.cols), -1);  // rows fit the 32-bit indices
  int64_t nnz = 0;
  for (int64_t i = 0; i < a.rows; ++i)
    for (int32_t p = a.row_offsets[i]; p < a.row_offsets[i + 1]; ++p) {
      const int32_t k = a.col_ind[p];
      for (int32_t q = b.row_offsets[k]; q < b.row_offsets[k + 1]; ++q) {
        const int32_t j = b.col_ind[q];
        if (mark[j] != static_cast<int32_t>(i)) {
          mark[j] = static_cast<int32_t>(i);
          ++nnz;
        }
      }
    }
  return nnz;
}

// Calls row(i, products) for each row i of C; products(visit) calls
// visit(j, a_ik * b_kj) for each of the row's products in order.
template <class Row>
void for_each_product_row(const Csr& a, const Csr& b, Row&& row) {
  for (int64_t i = 0; i < a.rows; ++i)
    row(i, [&](auto&& visit) {
      for (int32_t p = a.row_offsets[i]; p < a.row_offsets[i + 1]; ++p) {
        const int32_t k = a.col_ind[p];
        const double v = a.values[p];
        for (int32_t q = b.row_offsets[k]; q < b.row_offsets[k + 1]; ++q)
          visit(b.col_ind[q], v * b.values[q]);
      }
    });
}

int64_t unsorted(const Csr& a, const Csr& b, int64_t nnz_c) {
  Fresh<int32_t> offsets(static_cast<size_t>(a.rows) + 1), cols(static_cast<size_t>(nnz_c));
  Fresh<double> values(static_cast<size_t>(nnz_c));
  std::vector<int32_t> next(static_cast<size_t>(b.cols), -1);
  std::vector<double> sums(static_cast<size_t>(b.cols), 0.0);
  int64_t nnz = 0;
  offsets.p[0] = 0;
  for_each_product_row(a, b, [&](int64_t i, auto&& products) {
    int32_t head = -2;
    products([&](int32_t j, double x) {
      sums[j] += x;
      if (next[j] == -1) {
        next[j] = head;
        head = j;
      }
    });
    while (head != -2) {
      if (nnz < nnz_c) {
        cols.p[nnz] = head;
        values.p[nnz] = sums[head];
      }
      ++nnz;
      const int32_t j = head;
      head = next[j];
      next[j] = -1;
      sums[j] = 0.0;
    }
    offsets.p[i + 1] = static_cast<int32_t>(nnz);
  });
  return nnz;
}

int64_t sorted(const Csr& a, const Csr& b, int64_t nnz_c) {
  Fresh<int32_t> offsets(static_cast<size_t>(a.rows) + 1), cols(static_cast<size_t>(nnz_c));
  Fresh<double> values(static_cast<size_t>(nnz_c));
  std::vector<unsigned char> seen(static_cast<size_t>(b.cols), 0);
  std::vector<double> sums(static_cast<size_t>(b.cols), 0.0);
  std::vector<int32_t> list(static_cast<size_t>(b.cols));
  int64_t nnz = 0;
  offsets.p[0] = 0;
  for_each_product_row(a, b, [&](int64_t i, auto&& products) {
    int32_t n = 0;
    products([&](int32_t j, double x) {
      sums[j] += x;
      if (!seen[j]) {
        seen[j] = 1;
        list[n++] = j;
      }
    });
    if (n <= 32) {
      for (int32_t s = 1; s < n; ++s) {
        const int32_t key = list[s];
        int32_t t = s;
        for (; t > 0 && key < list[t - 1]; --t) list[t] = list[t - 1];
        list[t] = key;
      }
    } else {
      std::sort(list.begin(), list.begin() + n);
    }
    for (int32_t s = 0; s < n; ++s) {
      const int32_t j = list[s];
      if (nnz < nnz_c) {
        cols.p[nnz] = j;
        values.p[nnz] = sums[j];
      }
      ++nnz;
      seen[j] = 0;
      sums[j] = 0.0;
    }
    offsets.p[i + 1] = static_cast<int32_t>(nnz);
  });
  return nnz;
}

template <class F>
double median_ms(int reps, int warmup, F&& f) {
  std::vector<double> ms;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    if (rep >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return bench::median(ms);
}

}  // namespace

int main(int argc, char** argv) try {
  int reps = 7, warmup = 1;
  std::string csv_path;
  std::vector<std::pair<std::string, bool>> specs;  // (path or spec, generated)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--reps") reps = std::max(1, std::stoi(value()));
    else if (arg == "--warmup") warmup = std::stoi(value());
    else if (arg == "--csv") csv_path = value();
    else if (arg == "--gen") specs.emplace_back(value(), true);
    else if (!arg.empty() && arg[0] == '-') throw std::runtime_error("unknown option " + arg);
    else specs.emplace_back(arg, false);
  }
  if (specs.empty()) {
    std::fprintf(stderr,
                 "usage: spgemm-host-floor [--reps N] [--warmup N] [--csv FILE] "
                 "(FILE.mtx[.gz] | --gen SPEC)...\n");
    return 2;
  }
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (!csv_path.empty() && !csv) throw std::runtime_error("cannot write " + csv_path);
  if (csv) std::fprintf(csv, "name,nnz_c,count_ms,unsorted_ms,sorted_ms\n");
  std::printf("serial loops, 1 thread, fp64, medians of %d reps after %d warm-up\n\n", reps, warmup);
  std::printf("%-20s %12s %10s %12s %10s %16s %14s\n", "input", "nnz(C)", "count", "unsorted",
              "sorted", "count+unsorted", "count+sorted");
  for (const auto& [spec, generated] : specs) {
    const Csr a = generated ? spgemm_test::generate(spec) : spgemm_test::read_matrix_market(spec);
    const Csr at = a.rows == a.cols ? Csr{} : spgemm_test::transpose(a);
    const Csr& b = a.rows == a.cols ? a : at;  // B = A shares A's arrays, as in spgemm-bench
    const std::string name = generated ? spec : bench::matrix_name(spec);
    const int64_t nnz_c = count(a, b);
    int64_t got[2] = {0, 0};
    const double t_count = median_ms(reps, warmup, [&] { count(a, b); });
    const double t_unsorted = median_ms(reps, warmup, [&] { got[0] = unsorted(a, b, nnz_c); });
    const double t_sorted = median_ms(reps, warmup, [&] { got[1] = sorted(a, b, nnz_c); });
    if (got[0] != nnz_c || got[1] != nnz_c)
      throw std::runtime_error(name + ": the loops disagree on nnz(C)");
    std::printf("%-20s %12lld %10.4g %12.4g %10.4g %16.4g %14.4g\n", name.c_str(),
                static_cast<long long>(nnz_c), t_count, t_unsorted, t_sorted, t_count + t_unsorted,
                t_count + t_sorted);
    std::fflush(stdout);
    if (csv)
      std::fprintf(csv, "%s,%lld,%.6g,%.6g,%.6g\n", name.c_str(), static_cast<long long>(nnz_c),
                   t_count, t_unsorted, t_sorted);
  }
  if (csv) std::fclose(csv);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spgemm-host-floor: %s\n", e.what());
  return 1;
}
