// SPDX-License-Identifier: Apache-2.0
// The GPU path against the serial oracle: identical structure (offsets and
// sorted columns) and values within the documented tolerance
// (tests/support/compare.hpp), on every family of small_test_suite().
#include "catch_main_skip.hpp"
#include "column_edits.hpp"
#include "compare.hpp"
#include "csr_defects.hpp"
#include "device_product.hpp"
#include "generators.hpp"
#include "layout_product.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

using namespace spgemm_test;

namespace {

template <class V>
void check_product(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B, V alpha,
                   const ReferenceProduct<V>& reference, const std::string& name) {
  INFO(name);
  DeviceProduct<V> product(handle, A, B);
  REQUIRE(product.nnz() == reference.C.nnz());
  const HostCsr<V> C = product.numeric(alpha);
  const std::string diff = compare_csr(C, reference, default_rtol<V>());
  INFO(diff);
  CHECK(diff.empty());
}

template <class V>
void check_product(spgemmHandle_t handle, const HostCsr<V>& A, const HostCsr<V>& B, V alpha,
                   const std::string& name) {
  check_product(handle, A, B, alpha, reference_spgemm(A, B, alpha), name);
}

// A named product of two generated matrices.
struct Case {
  const char* name;
  HostCsr<double> A, B;
};

// One plan's numeric phase three times, each on new values (A's from
// seed + round, B's from seed + 100 + round), against the oracle: the first
// numeric phase; C's columns kept; C's columns poisoned.
template <class V>
void check_three_numeric_rounds(spgemmHandle_t handle, HostCsr<V> A, HostCsr<V> B, V alpha,
                                uint64_t seed, const std::string& name) {
  DeviceProduct<V> product(handle, A, B);
  for (uint64_t round = 1; round <= 3; ++round) {
    randomize_values(A, seed + round);
    randomize_values(B, seed + 100 + round);
    product.set_values(A, B);
    const HostCsr<V> C = product.numeric(alpha, round == 2);
    const std::string diff = compare_csr(C, reference_spgemm(A, B, alpha), default_rtol<V>());
    INFO(name << " round " << round << ": " << diff);
    CHECK(diff.empty());
  }
}

// An empty rows x cols matrix to append rows to.
HostCsr<double> to_fill(int64_t rows, int64_t cols) {
  HostCsr<double> m;
  m.rows = rows;
  m.cols = cols;
  m.row_offsets.assign(1, 0);
  return m;
}

// Appends a row with these columns, in this order, and random values.
void append_row(HostCsr<double>& m, const std::vector<int32_t>& cols, Rng& rng) {
  for (const int32_t c : cols) {
    m.col_ind.push_back(c);
    m.values.push_back(rng.value());
  }
  m.row_offsets.push_back(static_cast<int32_t>(m.col_ind.size()));
}

}  // namespace

namespace {
// The suite's matrices whose rows of C reach the dense windows, in a case of
// their own: under racecheck (tests/sanitize.sh, a process a case) they take
// longer than the rest of the suite together.
bool has_long_rows_of_c(const NamedMatrix& m) {
  return m.name == "few_long_rows" || m.name == "hub_rows";
}

// The suite's products, those with long rows of C or the others, with two
// alphas; returns how many matrices it took.
template <class V>
int check_suite(bool long_rows) {
  Handle handle;
  int taken = 0;
  for (const NamedMatrix& m : small_test_suite()) {
    if (has_long_rows_of_c(m) != long_rows) continue;
    ++taken;
    const auto A = convert_values<V>(m.A);
    const auto B = m.square ? A : transpose(A);
    check_product<V>(handle.h, A, B, V(1), m.name);
    check_product<V>(handle.h, A, B, V(-2.5), m.name + " alpha=-2.5");
  }
  return taken;
}
}  // namespace

TEMPLATE_TEST_CASE("GPU SpGEMM matches the oracle on the generated suite", "[gpu]", float,
                   double) {
  CHECK(check_suite<TestType>(false) >= 15);
}

TEMPLATE_TEST_CASE("GPU SpGEMM matches the oracle on the generated suite's long rows of C",
                   "[gpu]", float, double) {
  CHECK(check_suite<TestType>(true) == 2);  // (the suite's names, tests/support/generators.cpp)
}

TEMPLATE_TEST_CASE("GPU SpGEMM on degenerate shapes", "[gpu]", float, double) {
  Handle handle;
  const auto v = [](const HostCsr<double>& m) { return convert_values<TestType>(m); };
  check_product<TestType>(handle.h, v(empty_matrix(0, 0)), v(empty_matrix(0, 0)), 1, "0x0");
  check_product<TestType>(handle.h, v(empty_matrix(50, 40)), v(empty_matrix(40, 30)), 1,
                          "empty 50x40 * 40x30");
  const auto one = v(random_rect(1, 1, 1.0, 3));
  check_product<TestType>(handle.h, one, one, 1, "1x1");
  const auto row = v(random_rect(1, 3000, 0.5, 4));
  const auto col = transpose(row);
  check_product<TestType>(handle.h, row, col, 1, "1xN * Nx1");
  check_product<TestType>(handle.h, col, row, 1, "Nx1 * 1xN (dense 3000x3000 blocks)");
  const auto rect = v(random_rect(300, 700, 0.02, 5));
  check_product<TestType>(handle.h, rect, v(random_rect(700, 20, 0.1, 6)), 1, "300x700 * 700x20");
}

