// SPDX-License-Identifier: Apache-2.0
#include "multi/split_context.hpp"

#include "core/error.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

namespace spgemm::multi {

void SplitContext::set_devices(Context& home, const int* devices, int count) {
  if (count < 0 || count > SPGEMM_MAX_DEVICES || (count > 0 && !devices))
    fail(SPGEMM_STATUS_INVALID_VALUE,
         "count must be in [0, " + std::to_string(SPGEMM_MAX_DEVICES) +
             "] and devices not NULL when count > 0");
  if (count > 0 && !home.has_device())
    fail(SPGEMM_STATUS_NO_DEVICE, std::string("no usable GPU: ") + home.no_device_reason());
  int available = 0;
  if (count > 0) SPGEMM_CUDA_CHECK(cudaGetDeviceCount(&available));
  int hosts = 0;
  for (int i = 0; i < count; ++i) {
    if (devices[i] == SPGEMM_HOST_DEVICE && ++hosts == 1) continue;
    if (devices[i] == SPGEMM_HOST_DEVICE)
      fail(SPGEMM_STATUS_INVALID_VALUE, "SPGEMM_HOST_DEVICE may appear once");
    if (devices[i] < 0 || devices[i] >= available)
      fail(SPGEMM_STATUS_INVALID_VALUE, "device " + std::to_string(devices[i]) +
                                            " does not exist (" + std::to_string(available) +
                                            " devices)");
  }
  std::vector<std::shared_ptr<Context>> parts;
  for (int i = 0; i < count; ++i) {
    if (devices[i] == SPGEMM_HOST_DEVICE) {
      parts.push_back(nullptr);  // the host part (src/multi/host_part.hpp)
      continue;
    }
    parts.push_back(std::make_shared<Context>(devices[i]));
    enable_peer_access(home.device(), devices[i]);
    enable_peer_access(devices[i], home.device());
  }
  // a part's row blocks (spgemmSetOutputDistributed) readable from the
  // handle's device and the other parts', and the handle's workspace (the
  // cut's counts) from the parts'
  for (const auto& part : parts) {
    if (!part) continue;
    home.share_pool_with(part->device());
    part->share_pool_with(home.device());
    for (int i = 0; i < count; ++i)
      if (devices[i] != SPGEMM_HOST_DEVICE) part->share_pool_with(devices[i]);
  }
  partitioning_.parts = std::move(parts);
  if (!partitioning_.pool) partitioning_.pool = std::make_shared<ThreadPool>();
  partitioning_.shares.clear();
  throughput_.parts.assign(static_cast<size_t>(count), PartHistory{});
  throughput_.parts_again = throughput_.parts;
}

void SplitContext::set_shares(const double* shares, int count) {
  if (count == 0 && !shares) {
    partitioning_.shares.clear();
    return;
  }
  if (!shares || count != static_cast<int>(partitioning_.parts.size()))
    fail(SPGEMM_STATUS_INVALID_VALUE,
         "shares must have one entry per device set with spgemmSetDevices (" +
             std::to_string(partitioning_.parts.size()) + "), or be NULL with count 0");
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    if (!std::isfinite(shares[i]) || shares[i] < 0)
      fail(SPGEMM_STATUS_INVALID_VALUE, "shares must be finite and >= 0");
    sum += shares[i];
  }
  if (!(sum > 0)) fail(SPGEMM_STATUS_INVALID_VALUE, "shares must not all be 0");
  partitioning_.shares.assign(shares, shares + count);
}

}  // namespace spgemm::multi
