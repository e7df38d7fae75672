// SPDX-License-Identifier: Apache-2.0
// The host backend, through the whole C API, against the serial oracle.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "column_edits.hpp"
#include "compare.hpp"
#include "generators.hpp"
#include "host_api.hpp"
#include "reference.hpp"
#include "scoped_env.hpp"

using namespace spgemm_test;

namespace {

const std::vector<NamedMatrix>& suite() {
  static const std::vector<NamedMatrix> s = small_test_suite();
  return s;
}

// The B of a suite entry: A itself, or for a rectangular A its transpose.
template <class V>
HostCsr<V> partner(const NamedMatrix& m) {
  return convert_values<V>(m.square ? m.A : transpose(m.A));
}

template <class V>
std::string check_product(HostProduct<V>& p, V alpha) {
  return compare_csr(p.c(), reference_spgemm(p.a(), p.b(), alpha), default_rtol<V>());
}

template <class V>
std::string multiply_and_check(const HostCsr<V>& a, const HostCsr<V>& b, V alpha, bool analyze = true) {
  HostProduct<V> p(a, b);
  p.symbolic(analyze);
  p.numeric(alpha);
  return check_product(p, alpha);
}

}  // namespace

TEMPLATE_TEST_CASE("host backend matches the oracle on the small suite", "[host][suite]", float, double) {
  using V = TestType;
  for (const NamedMatrix& m : suite()) {
    const HostCsr<V> a = convert_values<V>(m.A), b = partner<V>(m);
    for (const V alpha : {V(1), V(-2.5)}) {
      INFO(m.name << " (" << a.rows << " x " << a.cols << ", nnz " << a.nnz() << ", "
                  << product_count(a, b) << " products), alpha " << alpha);
      // Explicit analyze on one run, left to symbolic on the other.
      CHECK(multiply_and_check(a, b, alpha, alpha == V(1)) == "");
    }
  }
}

TEMPLATE_TEST_CASE("numeric again after the values of A and B change", "[host][reuse]", float, double) {
  using V = TestType;
  uint64_t seed = 1000;
  for (const NamedMatrix& m : suite()) {
    INFO(m.name);
    HostProduct<V> p(convert_values<V>(m.A), partner<V>(m));
    const int64_t nnz = p.symbolic(false);
    p.numeric(V(1));
    REQUIRE(check_product(p, V(1)) == "");

    // Same structure, new values; A and B different from each other so a
    // mix-up of the two would show.
    randomize_values(p.a(), ++seed);
    randomize_values(p.b(), ++seed);
    p.poison_values();
    p.numeric(V(-2.5));
    CHECK(p.c().nnz() == nnz);
    CHECK(check_product(p, V(-2.5)) == "");
  }
}

// A numeric phase into the arrays of the one before first tries the columns
// there (src/host/accumulators.hpp, KnownColumns), in the rows whose method
// sorts (forced here: hash, dense_sort, terms_sort, short_list, and the
// analysis's own choice); edited columns (column_edits.hpp) must only cost
// time.
TEMPLATE_TEST_CASE("numeric again reuses C's columns and recomputes changed rows",
                   "[host][reuse]", float, double) {
  using V = TestType;
  uint64_t seed = 2000;
  for (const char* method : {"", "hash", "dense_sort", "terms_sort", "short_list"}) {
    const ScopedEnv forced("SPGEMM_TEST_HOST_ROW_METHOD",
                           *method ? std::optional<std::string>(method) : std::nullopt);
    for (const NamedMatrix& m : suite()) {
      HostProduct<V> p(convert_values<V>(m.A), partner<V>(m));
      p.symbolic(false);
      p.numeric(V(1));
      for (const auto& [edit_name, edit] : column_edits()) {
        randomize_values(p.a(), ++seed);
        randomize_values(p.b(), ++seed);
        p.poison_values();
        edit(p.c().row_offsets, p.c_columns());
        p.numeric(V(-0.75));
        INFO(m.name << ", method '" << method << "', columns " << edit_name);
        CHECK(check_product(p, V(-0.75)) == "");
        // the same bits as a first numeric phase on these values
        HostProduct<V> fresh(p.a(), p.b());
        fresh.symbolic(false);
        fresh.numeric(V(-0.75));
        CHECK(compare_identical(p.c(), fresh.c()) == "");
      }
    }
  }
}

