// SPDX-License-Identifier: Apache-2.0
#include "generators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace spgemm_test {
namespace {

constexpr int64_t kIndexMax = std::numeric_limits<int32_t>::max();

void check_dims(int64_t rows, int64_t cols, const char* who) {
  if (rows < 0 || cols < 0 || rows > kIndexMax || cols > kIndexMax)
    throw std::invalid_argument(std::string(who) + ": dimensions out of range for 32-bit indices");
}

// Appends rows one at a time; values are filled at the end from their own
// stream, so the structure of a matrix does not depend on its values.
class CsrBuilder {
 public:
  CsrBuilder(int64_t rows, int64_t cols, const char* who) : who_(who) {
    check_dims(rows, cols, who);
    a_.rows = rows;
    a_.cols = cols;
    a_.row_offsets.reserve(static_cast<size_t>(rows) + 1);
  }

  void reserve(int64_t nnz) { a_.col_ind.reserve(static_cast<size_t>(std::min(nnz, kIndexMax))); }
  void push(int64_t col) { a_.col_ind.push_back(static_cast<int32_t>(col)); }
  void add_row(const std::vector<int32_t>& sorted_cols) {
    a_.col_ind.insert(a_.col_ind.end(), sorted_cols.begin(), sorted_cols.end());
    end_row();
  }
  void end_row() {
    if (a_.nnz() > kIndexMax) throw std::invalid_argument(who_ + ": too many entries for 32-bit offsets");
    a_.row_offsets.push_back(static_cast<int32_t>(a_.nnz()));
  }

  HostCsr<double> finish(uint64_t seed) {
    a_.values.resize(a_.col_ind.size());
    randomize_values(a_, mix64(seed) ^ 0x76616c756573ULL);
    return std::move(a_);
  }

