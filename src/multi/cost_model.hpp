// SPDX-License-Identifier: Apache-2.0
// The CPU+GPU hybrid's cost model (SPGEMM_HOST_DEVICE, docs/scaling.md): the
// host part's share of a product's products such that it finishes with the
// GPU parts. Host code only, so that it is tested without a GPU
// (tests/host/test_cost_model.cpp).
//
// With s the host's share of the P products, per numeric phase:
//   host: overhead + (fixed_bytes + s * P * bytes_per_product) / copy_rate
//         + s * P / host_rate
//   GPUs: (1 - s) * P / (gpus * gpu_rate)
// The two meet at s = (G - H0) / (G + H1), where G is the GPUs' time for
// everything, H0 the host's fixed cost and H1 its cost per unit of share.
// s is 0 where the host cannot even finish its fixed copies (B's values)
// before the GPUs finish everything, and where it comes out below
// `min_share`: a gain that small is within the model's error and the host
// part's costs per plan (pinned buffers, B's structure, its own analysis),
// which the model leaves out. The hybrid then runs as the GPUs alone.
#pragma once

#include <algorithm>

namespace spgemm::multi {

struct HybridCosts {
  double products = 0;           // of the whole product
  int gpus = 1;                  // GPU parts beside the host's
  double gpu_rate = 0;           // products per second of one GPU part
  double host_rate = 0;          // products per second of the host part
  double copy_rate = 0;          // bytes per second between device and host
  double fixed_bytes = 0;        // copied whatever the share: B's values
  double bytes_per_product = 0;  // copied per product of the share: A's values, C's entries
  double overhead_s = 0;         // the host part's fixed cost per numeric phase
  double min_share = 0;          // below: 0
};

// The host's share in [0, 1]: 1 without GPU parts, 0 where it does not pay.
inline double host_share(const HybridCosts& c) {
  if (c.gpus <= 0) return 1.0;
  if (!(c.products > 0) || !(c.host_rate > 0) || !(c.gpu_rate > 0) || !(c.copy_rate > 0))
    return 0.0;
  const double gpus_all = c.products / (c.gpus * c.gpu_rate);
  const double host_fixed = c.overhead_s + c.fixed_bytes / c.copy_rate;
  const double host_per_share =
      c.products / c.host_rate + c.products * c.bytes_per_product / c.copy_rate;
  const double s = std::clamp((gpus_all - host_fixed) / (gpus_all + host_per_share), 0.0, 1.0);
  return s >= c.min_share ? s : 0.0;
}

// The most host_share can give, whatever the products, for costs whose
// bytes_per_product is at most that of the product (C's entry alone, say):
// the share at which the host's time per share meets the GPUs'. Below
// min_share, a plan need not count the products to know the host gets none.
inline double host_share_limit(const HybridCosts& c) {
  if (c.gpus <= 0) return 1.0;
  if (!(c.host_rate > 0) || !(c.gpu_rate > 0) || !(c.copy_rate > 0)) return 0.0;
  return std::min(
      1.0, 1.0 / (c.gpus * c.gpu_rate * (1.0 / c.host_rate + c.bytes_per_product / c.copy_rate)));
}

}  // namespace spgemm::multi