TEMPLATE_TEST_CASE("deterministic setting: on by default, host results the same bits either way",
                   "[host][determinism]", float, double) {
  using V = TestType;
  for (const NamedMatrix& m : suite()) {
    INFO(m.name);
    HostProduct<V> p(convert_values<V>(m.A), partner<V>(m));
    int enabled = -1;
    SPGEMM_REQUIRE_OK(spgemmGetDeterministic(p.handle(), &enabled));
    CHECK(enabled == 1);
    p.symbolic(false);
    p.numeric(V(-2.5));
    const HostCsr<V> ordered = p.c();
    SPGEMM_REQUIRE_OK(spgemmSetDeterministic(p.handle(), 0));
    SPGEMM_REQUIRE_OK(spgemmGetDeterministic(p.handle(), &enabled));
    CHECK(enabled == 0);
    p.poison_values();
    p.numeric(V(-2.5));
    CHECK(compare_identical(p.c(), ordered).empty());
    CHECK(check_product(p, V(-2.5)) == "");
  }
  CHECK(spgemmSetDeterministic(nullptr, 1) == SPGEMM_STATUS_NOT_INITIALIZED);
  CHECK(spgemmGetDeterministic(nullptr, nullptr) == SPGEMM_STATUS_NOT_INITIALIZED);
  spgemmHandle_t handle = nullptr;
  SPGEMM_REQUIRE_OK(spgemmCreate(&handle));
  CHECK(spgemmGetDeterministic(handle, nullptr) == SPGEMM_STATUS_INVALID_VALUE);
  spgemmDestroy(handle);
}

TEMPLATE_TEST_CASE("A and B may be the same arrays", "[host][alias]", float, double) {
  using V = TestType;
  for (const NamedMatrix& m : suite()) {
    if (!m.square) continue;
    INFO(m.name);
    HostProduct<V> p(convert_values<V>(m.A), HostCsr<V>{}, /*share_arrays=*/true);
    p.symbolic(true);
    p.numeric(V(0.75));
    CHECK(compare_csr(p.c(), reference_spgemm(p.a(), p.a(), V(0.75)), default_rtol<V>()) == "");
  }
}

TEMPLATE_TEST_CASE("degenerate shapes", "[host][edge]", float, double) {
  using V = TestType;

  SECTION("1 x 1") {
    HostCsr<V> a, b;
    a.rows = a.cols = b.rows = b.cols = 1;
    a.row_offsets = b.row_offsets = {0, 1};
    a.col_ind = b.col_ind = {0};
    a.values = {V(3)};
    b.values = {V(-2)};
    HostProduct<V> p(a, b);
    REQUIRE(p.symbolic(true) == 1);
    p.numeric(V(1.5));
    CHECK(p.c().row_offsets == std::vector<int32_t>{0, 1});
    CHECK(p.c().col_ind == std::vector<int32_t>{0});
    CHECK(p.c().values == std::vector<V>{V(-9)});
  }
  SECTION("0 x 0") {
    HostProduct<V> p(convert_values<V>(empty_matrix(0, 0)), convert_values<V>(empty_matrix(0, 0)));
    REQUIRE(p.symbolic(true) == 0);
    p.numeric(V(1));
    CHECK(p.c().row_offsets == std::vector<int32_t>{0});
  }
  SECTION("no rows: 0 x 5 times 5 x 4") {
    const auto b = convert_values<V>(random_rect(5, 4, 0.5, 1));
    CHECK(multiply_and_check(convert_values<V>(empty_matrix(0, 5)), b, V(1)) == "");
  }
  SECTION("inner dimension 0: 5 x 0 times 0 x 4") {
    CHECK(multiply_and_check(convert_values<V>(empty_matrix(5, 0)),
                             convert_values<V>(empty_matrix(0, 4)), V(1)) == "");
  }
  SECTION("rows but no entries") {
    const auto some = convert_values<V>(random_rect(7, 3, 0.5, 2));
    const auto none_a = convert_values<V>(empty_matrix(6, 7));
    CHECK(multiply_and_check(none_a, some, V(1)) == "");
    const auto some_a = convert_values<V>(random_rect(6, 7, 0.5, 3));
    const auto none_b = convert_values<V>(empty_matrix(7, 3));
    CHECK(multiply_and_check(some_a, none_b, V(1)) == "");
  }
  SECTION("1 x N times N x 1 (a dot product)") {
    const auto row = convert_values<V>(random_rect(1, 1000, 0.5, 4));
    const auto col = convert_values<V>(random_rect(1000, 1, 0.5, 5));
    CHECK(multiply_and_check(row, col, V(-2.5)) == "");
  }
  SECTION("N x 1 times 1 x N (an outer product)") {
    const auto col = convert_values<V>(random_rect(300, 1, 0.5, 6));
    const auto row = convert_values<V>(random_rect(1, 300, 0.5, 7));
    CHECK(multiply_and_check(col, row, V(-2.5)) == "");
  }
}
