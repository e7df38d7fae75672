// SPDX-License-Identifier: Apache-2.0
// The sorting primitives (src/cuda/sorting/) each on its own, against
// std::sort: tables shaped as the numeric hash rows leave them (distinct
// columns, empty slots of kEmptyKey), put in order by a warp or a block as
// kernels/numeric/hash_rows.cuh calls them, on random inputs with fixed
// seeds, empty, single-entry and full tables among them.
#include <algorithm>
#include <climits>
#include <utility>

#include "cuda/configs/bins.hpp"
#include "cuda/kernels/row_loop.cuh"
#include "cuda/sorting/bitonic.cuh"
#include "cuda/sorting/block_compact.cuh"
#include "cuda/sorting/mask_rank.cuh"
#include "cuda/sorting/rank_scatter.cuh"
#include "cuda/sorting/warp_bitonic.cuh"
#include "cuda/sorting/warp_compact.cuh"
#include "cuda/sorting/warp_packed_sort.cuh"
#include "primitives_support.cuh"

using namespace spgemm_test::primitives;
using spgemm::cuda::Group;
using spgemm::cuda::kEmptyKey;

namespace {

// A table in dynamic shared memory: `slots` keys, then the values from the
// next 16-byte boundary (the kernels' tables are 16-byte aligned).
__host__ __device__ constexpr size_t values_at(int slots) { return (4 * slots + 15) / 16 * 16; }
template <class Value>
size_t table_bytes(int slots) {
  return values_at(slots) + sizeof(Value) * slots;
}

// A table's first n slots copied into the block's keys and values (shared
// memory), every thread of the block taking slots in turn; the caller
// synchronizes.
template <class Value>
__device__ void load_table(const int* keys_in, const Value* values_in, int n, int* keys,
                           Value* values) {
  for (int s = threadIdx.x; s < n; s += blockDim.x) {
    keys[s] = keys_in[s];
    values[s] = values_in[s];
  }
}

// A table's image on the host.
template <class Value>
struct Table {
  std::vector<int> keys;
  std::vector<Value> values;

  // The occupied slots' (key, value), in key order: what every sort gives.
  std::vector<std::pair<int, Value>> sorted() const {
    std::vector<std::pair<int, Value>> entries;
    for (size_t s = 0; s < keys.size(); ++s)
      if (keys[s] != kEmptyKey) entries.emplace_back(keys[s], values[s]);
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return entries;
  }
};

// `slots` slots, `entries` of them holding distinct keys of [lo, lo + range)
// at random places (both ends of the range among them where entries >= 2),
// the others empty; `front`: the entries in the first slots, in random order
// (a compacted table).
template <class Value>
Table<Value> random_table(int slots, int entries, int lo, int range, bool front,
                          std::mt19937_64& rng) {
  std::vector<int> keys;
  if (entries >= 2) {  // 0 and range - 1, then distinct keys between them
    keys = distinct_keys(entries - 2, range - 2, rng);
    for (int& k : keys) ++k;
    keys.push_back(0);
    keys.push_back(range - 1);
  } else {
    keys = distinct_keys(entries, range, rng);
  }
  Table<Value> t{std::vector<int>(slots, kEmptyKey), std::vector<Value>(slots)};
  for (int& k : keys) k += lo;
  std::vector<int> places(slots);
  for (int s = 0; s < slots; ++s) places[s] = s;
  std::shuffle(places.begin(), front ? places.begin() + entries : places.end(), rng);
  for (int e = 0; e < entries; ++e) t.keys[places[e]] = keys[e];
  for (Value& v : t.values) v = random_value<Value>(rng);
  return t;
}

// A scatter's output (cols and values, len positions or more): t's entries in
// column order plus base at [0, min(len, entries)), the rest never written.
template <class Value, class Index>
void check_scattered(const Table<Value>& t, int len, int base, const std::vector<Index>& cols,
                     const std::vector<Value>& values) {
  const auto expected = t.sorted();
  const size_t written = std::min(static_cast<size_t>(len), expected.size());
  const long long bad = first_failing(cols.size(), [&](size_t i) {
    if (i >= written) return poisoned(cols[i]) && poisoned(values[i]);
    return cols[i] == static_cast<Index>(expected[i].first + base) &&
           same_bits(values[i], expected[i].second);
  });
  INFO("entries " << expected.size() << ", len " << len << ", first wrong position " << bad);
  CHECK(bad == -1);
}

template <Group G, class Value>
__global__ void __launch_bounds__(1024) bitonic_kernel(const int* keys_in, const Value* values_in,
                                                       int n, int* keys_out, Value* values_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + values_at(n));
  load_table(keys_in, values_in, n, keys, values);
  __syncthreads();
  spgemm::cuda::bitonic_sort_pairs(spgemm::cuda::make_group<G>(), keys, values, n);
  __syncthreads();
  for (int s = threadIdx.x; s < n; s += blockDim.x) {
    keys_out[s] = keys[s];
    values_out[s] = values[s];
  }
}

