// SPDX-License-Identifier: Apache-2.0
// Every kernel of the GPU engine's choice table (src/cuda/dispatch/choice.hpp:
// SymbolicKernel, NumericKernel) run in every value type and index layout
// against the oracle. Products shaped for each kernel run with the choices
// left to the rules and forced (SPGEMM_TEST_GPU_CHOICE) where both ways
// compute the product, each with a second numeric phase on new values (the reuse of C's columns); the choices made are
// logged (SPGEMM_TEST_GPU_CHOICE_LOG), and a kernel that none of them chose
// fails the test: a new entry of the table needs a product here that runs it.
#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "layout_product.hpp"
#include "scoped_env.hpp"
#include "shaped_case.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace spgemm_test;

namespace {

// A product and the stride of the rows of A (and D) it keeps under
// compute-sanitizer (SPGEMM_TEST_CHOICE_THIN=1), so that racecheck, whose
// time grows with the shared-memory accesses, ends within its limit: 16
// where every 16th row runs the kernels that all of them run, 1 where
// fewer rows lose one (a small product's warp kernel, taken for C of
// thousands of rows; the band's ranges) or the product is quick anyway
// (every stride up to 32 measured on an H100 in two layouts:
// docs/data/suite-h100-2af8bbb.txt).
struct ChoiceProduct {
  Shaped shaped;
  int64_t thin = 1;
};

// Small enough that every product takes milliseconds; each comment names
// the kernels its rows are meant for (on an H100 or H200).
std::vector<ChoiceProduct> shaped_products() {
  std::vector<ChoiceProduct> out;
  const auto poisson = poisson2d_5pt(60);  // 3,600 rows of 25 terms
  // small warp rows, sort rows of K = 1; forced: thread rows, warp hashes
  out.push_back({{"poisson2d:60", poisson, poisson, std::nullopt}});
  // the same with D (the kernels compiled with the addend)
  out.push_back({{"poisson2d:60 + D", poisson, poisson, poisson2d_5pt(60, 2)}});
  // a small product of few rows: a block a row
  const auto few = uniform_random(200, 200, 5, 3);
  out.push_back({{"200 rows of 25 terms", few, few, std::nullopt}});
  // rows of ~36 terms: sort rows of K = 2
  const auto k2 = uniform_random(3000, 3000, 6, 4);
  out.push_back({{"rows of 36 terms", k2, k2, std::nullopt}});
  // rows of ~100 terms: warp hashes in both phases
  const auto warp = uniform_random(3000, 3000, 10, 5);
  out.push_back({{"rows of 100 terms", warp, warp, std::nullopt}, 16});
  // B wider than the small tables' bits, rows of ~30 terms: a bitmask over
  // the row's range where ranges are measured, matched columns
  out.push_back({{"rows of 30 terms over 20000 columns", uniform_random(3000, 20000, 3, 6),
                  uniform_random(20000, 20000, 10, 7), std::nullopt}});
  // narrow ranges of many terms: the range bitmask of larger warp bins
  // (of every second row, the ranges are not measured)
  const auto band = banded(20000, 8, 8);
  out.push_back({{"banded:20000:8", band, band, std::nullopt}});
  // block rows, long rows of B: block hashes, lean and regular
  const auto wide_b = uniform_random(20000, 20000, 20, 9);
  out.push_back({{"block rows over rows of B of 20", uniform_random(2000, 20000, 40, 10), wide_b,
                  std::nullopt},
                 16});
  // block rows over rows of B of 8: numbered symbolic blocks
  out.push_back({{"block rows over rows of B of 8", uniform_random(2000, 20000, 100, 11),
                  uniform_random(20000, 20000, 8, 12), std::nullopt},
                 16});
  // rows of the last hash bin, B within its table: deferred rows of B in
  // the symbolic phase, rows split among blocks where forced
  // (the last hash bin holds rows of at most 8192 nnz where its table fits
  // the shared memory, of 4096 for complex128's wider slots: ~5000 and
  // ~2500 nnz)
  const auto b_in_table = uniform_random(8000, 8000, 20, 14);
  out.push_back({{"last hash bin rows", uniform_random(32, 8000, 400, 13), b_in_table,
                  std::nullopt},
                 16});
  out.push_back({{"rows of 2500 nnz", uniform_random(32, 8000, 150, 17), b_in_table,
                  std::nullopt},
                 16});
  // rows beyond every table: dense windows in both phases, with and without D
  const auto long_a = uniform_random(64, 20000, 1000, 15);
  out.push_back({{"rows of 20000 terms", long_a, wide_b, std::nullopt}, 16});
  out.push_back(
      {{"rows of 20000 terms + D", long_a, wide_b, uniform_random(64, 20000, 50, 16)}, 16});
  return out;
}

// The runs of every product: SPGEMM_TEST_GPU_CHOICE.
const char* const kRuns[] = {
    "",
    "small=never",
    "small=never,lean=always,split=always,ranges=always",
    "small=never,thread_rows=always,lean=always,ranges=always",
    "small=never,thread_rows=never,lean=never,split=never,ranges=never,few_launches=never,"
    "matched=never",
    "small=never,symbolic_block=numbered",
    "small=never,symbolic_block=deferred",
    "small=never,symbolic_block=hash",
};

const char* const kSymbolicKernels[] = {
    "small_warp",      "small_block",       "thread_row",     "warp_hash",
    "warp_hash_matched", "warp_range_mask", "warp_range_mask_matched", "block_hash",
    "block_numbered",  "block_deferred",    "dense_window"};
const char* const kNumericKernels[] = {"thread_row", "sort_row_1",      "sort_row_2",
                                       "warp_hash",  "block_hash",      "block_hash_lean",
                                       "split_row",  "dense_window"};

// A product and the runs of it (of kRuns) that a process takes.
struct ProductRuns {
  Shaped shaped;
  std::vector<const char*> runs;
};

// The products and runs a process takes: all, or with
// SPGEMM_TEST_CHOICE_SLICE=k/n the k-th of n equal parts of the (product,
// run) pairs in order (with n the number of products, a product each), so
// that compute-sanitizer's runs (tests/sanitize.sh) split the work among
// processes that each end within their time limit; with
// SPGEMM_TEST_CHOICE_THIN=1 each product thinned (ChoiceProduct::thin).
// Sets n (1: all).
std::vector<ProductRuns> products_of_slice(int& n) {
  n = 1;
  int k = 0;
  if (const char* slice = std::getenv("SPGEMM_TEST_CHOICE_SLICE")) {
    char rest = 0;
    if (std::sscanf(slice, "%d/%d%c", &k, &n, &rest) != 2 || n < 1 || k < 0 || k >= n)
      FAIL("SPGEMM_TEST_CHOICE_SLICE must be k/n with 0 <= k < n, got '" << slice << "'");
  }
  const char* thin = std::getenv("SPGEMM_TEST_CHOICE_THIN");
  const bool thinned = thin && std::string(thin) == "1";
  if (thin && !thinned && std::string(thin) != "0")
    FAIL("SPGEMM_TEST_CHOICE_THIN must be 0 or 1, got '" << thin << "'");
  std::vector<ChoiceProduct> all = shaped_products();
  const size_t runs = std::size(kRuns), pairs = all.size() * runs;
  const size_t first = pairs * static_cast<size_t>(k) / static_cast<size_t>(n);
  const size_t last = pairs * static_cast<size_t>(k + 1) / static_cast<size_t>(n);
  std::vector<ProductRuns> out;
  for (size_t pair = first; pair < last; ++pair) {
    const size_t i = pair / runs;
    if (out.empty() || pair % runs == 0) {
      Shaped& s = all[i].shaped;
      if (thinned && all[i].thin > 1) {
        std::vector<int64_t> which;
        for (int64_t r = 0; r < s.A.rows; r += all[i].thin) which.push_back(r);
        s.A = select_rows(s.A, which);
        if (s.D) s.D = select_rows(*s.D, which);
      }
      out.push_back({std::move(s), {}});
    }
    out.back().runs.push_back(kRuns[pair % runs]);
  }
  return out;
}

// The kernels ("phase kernel") that the choice log names from its line
// `from` on; sets `from` to the log's end.
std::set<std::string> kernels_logged(const std::string& log, size_t& from) {
  std::set<std::string> out;
  std::ifstream in(log);
  size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    if (n < from) continue;
    std::istringstream words(line);
    std::string phase, kernel;
    words >> phase >> kernel;
    out.insert(phase + " " + kernel);
  }
  from = n;
  return out;
}

