// SPDX-License-Identifier: Apache-2.0
// The Matrix Market reader on small hand-written files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#ifdef SPGEMM_HAVE_ZLIB
#include <zlib.h>
#endif

#include "generators.hpp"
#include "matrix_market.hpp"

using namespace spgemm_test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test case, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("spgemm_mm_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name, const std::string& content) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string gzip_file(const std::string& plain) {
  const std::string gz = plain + ".gz";
#ifdef SPGEMM_HAVE_ZLIB
  std::ifstream in(plain, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  gzFile f = gzopen(gz.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, content.data(), static_cast<unsigned>(content.size())) ==
          static_cast<int>(content.size()));
  REQUIRE(gzclose(f) == Z_OK);
#else
  REQUIRE(std::system(("gzip -c '" + plain + "' > '" + gz + "'").c_str()) == 0);
#endif
  return gz;
}

// Dense picture of a small matrix (absent entries as 0).
std::vector<std::vector<double>> dense(const HostCsr<double>& a) {
  std::vector<std::vector<double>> d(a.rows, std::vector<double>(a.cols, 0.0));
  for (int64_t r = 0; r < a.rows; ++r)
    for (int32_t e = a.row_offsets[r]; e < a.row_offsets[r + 1]; ++e) d[r][a.col_ind[e]] = a.values[e];
  return d;
}

bool same(const HostCsr<double>& x, const HostCsr<double>& y) {
  return x.rows == y.rows && x.cols == y.cols && x.row_offsets == y.row_offsets &&
         x.col_ind == y.col_ind && x.values == y.values;
}

}  // namespace

TEST_CASE("general real, unsorted, with comments and duplicates", "[mm]") {
  TempDir dir;
  const auto a = read_matrix_market(dir.file("g.mtx",
                                              "%%MatrixMarket matrix coordinate real general\n"
                                              "% a comment\n"
                                              "%\n"
                                              "\n"
                                              "3 4 6\n"
                                              "3 4 -1.5e0\n"
                                              "1 2 2\n"
                                              "1 1 1\n"
                                              "3 1 0.25\r\n"  // CRLF line ending
                                              "1 2 0.5\n"     // duplicate: summed
                                              "3 4 1.5\n"));  // sums to an explicit zero
  REQUIRE(is_sorted_unique(a));
  CHECK(a.rows == 3);
  CHECK(a.cols == 4);
  CHECK(a.row_offsets == std::vector<int32_t>{0, 2, 2, 4});
  CHECK(a.col_ind == std::vector<int32_t>{0, 1, 0, 3});
  CHECK(a.values == std::vector<double>{1, 2.5, 0.25, 0});  // the zero stays an entry
}

TEST_CASE("symmetric, skew-symmetric and integer fields", "[mm]") {
  TempDir dir;
  SECTION("symmetric mirrors off-diagonal entries only") {
    const auto a = read_matrix_market(dir.file("s.mtx",
                                                "%%MatrixMarket matrix coordinate real symmetric\n"
                                                "3 3 4\n"
                                                "1 1 4\n"
                                                "2 1 -1\n"
                                                "3 2 2\n"
                                                "3 3 5\n"));
    REQUIRE(is_sorted_unique(a));
    CHECK(a.nnz() == 6);
    CHECK(dense(a) == std::vector<std::vector<double>>{{4, -1, 0}, {-1, 0, 2}, {0, 2, 5}});
  }
  SECTION("skew-symmetric negates the mirror") {
    const auto a = read_matrix_market(dir.file("k.mtx",
                                                "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                                "3 3 2\n"
                                                "2 1 3\n"
                                                "3 1 -2\n"));
    REQUIRE(is_sorted_unique(a));
    CHECK(dense(a) == std::vector<std::vector<double>>{{0, -3, 2}, {3, 0, 0}, {-2, 0, 0}});
  }
  SECTION("integer") {
    const auto a = read_matrix_market(dir.file("i.mtx",
                                                "%%MatrixMarket matrix coordinate integer general\n"
                                                "2 2 2\n"
                                                "1 2 -7\n"
                                                "2 1 12\n"));
    CHECK(dense(a) == std::vector<std::vector<double>>{{0, -7}, {12, 0}});
  }
  SECTION("banner words are case-insensitive") {
    const auto a = read_matrix_market(dir.file("u.mtx",
                                                "%%MatrixMarket MATRIX Coordinate Real General\n"
                                                "1 1 1\n"
                                                "1 1 3\n"));
    CHECK(a.values == std::vector<double>{3});
  }
}