// Rows of C longer than the largest hash table take the dense-window path
// (configs/bins.hpp): hub:20000 has 1003 rows of C above 8192 entries, many
// referencing one long row of B; longrows:20000 has 79, from long rows of A.
TEMPLATE_TEST_CASE("GPU SpGEMM on long rows", "[gpu][long]", float, double) {
  Handle handle;
  // (the last: rows wider than a window whose values fit beside a bitmask
  // over their columns, accumulators/ranked_row.cuh)
  for (const char* spec : {"hub:20000", "longrows:20000", "hub:60000:16000:300:8"}) {
    const auto A = convert_values<TestType>(generate(spec));
    check_product<TestType>(handle.h, A, A, TestType(0.5), spec);
  }
}

// Hash rows of C whose columns span more than the mask their table's free
// slots hold are put in order in windows (sorting/mask_rank.cuh, up to
// NumericPolicy::mask_sort_max_windows): 40 rows of A of 100, 200 and 400 entries over
// 120000 columns, into rows of 4, make rows of C of about 400, 800 and 1600
// entries across nearly all of them (the 512-entry bin's mask holds 32768
// columns in fp64, the 1024-entry bin's 65536).
TEMPLATE_TEST_CASE("GPU SpGEMM on hash rows sorted in windows", "[gpu]", float, double) {
  Handle handle;
  for (const char* spec :
       {"longrows:120000:40:100:4", "longrows:120000:40:200:4", "longrows:120000:40:400:4"}) {
    const auto A = convert_values<TestType>(generate(spec));
    const auto reference = reference_spgemm(A, A, TestType(0.5));
    const HostCsr<TestType>& C = reference.C;
    int64_t wide = 0;  // rows of C of 257-2048 entries spanning over 65536 columns
    for (int64_t r = 0; r < C.rows; ++r) {
      const int64_t n = C.row_length(r);
      wide += n > 256 && n <= 2048 &&
              C.col_ind[C.row_offsets[r + 1] - 1] - C.col_ind[C.row_offsets[r]] > 65536;
    }
    INFO(spec << ": " << wide << " wide rows of C");
    REQUIRE(wide >= 30);
    check_product<TestType>(handle.h, A, A, TestType(0.5), reference, spec);
  }
}

// Rows of A that name rows of B longer than a block has threads: in the
// symbolic phase's last bin, a row naming at most SymbolicPolicy::deferred_b_rows (32) of them
// has its block number and take their terms after the rest, a row naming
// more leaves them to its sub-groups (kernels/row_loop.cuh); the numeric
// phase takes them whole (kernels/ordered_loop.cuh). In
// longrows:2000:60:1100:4 a long row of A names about 33 rows of B of 1100
// entries (more than the largest block's 1024 threads): some rows of each
// kind.
TEMPLATE_TEST_CASE("GPU rows of A naming many long rows of B", "[gpu]", float, double) {
  Handle handle;
  const char* spec = "longrows:2000:60:1100:4";
  const auto A = convert_values<TestType>(generate(spec));
  int64_t few = 0, many = 0;  // rows of A naming 1-32 and more rows of B of over 1024 entries
  for (int64_t r = 0; r < A.rows; ++r) {
    int64_t named = 0;
    for (int32_t e = A.row_offsets[r]; e < A.row_offsets[r + 1]; ++e)
      named += A.row_length(A.col_ind[e]) > 1024;
    few += named > 0 && named <= 32;
    many += named > 32;
  }
  INFO("rows of A naming 1-32 long rows of B: " << few << ", more: " << many);
  REQUIRE(few > 0);
  REQUIRE(many > 0);
  check_product<TestType>(handle.h, A, A, TestType(0.5), spec);
}

// In the symbolic phase, rows of many terms over B of few columns go no
// further than the first block bin whose table holds B's columns as a
// bitmask, C having rows enough, and rows of more terms than any table
// holds go to the largest table, or to that first bin where there are many
// of them (binning.cuh's MaskCap; 32 a SM: 4224 on 132 SMs). B has 600
// columns (19 words). Few beyond: of 20000 rows of A, every 50th has 80
// entries (about 8000 terms, some past the last table's 8192), the next 20,
// the others 2. Many beyond: 6000 rows of 60 entries into rows of B of
// 150-249 entries (about 12000 terms each).
namespace {
std::pair<HostCsr<double>, HostCsr<double>> many_terms_few_columns_case(bool many_beyond,
                                                                        uint64_t seed) {
  Rng rng(seed);
  const int64_t rows = many_beyond ? 6000 : 20000, b_rows = 2000, b_cols = 600;
  HostCsr<double> B = to_fill(b_rows, b_cols);
  for (int64_t k = 0; k < b_rows; ++k) {
    const uint64_t length = many_beyond ? 150 + rng.below(100) : 1 + rng.below(200);
    std::vector<int32_t> cols(static_cast<size_t>(length));
    for (int32_t& c : cols) c = static_cast<int32_t>(rng.below(b_cols));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    append_row(B, cols, rng);
  }
  HostCsr<double> A = to_fill(rows, b_rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> cols(many_beyond ? 60 : r % 50 == 0 ? 80 : r % 50 == 1 ? 20 : 2);
    for (int32_t& c : cols) c = static_cast<int32_t>(rng.below(b_rows));
    append_row(A, cols, rng);
  }
  return {A, B};
}
}  // namespace

