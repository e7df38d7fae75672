// SPDX-License-Identifier: Apache-2.0
// The GPU engine's choices (src/cuda/dispatch/choice.hpp) on the host, for
// an H100's limits: the binning's thresholds by C's rows and products, the
// bins' kernels, the split of the last hash bin's rows, the numeric block
// kernel's lean instance, a test's override (SPGEMM_TEST_GPU_CHOICE) and the
// log of the choices made (SPGEMM_TEST_GPU_CHOICE_LOG).
#include "core/error.hpp"
#include "cuda/dispatch/choice.hpp"
#include "scoped_env.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace {

using namespace spgemm::cuda;
using spgemm_test::ScopedEnv;

// An H100 SXM's limits.
spgemm::DeviceLimits h100() {
  spgemm::DeviceLimits limits;
  limits.device = 0;
  limits.sm_count = 132;
  limits.max_threads_per_sm = 2048;
  limits.max_smem_per_block = 227 * 1024;
  limits.max_smem_per_sm = 228 * 1024;
  limits.l2_bytes = 50 << 20;
  return limits;
}

// Choices for fp64 values and 32-bit offsets, under `forced` (nullopt: none).
struct Fp64Choices {
  ScopedEnv env;
  Choices choices;
  explicit Fp64Choices(std::optional<std::string> forced = std::nullopt)
      : env("SPGEMM_TEST_GPU_CHOICE", std::move(forced)),
        choices(h100(), sizeof(double), sizeof(int), "double/int32/int32") {}
};

int bin_of_size(const BinLayout& layout, int size) {
  for (int bin = 0; bin < layout.dense_bin(); ++bin)
    if (layout.hash[bin].spec.max_size >= size) return bin;
  return layout.dense_bin();
}

// Blocks resident for the lean and the regular numeric block kernel.
ResidentBlocks resident(int lean, int regular) {
  return [=](NumericKernel k) { return k == NumericKernel::block_hash_lean ? lean : regular; };
}

}  // namespace

TEST_CASE("numeric_thresholds moves rows to the block bin by C's rows and products", "[choice]") {
  const Fp64Choices f;
  const int few_rows = NumericPolicy::few_products_rows_per_warp * 64 * 132;
  const long long few_products = NumericPolicy::few_products_per_sm * 132;
  auto terms = [&](int rows, long long products) {
    const BinThresholds t = f.choices.numeric_thresholds(rows, products);
    return t.block_bin < 0 ? -1 : t.block_terms;
  };
  CHECK(terms(few_rows, few_products) == NumericPolicy::few_products_block_terms);
  CHECK(terms(1, 0) == NumericPolicy::few_products_block_terms);
  CHECK(terms(few_rows + 1, few_products) == NumericPolicy::block_row_terms);
  CHECK(terms(few_rows, few_products + 1) == NumericPolicy::block_row_terms);
  CHECK(terms(few_rows, -1) == NumericPolicy::block_row_terms);  // products not known on the host
  CHECK(terms(NumericPolicy::block_rows_per_sm * 132, -1) == NumericPolicy::block_row_terms);
  CHECK(terms(NumericPolicy::block_rows_per_sm * 132 + 1, few_products) ==
        -1);  // no move: many rows
}

TEST_CASE("symbolic_thresholds keeps the thread bin for C of many rows only", "[choice]") {
  const Fp64Choices f;
  const int many = BinPolicy::thread_rows_min_per_sm * 132;
  const BinThresholds with = f.choices.symbolic_thresholds(many);
  const int thread_bin = with.hash_bins + 1;
  CHECK(with.bin_for(20, BinPolicy::thread_row_terms) == thread_bin);
  CHECK(with.bin_for(20, BinPolicy::thread_row_terms + 1) < with.hash_bins);
  CHECK(with.may_hold(thread_bin, 1));
  const BinThresholds without = f.choices.symbolic_thresholds(many - 1);
  CHECK(without.bin_for(20, BinPolicy::thread_row_terms) < without.hash_bins);  // a hash bin
  // (a launch without the bins' counts on the host must skip the bin)
  CHECK_FALSE(without.may_hold(thread_bin, 1));
  // forced either way
  CHECK(Fp64Choices("thread_rows=always").choices.symbolic_thresholds(1).sort_bins == 1);
  CHECK(Fp64Choices("thread_rows=never").choices.symbolic_thresholds(many).sort_bins == 0);
}

