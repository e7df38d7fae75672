// SPDX-License-Identifier: Apache-2.0
// The row accumulators of src/cuda/accumulators/ each on their own, against
// a serial sum per column (std::map) in the order each documents, bit for
// bit: a thread's row (thread_row.cuh), a warp's row in registers
// (register_row.cuh), a row ranked by a bitmask over its range
// (ranked_row.cuh) and a row in direct slots (direct_row.cuh), used as
// their kernels in src/cuda/kernels/numeric/ use them.
#include <algorithm>
#include <climits>
#include <cub/block/block_scan.cuh>
#include <map>
#include <type_traits>

#include "cuda/accumulators/direct_row.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/ranked_row.cuh"
#include "cuda/accumulators/register_row.cuh"
#include "cuda/accumulators/thread_row.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/kernels/kernels.hpp"
#include "primitives_support.cuh"

using namespace spgemm_test::primitives;
using spgemm::cuda::Group;
using spgemm::cuda::kEmptyKey;

namespace {

// Each column's terms summed in the order given, from zero.
template <class Value>
std::map<int, Value> sums_in_order(const std::vector<int>& cols, const std::vector<Value>& terms) {
  std::map<int, Value> sums;
  for (size_t p = 0; p < cols.size(); ++p)
    sums.emplace(cols[p], Value(0)).first->second += terms[p];
  return sums;
}

// A row of C in out[at, at + width): `expected`'s columns plus base and
// sums at [0, min(len, size)), poison after.
template <class Value, class Index>
long long first_wrong(const std::map<int, Value>& expected, int len, int base,
                      const std::vector<Index>& cols, const std::vector<Value>& values, size_t at,
                      size_t width) {
  auto e = expected.begin();
  for (size_t j = 0; j < width; ++j) {
    const bool written = static_cast<int>(j) < len && e != expected.end();
    const bool ok = written ? cols[at + j] == static_cast<Index>(e->first + base) &&
                                  same_bits(values[at + j], e->second)
                            : poisoned(cols[at + j]) && poisoned(values[at + j]);
    if (!ok) return static_cast<long long>(j);
    if (e != expected.end()) ++e;
  }
  return -1;
}

// ---- ThreadRow: a thread's row, then the warp's rows written staggered ----

constexpr int kRowThreads = spgemm::cuda::BinPolicy::thread_row_block_threads;
constexpr int kRowSlots = spgemm::cuda::BinPolicy::thread_row_terms;

// Row t (a thread's): terms [t * most, t * most + terms[t]); added: each
// add's result; then, as kernels/numeric/thread_rows.cuh, stagger and the
// warp's rows read back a column a lane, to out[t * kRowSlots, ...).
template <bool Sums, class Value>
__global__ void thread_row_kernel(const int* row_terms, int most, const int* cols,
                                  const Value* terms, int* added, int* counts, int* out_cols,
                                  Value* out_values) {
  using Held = std::conditional_t<Sums, Value, spgemm::cuda::Columns>;
  using Row = spgemm::cuda::ThreadRow<kRowSlots, kRowThreads, Held>;
  __shared__ int col_slots[kRowSlots * kRowThreads];
  __shared__ __align__(16) unsigned char value_bytes[kRowSlots * kRowThreads * sizeof(Value)];
  Value* slots = reinterpret_cast<Value*>(value_bytes);
  const int lane = spgemm::cuda::lane_id();
  const int warp_first = static_cast<int>(threadIdx.x) - lane;
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  Row acc{col_slots + threadIdx.x, Sums ? reinterpret_cast<Held*>(slots + threadIdx.x) : nullptr};
  for (int p = 0; p < row_terms[t]; ++p) {
    const int i = t * most + p;
    if constexpr (Sums)
      added[i] = acc.add(cols[i], terms[i]);
    else
      added[i] = acc.add(cols[i]);
  }
  counts[t] = acc.count;
  __syncwarp();
  acc.stagger(lane, acc.count);
  for (int r = 0; r < 32; ++r) {
    const int n = __shfl_sync(spgemm::cuda::kFullWarp, acc.count, r);
    if (lane < n) {
      const int slot = warp_first + Row::staggered(r, lane);
      const int row = t - lane + r;
      out_cols[row * kRowSlots + lane] = col_slots[slot];
      if constexpr (Sums) out_values[row * kRowSlots + lane] = slots[slot];
    }
  }
}

template <bool Sums, class Value>
void check_thread_rows(std::mt19937_64& rng) {
  constexpr int kBlocks = 2, kRows = kBlocks * kRowThreads, kMost = 48;
  std::vector<int> row_terms(kRows), cols(kRows * kMost, -1);
  std::vector<Value> terms(kRows * kMost);
  std::uniform_int_distribution<int> length(0, kMost);
  for (int t = 0; t < kRows; ++t) {
    // lengths and column ranges: none, one, repeats, all one column, 32
    // distinct (the slots' capacity), more distinct than that
    const int kind = t % 6;
    const int n = kind == 0 ? 0 : kind == 1 ? 1 : kind == 4 ? kRowSlots : length(rng);
    const int range = kind == 2 ? 12 : kind == 3 ? 1 : 1 << 30;
    std::vector<int> picks = kind == 4 ? distinct_keys(n, 1 << 30, rng) : std::vector<int>(n);
    std::uniform_int_distribution<int> col(0, range - 1);
    for (int p = 0; p < n; ++p) {
      cols[t * kMost + p] = kind == 4 ? picks[p] : col(rng);
      terms[t * kMost + p] = random_value<Value>(rng);
    }
    row_terms[t] = n;
  }
  DeviceArray<int> d_row_terms(row_terms), d_cols(cols), added(cols.size()), counts(kRows),
      out_cols(kRows * kRowSlots);
  DeviceArray<Value> d_terms(terms), out_values(kRows * kRowSlots);
  thread_row_kernel<Sums, Value><<<kBlocks, kRowThreads>>>(d_row_terms.get(), kMost, d_cols.get(),
                                                           d_terms.get(), added.get(), counts.get(),
                                                           out_cols.get(), out_values.get());
  launched("thread_row_kernel");
  const std::vector<int> got_added = added.read(), got_counts = counts.read(),
                         got_cols = out_cols.read();
  const std::vector<Value> got_values = out_values.read();
  for (int t = 0; t < kRows; ++t) {
    // the slots keep the first kRowSlots columns; a new column past them is
    // refused, terms of held columns are still added
    std::vector<int> kept_cols, expected_added;
    std::vector<Value> kept_terms;
    std::set<int> held;
    for (int p = 0; p < row_terms[t]; ++p) {
      const int c = cols[t * kMost + p];
      const bool fits = held.count(c) || static_cast<int>(held.size()) < kRowSlots;
      expected_added.push_back(fits);
      if (!fits) continue;
      held.insert(c);
      kept_cols.push_back(c);
      kept_terms.push_back(terms[t * kMost + p]);
    }
    INFO("row " << t << ", terms " << row_terms[t] << ", columns " << held.size());
    CHECK(std::equal(expected_added.begin(), expected_added.end(), got_added.begin() + t * kMost));
    REQUIRE(got_counts[t] == static_cast<int>(held.size()));
    const auto expected = sums_in_order(kept_cols, kept_terms);
    auto e = expected.begin();
    for (int j = 0; j < got_counts[t]; ++j, ++e) {
      CHECK(got_cols[t * kRowSlots + j] == e->first);
      if constexpr (Sums) CHECK(same_bits(got_values[t * kRowSlots + j], e->second));
    }
    for (int j = got_counts[t]; j < kRowSlots; ++j) CHECK(got_cols[t * kRowSlots + j] == -1);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("ThreadRow keeps a row's columns in order and their sums",
                   "[accumulators][thread_row]", SPGEMM_PRIMITIVE_VALUES) {
  std::mt19937_64 rng(72201);
  check_thread_rows<true, TestType>(rng);
}

TEST_CASE("ThreadRow without sums keeps a row's columns in order", "[accumulators][thread_row]") {
  std::mt19937_64 rng(72202);
  check_thread_rows<false, float>(rng);
}

// ---- RegisterRow: a warp's row of at most 32 * K terms in registers ----

namespace {

using spgemm::cuda::kNoColumn;
enum class RegisterWay : int { write_row, write_row_packed, write_row_of_terms, write_values };
constexpr int kRegisterWarps = spgemm::cuda::kSortBlockThreads / 32;

// Row r (a warp's): element k * 32 + lane at r * 32K + k * 32 + lane of cols
// and terms (kNoColumn: none), C's row at the same place of out (len[r]
// entries, C's base 1); write_values: known the same way, its result in
// results[r].
template <int K, class Value, class Index>
__global__ void __launch_bounds__(spgemm::cuda::kSortBlockThreads)
    register_row_kernel(RegisterWay way, const int* cols_in, const Value* terms_in,
                        const int* known_in, const int* lens, Index* out_cols, Value* out_values,
                        int* results) {
  using namespace spgemm::cuda;
  __shared__ __align__(16) unsigned char slot_bytes[kSortBlockThreads * K * sizeof(Value)];
  Value* slots = reinterpret_cast<Value*>(slot_bytes) + (threadIdx.x / 32) * 32 * K;
  const int lane = lane_id();
  const int row = blockIdx.x * kRegisterWarps + threadIdx.x / 32;
  const int at = row * 32 * K;
  int cols[K], known[K];
  Value terms[K];
  for (int k = 0; k < K; ++k) {
    cols[k] = cols_in[at + k * 32 + lane];
    terms[k] = terms_in[at + k * 32 + lane];
    known[k] = known_in[at + k * 32 + lane];
  }
  const int len = lens[row];
  auto store_col = [&](int j, int col) {
    if (j < len) out_cols[at + j] = static_cast<Index>(col + 1);
  };
  auto store_value = [&](int j, Value v) {
    if (j < len) out_values[at + j] = v;
  };
  if (way == RegisterWay::write_row_of_terms) {
    if constexpr (K == 2) write_row_of_terms(cols, terms, slots, store_col, store_value);
    return;
  }
  const RegisterRow<K, Value> acc(cols, terms);
  if (way == RegisterWay::write_values) {
    const bool done = acc.write_values(known, len, slots, store_value);
    if (lane == 0) results[row] = done;
  } else {
    acc.write_row(way == RegisterWay::write_row_packed, slots, store_col, store_value);
  }
}

// Each column's sum: register k's terms of it summed in lane order from
// zero, then those sums in register order from zero (register_row.cuh).
template <int K, class Value>
std::map<int, Value> register_sums(const std::vector<int>& cols, const std::vector<Value>& terms,
                                   size_t at) {
  std::map<int, Value> sums;
  for (int k = 0; k < K; ++k) {
    std::vector<int> c;
    std::vector<Value> t;
    for (int l = 0; l < 32; ++l)
      if (cols[at + k * 32 + l] != kNoColumn) {
        c.push_back(cols[at + k * 32 + l]);
        t.push_back(terms[at + k * 32 + l]);
      }
    for (const auto& [col, sum] : sums_in_order(c, t))
      sums.emplace(col, Value(0)).first->second += sum;
  }
  return sums;
}

template <int K, class Value, class Index>
void check_register_rows(std::mt19937_64& rng) {
  constexpr int kBlocks = 6, kRows = kBlocks * kRegisterWarps, kWidth = 32 * K;
  constexpr long long kPacked = spgemm::cuda::RegisterRow<K, Value>::kPackedColumns;
  for (bool packed : {true, false}) {
    // rows: no term, one, 32K of them in few columns, one column, all
    // distinct, the largest columns of the range
    std::vector<int> cols(kRows * kWidth, kNoColumn);
    std::vector<Value> terms(kRows * kWidth, Value(0));
    const int top = packed ? static_cast<int>(kPacked) - 1 : INT_MAX - 1;
    std::uniform_int_distribution<int> length(1, kWidth);
    for (int r = 0; r < kRows; ++r) {
      const int kind = r % 6;
      const int n = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? kWidth : length(rng);
      const int range = kind == 2 ? 20 : kind == 3 ? 1 : kind == 5 ? 50 : top;
      const int lo = kind == 5 ? top - range + 1 : 0;
      std::uniform_int_distribution<int> col(lo, lo + range - 1);
      for (int p = 0; p < n; ++p) {
        cols[r * kWidth + p] = col(rng);
        terms[r * kWidth + p] = random_value<Value>(rng);
      }
    }
    std::vector<std::map<int, Value>> expected(kRows);
    std::vector<int> lens(kRows), known(cols.size(), kNoColumn), short_lens(kRows),
        short_known(cols.size(), kNoColumn);
    for (int r = 0; r < kRows; ++r) {
      expected[r] = register_sums<K>(cols, terms, r * kWidth);
      lens[r] = static_cast<int>(expected[r].size());
      int j = 0;
      for (const auto& [col, sum] : expected[r]) known[r * kWidth + j++] = col;
      // C's columns without the row's first: write_values must refuse
      short_lens[r] = std::max(lens[r] - 1, 0);
      for (j = 0; j < short_lens[r]; ++j) short_known[r * kWidth + j] = known[r * kWidth + j + 1];
    }
    auto run = [&](RegisterWay way, const std::vector<int>& c_known, const std::vector<int>& len,
                   bool refused) {
      DeviceArray<int> d_cols(cols), d_known(c_known), d_lens(len), results(kRows);
      DeviceArray<Value> d_terms(terms), out_values(cols.size());
      DeviceArray<Index> out_cols(cols.size());
      register_row_kernel<K, Value, Index><<<kBlocks, spgemm::cuda::kSortBlockThreads>>>(
          way, d_cols.get(), d_terms.get(), d_known.get(), d_lens.get(), out_cols.get(),
          out_values.get(), results.get());
      launched("register_row_kernel");
      const std::vector<Index> got_cols = out_cols.read();
      const std::vector<Value> got_values = out_values.read();
      const std::vector<int> got_results = results.read();
      for (int r = 0; r < kRows; ++r) {
        const bool refuses = refused && lens[r] > 0;
        INFO("K " << K << ", packed " << packed << ", way " << static_cast<int>(way) << ", row "
                  << r << ", columns " << lens[r]);
        if (way == RegisterWay::write_values) CHECK(got_results[r] == !refuses);
        // write_values stores values only: C's columns are given
        std::vector<Index> cols_seen = got_cols;
        if (way == RegisterWay::write_values)
          for (int j = 0; j < lens[r] && !refuses; ++j)
            cols_seen[r * kWidth + j] = static_cast<Index>(known[r * kWidth + j] + 1);
        CHECK(first_wrong(expected[r], refuses ? 0 : lens[r], 1, cols_seen, got_values, r * kWidth,
                          kWidth) == -1);
      }
    };
    run(RegisterWay::write_row, known, lens, false);
    run(RegisterWay::write_values, known, lens, false);
    run(RegisterWay::write_values, short_known, short_lens, true);
    if (packed) {
      if constexpr (K == 1) run(RegisterWay::write_row_packed, known, lens, false);
      if constexpr (K == 2) run(RegisterWay::write_row_of_terms, known, lens, false);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("RegisterRow and write_row_of_terms write a warp's row with its sums",
                   "[accumulators][register_row]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Index = std::tuple_element_t<1, TestType>;
  std::mt19937_64 rng(72203);
  check_register_rows<1, Value, Index>(rng);
  check_register_rows<2, Value, Index>(rng);
}

// ---- RankedColumns: a row's columns ranked by a bitmask over its range ----

namespace {

constexpr int kRankThreads = 256;
constexpr int kRankMaxWords = 2048;

// Marks cols, counts the words' bits before each (word_run, as
// kernels/numeric/dense_rows.cuh), then ranks[q] = rank(queries[q]) and
// offsets[place] for each set bit (for_each_set_bit).
__global__ void ranked_kernel(const int* cols, int n, int lo, int span, const int* queries,
                              int n_queries, int* ranks, int* offsets, int* total_out) {
  using namespace spgemm::cuda;
  using BlockScan = cub::BlockScan<int, kRankThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  __shared__ uint32_t words[kRankMaxWords];
  __shared__ int before[kRankMaxWords];
  const RankedColumns ranked{{words}, before, lo, span};
  for (int w = threadIdx.x; w < ranked.words(); w += blockDim.x) words[w] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) ranked.mark(cols[i]);
  __syncthreads();
  int total;
  const WordRun run = word_run<BlockScan>(words, ranked.words(), temp, total);
  for (int w = run.first, b = run.before; w < run.last; ++w) {
    before[w] = b;
    b += __popc(words[w]);
  }
  __syncthreads();
  for (int q = threadIdx.x; q < n_queries; q += blockDim.x) ranks[q] = ranked.rank(queries[q]);
  for_each_set_bit(words, run, [&](int place, int offset) { offsets[place] = offset; });
  if (threadIdx.x == 0) *total_out = total;
}

}  // namespace

TEST_CASE("RankedColumns ranks a row's columns, for_each_set_bit lists them in order",
          "[accumulators][ranked_row]") {
  std::mt19937_64 rng(72204);
  for (int span : {1, 31, 32, 33, 5000, 32 * kRankMaxWords}) {
    for (int lo : {0, 1000}) {
      // none, some with repeats, every column of the range; with columns
      // outside the range, which mark leaves out
      for (int kind = 0; kind < 3; ++kind) {
        const int from = std::max(0, lo - 10), to = lo + span + 10;
        std::uniform_int_distribution<int> pick(from, to - 1);
        std::vector<int> cols;
        if (kind == 1)
          for (int i = 0; i < span / 2 + 3; ++i) cols.push_back(pick(rng));
        if (kind == 2)
          for (int c = from; c < to; ++c) cols.push_back(c);
        std::shuffle(cols.begin(), cols.end(), rng);
        std::set<int> in_range;
        for (int c : cols)
          if (c >= lo && c < lo + span) in_range.insert(c);
        const std::vector<int> sorted(in_range.begin(), in_range.end());
        std::vector<int> queries;
        for (int q = std::max(0, lo - 40); q < lo + span + 40; ++q) queries.push_back(q);
        DeviceArray<int> d_cols(cols), d_queries(queries), ranks(queries.size()), offsets(span + 1),
            total(1);
        ranked_kernel<<<1, kRankThreads>>>(d_cols.get(), static_cast<int>(cols.size()), lo, span,
                                           d_queries.get(), static_cast<int>(queries.size()),
                                           ranks.get(), offsets.get(), total.get());
        launched("ranked_kernel");
        INFO("span " << span << ", lo " << lo << ", columns " << sorted.size());
        CHECK(total.read()[0] == static_cast<int>(sorted.size()));
        const std::vector<int> got_ranks = ranks.read(), got_offsets = offsets.read();
        const long long bad_rank = first_failing(queries.size(), [&](size_t q) {
          const auto at = std::lower_bound(sorted.begin(), sorted.end(), queries[q]);
          const bool held = at != sorted.end() && *at == queries[q];
          return got_ranks[q] == (held ? static_cast<int>(at - sorted.begin()) : -1);
        });
        CHECK(bad_rank == -1);
        const long long bad_offset = first_failing(got_offsets.size(), [&](size_t i) {
          return i < sorted.size() ? got_offsets[i] == sorted[i] - lo : poisoned(got_offsets[i]);
        });
        CHECK(bad_offset == -1);
      }
    }
  }
}

// ---- DirectRow: a row in slots of its columns, written in order ----

namespace {

// Claims cols' slots, sets each claimed slot's value to slot_values[slot],
// and writes the row (width columns from `first`) to args' C at 0.
template <Group G, class Value, class Col>
__global__ void __launch_bounds__(1024)
    direct_row_kernel(spgemm::cuda::NumericArgs<Value, Col, Col> args, const int* cols,
                      const Value* slot_values, int n, int first, int slots, int width, int len,
                      int* claims) {
  using namespace spgemm::cuda;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ long long partial[32];
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + (4 * slots + 15) / 16 * 16);
  const auto group = make_group<G>();
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  for (int s = rank; s < slots; s += threads) {
    keys[s] = kEmptyKey;  // (as hash_rows.cuh's clear: every slot free)
    values[s] = Value(0);
  }
  group.sync();
  const DirectRow<Value> acc{reinterpret_cast<uint32_t*>(keys), values, first, slots};
  for (int i = rank; i < n; i += threads) {
    const int s = acc.claim(cols[i]);
    claims[i] = s;
    if (s >= 0) values[s] = slot_values[s];
  }
  group.sync();
  write_direct_row(acc, width, rank, threads, args, Col(0), len, partial);
}

template <Group G, class Value, class Col>
void check_direct_row(int slots, int width, int threads, std::mt19937_64& rng) {
  const int first = 777, base = 1;
  std::vector<Value> slot_values(slots);
  for (Value& v : slot_values) v = random_value<Value>(rng);
  std::uniform_int_distribution<int> inside(first, first + width - 1);
  for (int kind = 0; kind < 4; ++kind) {
    // none; some with repeats and columns outside the slots; every column
    // of the width; one column many times
    std::vector<int> cols;
    if (kind == 1) {
      for (int i = 0; i < 2 * width; ++i) cols.push_back(inside(rng));
      for (int c : {first - 1, first - 100, first + slots, first + slots + 5}) cols.push_back(c);
    }
    if (kind == 2)
      for (int c = first; c < first + width; ++c) cols.push_back(c);
    if (kind == 3) cols.assign(100, first + width - 1);
    std::shuffle(cols.begin(), cols.end(), rng);
    std::map<int, Value> expected;
    for (int c : cols)
      if (c >= first && c < first + slots) expected.emplace(c, slot_values[c - first]);
    const int count = static_cast<int>(expected.size());
    for (int len : {count, count / 2}) {
      INFO("slots " << slots << ", width " << width << ", threads " << threads << ", columns "
                    << count << ", len " << len);
      const size_t smem = (4 * slots + 15) / 16 * 16 + sizeof(Value) * slots;
      auto kernel = direct_row_kernel<G, Value, Col>;
      if (!allow_shared(kernel, smem)) return;
      DeviceArray<int> d_cols(cols), claims(cols.size());
      DeviceArray<Value> d_slot_values(slot_values), c_values(width + 4);
      DeviceArray<Col> c_cols(width + 4);
      spgemm::cuda::NumericArgs<Value, Col, Col> args{};
      args.c_base = base;
      args.c_cols = c_cols.get();
      args.c_values = c_values.get();
      kernel<<<1, threads, smem>>>(args, d_cols.get(), d_slot_values.get(),
                                   static_cast<int>(cols.size()), first, slots, width, len,
                                   claims.get());
      launched("direct_row_kernel");
      const std::vector<int> got_claims = claims.read();
      const long long bad_claim = first_failing(cols.size(), [&](size_t i) {
        const int s = cols[i] - first;
        return got_claims[i] == (s >= 0 && s < slots ? s : -1);
      });
      CHECK(bad_claim == -1);
      CHECK(first_wrong(expected, len, base, c_cols.read(), c_values.read(), 0, width + 4) == -1);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("DirectRow claims a column's slot, write_direct_row writes the row in order",
                   "[accumulators][direct_row]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Col = std::tuple_element_t<1, TestType>;
  std::mt19937_64 rng(72205);
  check_direct_row<Group::warp, Value, Col>(512, 512, 32, rng);  // a warp bin's table
  check_direct_row<Group::warp, Value, Col>(512, 70, 32, rng);   // a partial last word
  check_direct_row<Group::block, Value, Col>(2048, 2048, 256, rng);
  check_direct_row<Group::block, Value, Col>(2048, 1000, 256, rng);
  check_direct_row<Group::block, Value, Col>(1024, 40, 1024, rng);  // warps without words
}
