// SPDX-License-Identifier: Apache-2.0
// Deterministic results: the same product gives the same bits on every run,
// with the same plan, a new plan and a new handle, on matrices whose rows of
// C land in every bin (warp and block hash tables, dense windows, a thread a
// row), with repeated column indices and with an addend D. Values span
// 2^-30 .. 2^30, so a different order of the adds would change the
// rounding. Every run is also checked against the oracle, and
// spgemmSetDeterministic(handle, 0) must give the same bits.
#include "catch_main_skip.hpp"
#include "csr_defects.hpp"
#include "device_product.hpp"
#include "layout_product.hpp"
#include "random.hpp"
#include "value_traits.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>

using namespace spgemm_test;

namespace {

// Signs and magnitudes spread over 60 binades (fixed seed).
template <class V>
HostCsr<V> spread_values(const HostCsr<double>& m, uint64_t seed) {
  HostCsr<V> out = convert_values<V>(m);
  Rng rng(seed);
  auto spread = [&] { return std::ldexp(rng.value(), static_cast<int>(rng.next() % 61) - 30); };
  for (V& v : out.values) {
    const double re = spread();
    v = make_value<V>(re, spread());
  }
  return out;
}

struct Spec {
  const char* name;
  HostCsr<double> (*make)();
};

// Rows of C in every bin: a small product (poisson2d:40, all rows through
// one kernel per phase), rows of at most 32 and 64 terms (poisson2d:300 and
// uniform:70000:8, sort bins), short rows (warp tables), 300-5000 entries
// (block tables; banded:3000:200 with rows of B taken whole,
// kernels/ordered_loop.cuh), unsorted rows with repeated columns, sorted
// rows of 41 entries with repeats (which rule out whole rows of B; taken
// whole, the repeats would lose terms) and rows of up to 64 terms with
// repeats; then (long, double
// only: the oracle takes seconds) more than 8192 entries (dense windows),
// from long rows of A or from one long row of B shared by many rows, also
// wider than one window (window by window, or where the row fits, at its
// columns' ranks); and the last hash bin's few rows split among blocks, in
// every value type.
//
// Four groups, each a test case of its own, so that compute-sanitizer
// (tests/sanitize.sh, one process a case) runs them side by side.
// A thread a row and the sort bins:
const Spec kThreadAndSortSpecs[] = {
    {"poisson2d:40", [] { return generate("poisson2d:40"); }},
    {"poisson2d:300", [] { return generate("poisson2d:300"); }},
    // 270,400 rows of 25 terms: a thread a row (configs/bins.hpp's thread bin)
    {"poisson2d:520", [] { return generate("poisson2d:520"); }},
    // 200,000 rows of 25 terms in as many columns, a thread a row: rows of
    // up to 25 slots written across the warp after they are staggered
    // (accumulators/thread_row.cuh's stagger)
    {"uniform:200000:5", [] { return generate("uniform:200000:5"); }},
    {"uniform:70000:8", [] { return generate("uniform:70000:8"); }},
};
// Warp and block hash tables:
const Spec kHashSpecs[] = {
    {"uniform:3000:12", [] { return generate("uniform:3000:12"); }},
    {"powerlaw:4000", [] { return generate("powerlaw:4000"); }},
};
// Block tables, rows of B taken whole (480M products: a case of its own):
const Spec kWholeRowSpecs[] = {
    {"banded:3000:200", [] { return generate("banded:3000:200"); }},
};
// Repeated columns:
const Spec kRepeatedSpecs[] = {
    {"repeated powerlaw:3000",
     [] { return with_reversed_rows(with_repeated_entries(generate("powerlaw:3000"), 5)); }},
    {"repeated banded:1000:20",
     [] { return with_repeated_entries(generate("banded:1000:20"), 7); }},
    // rows of 33-64 terms (the second sort bin) whose columns repeat up to
    // four times, in one register or across both: their terms are summed
    // after the sort, in the order the combining takes
    // (accumulators/register_row.cuh's write_row_of_terms)
    {"repeated uniform:70000:5",
     [] { return with_repeated_entries(generate("uniform:70000:5"), 9); }},
};
const Spec kLongSpecs[] = {
    {"hub:20000", [] { return generate("hub:20000"); }},
    {"longrows:20000", [] { return generate("longrows:20000"); }},
    // rows of 30000 entries over 60000 columns: several windows, and sorted
    // rows of B of 8.6 entries on average, so each window numbers only its
    // own terms (ColumnWindow in kernels/ordered_loop.cuh)
    {"hub:60000:30000:3000:8", [] { return generate("hub:60000:30000:3000:8"); }},
    // rows of 16000 entries over 60000 columns, which fit beside a bitmask
    // over their range: summed at their columns' ranks in one pass
    // (accumulators/ranked_row.cuh)
    {"hub:60000:16000:300:8", [] { return generate("hub:60000:16000:300:8"); }},
    // long rows of A naming about 80 rows of B of 1000 entries each, which
    // blocks take whole after each chunk's numbered terms
    // (kernels/ordered_loop.cuh's add_row_in_order)
    {"longrows:10000:800:1000:4", [] { return generate("longrows:10000:800:1000:4"); }},
};
// 8 rows of about 90,000 terms and at most 3,000 entries (B's columns),
// the last hash bin's only rows: without D, in the deterministic mode,
// each split among blocks that add their parts in turn
// (kernels/numeric.cuh's split_numeric_kernel) on a device of at least 16
// SMs; the other rows about 1,600 terms (6 M products: not small).
const Spec kSplitSpecs[] = {
    {"longrows:3000:8:2000:40", [] { return generate("longrows:3000:8:2000:40"); }},
};

template <class V, class Offset, class Col>
struct Runs {
  HostCsr<V> first, again, fresh;  // one plan twice, then a new handle and plan
};

template <class V, class Offset, class Col>
Runs<V, Offset, Col> run_three_times(int deterministic, const HostCsr<V>& A,
                                     const ProductOptions<V>& options) {
  Runs<V, Offset, Col> runs;
  const V alpha = V(-1.25);
  for (int handle_no = 0; handle_no < 2; ++handle_no) {
    Handle handle;
    spgemm_ok(spgemmSetDeterministic(handle.h, deterministic), "spgemmSetDeterministic");
    auto [one, two] = layout_product<V, Offset, Col>(handle.h, A, A, A, A, alpha, 0,
                                                     SPGEMM_MEMORY_DEVICE, options);
    if (handle_no == 0) {
      runs.first = std::move(one);
      runs.again = std::move(two);
    } else {
      runs.fresh = std::move(one);
    }
  }
  return runs;
}

template <class V, class Offset, class Col>
void check_spec(const Spec& spec, bool with_addend) {
  const HostCsr<V> A = spread_values<V>(spec.make(), 11);
  const HostCsr<V> D = spread_values<V>(spec.make(), 12);
  ProductOptions<V> options;
  if (with_addend) {
    options.D = &D;
    options.D2 = &D;
    options.beta = V(0.5);
  }
  const ReferenceProduct<V> reference =
      reference_spgemm(A, A, V(-1.25), with_addend ? &D : nullptr, V(0.5));
  INFO(spec.name << (with_addend ? " + beta*D" : ""));
  // Spread values cancel: compare against the oracle relative to the sum of
  // the terms' magnitudes (compare.hpp does), with a float's or double's rtol.
  const auto det = run_three_times<V, Offset, Col>(1, A, options);
  for (const HostCsr<V>* run : {&det.first, &det.again, &det.fresh}) {
    const std::string diff = compare_csr(*run, reference, default_rtol<V>());
    INFO(diff);
    CHECK(diff.empty());
  }
  const std::string again = compare_identical(det.again, det.first);
  const std::string fresh = compare_identical(det.fresh, det.first);
  INFO("same plan: " << again << "; new handle: " << fresh);
  CHECK(again.empty());
  CHECK(fresh.empty());

  // spgemmSetDeterministic(handle, 0) is accepted and changes no bit
  const auto off = run_three_times<V, Offset, Col>(0, A, options);
  for (const HostCsr<V>* run : {&off.first, &off.again, &off.fresh}) {
    const std::string same = compare_identical(*run, det.first);
    INFO("setting off: " << same);
    CHECK(same.empty());
  }
}

template <class Layout, size_t N>
void check_specs(const Spec (&specs)[N]) {
  using V = typename Layout::Value;
  Handle handle;
  int enabled = -1;
  spgemm_ok(spgemmGetDeterministic(handle.h, &enabled), "spgemmGetDeterministic");
  REQUIRE(enabled == 1);  // the default
  for (const Spec& spec : specs) {
    check_spec<V, typename Layout::Offset, typename Layout::Col>(spec, false);
    check_spec<V, typename Layout::Offset, typename Layout::Col>(spec, true);
  }
}

}  // namespace