TEST_CASE("numeric_thread_rows: many rows that share columns", "[choice]") {
  const Fp64Choices f;
  const int many = BinPolicy::thread_rows_min_per_sm * 132;
  CHECK(f.choices.numeric_thread_rows(many, 2.0e6, 1000000));
  CHECK_FALSE(f.choices.numeric_thread_rows(many, 1.0e6, 1000000));  // no compression
  CHECK_FALSE(f.choices.numeric_thread_rows(many - 1, 2.0e6, 1000000));
  CHECK(Fp64Choices("thread_rows=always").choices.numeric_thread_rows(1, 1, 1));
  CHECK_FALSE(Fp64Choices("thread_rows=never").choices.numeric_thread_rows(many, 2.0e6, 1000000));
}

TEST_CASE("lean_block_pays: for more blocks, all busy", "[choice]") {
  // (132 SMs: 12 blocks of 128 threads an SM with it, 8 without)
  const int lean = 12 * 132, regular = 8 * 132;
  CHECK(lean_block_pays(8738, lean, regular));  // bcsstk33
  CHECK(lean_block_pays(lean, lean, regular));
  CHECK_FALSE(lean_block_pays(lean - 1, lean, regular));  // rows in flight either way
  CHECK_FALSE(lean_block_pays(453, lean, regular));       // polblogs' 128-thread bin
  CHECK_FALSE(lean_block_pays(100000, 4 * 132, 4 * 132));  // shared memory bounds both
}

TEST_CASE("split_row_parts: the last hash bin's rows split where at most half as many as SMs",
          "[choice]") {
  CHECK(split_row_parts(0, 132) == 0);
  CHECK(split_row_parts(9, 132) == NumericPolicy::split_rows_max_parts);  // orani678's heavy rows
  CHECK(split_row_parts(22, 132) == 6);
  CHECK(split_row_parts(66, 132) == 2);
  CHECK(split_row_parts(67, 132) == 0);  // one part a row would idle no SM
  CHECK(split_row_parts(1, 3) == 3);
  CHECK(split_row_parts(1, 1) == 0);
  CHECK(split_row_parts(1, 2) == 2);
}

TEST_CASE("split_parts: no D, B's columns in the table, a small scratch", "[choice]") {
  const Fp64Choices f;
  const double c_bytes = 1e9;
  const long long cols = 2529;  // orani678
  CHECK(f.choices.split_parts(false, cols, 9, 1e6, c_bytes) == NumericPolicy::split_rows_max_parts);
  CHECK(f.choices.split_parts(true, cols, 9, 1e6, c_bytes) == 0);  // with D
  CHECK(f.choices.split_parts(false, 1 << 20, 9, 1e6, c_bytes) == 0);  // B too wide
  CHECK(f.choices.split_parts(false, cols, 9, 0.2 * c_bytes, c_bytes) == 0);  // scratch
  CHECK(f.choices.split_parts(false, cols, 100, 1e6, c_bytes) == 0);  // rows enough
  const Fp64Choices always("split=always");
  CHECK(always.choices.split_parts(false, cols, 100, 0.2 * c_bytes, c_bytes) == 2);
  CHECK(always.choices.split_parts(false, cols, 133, 1e6, c_bytes) == 0);
  CHECK(always.choices.split_parts(true, cols, 9, 1e6, c_bytes) == 0);  // never with D
  CHECK(Fp64Choices("split=never").choices.split_parts(false, cols, 9, 1e6, c_bytes) == 0);
}