TEST_CASE("pattern entries get reproducible non-zero values", "[mm]") {
  TempDir dir;
  const std::string general = dir.file("p.mtx",
                                       "%%MatrixMarket matrix coordinate pattern general\n"
                                       "3 3 4\n"
                                       "1 1\n"
                                       "1 3\n"
                                       "3 1\n"
                                       "2 2\n");
  const auto a = read_matrix_market(general);
  REQUIRE(is_sorted_unique(a));
  CHECK(a.col_ind == std::vector<int32_t>{0, 2, 1, 0});
  for (double v : a.values) {
    CHECK(std::fabs(v) >= 0.5);
    CHECK(std::fabs(v) <= 1.5);
  }
  CHECK(same(a, read_matrix_market(general)));  // same file, same values

  const auto s = read_matrix_market(dir.file("ps.mtx",
                                              "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                              "4 4 4\n"
                                              "2 1\n"
                                              "4 1\n"
                                              "4 3\n"
                                              "3 3\n"));
  REQUIRE(is_sorted_unique(s));
  CHECK(s.nnz() == 7);
  const auto d = dense(s);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK(d[i][j] == d[j][i]);
  CHECK(d[1][0] != 0);
  CHECK(d[3][2] != 0);
  CHECK(d[2][2] != 0);
}

TEST_CASE("gzip'd files read like plain ones", "[mm]") {
  TempDir dir;
  const std::string plain = dir.file("z.mtx",
                                     "%%MatrixMarket matrix coordinate real symmetric\n"
                                     "% comment\n"
                                     "4 4 5\n"
                                     "1 1 1\n"
                                     "2 1 2\n"
                                     "3 2 3\n"
                                     "4 4 4\n"
                                     "4 1 5\n");
  const std::string gz = gzip_file(plain);
  CHECK(same(read_matrix_market(gz), read_matrix_market(plain)));

  // A larger one, to cross the reader's buffer sizes.
  const auto big = random_rect(500, 400, 0.05, 42);
  write_matrix_market(dir.path("big.mtx"), big);
  CHECK(same(read_matrix_market(gzip_file(dir.path("big.mtx"))), big));
}

TEST_CASE("write then read gives the same matrix", "[mm]") {
  TempDir dir;
  for (const auto& a : {random_rect(37, 53, 0.1, 1), empty_matrix(4, 6), empty_matrix(0, 0),
                        with_empty_rows(uniform_random(100, 80, 5, 2), 0.3, 3)}) {
    const std::string p = dir.path("rt.mtx");
    write_matrix_market(p, a);
    CHECK(same(read_matrix_market(p), a));
  }
}

TEST_CASE("malformed and unsupported files give clear errors", "[mm]") {
  TempDir dir;
  const auto bad = [&](const std::string& content) { return dir.file("bad.mtx", content); };
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";

  CHECK_THROWS_WITH(read_matrix_market(dir.path("missing.mtx")), Contains("missing.mtx"));
  CHECK_THROWS_WITH(read_matrix_market(bad("")), Contains("bad.mtx:0:"));
  CHECK_THROWS_WITH(read_matrix_market(bad("hello\n1 1 1\n")), Contains("bad.mtx:1:") && Contains("MatrixMarket"));
  CHECK_THROWS_WITH(read_matrix_market(bad("%%MatrixMarket matrix coordinate real\n1 1 0\n")),
                    Contains("bad.mtx:1:") && Contains("banner"));
  CHECK_THROWS_WITH(read_matrix_market(bad("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n")),
                    Contains("array"));
  CHECK_THROWS_WITH(read_matrix_market(bad("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n")),
                    Contains("complex"));
  CHECK_THROWS_WITH(read_matrix_market(bad("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n")),
                    Contains("hermitian"));
  CHECK_THROWS_WITH(read_matrix_market(bad("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n")),
                    Contains("square"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2\n")), Contains("bad.mtx:2:") && Contains("size line"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "% only comments\n")), Contains("size line"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 2\n1 1 1\n3 1 1\n")),
                    Contains("bad.mtx:4:") && Contains("out of range"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 1\n1 0 1\n")),
                    Contains("bad.mtx:3:") && Contains("out of range"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 3\n1 1 1\n2 2 1\n")),
                    Contains("expected 3 entries, found 2"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 1\n1 1 1\n2 2 1\n")),
                    Contains("bad.mtx:4:") && Contains("more entries"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 1\n1 1\n")),
                    Contains("bad.mtx:3:") && Contains("value"));
  CHECK_THROWS_WITH(read_matrix_market(bad(banner + "2 2 1\n1 x 1\n")),
                    Contains("bad.mtx:3:") && Contains("malformed"));
}