#define SPGEMM_DETERMINISM_LAYOUTS                                          \
  (Layout<float, int32_t, int32_t>), (Layout<double, int32_t, int32_t>), \
      (Layout<std::complex<double>, int64_t, int64_t>)

TEMPLATE_TEST_CASE("GPU results are the same bits on every run: a thread a row, sort bins",
                   "[gpu]", SPGEMM_DETERMINISM_LAYOUTS) {
  check_specs<TestType>(kThreadAndSortSpecs);
}

TEMPLATE_TEST_CASE("GPU results are the same bits on every run: hash tables", "[gpu]",
                   SPGEMM_DETERMINISM_LAYOUTS) {
  check_specs<TestType>(kHashSpecs);
}

TEMPLATE_TEST_CASE("GPU results are the same bits on every run: rows of B taken whole", "[gpu]",
                   SPGEMM_DETERMINISM_LAYOUTS) {
  check_specs<TestType>(kWholeRowSpecs);
}

TEMPLATE_TEST_CASE("GPU results are the same bits on every run: repeated columns", "[gpu]",
                   SPGEMM_DETERMINISM_LAYOUTS) {
  check_specs<TestType>(kRepeatedSpecs);
}

TEST_CASE("GPU results are the same bits on every run: rows of C in dense windows", "[gpu][long]") {
  check_specs<Layout<double, int32_t, int32_t>>(kLongSpecs);
}

TEMPLATE_TEST_CASE("GPU results are the same bits on every run: the last hash bin's rows split",
                   "[gpu][long]", SPGEMM_DETERMINISM_LAYOUTS) {
  check_specs<TestType>(kSplitSpecs);
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