// Every product of shaped_products (of the slice) in layout L, every run,
// against the oracle; then, for all products, every kernel of the table
// must be in the log.
template <class L>
void check_kernels() {
  using V = typename L::Value;
  const std::string log = "kernel_choices_" + std::to_string(sizeof(V)) + "_" +
                          std::to_string(sizeof(typename L::Offset)) + "_" +
                          std::to_string(sizeof(typename L::Col)) + ".log";
  std::remove(log.c_str());
  std::vector<std::string> failures;
  std::set<std::string> chosen;
  size_t logged = 0;
  int slices = 1;
  {
    const ScopedEnv logging("SPGEMM_TEST_GPU_CHOICE_LOG", log);
    for (const ProductRuns& product : products_of_slice(slices)) {
      const auto started = std::chrono::steady_clock::now();
      const ShapedCase<V> c(product.shaped);
      ProductOptions<V> options;
      if (c.D) {
        options.D = &*c.D;
        options.D2 = &*c.D2;
        options.beta = c.beta;
      }
      for (const char* run : product.runs) {
        const ScopedEnv forced("SPGEMM_TEST_GPU_CHOICE", run);
        Handle handle;
        const auto got = layout_product<V, typename L::Offset, typename L::Col>(
            handle.h, c.A, c.B, c.A2, c.B2, c.alpha, 0, SPGEMM_MEMORY_DEVICE, options);
        std::string diff = compare_csr(got.first, c.C, default_rtol<V>());
        if (diff.empty()) diff = compare_csr(got.second, c.C2, default_rtol<V>());
        if (!diff.empty())
          failures.push_back(c.name + ", '" + run + "': " + diff);
      }
      // a line per product with its time and kernels, so that a run cut
      // short by its time limit (as under compute-sanitizer) tells how far
      // it came and where the time went
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      std::string kernels;
      for (const std::string& k : kernels_logged(log, logged)) {
        kernels += (kernels.empty() ? "" : ", ") + k;
        chosen.insert(k);
      }
      std::printf("%s (%s): %.1f s: %s\n", c.name.c_str(), log.c_str(), took.count(),
                  kernels.c_str());
      std::fflush(stdout);
    }
  }
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
  if (slices > 1) {  // a slice need not reach every kernel
    std::remove(log.c_str());
    return;
  }
  for (const char* k : kSymbolicKernels) {
    INFO("symbolic " << k);
    CHECK(chosen.count(std::string("symbolic ") + k) == 1);
  }
  for (const char* k : kNumericKernels) {
    INFO("numeric " << k);
    CHECK(chosen.count(std::string("numeric ") + k) == 1);
  }
  CHECK(chosen.size() == std::size(kSymbolicKernels) + std::size(kNumericKernels));
  std::remove(log.c_str());
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("GPU: every kernel of the choice table, every layout", "[gpu][choice]",
                        AllLayouts) {
  check_kernels<TestType>();
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
