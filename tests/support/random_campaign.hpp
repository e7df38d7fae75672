// SPDX-License-Identifier: Apache-2.0
// The randomized campaign, written once for both memory types. Backend is
// HostBackend (host_memory_product.hpp) or DeviceBackend
// (tests/gpu/device_product.hpp): a ThreadHandle (one handle) and a Product<V>
// with nnz(), numeric(alpha) -> HostCsr<V> and set_values(A, B).
//
// Cases come from random_cases.hpp, seeded from one master seed; each is
// checked against the oracle after symbolic + numeric, and again after new
// values in A and B (the structure reused). The campaign stops after
// max_cases or max_seconds, whichever comes first, but always runs one case
// of every family first.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "compare.hpp"
#include "generators.hpp"
#include "random.hpp"
#include "random_cases.hpp"
#include "reference.hpp"

namespace spgemm_test {

struct CampaignSettings {
  uint64_t master_seed = 0;
  int64_t max_cases = 0;
  double max_seconds = 0;
  std::string only_case;  // "FAMILY:SEED": run this one case alone
  bool verbose = false;
};

// Defaults overridden by the environment:
//   SPGEMM_RANDOM_SEED     master seed (decimal or 0x hex)
//   SPGEMM_RANDOM_CASES    case limit
//   SPGEMM_RANDOM_SECONDS  time limit
//   SPGEMM_RANDOM_CASE     FAMILY:SEED, as printed for a failed case
//   SPGEMM_RANDOM_VERBOSE  1: print every case before running it (to find
//                          the case of a crash)
// Throws std::invalid_argument for a malformed value.
CampaignSettings campaign_settings_from_env(int64_t default_cases, double default_seconds);

// "random campaign (host): master seed ..., limits ...": printed first.
std::string campaign_banner(const char* backend, const CampaignSettings& s);

// Seed of the i-th case of a campaign.
uint64_t campaign_case_seed(uint64_t master_seed, int64_t index);

struct CampaignResult {
  static constexpr size_t kKeptFailures = 10;
  int64_t cases = 0;
  int64_t products = 0;
  int64_t failed = 0;
  double seconds = 0;
  std::vector<int64_t> per_family = std::vector<int64_t>(random_case_families().size(), 0);
  // Cases by the length of C's longest row: 0, 1-32, 33-1024, 1025-8192, more.
  int64_t longest_row_buckets[5] = {0, 0, 0, 0, 0};
  std::vector<std::string> failures;  // the first kKeptFailures

  void add(const RandomCase& c, int64_t longest_c_row, const std::string& failure);
  std::string summary(const char* backend) const;
  // "" when the campaign ran what it must whatever the clock: the one case
  // asked for, or one case of every family (unless the case limit is lower).
  std::string coverage_gap(const CampaignSettings& s) const;
};

namespace campaign_detail {

struct CaseOutcome {
  std::string failure;  // "" when the case passed
  int64_t longest_c_row = 0;
};

template <class V>
int64_t longest_row(const HostCsr<V>& c) {
  int64_t longest = 0;
  for (int64_t r = 0; r < c.rows; ++r) longest = std::max(longest, c.row_length(r));
  return longest;
}

template <class V, class Backend>
CaseOutcome check_case(typename Backend::ThreadHandle& thread_handle, const RandomCase& c) {
  CaseOutcome out;
  HostCsr<V> A = convert_values<V>(c.A), B = convert_values<V>(c.B);
  typename Backend::template Product<V> product(thread_handle.handle(), A, B);

  const V alpha = static_cast<V>(c.alpha);
  const ReferenceProduct<V> want = reference_spgemm(A, B, alpha);
  out.longest_c_row = longest_row(want.C);
  if (product.nnz() != want.C.nnz()) {
    out.failure = "symbolic: nnz(C) " + std::to_string(product.nnz()) + ", expected " +
                  std::to_string(want.C.nnz());
    return out;
  }
  out.failure = compare_csr(product.numeric(alpha), want, default_rtol<V>());
  if (!out.failure.empty()) {
    out.failure = "numeric: " + out.failure;
    return out;
  }

  // Same structure, new values (A and B different streams, so a mix-up of
  // the two shows), a new alpha.
  randomize_values(A, mix64(c.seed ^ 0xa11ceULL));
  randomize_values(B, mix64(c.seed ^ 0xb0bULL));
  product.set_values(A, B);
  const V alpha_again = static_cast<V>(c.alpha_again);
  out.failure = compare_csr(product.numeric(alpha_again), reference_spgemm(A, B, alpha_again),
                            default_rtol<V>());
  if (!out.failure.empty()) out.failure = "numeric after new values: " + out.failure;
  return out;
}

template <class Backend>
void run_case(typename Backend::ThreadHandle& thread_handle, int family, uint64_t seed,
              bool verbose, CampaignResult& result) {
  const RandomCase c = make_random_case(family, seed);
  if (verbose) {
    std::printf("case %lld: %s\n", static_cast<long long>(result.cases), c.describe().c_str());
    std::fflush(stdout);
  }
  CaseOutcome outcome;
  try {
    outcome = c.single ? check_case<float, Backend>(thread_handle, c)
                       : check_case<double, Backend>(thread_handle, c);
  } catch (const std::exception& e) {
    outcome.failure = std::string("exception: ") + e.what();
  }
  result.add(c, outcome.longest_c_row, outcome.failure);
}

}  // namespace campaign_detail

template <class Backend>
CampaignResult run_random_campaign(const CampaignSettings& settings) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  CampaignResult result;
  typename Backend::ThreadHandle thread_handle;
  std::printf("%s\n", campaign_banner(Backend::kName, settings).c_str());
  std::fflush(stdout);

  if (!settings.only_case.empty()) {
    int family = 0;
    uint64_t seed = 0;
    parse_case_id(settings.only_case, &family, &seed);
    campaign_detail::run_case<Backend>(thread_handle, family, seed, settings.verbose, result);
  } else {
    const auto families = static_cast<int64_t>(random_case_families().size());
    for (int64_t i = 0; i < settings.max_cases; ++i) {
      if (i >= families && seconds() >= settings.max_seconds) break;
      // After ten failures, the rest would mostly repeat them (or, after a
      // device fault, every call fails).
      if (result.failed >= static_cast<int64_t>(CampaignResult::kKeptFailures)) break;
      const uint64_t seed = campaign_case_seed(settings.master_seed, i);
      const int family = static_cast<int>(i < families ? i : static_cast<int64_t>(seed % families));
      campaign_detail::run_case<Backend>(thread_handle, family, seed, settings.verbose, result);
    }
  }
  result.seconds = seconds();
  const std::string text = result.summary(Backend::kName);
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  return result;
}

}  // namespace spgemm_test
