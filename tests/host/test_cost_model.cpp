// SPDX-License-Identifier: Apache-2.0
// The CPU+GPU hybrid's cost model (src/multi/cost_model.hpp) against a
// direct search: the share it gives must make the slower of the host part
// and the GPU parts (the makespan) as short as any share on a fine grid; and
// its edges: no GPUs, a host that cannot pay for its fixed copies, missing
// rates. Then the shares of a device list's entries (src/multi/shares.hpp).
#include "multi/cost_model.hpp"
#include "multi/shares.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

using spgemm::multi::host_share;
using spgemm::multi::host_share_limit;
using spgemm::multi::HybridCosts;

namespace {

// The model's times, written out independently of host_share.
double makespan(const HybridCosts& c, double s) {
  const double host = s > 0 ? c.overhead_s + c.fixed_bytes / c.copy_rate +
                                  s * c.products * c.bytes_per_product / c.copy_rate +
                                  s * c.products / c.host_rate
                            : 0.0;
  const double gpus = (1 - s) * c.products / (c.gpus * c.gpu_rate);
  return std::max(host, gpus);
}

HybridCosts typical() {
  HybridCosts c;
  c.products = 4e8;
  c.gpus = 1;
  c.gpu_rate = 3e10;
  c.host_rate = 8e8;
  c.copy_rate = 2e10;
  c.fixed_bytes = 8e6;
  c.bytes_per_product = 12.5;
  c.overhead_s = 2e-4;
  return c;
}

}  // namespace

TEST_CASE("the host's share is as good as the best on a grid", "[cost-model]") {
  std::mt19937_64 rng(20261122);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
  };
  int positive = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    HybridCosts c;
    c.products = log_uniform(1e5, 1e10);
    c.gpus = 1 + static_cast<int>(rng() % 4);
    c.gpu_rate = log_uniform(1e9, 2e11);
    c.host_rate = log_uniform(1e7, 1e10);
    c.copy_rate = log_uniform(1e9, 1e11);
    c.fixed_bytes = log_uniform(1e3, 1e9);
    c.bytes_per_product = log_uniform(0.1, 30);
    c.overhead_s = log_uniform(1e-6, 1e-3);
    const double s = host_share(c);
    CAPTURE(trial, c.products, c.gpus, c.gpu_rate, c.host_rate, c.copy_rate, c.fixed_bytes,
            c.bytes_per_product, c.overhead_s, s);
    REQUIRE(s >= 0.0);
    REQUIRE(s <= 1.0);
    double best = makespan(c, 0.0);
    for (int i = 1; i <= 10000; ++i) best = std::min(best, makespan(c, i / 10000.0));
    CHECK(makespan(c, s) <= best * (1 + 1e-3));
    CHECK(makespan(c, s) <= makespan(c, 0.0));  // never slower than the GPUs alone
    HybridCosts fewer_bytes = c;  // the limit holds for any product above the bytes given
    fewer_bytes.bytes_per_product *= 0.5;
    CHECK(s <= host_share_limit(fewer_bytes) * (1 + 1e-12));
    CHECK(s <= host_share_limit(c) * (1 + 1e-12));
    positive += s > 0 ? 1 : 0;
  }
  CHECK(positive > 100);  // the draws reach both sides of the decision
  CHECK(positive < 1900);
}

TEST_CASE("shares below the minimum go to the GPUs", "[cost-model]") {
  HybridCosts c = typical();
  const double s = host_share(c);
  REQUIRE(s > 0.0);
  c.min_share = s * 0.99;
  CHECK(host_share(c) == s);
  c.min_share = s * 1.01;
  CHECK(host_share(c) == 0.0);
  c.gpus = 0;
  CHECK(host_share(c) == 1.0);  // no GPU to give it to
}

