// SPDX-License-Identifier: Apache-2.0
// The group collectives (group_collectives.cuh), the binning of C's rows by
// one block (binning/block_binning.cuh) and the blocks' work counter
// (binning.cuh's next_row) each on their own, against serial prefix sums,
// a counting sort of the rows by BinThresholds::bin_for (the rule itself is
// tests/host/test_bins.cpp's), and a tally of the rows the blocks take.
#include <algorithm>
#include <climits>

#include "cuda/binning/binning.cuh"
#include "cuda/binning/block_binning.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/group_collectives.cuh"
#include "primitives_support.cuh"

using namespace spgemm_test::primitives;

namespace {

// Thread t's group is the block (threads == blockDim.x) or its warp
// (threads == 32). Two scans in a row and a range, through one `partial`.
__global__ void __launch_bounds__(1024)
    group_kernel(int threads, const long long* x, const long long* y, long long* x_before,
                 long long* x_total, long long* y_before, long long* y_total, const int* lo_in,
                 const int* hi_in, int* lo_out, int* hi_out) {
  using namespace spgemm::cuda;
  __shared__ long long partial[32];
  const int t = static_cast<int>(threadIdx.x);
  const int rank = threads == 32 ? t & 31 : t;
  long long total;
  x_before[t] = group_exclusive_sum(x[t], rank, threads, partial, total);
  x_total[t] = total;
  y_before[t] = group_exclusive_sum(y[t], rank, threads, partial, total);
  y_total[t] = total;
  int lo = lo_in[t], hi = hi_in[t];
  group_min_max(lo, hi, rank, threads, partial);
  lo_out[t] = lo;
  hi_out[t] = hi;
}

void check_group(int block, int threads, bool all_empty, std::mt19937_64& rng) {
  INFO("block " << block << ", group " << threads << ", all empty " << all_empty);
  std::uniform_int_distribution<long long> big(-(1LL << 40), 1LL << 40);
  std::uniform_int_distribution<int> col(0, INT_MAX - 1);
  std::bernoulli_distribution empty(0.3);
  std::vector<long long> x(block), y(block);
  std::vector<int> lo(block), hi(block);
  for (int t = 0; t < block; ++t) {
    x[t] = big(rng);
    y[t] = t % 3;
    // a thread's columns [lo, hi], or none (lo > hi) as sorted_row_range
    // starts them
    if (all_empty || empty(rng)) {
      lo[t] = INT_MAX;
      hi[t] = -1;
    } else {
      lo[t] = col(rng);
      hi[t] = std::uniform_int_distribution<int>(lo[t], INT_MAX - 1)(rng);
    }
  }
  DeviceArray<long long> d_x(x), d_y(y), x_before(block), x_total(block), y_before(block),
      y_total(block);
  DeviceArray<int> d_lo(lo), d_hi(hi), lo_out(block), hi_out(block);
  group_kernel<<<1, block>>>(threads, d_x.get(), d_y.get(), x_before.get(), x_total.get(),
                             y_before.get(), y_total.get(), d_lo.get(), d_hi.get(), lo_out.get(),
                             hi_out.get());
  launched("group_kernel");
  const auto xb = x_before.read(), xt = x_total.read(), yb = y_before.read(), yt = y_total.read();
  const auto got_lo = lo_out.read(), got_hi = hi_out.read();
  for (int g = 0; g < block; g += threads) {
    long long x_sum = 0, y_sum = 0;
    std::vector<long long> x_expected, y_expected;
    for (int t = g; t < g + threads; ++t) {
      x_expected.push_back(x_sum);
      y_expected.push_back(y_sum);
      x_sum += x[t];
      y_sum += y[t];
    }
    const int lo_min = *std::min_element(lo.begin() + g, lo.begin() + g + threads);
    const int hi_max = *std::max_element(hi.begin() + g, hi.begin() + g + threads);
    const long long bad = first_failing(threads, [&](size_t i) {
      const size_t t = g + i;
      return xb[t] == x_expected[i] && xt[t] == x_sum && yb[t] == y_expected[i] && yt[t] == y_sum &&
             got_lo[t] == lo_min && got_hi[t] == hi_max;
    });
    INFO("group from thread " << g << ", first wrong thread " << bad);
    CHECK(bad == -1);
  }
}

}  // namespace

TEST_CASE("group_exclusive_sum and group_min_max over a warp and a block", "[collectives][group]") {
  std::mt19937_64 rng(72301);
  for (int block : {32, 64, 96, 256, 1024}) {
    check_group(block, block, false, rng);
    check_group(block, 32, false, rng);
    check_group(block, block, true, rng);
  }
}