TEMPLATE_TEST_CASE("GPU symbolic phase: rows of many terms in a table of B's columns' bits",
                   "[gpu]", float, double) {
  Handle handle;
  for (const bool many_beyond : {false, true}) {
    const auto [A, B] = many_terms_few_columns_case(many_beyond, 23);
    check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                            TestType(0.75), many_beyond ? "many beyond" : "few beyond");
  }
}

// Where B's rows average at most 8 entries, the symbolic phase's blocks
// number their rows' products (configs/bins.hpp's
// SymbolicPolicy::numbered_max_lanes). B: 20,000 rows of 1-8 entries and 5 of 3000
// over 50,000 columns (5.2 a row on average). A: 70,000 rows (binned, not
// small); every 25th names 40-120 short rows of B (block rows of hashed
// columns or of B's columns' bits), every 100th two long ones besides
// (the last hash bin's 1024 threads) and every 100th from the 50th one;
// the others two short rows. The same then with an addend D.
namespace {
std::pair<HostCsr<double>, HostCsr<double>> short_b_rows_case(uint64_t seed) {
  Rng rng(seed);
  const int64_t rows = 70000, b_rows = 20000, b_cols = 50000, longs = 5;
  HostCsr<double> B = to_fill(b_rows, b_cols);
  for (int64_t k = 0; k < b_rows; ++k) {
    std::vector<int32_t> cols(static_cast<size_t>(k < longs ? 3000 : 1 + rng.below(8)));
    for (int32_t& c : cols) c = static_cast<int32_t>(rng.below(b_cols));
    std::sort(cols.begin(), cols.end());
    append_row(B, cols, rng);
  }
  HostCsr<double> A = to_fill(rows, b_rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> cols(static_cast<size_t>(r % 25 == 0 ? 40 + rng.below(81) : 2));
    for (int32_t& c : cols) c = static_cast<int32_t>(longs + rng.below(b_rows - longs));
    if (r % 100 == 0) cols.insert(cols.end(), {0, 1});
    if (r % 100 == 50) cols.push_back(2);
    append_row(A, cols, rng);
  }
  return {A, B};
}

// A and B of short_b_rows_case, with the rows it is built to have checked.
std::pair<HostCsr<double>, HostCsr<double>> checked_short_b_rows_case() {
  auto [A, B] = short_b_rows_case(29);
  REQUIRE((B.nnz() + B.rows - 1) / B.rows <= 8);
  int64_t block_rows = 0, last_bin_rows = 0;  // more terms than warps take; the last bin's
  for (int64_t r = 0; r < A.rows; ++r) {
    int64_t terms = 0;
    for (int32_t e = A.row_offsets[r]; e < A.row_offsets[r + 1]; ++e)
      terms += B.row_length(A.col_ind[e]);
    block_rows += terms > 256;
    last_bin_rows += terms > 4096 && terms <= 8192;
  }
  INFO("rows of over 256 terms: " << block_rows << ", of 4097-8192: " << last_bin_rows);
  REQUIRE(block_rows >= 1500);
  REQUIRE(last_bin_rows >= 500);
  return {std::move(A), std::move(B)};
}
}  // namespace

// (two cases, with and without D, for the sanitizer's processes side by side)
TEMPLATE_TEST_CASE("GPU symbolic phase's blocks numbering the products of short rows of B",
                   "[gpu]", float, double) {
  const auto [A, B] = checked_short_b_rows_case();
  Handle handle;
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(1.25), "short rows of B");
}

TEMPLATE_TEST_CASE("GPU symbolic phase's blocks numbering the products of short rows of B and D",
                   "[gpu]", float, double) {
  const auto [A, B] = checked_short_b_rows_case();
  Handle handle;
  const std::vector<AddendCase<TestType>> with_d = {
      {"short rows of B + D", A, B, uniform_random(A.rows, B.cols, 3, 31)}};
  const auto failures = failed_cases<Layout<TestType, int32_t, int32_t>>(
      handle.h, SPGEMM_MEMORY_DEVICE, with_d);
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

// Rows of at most 64 terms are summed in registers after a sort
// (src/cuda/configs/bins.hpp's sort bins). Row r of A is built to have about
// r % 72 terms: every count from 0 to past 64, so 32/33 and 64/65 at the
// bins' edges; up to 40 of its entries refer to empty rows of B (more
// entries than a warp's lanes, few terms), entries come unsorted and one
// repeats; B's rows of 1-3 entries over 200 columns repeat C's columns.
// 70000 rows keep it off the small-product path.
namespace {
std::pair<HostCsr<double>, HostCsr<double>> few_terms_case(uint64_t seed) {
  Rng rng(seed);
  const int64_t rows = 70000, b_rows = 1000;
  HostCsr<double> B = to_fill(b_rows, 200);
  for (int64_t k = 0; k < b_rows; ++k) {
    const int64_t length = k < b_rows / 2 ? 0 : 1 + k % 3;  // the first half empty
    std::vector<int32_t> cols(static_cast<size_t>(length));
    for (int32_t& c : cols) c = static_cast<int32_t>(rng.below(200));
    append_row(B, cols, rng);
  }
  HostCsr<double> A = to_fill(rows, b_rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> cols(static_cast<size_t>((r % 5) * 10), 0);
    for (int32_t& c : cols) c = static_cast<int32_t>(rng.below(b_rows / 2));
    for (int64_t terms = 0; terms < r % 72;) {
      const auto k = static_cast<int32_t>(b_rows / 2 + rng.below(b_rows / 2));
      cols.push_back(k);
      terms += B.row_offsets[k + 1] - B.row_offsets[k];
    }
    if (cols.size() > 1) cols.back() = cols.front();  // a repeated entry
    for (size_t j = cols.size(); j > 1; --j) std::swap(cols[j - 1], cols[rng.below(j)]);
    append_row(A, cols, rng);
  }
  return {A, B};
}
}  // namespace

TEMPLATE_TEST_CASE("GPU SpGEMM on rows of few terms", "[gpu]", float, double) {
  Handle handle;
  const auto [A, B] = few_terms_case(21);
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(-1.5), "few terms");
}

