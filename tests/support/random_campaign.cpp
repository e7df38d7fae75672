// SPDX-License-Identifier: Apache-2.0
#include "random_campaign.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace spgemm_test {
namespace {

// The fixed master seed of every run that does not set SPGEMM_RANDOM_SEED.
constexpr uint64_t kDefaultMasterSeed = 0x5eed0f5e6e33ULL;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

template <class T, class Parse>
T parse_env(const char* name, T fallback, Parse parse) {
  const char* text = env(name);
  if (!text) return fallback;
  size_t used = 0;
  T v{};
  try {
    v = parse(std::string(text), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || text[used] != '\0')
    throw std::invalid_argument(std::string(name) + "='" + text + "' is not a valid number");
  return v;
}

}  // namespace

CampaignSettings campaign_settings_from_env(int64_t default_cases, double default_seconds) {
  CampaignSettings s;
  s.master_seed = parse_env<uint64_t>("SPGEMM_RANDOM_SEED", kDefaultMasterSeed,
                                      [](const std::string& t, size_t* used) {
                                        return static_cast<uint64_t>(std::stoull(t, used, 0));
                                      });
  s.max_cases = parse_env<int64_t>("SPGEMM_RANDOM_CASES", default_cases,
                                   [](const std::string& t, size_t* used) {
                                     return static_cast<int64_t>(std::stoll(t, used, 10));
                                   });
  s.max_seconds =
      parse_env<double>("SPGEMM_RANDOM_SECONDS", default_seconds,
                        [](const std::string& t, size_t* used) { return std::stod(t, used); });
  if (s.max_cases < 0 || !(s.max_seconds >= 0))
    throw std::invalid_argument("SPGEMM_RANDOM_CASES and SPGEMM_RANDOM_SECONDS must be >= 0");
  if (const char* only = env("SPGEMM_RANDOM_CASE")) s.only_case = only;
  if (const char* verbose = env("SPGEMM_RANDOM_VERBOSE")) s.verbose = std::string(verbose) != "0";
  return s;
}

std::string campaign_banner(const char* backend, const CampaignSettings& s) {
  std::ostringstream out;
  out << "random campaign (" << backend << "): ";
  if (!s.only_case.empty()) {
    out << "the one case " << s.only_case << " (SPGEMM_RANDOM_CASE)";
  } else {
    out << "master seed 0x" << std::hex << s.master_seed << std::dec
        << " (SPGEMM_RANDOM_SEED), at most " << s.max_cases << " cases (SPGEMM_RANDOM_CASES) or "
        << s.max_seconds << " s (SPGEMM_RANDOM_SECONDS)";
  }
  return out.str();
}

uint64_t campaign_case_seed(uint64_t master_seed, int64_t index) {
  return mix64(master_seed + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(index + 1));
}

void CampaignResult::add(const RandomCase& c, int64_t longest_c_row, const std::string& failure) {
  ++cases;
  products += c.products;
  ++per_family.at(static_cast<size_t>(c.family));
  const int bucket = longest_c_row == 0      ? 0
                     : longest_c_row <= 32   ? 1
                     : longest_c_row <= 1024 ? 2
                     : longest_c_row <= 8192 ? 3
                                             : 4;
  ++longest_row_buckets[bucket];
  if (failure.empty()) return;
  ++failed;
  if (failures.size() < kKeptFailures)
    failures.push_back(c.describe() + ": " + failure +
                       "\n  rerun it alone with SPGEMM_RANDOM_CASE=" + c.id());
}

std::string CampaignResult::summary(const char* backend) const {
  std::ostringstream out;
  out.precision(3);
  out << "random campaign (" << backend << "): " << cases << " cases, " << failed << " failed, "
      << products << " products, " << seconds << " s\n  cases per family:";
  const auto& names = random_case_families();
  for (size_t f = 0; f < names.size(); ++f) out << " " << names[f] << " " << per_family[f];
  out << "\n  cases by C's longest row: empty " << longest_row_buckets[0] << ", 1-32 "
      << longest_row_buckets[1] << ", 33-1024 " << longest_row_buckets[2] << ", 1025-8192 "
      << longest_row_buckets[3] << ", > 8192 " << longest_row_buckets[4];
  for (const std::string& f : failures) out << "\n  FAILED " << f;
  return out.str();
}

std::string CampaignResult::coverage_gap(const CampaignSettings& s) const {
  if (!s.only_case.empty()) return cases == 1 ? "" : "the case asked for did not run";
  const auto& names = random_case_families();
  const auto must = std::min<int64_t>(s.max_cases, static_cast<int64_t>(names.size()));
  if (cases < must) return "only " + std::to_string(cases) + " cases ran";
  for (int64_t f = 0; f < must; ++f)
    if (per_family[static_cast<size_t>(f)] == 0)
      return "no case of family " + names[static_cast<size_t>(f)];
  return "";
}

}  // namespace spgemm_test