// Sorted ascending as unsigned keys (kEmptyKey last), the same (key, value)
// pairs as the input: with distinct keys, exactly the sorted table.
template <Group G, class Value>
void check_bitonic(const Table<Value>& t, int threads) {
  const int n = static_cast<int>(t.keys.size());
  const size_t smem = table_bytes<Value>(n);
  if (!allow_shared(bitonic_kernel<G, Value>, smem)) return;
  DeviceArray<int> keys_in(t.keys), keys_out(n);
  DeviceArray<Value> values_in(t.values), values_out(n);
  bitonic_kernel<G, Value>
      <<<1, threads, smem>>>(keys_in.get(), values_in.get(), n, keys_out.get(), values_out.get());
  launched("bitonic_kernel");
  const std::vector<int> keys = keys_out.read();
  const std::vector<Value> values = values_out.read();
  auto pairs = [](const std::vector<int>& k, const std::vector<Value>& v) {
    std::vector<std::pair<uint32_t, std::string>> p;
    for (size_t i = 0; i < k.size(); ++i)
      p.emplace_back(static_cast<uint32_t>(k[i]),
                     std::string(reinterpret_cast<const char*>(&v[i]), sizeof(Value)));
    return p;
  };
  auto expected = pairs(t.keys, t.values), got = pairs(keys, values);
  CHECK(std::is_sorted(got.begin(), got.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; }));
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  const bool same_pairs = got == expected;
  CHECK(same_pairs);
}

