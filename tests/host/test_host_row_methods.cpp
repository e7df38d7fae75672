// SPDX-License-Identifier: Apache-2.0
// The host backend's row methods (src/host/row_choice.hpp): inputs shaped so
// that the analysis takes each method (a scaled copy of B's row, a dense
// window summed without flags where B's runs cover the span, read by
// scanning its flags, short or long spans, or by a sorted list, a hash table
// for wide spans, sorted terms, short rows of C listed over all its columns,
// C narrow or its rows' spans narrow; the symbolic phase's counts by marks, with
// each row's facts where B's rows are mostly runs of consecutive columns
// (the bands) and without them elsewhere, by hash and by sorted terms), and
// each method forced through
// SPGEMM_TEST_HOST_ROW_METHOD wherever it can compute a row, in every value
// type and index layout, with and without an addend D, against the oracle.
// Every method sums a column's terms in the same order, so the result must
// also be the same bits whatever the method and the number of threads.
#include "csr_defects.hpp"
#include "host/row_choice.hpp"
#include "extreme_cases.hpp"
#include "layout_product.hpp"
#include "scoped_env.hpp"
#include "shaped_case.hpp"

#include <catch2/catch.hpp>
#include <omp.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace spgemm_test;

namespace {

// The methods a test can force ("": the analysis chooses).
const char* const kMethods[] = {"", "copy", "dense_span", "dense_scan", "dense_sort", "hash",
                                "terms_sort", "short_list"};
const int kThreads[] = {1, 2, 3};

// Sets SPGEMM_TEST_HOST_ROW_METHOD and the OpenMP threads for its lifetime.
class ForcedRun {
 public:
  ForcedRun(const char* method, int threads)
      : method_("SPGEMM_TEST_HOST_ROW_METHOD",
                *method ? std::optional<std::string>(method) : std::nullopt),
        threads_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ForcedRun() { omp_set_num_threads(threads_); }
  ForcedRun(const ForcedRun&) = delete;
  ForcedRun& operator=(const ForcedRun&) = delete;

