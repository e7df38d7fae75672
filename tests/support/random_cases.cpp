// SPDX-License-Identifier: Apache-2.0
#include "random_cases.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "generators.hpp"
#include "random.hpp"

namespace spgemm_test {
namespace {

// Uniform integer in [lo, hi].
int64_t uniform_int(Rng& r, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(r.below(static_cast<uint64_t>(hi - lo + 1)));
}

// Log-uniform integer in [lo, hi], lo >= 1: small sizes as likely as large.
int64_t log_uniform(Rng& r, int64_t lo, int64_t hi) {
  const double l = std::log(static_cast<double>(lo)), h = std::log(static_cast<double>(hi) + 1);
  const auto v = static_cast<int64_t>(std::exp(l + r.unit() * (h - l)));
  return std::clamp(v, lo, hi);
}

// An upper size bound shrunk by scale (retries of a case that came out with
// too many products), never below lo.
int64_t upto(double hi, double scale, int64_t lo = 1) {
  return std::max<int64_t>(lo, std::llround(hi * scale));
}

// A sparse size in [1, hi * scale], log-uniform.
int64_t size(Rng& r, double hi, double scale) { return log_uniform(r, 1, upto(hi, scale)); }

// A density: 0 one time in eight, else log-uniform in [1e-3, 1].
double density(Rng& r) {
  if (r.below(8) == 0) return 0.0;
  return std::exp(std::log(1e-3) * r.unit());
}

// A non-zero alpha of either sign over a few binary orders of magnitude;
// exactly 1 one time in eight.
double random_alpha(Rng& r) {
  if (r.below(8) == 0) return 1.0;
  const double mantissa = r.value();  // [0.5, 1.5], either sign
  return std::ldexp(mantissa, static_cast<int>(r.below(7)) - 3);
}

struct Pair {
  HostCsr<double> A, B;
};

// Note: no call below passes two draws from r as arguments of one function
// call (their order would be up to the compiler, and a seed would name a
// different case elsewhere); braced lists are evaluated in order.

// Random rectangles whose expected product count is log-uniform in
// [200, 100k], either operand possibly empty.
Pair rect(Rng& r, double s) {
  const int64_t m = size(r, 400, s), k = size(r, 400, s), n = size(r, 400, s);
  const double target = static_cast<double>(log_uniform(r, 200, 100000));
  const double both = target / (static_cast<double>(m) * k * n);
  const double skew = std::exp((r.unit() - 0.5) * 2.0 * std::log(4.0));
  double da = std::sqrt(both) * skew, db = std::sqrt(both) / skew;
  if (r.below(8) == 0) da = 0;
  if (r.below(8) == 0) db = 0;
  return {random_rect(m, k, std::min(da, 1.0), r.next()),
          random_rect(k, n, std::min(db, 1.0), r.next())};
}

Pair empty_rows(Rng& r, double s) {
  const int64_t m = size(r, 1500, s), k = size(r, 2000, s), n = size(r, 2000, s);
  const int per_a = static_cast<int>(uniform_int(r, 1, 8));
  const double db = std::min(1.0, static_cast<double>(uniform_int(r, 1, 12)) / n);
  const double fraction_a = r.unit(), fraction_b = r.unit();
  const uint64_t seeds[4] = {r.next(), r.next(), r.next(), r.next()};
  return {with_empty_rows(uniform_random(m, k, per_a, seeds[0]), fraction_a, seeds[1]),
          with_empty_rows(random_rect(k, n, db, seeds[2]), fraction_b, seeds[3])};
}

// Thin and empty shapes.
Pair thin(Rng& r, double s) {
  switch (r.below(8)) {
    case 0: {  // 1xN * Nx1: one entry summing up to N terms
      const int64_t n = size(r, 1000, s);
      const double da = r.unit(), db = r.unit();
      return {random_rect(1, n, da, r.next()), random_rect(n, 1, db, r.next())};
    }
    case 1: {  // Nx1 * 1xM: an outer product
      const int64_t n = size(r, 300, s), m = size(r, 300, s);
      const double da = density(r), db = density(r);
      return {random_rect(n, 1, da, r.next()), random_rect(1, m, db, r.next())};
    }
    case 2: {  // 0xN * NxM
      const int64_t n = size(r, 500, s), m = size(r, 500, s);
      const double db = density(r);
      return {empty_matrix(0, n), random_rect(n, m, db, r.next())};
    }
    case 3: {  // Nx0 * 0xM: inner dimension 0
      return {empty_matrix(size(r, 500, s), 0), empty_matrix(0, size(r, 500, s))};
    }
    case 4: {  // MxN * Nx0
      const int64_t m = size(r, 500, s), n = size(r, 500, s);
      const double da = density(r);
      return {random_rect(m, n, da, r.next()), empty_matrix(n, 0)};
    }
    case 5:
      return {empty_matrix(0, 0), empty_matrix(0, 0)};
    case 6: {  // 1x1 * 1x1, sometimes without its entry
      const double da = r.below(4) ? 1.0 : 0.0;
      return {random_rect(1, 1, da, r.next()), random_rect(1, 1, 1.0, r.next())};
    }
    default: {  // 1xN * NxM: C is one row, up to 20000 entries long
      const int64_t n = size(r, 64, s), m = size(r, 20000, s);
      const double da = 0.1 + 0.9 * r.unit();
      const double target = static_cast<double>(log_uniform(r, 100, 100000));
      const double db = std::min(1.0, target / (std::max(1.0, da * n) * m));
      return {random_rect(1, n, da, r.next()), random_rect(n, m, db, r.next())};
    }
  }
}

// A few rows of A much longer than the rest: those rows of C gather many
// rows of B. (k <= 1500 keeps entries within the float tolerance's terms.)
Pair long_rows_a(Rng& r, double s) {
  const int64_t m = size(r, 3000, s), k = size(r, 1500, s), n = size(r, 3000, s);
  const int n_long = static_cast<int>(uniform_int(r, 1, 4));
  const int long_len = static_cast<int>(log_uniform(r, 1, k));
  const int short_len = static_cast<int>(uniform_int(r, 0, 4));
  const int per_b = static_cast<int>(uniform_int(r, 1, 8));
  return {few_long_rows(m, k, n_long, long_len, short_len, r.next()),
          uniform_random(k, n, per_b, r.next())};
}

// A few rows of B much longer than the rest: the rows of C that reference
// them are at least as long (past 8192 entries, the GPU's dense window).
Pair long_rows_b(Rng& r, double s) {
  const int64_t m = size(r, 2000, s), k = size(r, 2000, s), n = size(r, 20000, s);
  const int per_a = static_cast<int>(uniform_int(r, 1, 3));
  const int n_long = static_cast<int>(uniform_int(r, 1, 4));
  const int long_len = static_cast<int>(log_uniform(r, 1, n));
  const int short_len = static_cast<int>(uniform_int(r, 0, 4));
  return {uniform_random(m, k, per_a, r.next()),
          few_long_rows(k, n, n_long, long_len, short_len, r.next())};
}

// Rows of C of 4096 to 20000 entries (on the GPU: past the largest hash
// tables, into the dense-window kernels): a few rows of B that long, each
// referenced by a handful of rows of A.
Pair wide_c_rows(Rng& r, double s) {
  const int64_t k = log_uniform(r, 64, 2000);
  const int64_t long_len = log_uniform(r, upto(4096, s), upto(20000, s));
  const int64_t n = log_uniform(r, long_len, upto(24000, s, long_len));
  const int n_long = static_cast<int>(uniform_int(r, 1, 3));
  const int per_a = static_cast<int>(uniform_int(r, 1, 2));
  const int64_t refs = uniform_int(r, 1, 5);  // expected rows of A per long row of B
  const int64_t m = std::max<int64_t>(1, refs * k / (per_a * n_long));
  const int short_len = static_cast<int>(uniform_int(r, 0, 3));
  return {uniform_random(m, k, per_a, r.next()),
          few_long_rows(k, n, n_long, static_cast<int>(long_len), short_len, r.next())};
}

// hub(): one long row of B gathered by many rows of A, A * A.
Pair hub_rows(Rng& r, double s) {
  const int64_t n = size(r, 12000, s);
  const int hub_len = static_cast<int>(log_uniform(r, 1, n));
  const int refs = static_cast<int>(log_uniform(r, 1, n));
  const int short_len = static_cast<int>(uniform_int(r, 0, 4));
  const HostCsr<double> a = hub(n, hub_len, refs, short_len, r.next());
  return {a, a};
}

// The same structure twice with different values: A * A', not A * A.
Pair same_structure(const HostCsr<double>& a, Rng& r) {
  HostCsr<double> b = a;
  randomize_values(b, r.next());
  return {a, std::move(b)};
}

Pair stencil(Rng& r, double s) {
  const bool plane = r.below(2) == 0;
  const int n = static_cast<int>(plane ? size(r, 60, s) : size(r, 6, s));
  const uint64_t seed = r.next();
  return same_structure(plane ? poisson2d_5pt(n, seed) : stencil3d_27pt(n, seed), r);
}

Pair rmat_pair(Rng& r, double s) {
  const int max_scale = std::max(0, 10 + static_cast<int>(std::floor(std::log2(s))));
  const int scale = static_cast<int>(uniform_int(r, 0, max_scale));
  const int edges = static_cast<int>(size(r, 16, s));
  const double a = 0.25 + 0.45 * r.unit(), rest = (1.0 - a) / 3.0;
  const HostCsr<double> m = rmat(scale, edges, a, rest, rest, r.next());
  if (r.below(2)) return same_structure(m, r);
  return {m, rmat(scale, edges, a, rest, rest, r.next())};
}

Pair uniform_pair(Rng& r, double s) {
  const int64_t m = size(r, 3000, s), k = size(r, 3000, s), n = size(r, 3000, s);
  const int per_a = static_cast<int>(log_uniform(r, 1, 30));
  const int per_b = static_cast<int>(log_uniform(r, 1, 30));
  return {uniform_random(m, k, per_a, r.next()), uniform_random(k, n, per_b, r.next())};
}

Pair banded_pair(Rng& r, double s) {
  const int64_t n = size(r, 3000, s);
  const int half_a = static_cast<int>(uniform_int(r, 0, 20));
  const int half_b = static_cast<int>(uniform_int(r, 0, 20));
  return {banded(n, half_a, r.next()), banded(n, half_b, r.next())};
}

Pair power_law_pair(Rng& r, double s) {
  const int64_t n = log_uniform(r, 2, upto(3000, s, 2));
  auto one = [&] {
    const double exponent = 1.3 + 1.2 * r.unit();
    const int max_row = static_cast<int>(log_uniform(r, 1, n));
    return power_law(n, exponent, max_row, r.next());
  };
  HostCsr<double> a = one();
  return {std::move(a), one()};
}

Pair dense(Rng& r, double s) {
  const int64_t m = size(r, 40, s), k = size(r, 40, s), n = size(r, 40, s);
  return {random_rect(m, k, 1.0, r.next()), random_rect(k, n, 1.0, r.next())};
}

// A * transpose(A), as for a rectangular matrix of the real suite.
Pair gram(Rng& r, double s) {
  const int64_t m = size(r, 1000, s), k = size(r, 1000, s);
  const double d = std::min(1.0, static_cast<double>(log_uniform(r, 1, 20)) / k);
  HostCsr<double> a = random_rect(m, k, d, r.next());
  HostCsr<double> t = transpose(a);
  return {std::move(a), std::move(t)};
}

struct Family {
  const char* name;
  Pair (*make)(Rng&, double);
};

const Family kFamilies[] = {
    {"rect", rect},
    {"empty_rows", empty_rows},
    {"thin", thin},
    {"long_rows_a", long_rows_a},
    {"long_rows_b", long_rows_b},
    {"wide_c_rows", wide_c_rows},
    {"hub", hub_rows},
    {"stencil", stencil},
    {"rmat", rmat_pair},
    {"uniform", uniform_pair},
    {"banded", banded_pair},
    {"power_law", power_law_pair},
    {"dense", dense},
    {"gram", gram},
};
constexpr int kFamilyCount = static_cast<int>(sizeof(kFamilies) / sizeof(kFamilies[0]));

}  // namespace

const std::vector<std::string>& random_case_families() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Family& f : kFamilies) v.emplace_back(f.name);
    return v;
  }();
  return names;
}