template <class Value>
void bitonic_cases(int n, int threads_for_block, std::mt19937_64& rng) {
  INFO("n " << n);
  std::uniform_int_distribution<int> fill(0, n);
  const int entries = fill(rng);
  std::vector<Table<Value>> cases = {
      random_table<Value>(n, entries, 0, 1 << 20, false, rng),  // a hash row
      random_table<Value>(n, n, 7, n, false, rng),              // a full table
      random_table<Value>(n, 0, 0, 1, false, rng)};             // an empty one
  Table<Value> repeated = random_table<Value>(n, 0, 0, 1, false, rng), equal = repeated;
  std::uniform_int_distribution<int> few(-1, 6);
  for (int s = 0; s < n; ++s) {
    repeated.keys[s] = few(rng);  // duplicates and empties mixed
    equal.keys[s] = 5;
  }
  cases.push_back(repeated);
  cases.push_back(equal);
  for (const auto& t : cases) {
    if (n <= 512) check_bitonic<Group::warp>(t, 32);
    check_bitonic<Group::block>(t, threads_for_block);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("bitonic_sort_pairs sorts a warp's and a block's table", "[sorting][bitonic]",
                   SPGEMM_PRIMITIVE_VALUES) {
  std::mt19937_64 rng(72001);
  for (int n : {1, 2, 32, 64, 512}) bitonic_cases<TestType>(n, 128, rng);
  bitonic_cases<TestType>(1024, 256, rng);
  bitonic_cases<TestType>(8192, 1024, rng);
}

namespace {

template <int K>
__global__ void warp_bitonic_kernel(const int* in, int elements, int* out) {
  const int lane = spgemm::cuda::lane_id();
  int keys[K];
  for (int k = 0; k < K; ++k) keys[k] = in[k * 32 + lane];
  spgemm::cuda::warp_bitonic_sort<K>(keys, elements);
  for (int k = 0; k < K; ++k) out[k * 32 + lane] = keys[k];
}

// The first `elements` come out as std::sort puts them; all 32K elements
// stay the same multiset (the network only exchanges).
template <int K>
void check_warp_bitonic(const std::vector<int>& in, int elements) {
  DeviceArray<int> d_in(in), d_out(32 * K);
  warp_bitonic_kernel<K><<<1, 32>>>(d_in.get(), elements, d_out.get());
  launched("warp_bitonic_kernel");
  std::vector<int> out = d_out.read();
  std::vector<int> expected(in.begin(), in.begin() + elements);
  std::sort(expected.begin(), expected.end());
  INFO("K " << K << ", elements " << elements);
  const bool sorted_head = std::equal(expected.begin(), expected.end(), out.begin());
  CHECK(sorted_head);
  std::vector<int> all = in;
  std::sort(all.begin(), all.end());
  std::sort(out.begin(), out.end());
  const bool same_keys = out == all;
  CHECK(same_keys);
}

template <int K>
void warp_bitonic_cases(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> any(INT_MIN, INT_MAX), few(0, 3);
  std::vector<int> random(32 * K), repeated(32 * K), equal(32 * K, 42);
  for (int& x : random) x = any(rng);
  for (int& x : repeated) x = few(rng);
  for (const auto& in : {random, repeated, equal}) check_warp_bitonic<K>(in, 32 * K);
  // the packed sorts' use: a power of two of keys, INT_MAX after them
  for (int elements = 1; elements < 32 * K; elements *= 2) {
    std::vector<int> in(32 * K, INT_MAX);
    for (int i = 0; i < elements; ++i) in[i] = any(rng) & INT_MAX;
    check_warp_bitonic<K>(in, elements);
  }
}

}  // namespace

TEST_CASE("warp_bitonic_sort sorts 32 * K keys in registers", "[sorting][warp_bitonic]") {
  std::mt19937_64 rng(72002);
  warp_bitonic_cases<1>(rng);
  warp_bitonic_cases<2>(rng);
  warp_bitonic_cases<4>(rng);
  warp_bitonic_cases<8>(rng);
}

namespace {

template <Group G, class Value, class Index>
__global__ void rank_scatter_kernel(const int* keys_in, const Value* values_in, int n, int len,
                                    int base, Index* out_cols, Value* out_values) {
  constexpr int kMax = spgemm::cuda::NumericPolicy::rank_sort_max_entries;
  __shared__ __align__(16) int keys[kMax];
  __shared__ __align__(16) unsigned char value_bytes[kMax * sizeof(Value)];
  Value* values = reinterpret_cast<Value*>(value_bytes);
  load_table(keys_in, values_in, n, keys, values);
  __syncthreads();
  spgemm::cuda::scatter_sorted_by_rank(spgemm::cuda::make_group<G>(), keys, values, n, len, base,
                                       out_cols, out_values);
}

template <Group G, class Value, class Index>
void check_rank_scatter(const Table<Value>& t, int len, int base, int threads) {
  const int n = static_cast<int>(t.keys.size());
  const int entries = static_cast<int>(t.sorted().size());
  DeviceArray<int> keys(t.keys);
  DeviceArray<Value> values(t.values);
  const size_t out = std::max(entries, len) + 4;
  DeviceArray<Index> cols(out);
  DeviceArray<Value> sums(out);
  rank_scatter_kernel<G, Value, Index>
      <<<1, threads>>>(keys.get(), values.get(), n, len, base, cols.get(), sums.get());
  launched("rank_scatter_kernel");
  check_scattered(t, len, base, cols.read(), sums.read());
}

}  // namespace

TEMPLATE_TEST_CASE("scatter_sorted_by_rank writes a small table in column order",
                   "[sorting][rank_scatter]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Index = std::tuple_element_t<1, TestType>;
  std::mt19937_64 rng(72003);
  // n past the 4-key loads' multiple of 4 (3, 37) as well as the powers of
  // two that compaction leaves
  for (int n : {0, 1, 2, 3, 4, 37, 64}) {
    for (int entries : {0, n / 2, n}) {
      INFO("n " << n << ", entries " << entries);
      const auto t = random_table<Value>(n, entries, 3, 4 * n + 1, false, rng);
      check_rank_scatter<Group::warp, Value, Index>(t, entries, 1, 32);
      check_rank_scatter<Group::block, Value, Index>(t, entries, 0, 128);
      check_rank_scatter<Group::warp, Value, Index>(t, entries / 2, 0, 32);  // len < entries
    }
  }
}

namespace {

template <class Value, class Index>
__global__ void packed_kernel(const int* keys_in, const Value* values_in, int n, long long columns,
                              int len, int base, Index* out_cols, Value* out_values, int* applied) {
  constexpr int kSlots = 512;  // the rejected tables too
  __shared__ int keys[kSlots];
  __shared__ __align__(16) unsigned char value_bytes[kSlots * sizeof(Value)];
  Value* values = reinterpret_cast<Value*>(value_bytes);
  load_table(keys_in, values_in, n, keys, values);
  __syncwarp();
  const bool done = spgemm::cuda::warp_scatter_sorted_packed(keys, values, n, columns, len, base,
                                                             out_cols, out_values);
  if (threadIdx.x == 0) *applied = done;
}

// applies: whether the packed sort takes the table (else nothing written).
template <class Value, class Index>
void check_packed(const Table<Value>& t, long long columns, int len, bool applies) {
  const int n = static_cast<int>(t.keys.size());
  const int entries = static_cast<int>(t.sorted().size());
  DeviceArray<int> keys(t.keys), applied(1);
  DeviceArray<Value> values(t.values);
  const size_t out = std::max(entries, len) + 4;
  DeviceArray<Index> cols(out);
  DeviceArray<Value> sums(out);
  packed_kernel<Value, Index><<<1, 32>>>(keys.get(), values.get(), n, columns, len, 2, cols.get(),
                                         sums.get(), applied.get());
  launched("packed_kernel");
  INFO("n " << n << ", columns " << columns);
  REQUIRE(applied.read()[0] == static_cast<int>(applies));
  check_scattered(t, applies ? len : 0, 2, cols.read(), sums.read());
}

}  // namespace

TEMPLATE_TEST_CASE("warp_scatter_sorted_packed writes a warp's table in column order",
                   "[sorting][packed]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Index = std::tuple_element_t<1, TestType>;
  using spgemm::cuda::kPackedSortMaxColumns;
  std::mt19937_64 rng(72004);
  const int widest = static_cast<int>(kPackedSortMaxColumns - 1);  // B's most columns that pack
  for (int n : {1, 2, 16, 32, 64, 128, 256}) {
    std::uniform_int_distribution<int> fill(n / 2, n);
    for (int entries : {fill(rng), n}) {
      // columns up to the largest that packs, and a narrow range
      const auto wide = random_table<Value>(n, entries, 0, widest, true, rng);
      check_packed<Value, Index>(wide, widest, entries, true);
      const auto narrow = random_table<Value>(n, entries, 0, n + 9, false, rng);
      check_packed<Value, Index>(narrow, n + 9, entries, true);
      check_packed<Value, Index>(narrow, n + 9, entries / 2, true);
      check_packed<Value, Index>(narrow, kPackedSortMaxColumns, entries, false);
    }
  }
  check_packed<Value, Index>(random_table<Value>(512, 300, 0, 1000, true, rng), 1000, 300, false);
}

// The last slot of a full 256-slot table holds B's last column: where B has
// the most columns the packed sort takes (kPackedSortMaxColumns - 1), it
// keeps that column, whose packed key is the largest below INT_MAX, an empty
// slot's; one column more and it declines, writing nothing (its last
// column, kPackedSortMaxColumns - 1, in slot 255 would pack to INT_MAX).
TEST_CASE("warp_scatter_sorted_packed keeps the largest column in the last slot",
          "[sorting][packed]") {
  using spgemm::cuda::kPackedSortMaxColumns;
  std::mt19937_64 rng(72007);
  for (const long long columns : {kPackedSortMaxColumns - 1, kPackedSortMaxColumns}) {
    auto t = random_table<float>(256, 256, 0, static_cast<int>(columns), true, rng);
    const auto last = std::find(t.keys.begin(), t.keys.end(), columns - 1);
    REQUIRE(last != t.keys.end());
    std::iter_swap(last, t.keys.end() - 1);
    check_packed<float, int32_t>(t, columns, 256, columns < kPackedSortMaxColumns);
  }
}

namespace {

// space_bytes 0: the mask in the table past its first n slots (space_past),
// else space_bytes of shared memory behind the table (space_at).
template <Group G, class Value, class Index>
__global__ void __launch_bounds__(1024)
    mask_scatter_kernel(const int* keys_in, const Value* values_in, int table, int n,
                        int space_bytes, int max_windows, int len, int base, Index* out_cols,
                        Value* out_values, int* applied) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ long long partial[32];
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + values_at(table));
  load_table(keys_in, values_in, table, keys, values);
  __syncthreads();
  using namespace spgemm::cuda;
  const size_t behind = (values_at(table) + sizeof(Value) * table + 15) / 16 * 16;
  const MaskSpace space =
      space_bytes > 0 ? space_at(smem + behind, space_bytes) : space_past(keys, values, n, table);
  const bool done = scatter_sorted_by_mask(make_group<G>(), keys, values, n, space, max_windows,
                                           len, base, out_cols, out_values, partial);
  if (threadIdx.x == 0) *applied = done;
}

struct MaskCase {
  int table, n, space_bytes, max_windows, len;
  bool applies;
};

template <Group G, class Value, class Index>
void check_mask(const Table<Value>& t, const MaskCase& c, int threads) {
  const size_t smem = (table_bytes<Value>(c.table) + 15) / 16 * 16 + c.space_bytes;
  auto kernel = mask_scatter_kernel<G, Value, Index>;
  if (!allow_shared(kernel, smem)) return;
  // only the first n slots are the table's (stale keys past them)
  const Table<Value> head{{t.keys.begin(), t.keys.begin() + c.n},
                          {t.values.begin(), t.values.begin() + c.n}};
  const int entries = static_cast<int>(head.sorted().size());
  DeviceArray<int> keys(t.keys), applied(1);
  DeviceArray<Value> values(t.values);
  const size_t out = std::max(entries, c.len) + 4;
  DeviceArray<Index> cols(out);
  DeviceArray<Value> sums(out);
  kernel<<<1, threads, smem>>>(keys.get(), values.get(), c.table, c.n, c.space_bytes, c.max_windows,
                               c.len, 1, cols.get(), sums.get(), applied.get());
  launched("mask_scatter_kernel");
  INFO("table " << c.table << ", n " << c.n << ", space bytes " << c.space_bytes << ", max windows "
                << c.max_windows << ", entries " << entries);
  REQUIRE(applied.read()[0] == static_cast<int>(c.applies));
  check_scattered(head, c.applies ? c.len : 0, 1, cols.read(), sums.read());
}

// A compacted table (its entries first, empty up to n, stale keys past n
// that must not be read) whose columns span `range`.
template <class Value>
Table<Value> compacted(int table, int entries, int range, std::mt19937_64& rng) {
  Table<Value> t = random_table<Value>(table, entries, 100, range, true, rng);
  const int n = next_pow2(entries);
  std::uniform_int_distribution<int> stale(0, 1 << 30);
  for (int s = n; s < table; ++s) t.keys[s] = stale(rng);
  return t;
}

}  // namespace