TEST_CASE("the host's share at its edges", "[cost-model]") {
  HybridCosts c = typical();
  const double s = host_share(c);
  CHECK(s > 0.0);
  CHECK(s < 0.05);  // a 16-thread host beside an H100-class GPU
  HybridCosts more_gpus = c;
  more_gpus.gpus = 2;
  CHECK(host_share(more_gpus) < s);

  HybridCosts no_gpus = c;
  no_gpus.gpus = 0;
  CHECK(host_share(no_gpus) == 1.0);

  HybridCosts heavy_b = c;  // copying B's values alone outlasts the GPU's work
  heavy_b.fixed_bytes = c.copy_rate * c.products / c.gpu_rate * 1.01;
  CHECK(host_share(heavy_b) == 0.0);

  for (double HybridCosts::*rate : {&HybridCosts::gpu_rate, &HybridCosts::host_rate,
                                    &HybridCosts::copy_rate, &HybridCosts::products}) {
    HybridCosts missing = c;
    missing.*rate = 0;
    CHECK(host_share(missing) == 0.0);
  }
}

// The shares of a device list's entries (src/multi/shares.hpp). The GPU
// entries stand for contexts that are never used here: non-null pointers
// that own nothing.
namespace {

// Each entry measured once: `rate` products per second (0: not measured).
std::vector<spgemm::multi::PartHistory> rates(const std::vector<double>& rate) {
  std::vector<spgemm::multi::PartHistory> out(rate.size());
  for (size_t p = 0; p < rate.size(); ++p)
    if (rate[p] > 0) out[p].record({1000, rate[p], 1.0}, 0.005);
  return out;
}

// Two entries' first-phase measures of a product of 1000 products: cut at
// 500 / 500 taking `even` seconds each, then at 600 / 400 taking `uneven`.
spgemm::multi::Throughput two_cuts(const std::array<double, 2>& even,
                                   const std::array<double, 2>& uneven) {
  spgemm::multi::Throughput t;
  t.parts.resize(2);
  const double products[2][2] = {{500, 500}, {600, 400}};
  for (int p = 0; p < 2; ++p) {
    t.parts[p].record({1000, products[0][p], even[p]}, 0.005);
    t.parts[p].record({1000, products[1][p], uneven[p]}, 0.005);
  }
  return t;
}

spgemm::multi::Partitioning device_list(const std::vector<bool>& gpu) {
  static char stand_in;
  spgemm::multi::Partitioning settings;
  for (bool g : gpu)
    settings.parts.push_back(
        g ? std::shared_ptr<spgemm::Context>(std::shared_ptr<void>(),
                                             reinterpret_cast<spgemm::Context*>(&stand_in))
          : nullptr);
  return settings;
}

}  // namespace

TEST_CASE("shares from two measures of distinct cuts: a line per entry", "[cost-model]") {
  using spgemm::multi::part_shares;
  spgemm::MatrixDesc A, B;
  A.rows = B.rows = 1000;
  A.nnz = B.nnz = 8000;
  const spgemm::Operands in{&A, &B, nullptr};
  const spgemm::multi::Partitioning two = device_list({true, true});
  // entry 0: 1 s that its products do not change plus 2 ms per product;
  // entry 1: 4 ms per product. Measured at 500 / 500, then 600 / 400.
  spgemm::multi::Throughput measured = two_cuts({2.0, 2.0}, {2.2, 1.6});
  // both reach 2 s at 500 / 500 (by rates alone: 600 / 2.2 against 400 / 1.6)
  const std::vector<double> fitted = part_shares<double, int>(two, measured, in, 1000);
  REQUIRE(fitted.size() == 2);
  CHECK(fitted[0] == Approx(0.5));
  CHECK(fitted[1] == Approx(0.5));
  // a product of another total: the newest measures' rates
  const std::vector<double> other = part_shares<double, int>(two, measured, in, 2000);
  REQUIRE(other.size() == 2);
  CHECK(other[0] == Approx((600 / 2.2) / (600 / 2.2 + 400 / 1.6)));
  // nearly the same cut again replaces the newest measure, keeps the one before
  measured.parts[0].record({1000, 602, 2.3}, 0.005);
  CHECK(measured.parts[0].before.products == 500);
  CHECK(measured.parts[0].newest.seconds == 2.3);
  // nearly flat lines (noise): a step at most twice the rates' step
  const spgemm::multi::Throughput flat = two_cuts({2.0, 2.0}, {2.001, 1.99});
  // the lines meet at 500 / 500, a step of 0.1; the rates' step is 0.0013
  const double by_rate = (600 / 2.001) / (600 / 2.001 + 400 / 1.99);
  const std::vector<double> bounded = part_shares<double, int>(two, flat, in, 1000);
  REQUIRE(bounded.size() == 2);
  CHECK(bounded[0] == Approx(0.6 + 2 * (by_rate - 0.6)));
  CHECK(bounded[0] + bounded[1] == Approx(1.0));
  // a line that falls (noise): the rates again
  measured.parts[1].record({1000, 300, 1.7}, 0.005);
  CHECK(measured.parts[1].before.products == 400);
  const std::vector<double> falling = part_shares<double, int>(two, measured, in, 1000);
  REQUIRE(falling.size() == 2);
  CHECK(falling[0] == Approx((602 / 2.3) / (602 / 2.3 + 300 / 1.7)));
}