 private:
  ScopedEnv method_;
  int threads_;
};

// Each has more than kMinProductsForThreads (16384) products and 256 rows
// (src/host/host_engine.cpp), so that it runs on the threads asked for.
std::vector<Shaped> shaped_products() {
  std::vector<Shaped> out;
  // copy: single-entry rows of A over sorted rows of B
  out.push_back({"single-entry rows of A", one_per_row<double>(20000, 3000, 1),
                 uniform_random(3000, 2500, 6, 2), std::nullopt});
  // not copy: the same rows of A over unsorted rows of B with repeated columns
  out.push_back({"single-entry rows of A, B unsorted with repeats",
                 one_per_row<double>(20000, 3000, 3),
                 with_repeated_entries(with_reversed_rows(uniform_random(3000, 2500, 6, 4)), 5),
                 std::nullopt});
  // dense_scan, short spans: a narrow band
  const auto band = banded(2000, 4, 6);
  out.push_back({"banded:2000:4 squared", band, band, std::nullopt});
  // dense_scan, long spans read by groups: a 3D stencil
  const auto stencil = generate("stencil27:8");
  out.push_back({"stencil27:8 squared", stencil, stencil, std::nullopt});
  // dense_sort: wide spans of few terms
  const auto wide = generate("powerlaw:10000");
  out.push_back({"powerlaw:10000 squared", wide, wide, std::nullopt});
  // empty rows among the others, and some single-entry ones
  out.push_back({"uniform with empty rows",
                 with_empty_rows(uniform_random(8000, 4000, 4, 7), 0.3, 8),
                 uniform_random(4000, 4500, 5, 9), std::nullopt});
  // more rows than the symbolic phase's 16-bit marks have stamps (65535):
  // on one thread rows 0 and 65535 take the same stamp, the marks cleared
  // between them, and only they read B's rows 0 and 1 (columns 0-5, no
  // other row's): uncleared marks would count row 65535 empty
  const int64_t stamps = 65535;
  const auto after_wrap = rows_of<double>(stamps + 4465, 3000, 2, 16, [&](int64_t r, int64_t j) {
    return r == 0 || r == stamps ? j : 2 + 2 * (r % 1499) + j;
  });
  const auto marked = rows_of<double>(3000, 2500, 3, 17, [](int64_t k, int64_t j) {
    return k < 2 ? k + 2 * j : 10 + (k * 7) % 2400 + 37 * j;
  });
  out.push_back({"more rows than the marks' stamps", after_wrap, marked, std::nullopt});
  // terms_sort: spans wider than any dense window (2^22 columns)
  // (each row of B spans nearly all its columns, unsorted: first and last
  // near the two ends)
  const int64_t wide_cols = (int64_t{1} << 22) + 5000;
  Rng pick(11);
  const auto spanning = rows_of<double>(200, wide_cols, 5, 12, [&](int64_t, int64_t j) {
    const auto near = static_cast<int64_t>(pick.below(100));
    if (j == 0) return near;
    if (j == 4) return wide_cols - 1 - near;
    return static_cast<int64_t>(pick.below(static_cast<uint64_t>(wide_cols)));
  });
  out.push_back({"B's rows wider than a dense window", uniform_random(4000, 200, 4, 10), spanning,
                 std::nullopt});
  // short_list over C wider than its sums' budget (row_choice.hpp,
  // kShortSpanCaches) where the rows' spans are narrow: each row of B ten
  // columns at 800 * its index, a row of A three neighbouring rows of B
  // (spans of ~1.6k of 2.5M columns) ...
  const int64_t far_cols = 2500000;
  const auto neighbours = rows_of<double>(3000, 3000, 3, 18, [](int64_t r, int64_t j) {
    return r < 2997 ? r + j : j;
  });
  const auto spaced = rows_of<double>(3000, far_cols, 4, 19, [](int64_t k, int64_t j) {
    return 800 * k + 3 * j;
  });
  out.push_back({"short rows of narrow spans in a wide C", neighbours, spaced, std::nullopt});
  // ... and not where they span most of C (hash)
  out.push_back({"short rows of wide spans in a wide C", uniform_random(3000, 3000, 3, 20),
                 uniform_random(3000, far_cols, 4, 21), std::nullopt});
  // D's columns in the span, copy rows turned dense by D
  out.push_back({"single-entry rows of A + D", one_per_row<double>(20000, 3000, 12),
                 uniform_random(3000, 2500, 6, 13), random_rect(20000, 2500, 0.001, 14)});
  out.push_back({"banded:2000:4 + D of a wider band", band, band, banded(2000, 9, 15)});
  return out;
}

// Every case in layout L, both index bases: each forced method and thread
// count against the oracle, and bitwise against the analysis' own choice on
// the default threads. Returns the differences found.
template <class L>
std::vector<std::string> check_methods() {
  using V = typename L::Value;
  spgemmHandle_t handle = nullptr;
  spgemm_ok(spgemmCreate(&handle), "spgemmCreate");
  std::vector<std::string> failures;
  for (const Shaped& shaped : shaped_products()) {
    const ShapedCase<V> c(shaped);
    if (product_count(c.A, c.B) < 16384) failures.push_back(c.name + ": too few products");
    ProductOptions<V> options;
    if (c.D) {
      options.D = &*c.D;
      options.D2 = &*c.D2;
      options.beta = c.beta;
    }
    for (const int base : {0, 1}) {
      auto run = [&] {
        return layout_product<V, typename L::Offset, typename L::Col>(
            handle, c.A, c.B, c.A2, c.B2, c.alpha, base, SPGEMM_MEMORY_HOST, options);
      };
      std::pair<HostCsr<V>, HostCsr<V>> chosen;
      {
        const ForcedRun scope("", omp_get_max_threads());
        chosen = run();
      }
      const std::string where = c.name + " base " + std::to_string(base);
      std::string diff = compare_csr(chosen.first, c.C, default_rtol<V>());
      if (diff.empty()) diff = compare_csr(chosen.second, c.C2, default_rtol<V>());
      if (!diff.empty()) failures.push_back(where + ": " + diff);
      for (const char* method : kMethods)
        for (const int threads : kThreads) {
          const ForcedRun scope(method, threads);
          const auto got = run();
          std::string same = compare_identical(got.first, chosen.first);
          if (same.empty()) same = compare_identical(got.second, chosen.second);
          if (!same.empty())
            failures.push_back(where + ", method '" + method + "', " + std::to_string(threads) +
                               " threads, not the same bits: " + same);
        }
    }
  }
  spgemmDestroy(handle);
  return failures;
}

}  // namespace

// The choice of short_list, where its sums fit and for which rows.
TEST_CASE("host backend: short rows take short_list before their facts", "[host][row_methods]") {
  using namespace spgemm::host;
  const int64_t l2 = int64_t{1} << 20, fp64 = 9;  // a value and a flag a column
  const int64_t budget = kShortSpanCaches * l2 / fp64;
  int sampled = 0;
  auto mean_span = [&sampled](int64_t span) {
    return [&sampled, span] {
      ++sampled;
      return span;
    };
  };
  // C within the budget: every row fits, whatever its span, and no sample is taken
  CHECK(short_list_fits(budget, fp64, l2, mean_span(budget * 100)));
  CHECK(sampled == 0);
  // wider C: by the rows' mean span
  CHECK(short_list_fits(budget + 1, fp64, l2, mean_span(budget)));
  CHECK_FALSE(short_list_fits(budget + 1, fp64, l2, mean_span(budget + 1)));
  CHECK(sampled == 2);
  // wider than a dense window: never, and no sample is taken
  CHECK_FALSE(short_list_fits(kDenseMaxSpan + 1, fp64, l2, mean_span(1)));
  CHECK(sampled == 2);
  // the rows: short and not a copy, unless forced to it or away from it
  CHECK(takes_short_list(kShortRowColumns, false, RowMethod::count_));
  CHECK(takes_short_list(0, false, RowMethod::count_));
  CHECK_FALSE(takes_short_list(kShortRowColumns + 1, false, RowMethod::count_));
  CHECK_FALSE(takes_short_list(1, true, RowMethod::count_));
  CHECK(takes_short_list(kShortRowColumns + 1, true, RowMethod::short_list));
  CHECK_FALSE(takes_short_list(1, false, RowMethod::hash));
}

TEMPLATE_LIST_TEST_CASE("host backend: every row method, every layout, the same bits",
                        "[host][row_methods]", AllLayouts) {
  const auto failures = check_methods<TestType>();
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}
