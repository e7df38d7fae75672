// SPDX-License-Identifier: Apache-2.0
#include "concurrency_campaign.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace spgemm_test {
namespace {

int int_from_env(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || text[used] != '\0' || v < 1)
    throw std::invalid_argument(std::string(name) + "='" + text + "' is not a positive integer");
  return v;
}

// One per thread (cycled beyond eight): a few hundred thousand products
// each, of different shapes (stencil, power law, long rows of A, a hub row of
// B gathered by many rows, a graph, banded, uniform).
const char* const kSpecs[] = {"stencil27:10", "powerlaw:3000", "longrows:3000", "hub:3000",
                              "rmat:10:8",    "poisson2d:60",  "banded:2000:6", "uniform:3000:6"};
constexpr int kSpecCount = static_cast<int>(sizeof(kSpecs) / sizeof(kSpecs[0]));

uint64_t case_seed(int thread, int j) {
  return mix64(0xc0ffee00ULL + static_cast<uint64_t>(thread) * 64 + static_cast<uint64_t>(j));
}
int case_family(int thread, int j) {
  return (thread * 5 + j * 3) % static_cast<int>(random_case_families().size());
}

}  // namespace

ConcurrencySettings concurrency_settings_from_env(int default_threads, int default_passes) {
  ConcurrencySettings s;
  s.threads = int_from_env("SPGEMM_CONCURRENCY_THREADS", default_threads);
  s.passes = int_from_env("SPGEMM_CONCURRENCY_PASSES", default_passes);
  return s;
}

HostCsr<double> concurrency_product(int thread, int j, HostCsr<double>* B, std::string* name) {
  if (j == 0) {
    *name = std::string(kSpecs[thread % kSpecCount]) + " * itself";
    HostCsr<double> a = generate(kSpecs[thread % kSpecCount]);
    *B = a;
    return a;
  }
  RandomCase c = make_random_case(case_family(thread, j), case_seed(thread, j));
  *name = "random case " + c.id();
  *B = std::move(c.B);
  return std::move(c.A);
}

std::string ConcurrencyResult::summary(const char* backend, const ConcurrencySettings& s) const {
  std::ostringstream out;
  out.precision(3);
  out << "concurrency (" << backend << "): " << s.threads << " threads x " << s.products_per_thread
      << " products x " << s.rounds << " value sets x " << s.passes << " passes; " << checks
      << " of " << expected_checks << " results checked, " << failures.size()
      << " failures; at most " << max_in_flight << " numeric calls in flight at once; " << seconds
      << " s concurrent";
  for (const std::string& f : failures) out << "\n  FAILED " << f;
  return out.str();
}

}  // namespace spgemm_test