TEST_CASE("symbolic_kernel: each bin's kernel", "[choice]") {
  const Fp64Choices f;
  const BinLayout& layout = f.choices.layout(Phase::symbolic);
  const int dense = layout.dense_bin();
  const int first_block = bin_of_size(layout, 512);
  REQUIRE(layout.hash[first_block].spec.group == Group::block);
  REQUIRE(layout.hash[first_block - 1].spec.group == Group::warp);
  auto kernel = [&](int bin, bool terms, bool ranges, long long b_cols, int lanes,
                    bool small = false, int first = -1) {
    return f.choices.symbolic_kernel(
        {bin, first < 0 ? bin : first, small, ranges, terms, b_cols, lanes});
  };
  CHECK(kernel(dense + 1, true, false, 100, 4) == SymbolicKernel::thread_row);
  CHECK(kernel(dense, true, false, 100, 4) == SymbolicKernel::dense_window);
  CHECK(kernel(0, false, false, 100, 4, true) == SymbolicKernel::small_warp);
  CHECK(kernel(first_block, false, false, 100, 4, true) == SymbolicKernel::small_block);
  CHECK(kernel(0, true, false, 100, 4) == SymbolicKernel::warp_hash_matched);
  CHECK(kernel(first_block - 1, true, false, 100, 4) == SymbolicKernel::warp_hash);
  // several warp bins in one launch: matched where the first bin's rows are
  CHECK(kernel(first_block - 1, true, false, 100, 4, false, 0) ==
        SymbolicKernel::warp_hash_matched);
  // a range bitmask only where B's columns do not fit the table's bits
  CHECK(kernel(0, true, true, 32 * 32, 4) == SymbolicKernel::warp_hash_matched);
  CHECK(kernel(0, true, true, 32 * 32 + 1, 4) == SymbolicKernel::warp_range_mask_matched);
  CHECK(kernel(first_block - 1, true, true, 1 << 20, 4) == SymbolicKernel::warp_range_mask);
  // blocks: numbered for short rows of B, else the last bin defers long ones
  CHECK(kernel(first_block, false, false, 100, SymbolicPolicy::numbered_max_lanes) ==
        SymbolicKernel::block_numbered);
  CHECK(kernel(first_block, false, false, 100, 16) == SymbolicKernel::block_hash);
  CHECK(kernel(dense - 1, false, false, 100, 16) == SymbolicKernel::block_deferred);
  CHECK(kernel(dense - 1, false, false, 100, 2) == SymbolicKernel::block_numbered);
  // forced
  CHECK(Fp64Choices("matched=never").choices.symbolic_kernel({0, 0, false, false, true, 100, 4}) ==
        SymbolicKernel::warp_hash);
  CHECK(Fp64Choices("symbolic_block=deferred")
            .choices.symbolic_kernel({first_block, first_block, false, false, false, 100, 4}) ==
        SymbolicKernel::block_deferred);
  CHECK(Fp64Choices("symbolic_block=hash")
            .choices.symbolic_kernel({dense - 1, dense - 1, false, false, false, 100, 2}) ==
        SymbolicKernel::block_hash);
  CHECK(Fp64Choices("symbolic_block=numbered")
            .choices.symbolic_kernel({dense - 1, dense - 1, false, false, false, 100, 32}) ==
        SymbolicKernel::block_numbered);
  // the numbered block's scratch sits behind its tables
  CHECK(f.choices.numbered_symbolic_smem(first_block) > layout.hash[first_block].smem_bytes);
}

