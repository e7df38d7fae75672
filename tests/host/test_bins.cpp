// SPDX-License-Identifier: Apache-2.0
// The binning rule (src/cuda/dispatch/choice.hpp's BinThresholds::bin_for,
// which binning.cu applies to every row on the device) against the host's
// test of which bins a launch may skip (BinThresholds::may_hold): for every
// bound on the terms, over every row (size <= terms) up to past the last
// threshold. Thresholds of the library's own tables and smaller ones with
// each move (block bin, heavy rows, sort bins) present or absent. And the
// layout of a split row's scratch (configs/bins.hpp's SplitRowsLayout).
#include "cuda/dispatch/choice.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <vector>

namespace {

using spgemm::cuda::BinThresholds;

// Checks may_hold for every bound up to `most`, by walking the terms up and
// collecting the bins bin_for gives their rows: never false for a bin that
// gets one (the launch skipped would leave its rows uncounted), and without
// sort bins true only for those (with them it does not tell the rows of few
// terms, which the sort bins take, from the others).
void check_against_rule(const BinThresholds& t, int most) {
  std::vector<bool> reached(static_cast<size_t>(t.bins()), false);
  int out_of_range = 0;
  for (int terms = 1; terms <= most; ++terms) {
    for (int size = 1; size <= terms; ++size) {
      const int bin = t.bin_for(size, terms);
      if (bin < 0 || bin >= t.bins())
        ++out_of_range;
      else
        reached[static_cast<size_t>(bin)] = true;
    }
    for (int bin = 0; bin < t.bins(); ++bin) {
      INFO("bin " << bin << ", rows of at most " << terms << " terms");
      if (reached[static_cast<size_t>(bin)]) CHECK(t.may_hold(bin, terms));
      if (t.sort_bins == 0) CHECK(t.may_hold(bin, terms) == reached[static_cast<size_t>(bin)]);
    }
  }
  CHECK(out_of_range == 0);
  for (int bin = 0; bin < t.bins(); ++bin) {
    CHECK(reached[static_cast<size_t>(bin)]);  // every bin is reached by some row
    CHECK(t.may_hold(bin, INT_MAX));
  }
}

BinThresholds small_thresholds(bool block, bool heavy, bool sort) {
  BinThresholds t;
  const int sizes[] = {2, 4, 8, 16, 32, 64};
  for (const int s : sizes) t.max_size[t.hash_bins++] = s;
  if (block) {
    t.block_bin = 3;
    t.block_terms = 20;
  }
  if (heavy) t.heavy_terms = 50;
  if (sort) {
    t.sort_terms[t.sort_bins++] = 3;
    t.sort_terms[t.sort_bins++] = 6;
  }
  return t;
}

}  // namespace

TEST_CASE("may_hold agrees with bin_for on small thresholds", "[bins]") {
  for (const bool block : {false, true})
    for (const bool heavy : {false, true})
      for (const bool sort : {false, true}) {
        INFO("block " << block << ", heavy " << heavy << ", sort " << sort);
        check_against_rule(small_thresholds(block, heavy, sort), 100);
      }
}

TEST_CASE("may_hold agrees with bin_for on the library's tables", "[bins]") {
  using namespace spgemm::cuda;
  for (const bool numeric : {false, true}) {
    BinThresholds t;
    for (const HashBinSpec& spec : kHashBins) {
      if (numeric && spec.max_size > NumericPolicy::hash_max_nnz) break;
      if (numeric && spec.group == Group::block && t.block_bin < 0) {
        t.block_bin = t.hash_bins;
        t.block_terms = NumericPolicy::block_row_terms;
      }
      t.max_size[t.hash_bins++] = spec.max_size;
    }
    if (numeric) {
      for (const int terms : kSortBinTerms) t.sort_terms[t.sort_bins++] = terms;
      t.heavy_terms = NumericPolicy::heavy_row_terms;
    }
    INFO((numeric ? "numeric" : "symbolic") << " thresholds");
    check_against_rule(t,
                       std::max(NumericPolicy::heavy_row_terms, t.max_size[t.hash_bins - 1]) + 2);
  }
}

TEST_CASE("bin_for puts rows where the tables say", "[bins]") {
  const BinThresholds t = small_thresholds(true, true, true);
  CHECK(t.bin_for(1, 2) == t.hash_bins + 1);   // sort bin of 3 terms
  CHECK(t.bin_for(5, 5) == t.hash_bins + 2);   // sort bin of 6 terms
  CHECK(t.bin_for(7, 7) == 2);                 // hash bin of 8
  CHECK(t.bin_for(7, 25) == 3);                // a warp bin's row of many terms: the block bin
  CHECK(t.bin_for(20, 25) == 4);               // past the block bin: its own
  CHECK(t.bin_for(7, 60) == t.hash_bins - 1);  // heavy: the last hash bin
  CHECK(t.bin_for(65, 65) == t.hash_bins);     // beyond every table: the dense bin
  CHECK(t.sort_bin(7) == -1);
}

TEST_CASE("SplitRowsLayout: a split row's scratch", "[bins]") {
  using spgemm::cuda::SplitRowsLayout;
  // orani678's 9 rows of 2529 columns in fp64: values, a mask word per 32
  // columns, one after the other, then the flags and the counter, zeroed
  const SplitRowsLayout layout(9, 2529, 8);
  CHECK(layout.masks == 9 * 2529 * 8);
  CHECK(layout.flags == layout.masks + 9 * 80 * 4);
  CHECK(layout.work_counter == layout.flags + 9 * 4);
  CHECK(layout.end == layout.work_counter + 4);
  CHECK(layout.zeroed_bytes() == 9 * 4 + 4);
  CHECK(layout.masks % 4 == 0);
  CHECK(SplitRowsLayout(3, 33, 16).flags == 3 * 33 * 16 + 3 * 2 * 4);  // complex double
}