TEMPLATE_TEST_CASE("GPU small product whose longest rows fill 3/4 of the tried table", "[gpu]",
                   float, double) {
  // A small product is tried in the largest warp bin (512 slots) before its
  // statistics are known, and its gate takes rows of up to 384 terms
  // (configs/bins.hpp's SmallPolicy::gate_load): two rows of A with 19 entries times
  // rows of B with 20 random columns of 4000 give ~380 terms, nearly all in
  // distinct columns. 3000 rows keep it in warps: a block per row is only
  // for fewer (SmallPolicy::block_rows_share, about 1000 on a device of 132 SMs).
  Handle handle;
  const auto A = few_long_rows(3000, 4000, 2, 19, 3, 41);
  const auto B = uniform_random(4000, 4000, 20, 42);
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(0.75), "longest rows of ~380 terms");
}

TEMPLATE_TEST_CASE("GPU small product of few rows, a block per row", "[gpu]", float, double) {
  // 300 rows: each row of the small product gets a block of the first block
  // bin in both phases (SmallPolicy::block_rows_share), the longest of ~380 terms.
  Handle handle;
  const auto A = few_long_rows(300, 4000, 2, 19, 3, 41);
  const auto B = uniform_random(4000, 4000, 20, 42);
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(0.75), "300 rows in blocks");
}

TEMPLATE_TEST_CASE("GPU small product tried behind the gate, whose longest rows shut it", "[gpu]",
                   float, double) {
  // The same products with longer long rows: ~600 terms in warps (over the
  // 384 their gate takes) and ~900 in blocks (over 768: 3/4 of the first
  // block bin's 1024 slots). The symbolic kernel counts its rows while the
  // analysis runs and skips those longer than the gate takes; the gate
  // stays shut and the product goes on by its statistics
  // (kernels/symbolic.cu, cuda_engine.cu).
  Handle handle;
  const auto B = uniform_random(4000, 4000, 20, 42);
  const auto warps = few_long_rows(3000, 4000, 2, 30, 3, 43);
  check_product<TestType>(handle.h, convert_values<TestType>(warps), convert_values<TestType>(B),
                          TestType(0.75), "3000 rows, longest of ~600 terms");
  const auto blocks = few_long_rows(300, 4000, 2, 45, 3, 44);
  check_product<TestType>(handle.h, convert_values<TestType>(blocks), convert_values<TestType>(B),
                          TestType(0.75), "300 rows, longest of ~900 terms");
}

