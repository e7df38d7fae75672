// SPDX-License-Identifier: Apache-2.0
// What a handle keeps for its products split among devices
// (partitioned_engine) and its products whose C is in host memory
// (chunked_engine): the settings of spgemmSetDevices and its family, and
// what the split products measured, which later cuts learn from. Shared by
// the handle and the plans created from it (a plan outlives its handle).
#pragma once

#include "core/context.hpp"
#include "core/thread_pool.hpp"

#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

namespace spgemm::multi {

// How plans of a handle split their rows among devices (spgemmSetDevices):
// one part per entry of `parts` (its own context: device,
// stream, pool; nullptr: the host, SPGEMM_HOST_DEVICE), rows shared by
// predicted cost in proportion to `shares` (empty: equal among GPUs, the
// host's from cost_model.hpp), for products of at least
// `min_products` products.
struct Partitioning {
  std::vector<std::shared_ptr<Context>> parts;
  std::vector<double> shares;
  long long min_products = -1;  // negative: the library's default
  bool distributed = false;     // C left as the parts' row blocks
  std::shared_ptr<ThreadPool> pool;  // the host threads that run the parts at once
};

// One numeric phase of one part: its products, of a product of `total`,
// and the seconds it took, copies included (0: none measured).
struct PartMeasure {
  long long total = 0;
  double products = 0, seconds = 0;
};

// An entry of the device list's last two measures of distinct cuts, newest
// first: a measure of nearly the cut of the newest (within
// kShareFitMinGap of the total, policy.hpp) replaces it.
struct PartHistory {
  PartMeasure newest, before;
  void record(const PartMeasure& m, double min_gap) {
    const bool same_cut = m.total == newest.total &&
                          std::abs(m.products - newest.products) < min_gap * m.total;
    if (!same_cut) before = newest;
    newest = m;
  }
  double rate() const { return newest.seconds > 0 ? newest.products / newest.seconds : 0.0; }
};

// What the handle's split products measured (0: nothing yet): products per
// second of one GPU part and of the host part, bytes per second of the host
// part's copies (the hybrid's cost model), and each entry of the device
// list's measures (the next cut's shares, shares.hpp): in a plan's
// first numeric phase (`parts`) and in a later one (`parts_again`, where the
// engines reuse C's structure; a plan whose numeric phase runs again is
// balanced for those).
struct Throughput {
  double gpu = 0, host = 0, copy = 0;
  std::vector<PartHistory> parts, parts_again;
  long long split_total = 0;  // products of the last product cut (the next cut's guess)
};

class SplitContext {
 public:
  // The devices the handle's products are split among (empty: none set).
  // set_devices checks the ordinals, makes a context per entry and lets
  // `home` (the handle's) and theirs reach each other's memory where they
  // can; the shares go back to equal.
  const Partitioning& partitioning() const { return partitioning_; }
  void set_devices(Context& home, const int* devices, int count);
  void set_shares(const double* shares, int count);
  void set_min_products(long long products) { partitioning_.min_products = products; }
  void set_output_distributed(bool on) { partitioning_.distributed = on; }
  Throughput& throughput() { return throughput_; }
  // Plans whose C is in host memory: the most bytes of C's column indices
  // and values they hold on the device at once; 0: the library's default.
  size_t output_chunk_bytes() const { return output_chunk_bytes_; }
  void set_output_chunk_bytes(size_t bytes) { output_chunk_bytes_ = bytes; }

 private:
  Partitioning partitioning_;
  Throughput throughput_;
  size_t output_chunk_bytes_ = 0;
};

}  // namespace spgemm::multi