TEMPLATE_TEST_CASE("scatter_sorted_by_mask writes a table in column order by a bitmask",
                   "[sorting][mask_rank]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Index = std::tuple_element_t<1, TestType>;
  constexpr int kWordsPerSlot = sizeof(Value) < 8 ? 1 : 2;  // space_past's
  std::mt19937_64 rng(72005);
  // a warp's table (512 slots), its mask in one window past 256 entries
  {
    const int table = 512, entries = 200, n = 256, words = (table - n) * kWordsPerSlot;
    const int fits = 32 * words;
    const auto t = compacted<Value>(table, entries, fits, rng);
    check_mask<Group::warp, Value, Index>(t, {table, n, 0, 1, entries, true}, 32);
    check_mask<Group::warp, Value, Index>(t, {table, n, 0, 1, entries / 3, true}, 32);
    const auto wide = compacted<Value>(table, entries, fits + 33, rng);
    check_mask<Group::warp, Value, Index>(wide, {table, n, 0, 1, entries, false}, 32);
  }
  // a block's table (2048 slots) past 1024 entries: the range in 3 windows
  // of up to NumericPolicy::mask_sort_max_windows, then one word too wide for them
  {
    const int table = 2048, entries = 700, n = 1024, words = (table - n) * kWordsPerSlot;
    const int max_windows = spgemm::cuda::NumericPolicy::mask_sort_max_windows;
    const auto t = compacted<Value>(table, entries, 32 * words * 5 / 2, rng);
    check_mask<Group::block, Value, Index>(t, {table, n, 0, max_windows, entries, true}, 256);
    const auto wide = compacted<Value>(table, entries, 32 * words * max_windows + 1, rng);
    check_mask<Group::block, Value, Index>(wide, {table, n, 0, max_windows, entries, false}, 256);
  }
  // the whole table where it is, the mask in scratch of 5 words: 7 windows
  {
    const int table = 1024, entries = 400, space = 5 * 6;
    const auto t = random_table<Value>(table, entries, 0, 32 * 5 * 7, false, rng);
    check_mask<Group::block, Value, Index>(t, {table, table, space, 7, entries, true}, 128);
    check_mask<Group::block, Value, Index>(t, {table, table, space, 6, entries, false}, 128);
    check_mask<Group::block, Value, Index>(t, {table, table, space, 7, entries - 50, true}, 128);
    const auto one = random_table<Value>(table, 1, 12345, 1, false, rng);
    check_mask<Group::block, Value, Index>(one, {table, table, space, 1, 1, true}, 128);
    const auto empty = random_table<Value>(table, 0, 0, 1, false, rng);
    check_mask<Group::block, Value, Index>(empty, {table, table, space, 1, 0, true}, 128);
  }
}