TEST_CASE("GPU small products of one handle analyzed and counted in turn", "[gpu]") {
  // A gated small product counts in the handle's zeroed memory
  // (core/context.hpp's zeroed_counters), which its symbolic kernel sets
  // back to zero before it posts: three plans of one handle analyzed one
  // after the other before any is counted (they share that memory), the
  // third with B's rows reversed and rows too long for its gate (its
  // symbolic phase goes on binned from the plan's summary, which the
  // posted counts then fill, cuda_engine.cu's restore_counts), and the
  // first counted twice (the second time from the plan's own summary).
  Handle handle;
  const cudaStream_t stream = stream_of(handle.h);
  const auto B = uniform_random(4000, 4000, 20, 42);
  const HostCsr<double> As[] = {few_long_rows(300, 4000, 2, 19, 3, 41),
                                uniform_random(700, 4000, 6, 45),
                                few_long_rows(300, 4000, 2, 45, 3, 44)};
  const HostCsr<double> Bs[] = {B, B, with_reversed_rows(B)};
  struct Plan {
    std::unique_ptr<DeviceCsr<double>> A, B;
    std::unique_ptr<DeviceArray<int32_t>> offsets, cols;
    std::unique_ptr<DeviceArray<double>> values;
    spgemmMatDescr_t C = nullptr;
    spgemmPlan_t plan = nullptr;
    int64_t nnz = -1;
  } plans[3];
  for (int i = 0; i < 3; ++i) {
    Plan& p = plans[i];
    p.A = std::make_unique<DeviceCsr<double>>(As[i], stream);
    p.B = std::make_unique<DeviceCsr<double>>(Bs[i], stream);
    p.offsets = std::make_unique<DeviceArray<int32_t>>(static_cast<size_t>(As[i].rows) + 1);
    p.offsets->poison(stream);
    spgemm_ok(spgemmCreateCsr(&p.C, As[i].rows, B.cols, 0, p.offsets->ptr, nullptr, nullptr,
                              SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ZERO,
                              CUDA_R_64F),
              "spgemmCreateCsr(C)");
    spgemm_ok(spgemmPlanCreate(handle.h, &p.plan, SPGEMM_OPERATION_NON_TRANSPOSE,
                               SPGEMM_OPERATION_NON_TRANSPOSE, p.A->descr, p.B->descr, p.C,
                               CUDA_R_64F),
              "spgemmPlanCreate");
  }
  for (Plan& p : plans) spgemm_ok(spgemmAnalyze(handle.h, p.plan), "spgemmAnalyze");
  for (const int i : {2, 0, 1, 0})
    spgemm_ok(spgemmSymbolic(handle.h, plans[i].plan, &plans[i].nnz), "spgemmSymbolic");
  const double alpha = 0.75;
  for (int i = 0; i < 3; ++i) {
    INFO("plan " << i);
    Plan& p = plans[i];
    const ReferenceProduct<double> reference = reference_spgemm(As[i], Bs[i], alpha);
    REQUIRE(p.nnz == reference.C.nnz());
    p.cols = std::make_unique<DeviceArray<int32_t>>(static_cast<size_t>(p.nnz));
    p.values = std::make_unique<DeviceArray<double>>(static_cast<size_t>(p.nnz));
    p.cols->poison(stream);
    p.values->poison(stream);
    spgemm_ok(spgemmCsrSetPointers(p.C, p.offsets->ptr, p.cols->ptr, p.values->ptr),
              "spgemmCsrSetPointers");
    spgemm_ok(spgemmNumeric(handle.h, p.plan, &alpha), "spgemmNumeric");
    HostCsr<double> C;
    C.rows = As[i].rows;
    C.cols = B.cols;
    C.row_offsets = p.offsets->download(stream);
    C.col_ind = p.cols->download(stream);
    C.values = p.values->download(stream);
    const std::string diff = compare_csr(C, reference, default_rtol<double>());
    INFO(diff);
    CHECK(diff.empty());
  }
  for (Plan& p : plans) {
    spgemmPlanDestroy(p.plan);
    spgemmDestroyMatrix(p.C);
  }
}

TEMPLATE_TEST_CASE("GPU small product of many rows, C's offsets in many tiles", "[gpu]", float,
                   double) {
  // 30001 rows of 9 random columns: 2.4 M products, above what is tried
  // before the statistics are known (configs/bins.hpp's
  // SmallPolicy::speculate_products), within SmallPolicy::max_products: analyze reads the
  // statistics back and the product runs as a small one, C's offsets from
  // the symbolic kernel's last block in 15 tiles of 2048 rows, the last
  // one partial (binning/row_offsets.cuh).
  Handle handle;
  const auto A = uniform_random(30001, 30001, 9, 51);
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(A),
                          TestType(1.25), "30001 rows, small");
}

TEMPLATE_TEST_CASE("GPU small product of rows that average many terms", "[gpu]", float, double) {
  // 1500 rows of 20 random columns times rows of 20: ~400 terms a row, more
  // than the gate of the warp bin a product of 1500 rows is usually tried in
  // takes (384), so it is tried in a block bin whose gate takes four times
  // its average row (configs/bins.hpp's SmallPolicy::speculate_row_margin), and the
  // gate opens there.
  Handle handle;
  const auto A = uniform_random(1500, 4000, 20, 61);
  const auto B = uniform_random(4000, 4000, 20, 62);
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(-0.5), "1500 rows of ~400 terms");
}

// A binned product of few rows and products (not small: a few rows of
// 12,000 terms): the numeric phase moves rows of 128 terms or more to a
// block even where a warp's table holds their nnz (configs/bins.hpp's
// NumericPolicy::few_products_block_terms, for C of at most 2 rows for each resident warp
// and NumericPolicy::few_products_per_sm products per SM: 3000 rows and 0.55 M products, on
// devices of 24 SMs of 64 warps and more), and C's offsets come from one block
// (SmallPolicy::few_launches_rows), and the symbolic phase's warp bins run in one
// launch, each row in its own bin's table: B's 10,000 columns fit the bits
// of the last warp bin's (512 slots), not those of the two before it, which
// hash; rows of at most 32 terms need no table. B's row j has 20 of the 60
// columns of its group's window (100 rows a group, windows 330 columns
// apart); A's row i takes 10 rows of B of one group (200 terms, at most 60
// nnz), every 7th only 5 (100 terms: a warp in the numeric phase), every
// 13th 2, every 11th 1, every 500th every 5th row of B (12,000 terms).
TEMPLATE_TEST_CASE("GPU binned product of few rows: fewer launches, rows of many terms in blocks",
                   "[gpu]", float, double) {
  Handle handle;
  constexpr int n = 3000, group_rows = 100, window = 60, apart = 330;
  Rng rng(71);
  HostCsr<double> A = to_fill(n, n), B = to_fill(n, 10000);
  for (int j = 0; j < n; ++j) {
    const int first = j / group_rows * apart;
    std::vector<int32_t> cols;
    for (int c = 0; c < window; ++c)
      if ((c * 7 + j) % 3 == 0) cols.push_back(first + c);  // 20 of the 60
    append_row(B, cols, rng);
  }
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> cols;
    if (i % 500 == 0) {
      for (int k = 0; k < n; k += 5) cols.push_back(k);
    } else {
      const int group = i % (n / group_rows);
      const int entries = i % 11 == 0 ? 1 : i % 13 == 0 ? 2 : i % 7 == 0 ? 5 : 10;
      for (int k = 0; k < entries; ++k)
        cols.push_back(group * group_rows + (i * 7 + 13 * k) % group_rows);  // (distinct)
      std::sort(cols.begin(), cols.end());
    }
    append_row(A, cols, rng);
  }
  check_product<TestType>(handle.h, convert_values<TestType>(A), convert_values<TestType>(B),
                          TestType(-0.5), "3000 rows, 0.55 M products");
}