RandomCase make_random_case(int family, uint64_t seed) {
  if (family < 0 || family >= kFamilyCount)
    throw std::invalid_argument("make_random_case: no family " + std::to_string(family));
  RandomCase c;
  c.family = family;
  c.seed = seed;
  Rng head(seed);
  c.single = head.below(2) == 0;
  c.alpha = random_alpha(head);
  c.alpha_again = random_alpha(head);
  // Too many products: the same family again at half the sizes.
  for (int attempt = 0;; ++attempt) {
    Rng r(mix64(seed) + static_cast<uint64_t>(attempt));
    Pair p = kFamilies[family].make(r, std::ldexp(1.0, -attempt));
    if (p.A.cols != p.B.rows) throw std::logic_error("make_random_case: shapes do not match");
    c.products = product_count(p.A, p.B);
    if (c.products <= kMaxCaseProducts || attempt == 40) {
      c.A = std::move(p.A);
      c.B = std::move(p.B);
      break;
    }
  }
  if (c.products > kMaxCaseProducts)
    throw std::logic_error("make_random_case: " + c.id() + " cannot be made small enough");
  return c;
}

std::string RandomCase::id() const {
  std::ostringstream s;
  s << random_case_families().at(static_cast<size_t>(family)) << ":0x" << std::hex << seed;
  return s.str();
}

std::string RandomCase::describe() const {
  std::ostringstream s;
  s.precision(17);
  s << id() << " (" << (single ? "float" : "double") << "): A " << A.rows << "x" << A.cols
    << " nnz " << A.nnz() << ", B " << B.rows << "x" << B.cols << " nnz " << B.nnz() << ", "
    << products << " products, alpha " << alpha << " then " << alpha_again;
  return s.str();
}

void parse_case_id(const std::string& id, int* family, uint64_t* seed) {
  const size_t colon = id.find(':');
  const auto& names = random_case_families();
  const auto it = std::find(names.begin(), names.end(), id.substr(0, colon));
  if (colon == std::string::npos || it == names.end())
    throw std::invalid_argument("case id '" + id + "': expected FAMILY:SEED with a family of " +
                                "random_cases.cpp");
  size_t used = 0;
  const std::string digits = id.substr(colon + 1);
  try {
    *seed = std::stoull(digits, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != digits.size())
    throw std::invalid_argument("case id '" + id + "': bad seed '" + digits + "'");
  *family = static_cast<int>(it - names.begin());
}

}  // namespace spgemm_test