TEST_CASE("numeric_kernel: each bin's kernel", "[choice]") {
  const Fp64Choices f;
  const BinLayout& layout = f.choices.layout(Phase::numeric);
  const int dense = layout.dense_bin();
  const int warp = bin_of_size(layout, 100);
  const int lean_bin = bin_of_size(layout, 512);  // blocks of 128 threads
  REQUIRE(layout.hash[warp].spec.group == Group::warp);
  REQUIRE(layout.hash[lean_bin].spec.block_threads <= NumericPolicy::lean_block_threads);
  REQUIRE(layout.hash[dense - 1].spec.block_threads > NumericPolicy::lean_block_threads);
  auto kernel = [&](int bin, long long rows, bool thread_rows, bool split,
                    const ResidentBlocks& blocks) {
    return f.choices.numeric_kernel({bin, rows, thread_rows, split}, blocks);
  };
  const ResidentBlocks more_lean = resident(12 * 132, 8 * 132);
  CHECK(kernel(dense, 5, false, false, more_lean) == NumericKernel::dense_window);
  CHECK(kernel(dense + 1, 5, true, false, more_lean) == NumericKernel::thread_row);
  CHECK(kernel(dense + 1, 5, false, false, more_lean) == NumericKernel::sort_row_1);
  CHECK(kernel(dense + 2, 5, true, false, more_lean) == NumericKernel::sort_row_2);
  CHECK(kernel(warp, 5, false, false, more_lean) == NumericKernel::warp_hash);
  CHECK(kernel(lean_bin, 5, false, false, more_lean) == NumericKernel::block_hash);
  CHECK(kernel(lean_bin, 12 * 132, false, false, more_lean) ==
        NumericKernel::block_hash_lean);
  CHECK(kernel(dense - 1, 12 * 132, false, false, more_lean) == NumericKernel::block_hash);
  CHECK(kernel(dense - 1, 5, false, true, more_lean) == NumericKernel::split_row);
  CHECK(kernel(lean_bin, 5, false, true, more_lean) == NumericKernel::block_hash);
  // forced
  CHECK(Fp64Choices("lean=always").choices.numeric_kernel({lean_bin, 5, false, false},
                                                          more_lean) ==
        NumericKernel::block_hash_lean);
  CHECK(Fp64Choices("lean=never").choices.numeric_kernel({lean_bin, 12 * 132, false, false},
                                                         more_lean) == NumericKernel::block_hash);
  // blocks beyond the lean instance's bound never take it
  CHECK(Fp64Choices("lean=always").choices.numeric_kernel({dense - 1, 5, false, false},
                                                          more_lean) == NumericKernel::block_hash);
}

TEST_CASE("small products: their bins and the speculative try", "[choice]") {
  const Fp64Choices f;
  // many rows take warps, few rows blocks
  const int warp_bin = f.choices.small_bin(Phase::symbolic, 20000, 20);
  REQUIRE(warp_bin >= 0);
  CHECK(f.choices.layout(Phase::symbolic).hash[warp_bin].spec.group == Group::warp);
  const int block_bin = f.choices.small_bin(Phase::symbolic, 100, 20);
  REQUIRE(block_bin >= 0);
  CHECK(f.choices.layout(Phase::symbolic).hash[block_bin].spec.group == Group::block);
  CHECK(f.choices.small_symbolic_bin(20000, 1000000, 20) == warp_bin);
  CHECK(f.choices.small_symbolic_bin(20000, SmallPolicy::max_products + 1, 20) == -1);
  CHECK(f.choices.small_numeric_bin(20000, 20, 20) ==
        f.choices.layout(Phase::numeric).thresholds.sort_bin(20));
  const Choices::Speculative tried = f.choices.speculative(20000, 1.0e5);
  CHECK(tried.bin >= 0);
  CHECK(tried.gate_max_row >= f.choices.layout(Phase::symbolic).hash[tried.bin].spec.max_size);
  CHECK(f.choices.speculative(20000, 2.0 * SmallPolicy::speculate_products).bin == -1);
  CHECK(f.choices.speculative(SmallPolicy::max_rows + 1, 1.0e5).bin == -1);
  CHECK(f.choices.speculative(0, 0).bin == -1);
  // forced off
  const Fp64Choices never("small=never");
  CHECK(never.choices.small_symbolic_bin(20000, 1000000, 20) == -1);
  CHECK(never.choices.speculative(20000, 1.0e5).bin == -1);
}