// The symbolic phase's warps mark a binned row's columns in a bitmask over
// their range where B's rows are sorted and the range fits the bits of the
// row's table (kernels/symbolic.cu's SymbolicRanges; the analysis finds the
// ranges for C of more than SymbolicPolicy::span_min_rows_per_sm rows per SM: 70000 rows, on
// devices of up to 273 SMs). B's row r holds columns r, r + 5, ..., r + 300:
// rows of A with one entry take a warp (61 terms over 301 columns), every
// 35th row of A has five and takes a block (305 terms), which hashes; then
// B with its rows reversed, whose ranges are not used.
TEMPLATE_TEST_CASE("GPU symbolic phase's bitmask over a row's column range", "[gpu]", float,
                   double) {
  Handle handle;
  constexpr int n = 70000;
  Rng rng(61);
  HostCsr<double> A = to_fill(n, n), B = to_fill(n, n);
  for (int r = 0; r < n; ++r) {
    std::vector<int32_t> a_cols, b_cols;
    for (int c = r; c < n && c < r + (r % 35 == 0 ? 5 : 1); ++c) a_cols.push_back(c);
    for (int c = r; c < n && c <= r + 300; c += 5) b_cols.push_back(c);
    append_row(A, a_cols, rng);
    append_row(B, b_cols, rng);
  }
  const auto a = convert_values<TestType>(A), b = convert_values<TestType>(B);
  check_product<TestType>(handle.h, a, b, TestType(1.5), "rows of B sorted");
  check_product<TestType>(handle.h, a, with_reversed_rows(b), TestType(1.5), "rows of B reversed");
}

// How a hash row of the numeric phase comes out in column order, then the
// later phases (C's columns kept, or poisoned and computed again), on B with
// sorted rows: columns spanning at most the row's table go to slots
// directly (accumulators/direct_row.cuh); wider, within 32 columns per free
// slot of the table, they are placed by a bitmask (sorting/mask_rank.cuh);
// wider still, warps sort them in registers, each column packed with its
// slot (sorting/warp_packed_sort.cuh: 128 or 256 slots, C of fewer than 2^23
// columns), and otherwise the bitonic network in shared memory does. Each
// path in a warp's table and in a block's (rows of 1024 terms and more go to a block,
// configs/bins.hpp's NumericPolicy::block_row_terms; in small products, rows of C so few
// that a block each fits, SmallPolicy::block_rows_share). Small on purpose: the
// suite runs under racecheck.
namespace {
// (the first of four cases, for the sanitizer's processes side by side)
// direct slots and the bitmask, each in a warp's table and a block's
std::vector<Case> direct_and_mask_cases() {
  std::vector<Case> cases;
  cases.push_back({"direct, warp: banded:2000:15", generate("banded:2000:15"),
                   generate("banded:2000:15")});
  cases.push_back({"direct, block: banded:2000:15 * banded:2000:20", generate("banded:2000:15"),
                   generate("banded:2000:20")});
  cases.push_back({"mask, warp: 3000 x 2000 * 2000 x 2000, 12 a row",
                   uniform_random(3000, 2000, 12, 31), uniform_random(2000, 2000, 12, 32)});
  cases.push_back({"mask, block: 300 x 5000 * 5000 x 5000, 30 a row",
                   uniform_random(300, 5000, 30, 33), uniform_random(5000, 5000, 30, 34)});
  return cases;
}

// the sorts: packed keys in registers, the bitonic network
std::vector<Case> sort_cases() {
  std::vector<Case> cases;
  cases.push_back({"packed, warp, 128 slots: 3000 x 3000, 8 a row * 3000 x 400000, 12 a row",
                   uniform_random(3000, 3000, 8, 41), uniform_random(3000, 400000, 12, 42)});
  cases.push_back({"packed, warp, 256 slots: 3000 x 3000 * 3000 x 400000, 12 a row",
                   uniform_random(3000, 3000, 12, 35), uniform_random(3000, 400000, 12, 36)});
  cases.push_back(
      {"bitonic, warp: 3000 x 3000 * 3000 x 9000000 (columns past the packed keys'), 8 a row",
       uniform_random(3000, 3000, 8, 43), uniform_random(3000, 9000000, 12, 44)});
  cases.push_back({"bitonic, block: 300 x 3000 * 3000 x 400000, 30 a row",
                   uniform_random(300, 3000, 30, 37), uniform_random(3000, 400000, 30, 38)});
  return cases;
}

template <class V>
void check_ways_to_sorted_rows(const std::vector<Case>& cases) {
  Handle handle;
  for (const Case& c : cases)
    check_three_numeric_rounds(handle.h, convert_values<V>(c.A), convert_values<V>(c.B), V(-1.25),
                               400, c.name);
}
}  // namespace