namespace {

template <class Value>
__global__ void warp_compact_kernel(const int* keys_in, const Value* values_in, int table,
                                    int* keys_out, Value* values_out, int* length_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + values_at(table));
  load_table(keys_in, values_in, table, keys, values);
  __syncwarp();
  using namespace spgemm::cuda;
  const int length = compact_warp_table(make_group<Group::warp>(), keys, values, table);
  for (int s = threadIdx.x; s < length; s += 32) {
    keys_out[s] = keys[s];
    values_out[s] = values[s];
  }
  if (threadIdx.x == 0) *length_out = length;
}

template <class Value, class Index>
__global__ void __launch_bounds__(1024)
    block_compact_kernel(const int* keys_in, const Value* values_in, int table, Index* scratch_keys,
                         Value* scratch_values, int capacity, int* keys_out, Value* values_out,
                         int* length_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int counter;
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + values_at(table));
  load_table(keys_in, values_in, table, keys, values);
  __syncthreads();
  const int length =
      spgemm::cuda::compact_block_table(cooperative_groups::this_thread_block(), keys, values,
                                        table, scratch_keys, scratch_values, capacity, &counter);
  for (int s = threadIdx.x; s < length; s += blockDim.x) {
    keys_out[s] = keys[s];
    values_out[s] = values[s];
  }
  if (threadIdx.x == 0) *length_out = length;
}