TEST_CASE("ranges, mask cap and few launches", "[choice]") {
  const Fp64Choices f;
  const long long many = static_cast<long long>(SymbolicPolicy::span_min_rows_per_sm) * 132;
  CHECK(f.choices.measure_ranges(many + 1, true));
  CHECK_FALSE(f.choices.measure_ranges(many + 1, false));  // B's order not examined
  CHECK_FALSE(f.choices.measure_ranges(many, true));
  CHECK(Fp64Choices("ranges=always").choices.measure_ranges(10, true));
  CHECK_FALSE(Fp64Choices("ranges=always").choices.measure_ranges(10, false));
  CHECK_FALSE(Fp64Choices("ranges=never").choices.measure_ranges(many + 1, true));
  const int beyond = 0;
  const MaskCap cap = f.choices.mask_cap(SymbolicPolicy::mask_cap_rows_per_sm * 132, 600, &beyond);
  CHECK(cap.cap < cap.beyond);
  CHECK(cap.rows_beyond == &beyond);
  CHECK(f.choices.mask_cap(SymbolicPolicy::mask_cap_rows_per_sm * 132 - 1, 600, &beyond).cap ==
        INT_MAX);
  CHECK(f.choices.mask_cap(SymbolicPolicy::mask_cap_rows_per_sm * 132, 1 << 30, &beyond).cap ==
        INT_MAX);
  CHECK(f.choices.few_launches(SmallPolicy::few_launches_rows));
  CHECK_FALSE(f.choices.few_launches(SmallPolicy::few_launches_rows + 1));
  CHECK_FALSE(Fp64Choices("few_launches=never").choices.few_launches(10));
}

TEST_CASE("SPGEMM_TEST_GPU_CHOICE: knobs parsed, unknown ones refused", "[choice]") {
  const ChoiceOverride o =
      ChoiceOverride::parse("lean=always,split=never,symbolic_block=numbered,small=never");
  CHECK(o.lean == Force::always);
  CHECK(o.split == Force::never);
  CHECK(o.small == Force::never);
  CHECK(o.thread_rows == Force::automatic);
  CHECK(o.symbolic_block == SymbolicKernel::block_numbered);
  CHECK(ChoiceOverride::parse(nullptr).lean == Force::automatic);
  CHECK(ChoiceOverride::parse("").symbolic_block == SymbolicKernel::count);
  for (const char* bad : {"lean", "lean=sometimes", "small=always", "speed=fast",
                          "symbolic_block=warp_hash", "lean=always,"}) {
    INFO(bad);
    if (std::string(bad) == "lean=always,") {  // (an empty item: nothing)
      CHECK(ChoiceOverride::parse(bad).lean == Force::always);
      continue;
    }
    try {
      ChoiceOverride::parse(bad);
      FAIL("accepted");
    } catch (const spgemm::Error& e) {
      CHECK(e.status() == SPGEMM_STATUS_INVALID_VALUE);
    }
  }
}

TEST_CASE("SPGEMM_TEST_GPU_CHOICE_LOG: every choice a line", "[choice]") {
  const std::string path = "test_choice_log.txt";
  std::remove(path.c_str());
  {
    const ScopedEnv log("SPGEMM_TEST_GPU_CHOICE_LOG", path);
    const Fp64Choices f;
    const int dense = f.choices.layout(Phase::symbolic).dense_bin();
    f.choices.symbolic_kernel({dense, dense, false, false, true, 100, 4});
    f.choices.numeric_kernel({0, 1, false, false}, resident(1, 1));
  }
  std::ifstream in(path);
  std::string first, second, extra;
  std::getline(in, first);
  std::getline(in, second);
  CHECK(first == "symbolic dense_window double/int32/int32");
  CHECK(second == "numeric warp_hash double/int32/int32");
  CHECK_FALSE(std::getline(in, extra));
  std::remove(path.c_str());
  // names for every kernel
  for (int k = 0; k < static_cast<int>(SymbolicKernel::count); ++k)
    CHECK(std::string(name_of(static_cast<SymbolicKernel>(k))).size() > 0);
  for (int k = 0; k < static_cast<int>(NumericKernel::count); ++k)
    CHECK(std::string(name_of(static_cast<NumericKernel>(k))).size() > 0);
}