 private:
  std::string who_;
  HostCsr<double> a_;
};

// k distinct values of [0, n), sorted; all k-subsets equally likely.
void sample_distinct(Rng& rng, int64_t n, int64_t k, std::vector<int32_t>& out) {
  out.clear();
  k = std::min(k, n);
  if (k <= 0) return;
  if (k * 4 >= n) {
    // Dense: selection sampling, one pass over [0, n).
    int64_t need = k;
    for (int64_t i = 0; i < n && need > 0; ++i)
      if (static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i))) < need) {
        out.push_back(static_cast<int32_t>(i));
        --need;
      }
    return;
  }
  // Sparse: draw, drop repeats, top up. Symmetric in the labels, so uniform.
  while (static_cast<int64_t>(out.size()) < k) {
    while (static_cast<int64_t>(out.size()) < k) out.push_back(static_cast<int32_t>(rng.below(n)));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

// Stencil on an n^dimensions grid: full = every offset in [-1, 1]^d (9 or 27
// points), else axis neighbours only (5 or 7). Rows and offsets both run in
// lexicographic order, so columns come out sorted.
HostCsr<double> stencil(int n, int dimensions, bool full, uint64_t seed, const char* who) {
  if (n < 0) throw std::invalid_argument(std::string(who) + ": negative grid size");
  int64_t rows = 1;
  for (int d = 0; d < dimensions; ++d) {
    rows *= n;
    if (rows > kIndexMax) throw std::invalid_argument(std::string(who) + ": grid too large");
  }
  CsrBuilder b(rows, rows, who);
  b.reserve(rows * (full ? (dimensions == 3 ? 27 : 9) : 2 * dimensions + 1));
  const int64_t nz = dimensions == 3 ? n : 1;
  for (int64_t z = 0; z < nz; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x) {
        for (int dz = (dimensions == 3 ? -1 : 0); dz <= (dimensions == 3 ? 1 : 0); ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              // 5-point: only axis neighbours (at most one offset non-zero).
              if (!full && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
              const int64_t xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= nz) continue;
              b.push((zz * n + yy) * n + xx);
            }
        b.end_row();
      }
  return b.finish(seed);
}

// ---- spec parsing ------------------------------------------------------------
class Spec {
 public:
  explicit Spec(const std::string& text) : text_(text) {
    size_t start = 0;
    for (;;) {
      const size_t colon = text.find(':', start);
      parts_.push_back(text.substr(start, colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }

  const std::string& family() const { return parts_[0]; }
  size_t args() const { return parts_.size() - 1; }

  // Arguments are numbered from 1 (parts_[0] is the family).
  void expect_args(size_t required, size_t max) const {
    const size_t given = args();
    if (given < required || given > max)
      fail("expected " + std::to_string(required) +
           (max > required ? " to " + std::to_string(max) : std::string()) + " arguments, got " +
           std::to_string(given));
  }

  int64_t integer(size_t i, int64_t fallback) const {
    if (i >= parts_.size()) return fallback;
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(parts_[i], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != parts_[i].size()) fail("'" + parts_[i] + "' is not an integer");
    return v;
  }

  double real(size_t i, double fallback) const {
    if (i >= parts_.size()) return fallback;
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(parts_[i], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != parts_[i].size()) fail("'" + parts_[i] + "' is not a number");
    return v;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("matrix spec '" + text_ + "': " + what);
  }

 private:
  std::string text_;
  std::vector<std::string> parts_;
};

int to_int(const Spec& s, int64_t v, const char* what) {
  if (v < 0 || v > kIndexMax) s.fail(std::string(what) + " out of range");
  return static_cast<int>(v);
}

}  // namespace

HostCsr<double> poisson2d_5pt(int n, uint64_t seed) { return stencil(n, 2, false, seed, "poisson2d_5pt"); }

HostCsr<double> stencil3d_27pt(int n, uint64_t seed) { return stencil(n, 3, true, seed, "stencil3d_27pt"); }

HostCsr<double> rmat(int scale, int edge_factor, double a, double b, double c, uint64_t seed) {
  if (scale < 0 || scale > 30 || edge_factor < 0)
    throw std::invalid_argument("rmat: scale must be in [0, 30], edge_factor >= 0");
  if (a < 0 || b < 0 || c < 0 || a + b + c > 1.0)
    throw std::invalid_argument("rmat: need a, b, c >= 0 and a + b + c <= 1");
  const int64_t n = int64_t{1} << scale;
  const int64_t edges = n * edge_factor;
  Rng rng(seed);
  // Edges as (row << 32 | col) keys: sorting them gives CSR order directly.
  std::vector<uint64_t> keys(static_cast<size_t>(edges));
  for (auto& key : keys) {
    uint64_t r = 0, col = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = rng.unit();
      const uint64_t down = u >= a + b, right = (u >= a && u < a + b) || u >= a + b + c;
      r = (r << 1) | down;
      col = (col << 1) | right;
    }
    key = (r << 32) | col;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  CsrBuilder builder(n, n, "rmat");
  builder.reserve(static_cast<int64_t>(keys.size()));
  size_t e = 0;
  for (int64_t r = 0; r < n; ++r) {
    for (; e < keys.size() && static_cast<int64_t>(keys[e] >> 32) == r; ++e)
      builder.push(static_cast<int64_t>(keys[e] & 0xffffffffu));
    builder.end_row();
  }
  return builder.finish(seed);
}

HostCsr<double> uniform_random(int64_t rows, int64_t cols, int per_row, uint64_t seed) {
  CsrBuilder b(rows, cols, "uniform_random");
  b.reserve(rows * std::min<int64_t>(std::max(per_row, 0), cols));
  Rng rng(seed);
  std::vector<int32_t> row;
  for (int64_t r = 0; r < rows; ++r) {
    sample_distinct(rng, cols, per_row, row);
    b.add_row(row);
  }
  return b.finish(seed);
}

HostCsr<double> banded(int64_t rows, int half_bandwidth, uint64_t seed) {
  if (half_bandwidth < 0) throw std::invalid_argument("banded: negative half bandwidth");
  CsrBuilder b(rows, rows, "banded");
  b.reserve(rows * (2 * int64_t{half_bandwidth} + 1));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t first = std::max<int64_t>(0, r - half_bandwidth);
    const int64_t last = std::min<int64_t>(rows - 1, r + half_bandwidth);
    for (int64_t c = first; c <= last; ++c) b.push(c);
    b.end_row();
  }
  return b.finish(seed);
}

HostCsr<double> power_law(int64_t rows, double exponent, int max_row, uint64_t seed) {
  if (max_row < 1 || exponent <= 0) throw std::invalid_argument("power_law: need max_row >= 1, exponent > 0");
  const int64_t longest = std::min<int64_t>(max_row, std::max<int64_t>(rows, 1));
  // Inverse CDF over lengths 1..longest.
  std::vector<double> cdf(static_cast<size_t>(longest));
  double total = 0;
  for (int64_t k = 1; k <= longest; ++k) cdf[k - 1] = (total += std::pow(static_cast<double>(k), -exponent));
  CsrBuilder b(rows, rows, "power_law");
  Rng rng(seed);
  std::vector<int32_t> row;
  for (int64_t r = 0; r < rows; ++r) {
    const double u = rng.unit() * total;
    const int64_t len = (std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) + 1;
    sample_distinct(rng, rows, std::min(len, longest), row);
    b.add_row(row);
  }
  return b.finish(seed);
}

HostCsr<double> few_long_rows(int64_t rows, int64_t cols, int n_long, int long_len, int short_len,
                              uint64_t seed) {
  CsrBuilder b(rows, cols, "few_long_rows");
  Rng rng(seed);
  std::vector<int32_t> long_rows, row;
  sample_distinct(rng, rows, n_long, long_rows);
  size_t next_long = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const bool is_long = next_long < long_rows.size() && long_rows[next_long] == r;
    next_long += is_long;
    sample_distinct(rng, cols, is_long ? long_len : short_len, row);
    b.add_row(row);
  }
  return b.finish(seed);
}

HostCsr<double> hub(int64_t n, int hub_len, int n_refs, int short_len, uint64_t seed) {
  CsrBuilder b(n, n, "hub");
  Rng rng(seed);
  const int32_t hub_row = static_cast<int32_t>(n / 2);
  std::vector<int32_t> refs, row;
  sample_distinct(rng, n, n_refs, refs);
  size_t next_ref = 0;
  for (int64_t r = 0; r < n; ++r) {
    sample_distinct(rng, n, r == hub_row ? hub_len : short_len, row);
    if (next_ref < refs.size() && refs[next_ref] == r) {
      ++next_ref;
      auto at = std::lower_bound(row.begin(), row.end(), hub_row);
      if (at == row.end() || *at != hub_row) row.insert(at, hub_row);
    }
    b.add_row(row);
  }
  return b.finish(seed);
}

HostCsr<double> with_empty_rows(const HostCsr<double>& a, double fraction, uint64_t seed) {
  const double f = std::clamp(fraction, 0.0, 1.0);
  Rng rng(seed);
  std::vector<int32_t> emptied;
  sample_distinct(rng, a.rows, std::llround(f * static_cast<double>(a.rows)), emptied);
  HostCsr<double> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_offsets.assign(1, 0);
  size_t next = 0;
  for (int64_t r = 0; r < a.rows; ++r) {
    const bool drop = next < emptied.size() && emptied[next] == r;
    next += drop;
    if (!drop) {
      out.col_ind.insert(out.col_ind.end(), a.col_ind.begin() + a.row_offsets[r],
                         a.col_ind.begin() + a.row_offsets[r + 1]);
      out.values.insert(out.values.end(), a.values.begin() + a.row_offsets[r],
                        a.values.begin() + a.row_offsets[r + 1]);
    }
    out.row_offsets.push_back(static_cast<int32_t>(out.col_ind.size()));
  }
  return out;
}

HostCsr<double> empty_matrix(int64_t rows, int64_t cols) {
  check_dims(rows, cols, "empty_matrix");
  HostCsr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_offsets.assign(static_cast<size_t>(rows) + 1, 0);
  return a;
}

HostCsr<double> random_rect(int64_t rows, int64_t cols, double density, uint64_t seed) {
  CsrBuilder b(rows, cols, "random_rect");
  Rng rng(seed);
  const double p = std::clamp(density, 0.0, 1.0);
  // Geometric gaps between present entries: O(nnz) work, not O(rows*cols).
  const double log_q = std::log1p(-p);
  for (int64_t r = 0; r < rows; ++r) {
    if (p >= 1.0) {
      for (int64_t c = 0; c < cols; ++c) b.push(c);
    } else if (p > 0.0) {
      double c = -1;
      for (;;) {
        c += std::floor(std::log(1.0 - rng.unit()) / log_q) + 1;
        if (c >= static_cast<double>(cols)) break;
        b.push(static_cast<int64_t>(c));
      }
    }
    b.end_row();
  }
  return b.finish(seed);
}

HostCsr<double> generate(const std::string& text) {
  const Spec s(text);
  const std::string& f = s.family();
  if (f == "poisson2d") {
    s.expect_args(1, 2);
    return poisson2d_5pt(to_int(s, s.integer(1, 0), "N"), s.integer(2, 1));
  }
  if (f == "stencil27" || f == "poisson3d") {
    s.expect_args(1, 2);
    return stencil3d_27pt(to_int(s, s.integer(1, 0), "N"), s.integer(2, 1));
  }
  if (f == "rmat") {
    s.expect_args(2, 6);
    if (s.args() == 4 || s.args() == 5) s.fail("give all of A:B:C or none");
    return rmat(to_int(s, s.integer(1, 0), "SCALE"), to_int(s, s.integer(2, 0), "EDGE_FACTOR"),
                s.real(4, 0.57), s.real(5, 0.19), s.real(6, 0.19), s.integer(3, 7));
  }
  if (f == "uniform") {
    s.expect_args(2, 3);
    const int64_t rows = s.integer(1, 0);
    return uniform_random(rows, rows, to_int(s, s.integer(2, 0), "PER_ROW"), s.integer(3, 9));
  }
  if (f == "banded" || f == "band") {
    s.expect_args(2, 3);
    return banded(s.integer(1, 0), to_int(s, s.integer(2, 0), "HALF_BW"), s.integer(3, 1));
  }
  if (f == "powerlaw") {
    s.expect_args(1, 4);
    const int64_t rows = s.integer(1, 0);
    return power_law(rows, s.real(2, 2.0), to_int(s, s.integer(3, std::min<int64_t>(rows, 1000)), "MAX_ROW"),
                     s.integer(4, 1));
  }
  if (f == "longrows") {
    s.expect_args(1, 5);
    const int64_t rows = s.integer(1, 0);
    return few_long_rows(rows, rows, to_int(s, s.integer(2, 16), "N_LONG"),
                         to_int(s, s.integer(3, rows / 2), "LONG_LEN"),
                         to_int(s, s.integer(4, 4), "SHORT_LEN"), s.integer(5, 1));
  }
  if (f == "hub") {
    s.expect_args(1, 5);
    const int64_t n = s.integer(1, 0);
    return hub(n, to_int(s, s.integer(2, n / 2), "HUB_LEN"), to_int(s, s.integer(3, n / 20), "N_REFS"),
               to_int(s, s.integer(4, 4), "SHORT_LEN"), s.integer(5, 1));
  }
  if (f == "rect") {
    s.expect_args(3, 4);
    return random_rect(s.integer(1, 0), s.integer(2, 0), s.real(3, 0), s.integer(4, 1));
  }
  if (f == "empty") {
    s.expect_args(2, 2);
    return empty_matrix(s.integer(1, 0), s.integer(2, 0));
  }
  s.fail("unknown family '" + f +
         "' (known: poisson2d, stencil27, rmat, uniform, banded, powerlaw, longrows, hub, rect, empty)");
}

std::vector<std::string> generator_families() {
  return {"poisson2d:700", "stencil27:64",  "rmat:16:16",     "uniform:500000:8",
          "banded:500000:16", "powerlaw:100000", "longrows:20000"};
}

std::vector<NamedMatrix> small_test_suite() {
  std::vector<NamedMatrix> s;
  auto add = [&s](std::string name, HostCsr<double> a, bool square = true) {
    s.push_back(NamedMatrix{std::move(name), std::move(a), square});
  };
  add("poisson2d_5pt_30", poisson2d_5pt(30, 11));
  add("stencil3d_27pt_7", stencil3d_27pt(7, 12));
  add("uniform_2000_8", uniform_random(2000, 2000, 8, 13));
  add("power_law_3000", power_law(3000, 1.8, 300, 14));
  add("banded_1500_5", banded(1500, 5, 15));
  add("diagonal_1000", banded(1000, 0, 16));
  add("rmat_10_8", rmat(10, 8, 0.57, 0.19, 0.19, 17));
  add("dense_48", random_rect(48, 48, 1.0, 18));
  // A row of 25000 entries; the few rows that reference it make C rows that
  // long. Larger than the rest on purpose (~0.6M products).
  add("few_long_rows", few_long_rows(30000, 30000, 2, 25000, 3, 19));
  // One B row of 12000 entries gathered by 200 rows: 200 C rows > 10k
  // entries (~2.4M products), the GPU's fallback for very long C rows.
  add("hub_rows", hub(15000, 12000, 200, 3, 20));
  add("empty_rows_30pct", with_empty_rows(uniform_random(1500, 1500, 6, 21), 0.3, 22));
  add("empty_rows_90pct", with_empty_rows(power_law(4000, 1.8, 200, 23), 0.9, 24));
  add("no_entries_50", empty_matrix(50, 50));
  add("one_by_one", random_rect(1, 1, 1.0, 25));
  add("rect_300x700", random_rect(300, 700, 0.02, 26), false);
  add("rect_700x300", random_rect(700, 300, 0.02, 27), false);
  add("rect_wide_empty_rows", with_empty_rows(random_rect(200, 3000, 0.01, 28), 0.25, 29), false);
  return s;
}

}  // namespace spgemm_test