// The entries' (key, value bits), in slot order.
template <class Value>
std::vector<std::pair<int, std::string>> occupied(const std::vector<int>& keys,
                                                  const std::vector<Value>& values, size_t n) {
  std::vector<std::pair<int, std::string>> e;
  for (size_t s = 0; s < n; ++s)
    if (keys[s] != kEmptyKey)
      e.emplace_back(keys[s],
                     std::string(reinterpret_cast<const char*>(&values[s]), sizeof(Value)));
  return e;
}

// The first `kept` slots hold entries, then empty keys up to the length.
template <class Value>
void check_compacted_shape(const std::vector<int>& keys, int length, int kept) {
  INFO("kept " << kept << ", length " << length);
  REQUIRE(length == next_pow2(kept));
  for (int s = 0; s < length; ++s) CHECK((keys[s] != kEmptyKey) == (s < kept));
}

template <class Value>
void check_warp_compact(const Table<Value>& t) {
  const int table = static_cast<int>(t.keys.size());
  const auto expected = occupied(t.keys, t.values, t.keys.size());
  DeviceArray<int> keys_in(t.keys), keys_out(table), length(1);
  DeviceArray<Value> values_in(t.values), values_out(table);
  warp_compact_kernel<Value><<<1, 32, table_bytes<Value>(table)>>>(
      keys_in.get(), values_in.get(), table, keys_out.get(), values_out.get(), length.get());
  launched("warp_compact_kernel");
  const int kept = static_cast<int>(expected.size());
  const std::vector<int> keys = keys_out.read();
  check_compacted_shape<Value>(keys, length.read()[0], kept);
  // in slot order, with their values
  const bool in_slot_order = occupied(keys, values_out.read(), kept) == expected;
  CHECK(in_slot_order);
}