TEST_CASE("the entries' shares: forced, equal, measured, the host's", "[cost-model]") {
  using spgemm::multi::host_never_pays;
  using spgemm::multi::part_shares;
  spgemm::MatrixDesc A, B;
  A.rows = B.rows = 1000;
  A.nnz = B.nnz = 8000;
  const spgemm::Operands in{&A, &B, nullptr};
  spgemm::multi::Throughput measured;

  spgemm::multi::Partitioning two = device_list({true, true});
  CHECK(part_shares<double, int>(two, measured, in, 1000000) == std::vector<double>{0.5, 0.5});
  measured.parts = rates({2e10, 0});  // one not measured yet: equal
  CHECK(part_shares<double, int>(two, measured, in, 1000000) == std::vector<double>{0.5, 0.5});
  measured.parts = rates({2e10, 1e10});
  const std::vector<double> learned = part_shares<double, int>(two, measured, in, 1000000);
  REQUIRE(learned.size() == 2);
  CHECK(learned[0] == Approx(2.0 / 3));
  CHECK(learned[1] == Approx(1.0 / 3));
  measured.parts_again = rates({1e10, 0});  // numeric again: not all measured, the first phase's
  CHECK(part_shares<double, int>(two, measured, in, 1000000) == learned);
  measured.parts_again = rates({1e10, 3e10});  // all measured: those of numeric again
  const std::vector<double> again = part_shares<double, int>(two, measured, in, 1000000);
  REQUIRE(again.size() == 2);
  CHECK(again[0] == Approx(0.25));
  CHECK(again[1] == Approx(0.75));
  two.shares = {1.0, 3.0};  // forced: as given
  CHECK(part_shares<double, int>(two, measured, in, 1000000) == two.shares);
  CHECK_FALSE(host_never_pays<double, int>(two, measured, in));  // no host

  // the host beside a GPU: no share at the default rates, at any size
  spgemm::multi::Partitioning hybrid = device_list({true, false});
  measured = {};
  CHECK(host_never_pays<double, int>(hybrid, measured, in));
  CHECK(part_shares<double, int>(hybrid, measured, in, 1LL << 40) ==
        std::vector<double>{1.0, 0.0});
  // a host measured as fast as the GPU (and copies to match) takes a share
  measured.gpu = measured.host = 3e10;
  measured.copy = 1e12;
  CHECK_FALSE(host_never_pays<double, int>(hybrid, measured, in));
  const std::vector<double> shared = part_shares<double, int>(hybrid, measured, in, 1LL << 32);
  REQUIRE(shared.size() == 2);
  CHECK(shared[1] > 0.3);
  CHECK(shared[0] + shared[1] == Approx(1.0));
  hybrid.shares = {1.0, 1.0};  // forced: the model is not asked
  CHECK_FALSE(host_never_pays<double, int>(hybrid, measured, in));

  // the host alone takes everything
  CHECK(part_shares<double, int>(device_list({false}), spgemm::multi::Throughput{}, in, 5) ==
        std::vector<double>{1.0});
  // as spgemmSetDevices leaves it: one entry, nothing measured
  spgemm::multi::Throughput host_alone;
  host_alone.parts.resize(1);
  host_alone.parts_again.resize(1);
  CHECK(part_shares<double, int>(device_list({false}), host_alone, in, 5) ==
        std::vector<double>{1.0});
}
