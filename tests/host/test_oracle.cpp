// SPDX-License-Identifier: Apache-2.0
// The oracle (tests/support/reference.hpp) on products worked by hand: every
// other test's verdict rests on it.
#include "reference.hpp"

#include <catch2/catch.hpp>

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace spgemm_test;

namespace {

template <class V>
HostCsr<V> csr(int64_t rows, int64_t cols, std::vector<int32_t> offsets,
               std::vector<int32_t> col_ind, std::vector<V> values) {
  HostCsr<V> m;
  m.rows = rows;
  m.cols = cols;
  m.row_offsets = std::move(offsets);
  m.col_ind = std::move(col_ind);
  m.values = std::move(values);
  return m;
}

}  // namespace

TEST_CASE("oracle: a 2 x 2 product, alpha, sorted rows", "[oracle]") {
  // A = [1 2; 0 3], B = [4 0; 5 6]: A * B = [14 12; 15 18]
  const auto A = csr<double>(2, 2, {0, 2, 3}, {1, 0, 1}, {2, 1, 3});  // row 0 unsorted
  const auto B = csr<double>(2, 2, {0, 1, 3}, {0, 1, 0}, {4, 6, 5});
  const auto r = reference_spgemm(A, B, 0.5);
  CHECK(r.C.row_offsets == std::vector<int32_t>{0, 2, 4});
  CHECK(r.C.col_ind == std::vector<int32_t>{0, 1, 0, 1});
  CHECK(r.C.values == std::vector<double>{7, 6, 7.5, 9});
  CHECK(r.abs_bound == std::vector<double>{7, 6, 7.5, 9});
}

TEST_CASE("oracle: terms that cancel keep their entry; repeated columns add", "[oracle]") {
  // row 0 of A * B: 1 * [1 at column 3] + 1 * [-1 at column 3, 2 and 2 at column 1]
  const auto A = csr<double>(1, 2, {0, 2}, {0, 1}, {1, 1});
  const auto B = csr<double>(2, 4, {0, 1, 4}, {3, 3, 1, 1}, {1, -1, 2, 2});
  const auto r = reference_spgemm(A, B, -1.0);
  CHECK(r.C.col_ind == std::vector<int32_t>{1, 3});
  CHECK(r.C.values == std::vector<double>{-4, 0});
  CHECK(r.abs_bound == std::vector<double>{4, 2});
}

TEST_CASE("oracle: an addend D, its pattern joined to the product's", "[oracle]") {
  const auto A = csr<double>(2, 1, {0, 1, 1}, {0}, {2});
  const auto B = csr<double>(1, 3, {0, 1}, {1}, {3});
  // D: an entry beside the product's in row 0, one in the empty row 1
  const auto D = csr<double>(2, 3, {0, 2, 3}, {1, 2, 0}, {1, 4, 8});
  const auto r = reference_spgemm(A, B, 1.0, &D, 0.5);
  CHECK(r.C.row_offsets == std::vector<int32_t>{0, 2, 3});
  CHECK(r.C.col_ind == std::vector<int32_t>{1, 2, 0});
  CHECK(r.C.values == std::vector<double>{6.5, 2, 4});
  CHECK(r.abs_bound == std::vector<double>{6.5, 2, 4});
}

TEST_CASE("oracle: complex values, the bound from the terms' magnitudes", "[oracle]") {
  using Z = std::complex<double>;
  const auto A = csr<Z>(1, 2, {0, 2}, {0, 1}, {Z(3, 4), Z(0, 1)});
  const auto B = csr<Z>(2, 1, {0, 1, 2}, {0, 0}, {Z(1, 0), Z(0, 2)});
  // (3 + 4i) * 1 + i * 2i = 1 + 4i; magnitudes 5 * 1 + 1 * 2
  const auto r = reference_spgemm(A, B, Z(1, 0));
  REQUIRE(r.C.values.size() == 1);
  CHECK(r.C.values[0] == Z(1, 4));
  CHECK(r.abs_bound[0] == 7);
}

TEST_CASE("oracle: C wider than the array of places", "[oracle]") {
  // 2^24 + 1 columns: the places go to the hash map; the row still sorted
  const int32_t last = int32_t{1} << 24;
  const auto A = csr<double>(2, 1, {0, 1, 2}, {0, 0}, {1, 2});
  const auto B = csr<double>(1, int64_t{last} + 1, {0, 3}, {last, 0, last}, {1, 2, 3});
  const auto r = reference_spgemm(A, B, 1.0);
  CHECK(r.C.col_ind == std::vector<int32_t>{0, last, 0, last});
  CHECK(r.C.values == std::vector<double>{2, 4, 4, 8});
}

TEST_CASE("oracle: refuses what is not a product", "[oracle]") {
  const auto A = csr<double>(1, 2, {0, 1}, {0}, {1});
  const auto B = csr<double>(2, 3, {0, 1, 1}, {3}, {1});  // column 3 of 3
  CHECK_THROWS_AS(reference_spgemm(A, B, 1.0), std::invalid_argument);
  const auto B1 = csr<double>(1, 3, {0, 0}, {}, {});
  CHECK_THROWS_AS(reference_spgemm(A, B1, 1.0), std::invalid_argument);  // A.cols != B.rows
}