template <class Value, class Index>
void check_block_compact(const Table<Value>& t, int capacity, int threads) {
  const int table = static_cast<int>(t.keys.size());
  auto expected = occupied(t.keys, t.values, t.keys.size());
  DeviceArray<int> keys_in(t.keys), keys_out(table), length(1);
  DeviceArray<Value> values_in(t.values), values_out(table), scratch_values(capacity + 1);
  DeviceArray<Index> scratch_keys(capacity + 1);
  auto kernel = block_compact_kernel<Value, Index>;
  if (!allow_shared(kernel, table_bytes<Value>(table))) return;
  block_compact_kernel<Value, Index><<<1, threads, table_bytes<Value>(table)>>>(
      keys_in.get(), values_in.get(), table, scratch_keys.get(), scratch_values.get(), capacity,
      keys_out.get(), values_out.get(), length.get());
  launched("block_compact_kernel");
  const int kept = std::min(static_cast<int>(expected.size()), capacity);
  const std::vector<int> keys = keys_out.read();
  check_compacted_shape<Value>(keys, length.read()[0], kept);
  // in any order; past the capacity, some of them (distinct, unaltered)
  auto got = occupied(keys, values_out.read(), kept);
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
  CHECK(std::includes(expected.begin(), expected.end(), got.begin(), got.end()));
  CHECK(scratch_keys.read()[capacity] == static_cast<Index>(-1));  // nothing past the capacity
}

}  // namespace

TEMPLATE_TEST_CASE("compact_warp_table and compact_block_table gather a table's entries",
                   "[sorting][compact]", SPGEMM_PRIMITIVE_TYPES) {
  using Value = std::tuple_element_t<0, TestType>;
  using Index = std::tuple_element_t<1, TestType>;
  std::mt19937_64 rng(72006);
  for (int table : {32, 64, 128, 256, 512}) {  // the warp bins' tables
    std::uniform_int_distribution<int> fill(1, table / 2);
    for (int entries : {0, 1, fill(rng), table / 2, table}) {
      INFO("warp table " << table << ", entries " << entries);
      check_warp_compact(random_table<Value>(table, entries, 0, 1 << 24, false, rng));
    }
  }
  const std::pair<int, int> blocks[] = {{1024, 128}, {4096, 256}, {2048, 1024}};
  for (const auto& [table, threads] : blocks) {
    std::uniform_int_distribution<int> fill(1, table / 2);
    for (int entries : {0, 1, fill(rng), table}) {
      INFO("block table " << table << ", threads " << threads << ", entries " << entries);
      const auto t = random_table<Value>(table, entries, 0, 1 << 24, false, rng);
      check_block_compact<Value, Index>(t, entries, threads);
      if (entries > 1) check_block_compact<Value, Index>(t, entries / 2, threads);
    }
  }
}
