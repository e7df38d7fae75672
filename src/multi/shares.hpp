// SPDX-License-Identifier: Apache-2.0
// How the rows of a product split among a device list are shared
// (src/multi/partitioned_engine.cpp): forced shares; else the GPUs' from
// what each entry measured in the handle's split numeric phases run again
// (structure reused), else in plans' first ones (copies included; equal
// until all have): where every GPU entry has two measures of distinct cuts
// of a product of the same total, by a line through them (fitted_shares),
// else in proportion to the newest measure's products per second. The
// host's, if it is an entry, comes from the cost model
// (multi/cost_model.hpp) with the handle's measured throughputs
// (policy.hpp.s defaults before). Host code only
// (tests/host/test_cost_model.cpp).
#pragma once

#include "multi/cost_model.hpp"
#include "multi/policy.hpp"
#include "multi/split_context.hpp"
#include "plan/engine.hpp"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

namespace spgemm::multi {

// The cost model's inputs for `total` products and `gpus` GPU parts: the
// measured rates or the defaults, the bytes the host part copies (B's
// values whatever its share; per product, its share of A's and D's values
// and at most one entry of C).
template <class Value, class Col>
HybridCosts hybrid_costs(const Throughput& measured, const Operands& in, long long total,
                         int gpus) {
  const double threads = std::max(1u, std::thread::hardware_concurrency());
  HybridCosts c;
  c.products = static_cast<double>(total);
  c.gpus = gpus;
  c.gpu_rate = measured.gpu > 0 ? measured.gpu : kHybridGpuProductsPerSecond;
  c.host_rate =
      measured.host > 0 ? measured.host : kHybridHostProductsPerSecondPerThread * threads;
  c.copy_rate = measured.copy > 0 ? measured.copy : kHybridCopyBytesPerSecond;
  c.fixed_bytes = static_cast<double>(sizeof(Value)) * static_cast<double>(in.B->nnz);
  const double a_d_values =
      static_cast<double>(sizeof(Value)) * static_cast<double>(in.A->nnz + (in.D ? in.D->nnz : 0));
  c.bytes_per_product = a_d_values / std::max(1.0, c.products) + sizeof(Col) + sizeof(Value);
  c.overhead_s = kHybridHostOverheadSeconds;
  c.min_share = kHybridMinHostShare;
  return c;
}

// The GPU entries' shares of `total` products where each entry's line
// through its two measures (seconds against products, both of a product of
// `total` products) reaches the same time: a secant step that allows for
// what does not grow with a part's products (copies of B, launches) and for
// rows that differ in cost per product (the cut moves rows of another cost
// than their part's average). Noisy measures can make a line nearly flat and
// the step huge: the step from the newest cut is cut back to at most
// kShareFitMaxStep times the step that by_rates (the shares in proportion
// to the newest rates) takes. Empty unless every GPU entry has such a line,
// rising, the shares come out >= 0 and no entry's step goes against its
// step by the rates.
inline std::vector<double> fitted_shares(const Partitioning& settings,
                                         const std::vector<PartHistory>& history, long long total,
                                         const std::vector<double>& by_rates) {
  const size_t n = settings.parts.size();
  if (history.size() != n || total <= 0) return {};
  const auto all = static_cast<double>(total);
  std::vector<double> fixed(n, 0.0), slope(n, 0.0);
  double inverse = 0, offset = 0;
  for (size_t p = 0; p < n; ++p) {
    if (!settings.parts[p]) continue;
    const PartMeasure& x = history[p].newest;
    const PartMeasure& y = history[p].before;
    if (x.total != total || y.total != total || !(x.seconds > 0) || !(y.seconds > 0) ||
        std::abs(x.products - y.products) < kShareFitMinGap * all)
      return {};
    slope[p] = (x.seconds - y.seconds) / (x.products - y.products);
    if (!(slope[p] > 0)) return {};
    fixed[p] = x.seconds - slope[p] * x.products;
    inverse += 1.0 / slope[p];
    offset += fixed[p] / slope[p];
  }
  if (!(inverse > 0)) return {};                  // no GPU entry
  const double time = (all + offset) / inverse;  // sum of (time - fixed) / slope = all
  std::vector<double> out(n, 0.0), from(n, 0.0);
  double measured = 0;  // the GPU entries' products in the newest cut
  for (size_t p = 0; p < n; ++p)
    if (settings.parts[p]) measured += history[p].newest.products;
  double scale = 1.0;
  for (size_t p = 0; p < n; ++p) {
    if (!settings.parts[p]) continue;
    out[p] = (time - fixed[p]) / slope[p] / all;
    from[p] = history[p].newest.products / measured;
    const double step = out[p] - from[p], rate_step = by_rates[p] - from[p];
    if (!(out[p] >= 0) || step * rate_step < 0) return {};
    if (std::abs(step) > kShareFitMaxStep * std::abs(rate_step))
      scale = std::min(scale, kShareFitMaxStep * std::abs(rate_step) / std::abs(step));
  }
  for (size_t p = 0; p < n; ++p) out[p] = from[p] + scale * (out[p] - from[p]);
  return out;
}

// Each entry's share of `total` products (summing to 1 unless forced).
template <class Value, class Col>
std::vector<double> part_shares(const Partitioning& settings, const Throughput& measured,
                                const Operands& in, long long total) {
  if (!settings.shares.empty()) return settings.shares;
  const size_t n = settings.parts.size();
  const auto all_measured = [&](const std::vector<PartHistory>& history) {
    if (history.size() != n) return false;
    for (size_t p = 0; p < n; ++p)
      if (settings.parts[p] && !(history[p].rate() > 0)) return false;
    return true;
  };
  const std::vector<PartHistory>* history = all_measured(measured.parts_again)
                                                ? &measured.parts_again
                                            : all_measured(measured.parts) ? &measured.parts
                                                                           : nullptr;
  std::vector<double> out(n);
  double sum = 0;
  for (size_t p = 0; p < n; ++p) {
    out[p] = !settings.parts[p] ? 0.0 : history ? (*history)[p].rate() : 1.0;
    sum += out[p];
  }
  if (sum > 0)  // (no GPU entry: the host alone)
    for (double& share : out) share /= sum;
  if (history) {
    std::vector<double> fitted = fitted_shares(settings, *history, total, out);
    if (!fitted.empty()) out = std::move(fitted);
  }
  const auto host = std::find(settings.parts.begin(), settings.parts.end(), nullptr);
  const bool hybrid = host != settings.parts.end();
  const int gpus = static_cast<int>(n) - (hybrid ? 1 : 0);
  const double s = hybrid ? host_share(hybrid_costs<Value, Col>(measured, in, total, gpus)) : 0.0;
  for (double& share : out) share *= 1.0 - s;
  if (hybrid) out[static_cast<size_t>(host - settings.parts.begin())] = s;
  return out;
}

// Whether the host is an entry whose share is the model's, and the model
// cannot give it its least share for any number of products (the plan then
// need not count them).
template <class Value, class Col>
bool host_never_pays(const Partitioning& settings, const Throughput& measured, const Operands& in) {
  const auto host = std::find(settings.parts.begin(), settings.parts.end(), nullptr);
  if (host == settings.parts.end() || !settings.shares.empty()) return false;
  HybridCosts c =
      hybrid_costs<Value, Col>(measured, in, 0, static_cast<int>(settings.parts.size()) - 1);
  c.bytes_per_product = sizeof(Col) + sizeof(Value);  // (at most the product's)
  return host_share_limit(c) < c.min_share;
}

}  // namespace spgemm::multi
