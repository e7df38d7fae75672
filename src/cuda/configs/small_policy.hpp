// SPDX-License-Identifier: Apache-2.0
// Small products and C of few rows, where launches and not work set the
// time: one kernel per phase, the speculative try, few launches.
#pragma once

#include "cuda/configs/bin_table.hpp"

namespace spgemm::cuda {

// A value's line gives its reason in brief; its full reason and the
// spgemm-bench command that chose it: docs/tuning.md, "SmallPolicy".
struct SmallPolicy {
  // C of at most this many rows: analyze reads back the statistics that find a small product
  static constexpr int max_rows = 1 << 16;
  // a small product's most products: below, launches and not work set the time
  static constexpr long long max_products = 1 << 22;
  // rows * the longest row's table slots: every row clears and sorts a table that size
  static constexpr long long max_table_slots = 4 * max_products;
  // tried before its statistics are known: a missed estimate costs more than a readback
  static constexpr long long speculate_products = 1 << 21;
  // the speculative gate's load: a fuller table's probes cost less than a second launch
  static constexpr double gate_load = 0.75;
  // a larger bin where the gate takes < this * the average row's terms: long rows shut it
  static constexpr double speculate_row_margin = 4.0;
  // a block a row where such blocks take at most this share of resident threads
  static constexpr double block_rows_share = 0.5;
  // C of at most this many rows: the host's calls set its time, so fewer launches
  static constexpr int few_launches_rows = 1 << 14;
};

}  // namespace spgemm::cuda