namespace {

using spgemm::cuda::BinCounts;
using spgemm::cuda::BinThresholds;
using spgemm::cuda::kMaxBins;

__global__ void __launch_bounds__(1024)
    block_binning_kernel(spgemm::cuda::RowSizes sizes, int rows, BinThresholds thresholds,
                         BinCounts* counts, int* binned) {
  spgemm::cuda::block_bin_rows(sizes, rows, thresholds, counts, binned);
}

// The numeric phase's bins as configs/bins.hpp lays them out: every hash
// bin, the dense bin, the sort bins, rows of many terms moved to the first
// block bin or to the last hash bin.
BinThresholds numeric_thresholds() {
  using namespace spgemm::cuda;
  BinThresholds t;
  t.hash_bins = kHashBinCount;
  for (int b = 0; b < kHashBinCount; ++b) t.max_size[b] = kHashBins[b].max_size;
  t.sort_bins = kSortBinCount;
  for (int s = 0; s < kSortBinCount; ++s) t.sort_terms[s] = kSortBinTerms[s];
  t.block_bin = kWarpBins;
  t.block_terms = NumericPolicy::block_row_terms;
  t.heavy_terms = 1 << 16;
  return t;
}

template <class Offset>
void check_block_binning(int rows, int threads, std::mt19937_64& rng) {
  INFO("rows " << rows << ", threads " << threads << ", offsets of " << sizeof(Offset) << " bytes");
  const BinThresholds thresholds = numeric_thresholds();
  const int largest = spgemm::cuda::kHashBins[spgemm::cuda::kHashBinCount - 1].max_size;
  std::vector<Offset> offsets(rows + 1, 0);
  std::vector<int> terms(rows);
  std::uniform_int_distribution<int> kind(0, 5), small(1, 64), medium(1, 2 * largest),
      extra(0, 1 << 17);
  for (int r = 0; r < rows; ++r) {
    // no entries (dropped), sort-bin rows, hash and dense rows, few
    // entries of many terms (block_terms, heavy_terms)
    const int k = kind(rng);
    const int size = k == 0 ? 0 : k == 1 ? small(rng) : medium(rng);
    terms[r] = k == 1   ? std::uniform_int_distribution<int>(size, 64)(rng)
               : k == 5 ? std::min(size, 32) + extra(rng) + 1024
                        : size + extra(rng) % 100;
    offsets[r + 1] = offsets[r] + static_cast<Offset>(k == 5 ? std::min(size, 32) : size);
  }
  // the oracle: each bin's rows, by the rule
  std::vector<std::vector<int>> expected(kMaxBins);
  for (int r = 0; r < rows; ++r) {
    const int size = static_cast<int>(offsets[r + 1] - offsets[r]);
    if (size > 0) expected[thresholds.bin_for(size, terms[r])].push_back(r);
  }
  DeviceArray<Offset> d_offsets(offsets);
  DeviceArray<int> d_terms(terms), binned(rows + 4);
  DeviceArray<BinCounts> counts(1);
  block_binning_kernel<<<1, threads>>>(
      spgemm::cuda::sizes_from_offsets(d_offsets.get(), d_terms.get()), rows, thresholds,
      counts.get(), binned.get());
  launched("block_binning_kernel");
  const BinCounts got_counts = counts.read()[0];
  const std::vector<int> got = binned.read();
  int begin = 0;
  for (int b = 0; b < kMaxBins; ++b) {
    INFO("bin " << b << ", expected rows " << expected[b].size());
    REQUIRE(got_counts.count[b] == static_cast<int>(expected[b].size()));
    std::vector<int> rows_of_bin(got.begin() + begin, got.begin() + begin + got_counts.count[b]);
    std::sort(rows_of_bin.begin(), rows_of_bin.end());  // (in no fixed order)
    CHECK(rows_of_bin == expected[b]);
    begin += got_counts.count[b];
  }
  CHECK(std::all_of(got.begin() + begin, got.end(), [](int r) { return poisoned(r); }));
}

}  // namespace

TEST_CASE("block_bin_rows bins C's rows by one block", "[collectives][binning]") {
  std::mt19937_64 rng(72302);
  for (int rows : {0, 1, 33, 5000, spgemm::cuda::kBlockBinningRows}) {
    check_block_binning<int32_t>(rows, 1024, rng);  // binning/row_offsets.cuh's block
    check_block_binning<int64_t>(rows, 256, rng);
  }
}

namespace {

// Each block takes rows from the counter until none is left; every thread
// counts the row it was given.
__global__ void next_row_kernel(unsigned* counter, int rows, int* taken) {
  for (int i = spgemm::cuda::next_row(counter, rows); i >= 0;
       i = spgemm::cuda::next_row(counter, rows))
    atomicAdd(&taken[i], 1);
}

}  // namespace

TEST_CASE("next_row deals each row to one block and leaves its counter at 0",
          "[collectives][work_counter]") {
  const int threads = 128, launches = 3;
  for (int rows : {0, 1, 5, 100000}) {
    for (int blocks : {1, 7, 264}) {
      INFO("rows " << rows << ", blocks " << blocks);
      DeviceArray<unsigned> counter(std::vector<unsigned>{0});
      DeviceArray<int> taken(std::vector<int>(rows + 1, 0));
      // the counter as one launch leaves it serves the next
      for (int l = 0; l < launches; ++l)
        next_row_kernel<<<blocks, threads>>>(counter.get(), rows, taken.get());
      launched("next_row_kernel");
      CHECK(counter.read()[0] == 0u);
      const std::vector<int> got = taken.read();
      const long long bad =
          first_failing(rows, [&](size_t i) { return got[i] == launches * threads; });
      INFO("first row not taken once a launch by a whole block: " << bad);
      CHECK(bad == -1);
      CHECK(got[rows] == 0);
    }
  }
}
