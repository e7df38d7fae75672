// SPDX-License-Identifier: Apache-2.0
// The binning rule (src/cuda/configs/bins.hpp's BinThresholds::bin_for,
// which binning.cu applies to every row on the device) against the host's
// test of which bins a launch may skip (BinThresholds::may_hold): for every
// bound on the terms, over every row (size <= terms) up to past the last
// threshold. Thresholds of the library's own tables and smaller ones with
// each move (block bin, heavy rows, sort bins) present or absent. And
// numeric_thresholds' choice of the block bin's move by C's rows and
// products, symbolic_thresholds' of the thread bin by C's rows, and
// lean_block_pays' of the numeric block kernel's 40-register instance, and
// split_row_parts' split of the last hash bin's few rows.
#include "cuda/configs/bins.hpp"

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
      if (numeric && spec.max_size > kNumericHashMaxNnz) break;
      if (numeric && spec.group == Group::block && t.block_bin < 0) {
        t.block_bin = t.hash_bins;
        t.block_terms = kBlockRowTerms;
      }
      t.max_size[t.hash_bins++] = spec.max_size;
    }
    if (numeric) {
      for (const int terms : kSortBinTerms) t.sort_terms[t.sort_bins++] = terms;
      t.heavy_terms = kHeavyRowTerms;
    }
    INFO((numeric ? "numeric" : "symbolic") << " thresholds");
    check_against_rule(t, std::max(kHeavyRowTerms, t.max_size[t.hash_bins - 1]) + 2);
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

TEST_CASE("numeric_thresholds moves rows to the block bin by C's rows and products", "[bins]") {
  using namespace spgemm::cuda;
  BinLayout layout;
  layout.thresholds = small_thresholds(true, true, true);
  layout.thresholds.block_terms = kBlockRowTerms;
  spgemm::DeviceLimits limits;
  limits.sm_count = 100;
  limits.max_threads_per_sm = 2048;
  const int few_rows = kFewProductsRowsPerWarp * 64 * 100;
  const long long few_products = kFewProductsPerSM * 100;
  auto terms = [&](int rows, long long products) {
    const BinThresholds t = numeric_thresholds(layout, rows, products, limits);
    return t.block_bin < 0 ? -1 : t.block_terms;
  };
  CHECK(terms(few_rows, few_products) == kFewProductsBlockTerms);
  CHECK(terms(1, 0) == kFewProductsBlockTerms);
  CHECK(terms(few_rows + 1, few_products) == kBlockRowTerms);
  CHECK(terms(few_rows, few_products + 1) == kBlockRowTerms);
  CHECK(terms(few_rows, -1) == kBlockRowTerms);  // products not known on the host
  CHECK(terms(kBlockRowsPerSM * 100, -1) == kBlockRowTerms);
  CHECK(terms(kBlockRowsPerSM * 100 + 1, few_products) == -1);  // no move: many rows
}

TEST_CASE("symbolic_thresholds keeps the thread bin for C of many rows only", "[bins]") {
  using namespace spgemm::cuda;
  BinLayout layout;
  layout.thresholds = small_thresholds(true, true, false);
  // (a bin of 3 terms, not kThreadRowTerms: the small tables' bins keep rows)
  layout.thresholds.sort_terms[layout.thresholds.sort_bins++] = 3;
  spgemm::DeviceLimits limits;
  limits.sm_count = 100;
  limits.max_threads_per_sm = 2048;
  const int many = kThreadRowsMinPerSM * 100;
  const int thread_bin = layout.thresholds.hash_bins + 1;
  const BinThresholds with = symbolic_thresholds(layout, many, limits);
  CHECK(thread_rows(many, limits));
  CHECK(with.bin_for(2, 3) == thread_bin);
  CHECK(with.may_hold(thread_bin, 1));
  check_against_rule(with, 70);
  const BinThresholds without = symbolic_thresholds(layout, many - 1, limits);
  CHECK_FALSE(thread_rows(many - 1, limits));
  CHECK(without.bin_for(2, 3) < without.hash_bins);  // a hash bin
  // (a launch without the bins' counts on the host must skip the bin)
  CHECK_FALSE(without.may_hold(thread_bin, 1));
  CHECK_FALSE(without.may_hold(thread_bin, INT_MAX));
  check_against_rule(without, 70);
}

TEST_CASE("lean_block_pays: unordered always, ordered for more blocks all busy", "[bins]") {
  using spgemm::cuda::lean_block_pays;
  // (132 SMs: 12 blocks of 128 threads an SM with it, 8 without)
  const int lean = 12 * 132, regular = 8 * 132;
  CHECK(lean_block_pays(false, 1, lean, regular));
  CHECK(lean_block_pays(false, 100000, regular, regular));
  CHECK(lean_block_pays(true, 8738, lean, regular));  // bcsstk33
  CHECK(lean_block_pays(true, lean, lean, regular));
  CHECK_FALSE(lean_block_pays(true, lean - 1, lean, regular));  // rows in flight either way
  CHECK_FALSE(lean_block_pays(true, 453, lean, regular));       // polblogs' 128-thread bin
  CHECK_FALSE(lean_block_pays(true, 100000, 4 * 132, 4 * 132));  // shared memory bounds both
}

TEST_CASE("split_row_parts: the last hash bin's rows split where at most half as many as SMs",
          "[bins]") {
  using spgemm::cuda::kSplitRowsMaxParts;
  using spgemm::cuda::split_row_parts;
  using spgemm::cuda::SplitRowsLayout;
  CHECK(split_row_parts(0, 132) == 0);
  CHECK(split_row_parts(9, 132) == kSplitRowsMaxParts);  // orani678's heavy rows
  CHECK(split_row_parts(22, 132) == 6);
  CHECK(split_row_parts(66, 132) == 2);
  CHECK(split_row_parts(67, 132) == 0);  // one part a row would idle no SM
  CHECK(split_row_parts(1, 3) == 3);
  CHECK(split_row_parts(1, 1) == 0);
  CHECK(split_row_parts(1, 2) == 2);
  // orani678's 9 rows of 2529 columns in fp64: values, a mask word per 32
  // columns, one after the other, then the flags and the counter, zeroed
  const SplitRowsLayout layout(9, 2529, 8);
  CHECK(layout.masks == 9 * 2529 * 8);
  CHECK(layout.flags == layout.masks + 9 * 80 * 4);
  CHECK(layout.draws == layout.flags + 9 * 4);
  CHECK(layout.end == layout.draws + 4);
  CHECK(layout.zeroed_bytes() == 9 * 4 + 4);
  CHECK(layout.masks % 4 == 0);
  CHECK(SplitRowsLayout(3, 33, 16).flags == 3 * 33 * 16 + 3 * 2 * 4);  // complex double
}