TEMPLATE_TEST_CASE("GPU numeric phase's ways to sorted rows: direct slots, bitmask", "[gpu]",
                   float, double) {
  check_ways_to_sorted_rows<TestType>(direct_and_mask_cases());
}

TEMPLATE_TEST_CASE("GPU numeric phase's ways to sorted rows: sorts", "[gpu]", float, double) {
  check_ways_to_sorted_rows<TestType>(sort_cases());
}

// The ordered adds taking rows of B whole (ordered_loop.cuh): 81 entries in
// 128 threads; then 1100 entries of A (two chunks of the 1024 threads of
// the bin of many terms), rows of B of two steps (a case each: under
// racecheck the two together take over 540 s).
TEMPLATE_TEST_CASE("GPU numeric phase's ways to sorted rows: whole rows of B in blocks of 128",
                   "[gpu]", float, double) {
  check_ways_to_sorted_rows<TestType>(
      {{"banded:3000:40", generate("banded:3000:40"), generate("banded:3000:40")}});
}

TEMPLATE_TEST_CASE("GPU numeric phase's ways to sorted rows: whole rows of B in blocks of 1024",
                   "[gpu]", float, double) {
  check_ways_to_sorted_rows<TestType>({{"20 x 3000, 1100 a row * banded:3000:600",
                                        uniform_random(20, 3000, 1100, 39),
                                        generate("banded:3000:600")}});
}

// Where all of B's columns fit a row's table, the numeric phase maps them
// to slots directly without a pass over the row's range, whether B's rows
// are sorted or not (kernels/numeric.cuh): in a warp's table (C of 100
// columns) and in a block's (a small product of 400 rows, C of 400 columns,
// as lp_ship04l's A * A^T), B's rows as generated and reversed; each then
// again with C's columns kept, and poisoned.
TEMPLATE_TEST_CASE("GPU numeric phase's direct slots over all of a narrow B's columns", "[gpu]",
                   float, double) {
  Handle handle;
  const Case cases[] = {
      {"warp: 3000 x 3000, 8 a row * 3000 x 100, 12 a row", uniform_random(3000, 3000, 8, 71),
       uniform_random(3000, 100, 12, 72)},
      {"block: 400 x 3000, 20 a row * 3000 x 400, 8 a row", uniform_random(400, 3000, 20, 73),
       uniform_random(3000, 400, 8, 74)},
  };
  for (const Case& c : cases)
    for (const bool reversed : {false, true})
      check_three_numeric_rounds(
          handle.h, convert_values<TestType>(c.A),
          convert_values<TestType>(reversed ? with_reversed_rows(c.B) : c.B), TestType(0.5), 600,
          std::string(c.name) + (reversed ? ", B's rows reversed" : ""));
}

TEMPLATE_TEST_CASE("GPU numeric phase reuses the structure with new values", "[gpu]", float,
                   double) {
  Handle handle;
  for (const char* spec : {"stencil27:12", "powerlaw:3000", "longrows:3000"}) {
    auto A = convert_values<TestType>(generate(spec));
    auto B = A;
    DeviceProduct<TestType> product(handle.h, A, B);
    for (uint64_t round = 1; round <= 3; ++round) {
      randomize_values(A, 100 + round);
      randomize_values(B, 200 + round);
      product.set_values(A, B);
      const HostCsr<TestType> C = product.numeric(TestType(1.5));
      const std::string diff = compare_csr(C, reference_spgemm(A, B, TestType(1.5)),
                                           default_rtol<TestType>());
      INFO(spec << " round " << round << ": " << diff);
      CHECK(diff.empty());
    }
  }
}

// From the second numeric phase on, rows keep the column indices the first
// wrote and only get values (src/cuda/kernels/known_columns.cuh), unless
// they were changed: then the row is computed in full. Rows in warp tables
// (uniform:3000:12, a small product: one warp kernel for all rows, no bins;
// banded:3000:16, whose warps take rows of B whole), block tables in the
// lean instance of the block kernel (banded:3000:200: 3000 rows of about 800
// entries in blocks of 256 threads), block tables in its regular instance
// (rows of 2049-8192 entries, in blocks of 512 and 1024 threads) summed at
// their columns' ranks (B of 20,000 columns: the range's mask fits the
// table's keys) and claimed in the table (B of 400,000 columns: wider than
// the mask the keys hold, 16 columns a slot), dense windows (4 x 1 times a
// 1 x 40000 row with 20000 entries: C's rows are longer than any table);
// and rows of at most 64 terms (poisson2d:30, small too), which every
// numeric phase sorts afresh.
namespace {
// One plan's numeric phase after each edit of C's columns
// (support/column_edits.hpp), on new values, against the oracle.
template <class V>
void check_column_edits(const std::vector<Case>& cases) {
  Handle handle;
  for (const Case& c : cases) {
    auto A = convert_values<V>(c.A);
    auto B = convert_values<V>(c.B);
    DeviceProduct<V> product(handle.h, A, B);
    product.numeric(V(1));
    uint64_t seed = 300;
    for (const auto& [edit_name, edit] : column_edits()) {
      randomize_values(A, ++seed);
      randomize_values(B, ++seed);
      product.set_values(A, B);
      product.edit_columns(edit);
      const std::string diff = compare_csr(product.numeric(V(-0.75), true),
                                           reference_spgemm(A, B, V(-0.75)), default_rtol<V>());
      INFO(c.name << ", columns " << edit_name << ": " << diff);
      CHECK(diff.empty());
    }
  }
}
}  // namespace

// (rows in warps' tables and sorts, rows in blocks' tables, dense windows:
// a case each, for the sanitizer's processes side by side)
TEMPLATE_TEST_CASE("GPU numeric phase reuses C's columns and recomputes changed rows of warps",
                   "[gpu]", float, double) {
  check_column_edits<TestType>({
      {"poisson2d:30", generate("poisson2d:30"), generate("poisson2d:30")},
      {"uniform:3000:12", generate("uniform:3000:12"), generate("uniform:3000:12")},
      {"banded:3000:16", generate("banded:3000:16"), generate("banded:3000:16")},
  });
}

// (`[long]`: under racecheck not one of banded:3000:200's edits ended within
// 540 s; its block kernels, lean and regular, and their second numeric phase
// run under racecheck in test_gpu_kernel_choices, and the recomputed rows of
// blocks in the changed long rows below)
TEMPLATE_TEST_CASE("GPU numeric phase reuses C's columns and recomputes changed rows of blocks",
                   "[gpu][long]", float, double) {
  const auto banded = generate("banded:3000:200");
  check_column_edits<TestType>({{"banded:3000:200", banded, banded}});
}

TEMPLATE_TEST_CASE(
    "GPU numeric phase reuses C's columns and recomputes changed rows of dense windows", "[gpu]",
    float, double) {
  check_column_edits<TestType>(
      {{"4x1 * 1x40000", random_rect(4, 1, 1.0, 11), random_rect(1, 40000, 0.5, 12)}});
}

// The same in the bins of 512 and 1024 threads, which take rows of C of
// 2049-8192 entries (a case of its own, for the sanitizer's processes side
// by side).
TEMPLATE_TEST_CASE("GPU numeric phase reuses C's columns and recomputes changed long rows",
                   "[gpu]", float, double) {
  const auto few = random_rect(300, 300, 0.007, 13);  // about 2 entries a row
  const std::vector<Case> cases = {
      {"300 x 300 * 300 x 20000", few, random_rect(300, 20000, 0.1, 14)},
      {"300 x 300 * 300 x 400000", few, random_rect(300, 400000, 0.005, 15)},
  };
  for (const Case& c : cases) {
    const HostCsr<double> C = reference_spgemm(c.A, c.B, 1.0).C;
    int64_t long_rows = 0;
    for (int64_t r = 0; r < C.rows; ++r)
      long_rows += C.row_length(r) > 2048 && C.row_length(r) <= 8192;
    INFO(c.name << ": " << long_rows << " rows of 2049-8192 entries");
    REQUIRE(long_rows >= 100);
  }
  check_column_edits<TestType>(cases);
}

TEST_CASE("GPU SpGEMM runs on a user stream", "[gpu]") {
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  {
    Handle handle;  // destroyed before the stream it uses
    REQUIRE(spgemmSetStream(handle.h, stream) == SPGEMM_STATUS_SUCCESS);
    cudaStream_t back = nullptr;
    REQUIRE(spgemmGetStream(handle.h, &back) == SPGEMM_STATUS_SUCCESS);
    CHECK(back == stream);
    const auto A = generate("poisson2d:60");
    check_product<double>(handle.h, A, A, 1.0, "poisson2d:60 on a stream");
    size_t current = 0, peak = 0;
    REQUIRE(spgemmGetMemoryUsage(handle.h, &current, &peak) == SPGEMM_STATUS_SUCCESS);
    CHECK(peak > 0);
    CHECK(current <= peak);
  }
  cuda_ok(cudaStreamDestroy(stream), "stream destroy");
}

TEST_CASE("GPU small product on a stream held up by earlier work", "[gpu]") {
  // A small product's symbolic kernel posts its summary to host memory, which
  // the host polls for (core/context.hpp's PostBox); past
  // kPostPollMicroseconds (1 ms) the wait becomes a stream synchronization.
  // A host function that sleeps 20 ms holds the stream up beyond that.
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  {
    Handle handle;
    REQUIRE(spgemmSetStream(handle.h, stream) == SPGEMM_STATUS_SUCCESS);
    const auto A = generate("poisson2d:60");
    cuda_ok(cudaLaunchHostFunc(
                stream,
                [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); },
                nullptr),
            "cudaLaunchHostFunc");
    check_product<double>(handle.h, A, A, 1.0, "poisson2d:60 behind 20 ms of other work");
  }
  cuda_ok(cudaStreamDestroy(stream), "stream destroy");
}

int main(int argc, char** argv) { return run_catch_tests(argc, argv, gpu_skip_reason()); }
