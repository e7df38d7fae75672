// SPDX-License-Identifier: Apache-2.0
// The shared-memory hash tables (accumulators/hash_table.cuh) and the
// ordered adds (accumulators/ordered_add.cuh) each on their own, against
// std::set and a serial sum in the documented order, bit for bit: a block
// inserts or claims keys with duplicates, at the tables' load factor of 1/2
// and in full tables (which must refuse, not hang); a warp combines the
// terms of equal slots in lane order; warps taking turns sum a row's terms
// in claimed slots as kernels/ordered_loop.cuh does.
#include <algorithm>
#include <climits>
#include <map>

#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/ordered_add.cuh"
#include "primitives_support.cuh"

using namespace spgemm_test::primitives;
using spgemm::cuda::kEmptyKey;

namespace {

constexpr int kHashThreads = 256;

__global__ void hash_set_kernel(const int* keys, int n, int log2_size, int* table_out,
                                int* inserted) {
  extern __shared__ int table[];
  const int size = 1 << log2_size;
  for (int s = threadIdx.x; s < size; s += blockDim.x) table[s] = kEmptyKey;
  __syncthreads();
  const spgemm::cuda::SharedHashSet set{table, log2_size};
  int mine = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) mine += set.insert(keys[i]);
  atomicAdd(inserted, mine);
  __syncthreads();
  for (int s = threadIdx.x; s < size; s += blockDim.x) table_out[s] = table[s];
}

// claimed[i], found[i]: claim(keys[i]) by all, then find(keys[i]) after a
// barrier; found_absent[i]: find(absent[i]).
__global__ void hash_map_kernel(const int* keys, int n, const int* absent, int n_absent,
                                int log2_size, int* table_out, int* claimed, int* found,
                                int* found_absent) {
  extern __shared__ int table[];
  const int size = 1 << log2_size;
  for (int s = threadIdx.x; s < size; s += blockDim.x) table[s] = kEmptyKey;
  __syncthreads();
  const spgemm::cuda::SharedHashMap<double> map{table, nullptr, log2_size};
  for (int i = threadIdx.x; i < n; i += blockDim.x) claimed[i] = map.claim(keys[i]);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) found[i] = map.find(keys[i]);
  for (int i = threadIdx.x; i < n_absent; i += blockDim.x) found_absent[i] = map.find(absent[i]);
  for (int s = threadIdx.x; s < size; s += blockDim.x) table_out[s] = table[s];
}

// n keys, `distinct` of them, each at least once, in random order, from
// [0, INT_MAX) (the hash takes the whole range of a column).
std::vector<int> keys_with_repeats(int n, int distinct, std::mt19937_64& rng) {
  std::vector<int> keys = distinct_keys(distinct, INT_MAX, rng);
  std::uniform_int_distribution<int> pick(0, std::max(distinct - 1, 0));
  for (int i = distinct; i < n; ++i) keys.push_back(keys[pick(rng)]);
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

// The table's keys: no duplicates, none outside `from`; all of `from` when
// it fits, else a full table.
void check_table(const std::vector<int>& table, const std::set<int>& from) {
  std::vector<int> held;
  for (int k : table)
    if (k != kEmptyKey) held.push_back(k);
  std::sort(held.begin(), held.end());
  CHECK(std::adjacent_find(held.begin(), held.end()) == held.end());
  CHECK(std::includes(from.begin(), from.end(), held.begin(), held.end()));
  CHECK(held.size() == std::min(from.size(), table.size()));
}

struct HashCase {
  int log2_size, n, distinct;
};

// Sizes as configs/bins.hpp's tables (up to 16384 slots) and a table of one
// slot; keys at the load factor of 1/2, filling the table, and beyond it.
std::vector<HashCase> hash_cases() {
  std::vector<HashCase> cases;
  for (int log2 : {0, 5, 10, 14}) {
    const int size = 1 << log2;
    cases.push_back({log2, 0, 0});
    cases.push_back({log2, 3 * size, 1});  // one key, many times
    cases.push_back({log2, 2 * size, std::max(size / 2, 1)});
    cases.push_back({log2, size, size});
    cases.push_back({log2, 2 * size + 5, size + 3});
  }
  return cases;
}

}  // namespace

TEST_CASE("SharedHashSet::insert counts each key once, a full table refuses",
          "[accumulators][hash]") {
  std::mt19937_64 rng(72101);
  for (const HashCase& c : hash_cases()) {
    INFO("log2 size " << c.log2_size << ", keys " << c.n << ", distinct " << c.distinct);
    const int size = 1 << c.log2_size;
    const std::vector<int> keys = keys_with_repeats(c.n, c.distinct, rng);
    const size_t smem = sizeof(int) * size;
    if (!allow_shared(hash_set_kernel, smem)) continue;
    DeviceArray<int> d_keys(keys), table(size), inserted(std::vector<int>{0});
    hash_set_kernel<<<1, kHashThreads, smem>>>(d_keys.get(), c.n, c.log2_size, table.get(),
                                               inserted.get());
    launched("hash_set_kernel");
    const std::set<int> distinct(keys.begin(), keys.end());
    CHECK(inserted.read()[0] == static_cast<int>(std::min<size_t>(distinct.size(), size)));
    check_table(table.read(), distinct);
  }
}

TEST_CASE("SharedHashMap::claim gives a key one slot, find finds it", "[accumulators][hash]") {
  std::mt19937_64 rng(72102);
  for (const HashCase& c : hash_cases()) {
    INFO("log2 size " << c.log2_size << ", keys " << c.n << ", distinct " << c.distinct);
    const int size = 1 << c.log2_size;
    const std::vector<int> keys = keys_with_repeats(c.n, c.distinct, rng);
    const std::set<int> distinct(keys.begin(), keys.end());
    std::vector<int> absent;
    for (int k : distinct_keys(64, INT_MAX, rng))
      if (!distinct.count(k)) absent.push_back(k);
    const size_t smem = sizeof(int) * size;
    if (!allow_shared(hash_map_kernel, smem)) continue;
    DeviceArray<int> d_keys(keys), d_absent(absent), table(size), claimed(c.n), found(c.n),
        found_absent(absent.size());
    hash_map_kernel<<<1, kHashThreads, smem>>>(
        d_keys.get(), c.n, d_absent.get(), static_cast<int>(absent.size()), c.log2_size,
        table.get(), claimed.get(), found.get(), found_absent.get());
    launched("hash_map_kernel");
    const std::vector<int> t = table.read(), slots = claimed.read(), finds = found.read();
    check_table(t, distinct);
    const std::set<int> held(t.begin(), t.end());
    // a claim is the key's slot, or -1 for a key the full table has not
    // got; find agrees with it
    const long long bad = [&] {
      for (int i = 0; i < c.n; ++i) {
        const bool in_table = held.count(keys[i]) != 0;
        auto holds = [&](int s) { return s >= 0 && s < size && t[s] == keys[i]; };
        const bool claim_ok = in_table ? holds(slots[i]) : slots[i] == -1;
        const bool find_ok = in_table ? finds[i] == slots[i] : finds[i] == -1;
        if (!claim_ok || !find_ok) return static_cast<long long>(i);
      }
      return -1LL;
    }();
    INFO("first wrong key " << bad);
    CHECK(bad == -1);
    const std::vector<int> missing = found_absent.read();
    CHECK(std::all_of(missing.begin(), missing.end(), [](int s) { return s == -1; }));
  }
}

namespace {

using spgemm::cuda::CombineSteps;

// Each of `rounds` rounds: lane l's (valid, slot, term) from the arrays at
// round * 32 + l, combined; what each lane holds afterwards goes back.
template <CombineSteps Steps, class Value>
__global__ void combine_kernel(const int* valid_in, const int* slot_in, const Value* term_in,
                               int rounds, int* valid_out, Value* term_out) {
  for (int r = 0; r < rounds; ++r) {
    const int i = r * 32 + static_cast<int>(threadIdx.x);
    bool valid = valid_in[i] != 0;
    Value term = term_in[i];
    spgemm::cuda::combine_in_lane_order<Steps>(valid, slot_in[i], term);
    valid_out[i] = valid;
    term_out[i] = term;
  }
}

// The sum of a group's terms in lane order, from zero (a lone term as it is:
// the same bits, the terms never being -0).
template <class Value>
Value sum_in_order(const std::vector<Value>& terms) {
  Value sum = Value(0);
  for (const Value& t : terms) sum += t;
  return sum;
}

template <CombineSteps Steps, class Value>
void check_combine(const std::vector<int>& valid, const std::vector<int>& slots,
                   const std::vector<Value>& terms) {
  const int rounds = static_cast<int>(valid.size() / 32);
  DeviceArray<int> d_valid(valid), d_slots(slots), valid_out(valid.size());
  DeviceArray<Value> d_terms(terms), terms_out(terms.size());
  combine_kernel<Steps, Value><<<1, 32>>>(d_valid.get(), d_slots.get(), d_terms.get(), rounds,
                                          valid_out.get(), terms_out.get());
  launched("combine_kernel");
  const std::vector<int> still = valid_out.read();
  const std::vector<Value> sums = terms_out.read();
  for (int r = 0; r < rounds; ++r) {
    std::map<int, std::vector<int>> groups;  // slot -> its valid lanes, ascending
    for (int l = 0; l < 32; ++l)
      if (valid[r * 32 + l]) groups[slots[r * 32 + l]].push_back(l);
    std::vector<int> expected_valid(32, 0);
    for (const auto& [slot, lanes] : groups) {
      std::vector<Value> group_terms;
      for (int l : lanes) group_terms.push_back(terms[r * 32 + l]);
      const int lowest = r * 32 + lanes.front();
      expected_valid[lanes.front()] = 1;
      INFO("round " << r << ", slot " << slot << ", lanes " << lanes.size());
      CHECK(same_bits(sums[lowest], sum_in_order(group_terms)));
    }
    for (int l = 0; l < 32; ++l) {
      INFO("round " << r << ", lane " << l);
      CHECK(still[r * 32 + l] == expected_valid[l]);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("combine_in_lane_order sums equal slots' terms in lane order",
                   "[accumulators][ordered_add]", SPGEMM_PRIMITIVE_VALUES) {
  using Value = TestType;
  std::mt19937_64 rng(72103);
  std::vector<int> valid, slots;
  std::vector<Value> terms;
  std::bernoulli_distribution half(0.5), most(0.9);
  // rounds: few slots, some lanes invalid; one slot for all; 32 slots; no
  // valid lane; a lane alone
  for (int r = 0; r < 5 * 8; ++r) {
    const int kind = r % 5;
    std::uniform_int_distribution<int> few(0, 3);
    for (int l = 0; l < 32; ++l) {
      const bool draw = kind == 0 ? half(rng) : most(rng);
      valid.push_back(kind == 3 ? 0 : kind == 4 ? l == r % 32 : draw);
      slots.push_back(kind == 1 ? 9 : kind == 2 ? 31 - l : few(rng));
      terms.push_back(random_value<Value>(rng));
    }
  }
  check_combine<CombineSteps::groups>(valid, slots, terms);
  check_combine<CombineSteps::warp>(valid, slots, terms);
}

namespace {

// A row's terms (cols, terms; count of them) summed by a block as
// kernels/ordered_loop.cuh's add_terms_in_order does with one step a batch:
// term base + threadIdx.x of each batch claims its column's slot, a warp's
// terms of one slot are combined, and the warps add their sums in turn.
template <class Value>
__global__ void ordered_hash_kernel(const int* cols, const Value* terms, int count, int log2_size,
                                    int* keys_out, Value* values_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int size = 1 << log2_size;
  int* keys = reinterpret_cast<int*>(smem);
  Value* values = reinterpret_cast<Value*>(smem + (4 * size + 15) / 16 * 16);
  for (int s = threadIdx.x; s < size; s += blockDim.x) {
    keys[s] = kEmptyKey;
    values[s] = Value(0);
  }
  __syncthreads();
  const spgemm::cuda::SharedHashMap<Value> map{keys, values, log2_size};
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
  for (int base = 0; base < count; base += blockDim.x) {
    const int p = base + static_cast<int>(threadIdx.x);
    bool valid = p < count;
    int slot = valid ? map.claim(cols[p]) : 0;
    Value term = valid ? terms[p] : Value(0);
    spgemm::cuda::combine_in_lane_order(valid, slot, term);
    for (int turn = 0; turn < warps; ++turn) {
      if (turn == warp) spgemm::cuda::add_combined(values, valid, slot, term);
      __syncthreads();
    }
  }
  for (int s = threadIdx.x; s < size; s += blockDim.x) {
    keys_out[s] = keys[s];
    values_out[s] = values[s];
  }
}

// The same sums serially: batch after batch, warp after warp, each warp's
// groups summed in lane order and then added to their columns' sums.
template <class Value>
std::map<int, Value> ordered_sums(const std::vector<int>& cols, const std::vector<Value>& terms,
                                  int threads) {
  std::map<int, Value> sums;
  const int count = static_cast<int>(cols.size());
  for (int base = 0; base < count; base += threads)
    for (int w = base; w < base + threads && w < count; w += 32) {
      std::map<int, std::vector<Value>> groups;
      for (int p = w; p < w + 32 && p < count; ++p) groups[cols[p]].push_back(terms[p]);
      for (const auto& [col, group] : groups) {
        sums.emplace(col, Value(0)).first->second += sum_in_order(group);
      }
    }
  return sums;
}

}  // namespace

TEMPLATE_TEST_CASE("claim, combine_in_lane_order and add_combined sum a row in a fixed order",
                   "[accumulators][ordered_add][hash]", SPGEMM_PRIMITIVE_VALUES) {
  using Value = TestType;
  std::mt19937_64 rng(72104);
  const int log2_size = 10;
  const int size = 1 << log2_size;
  const size_t smem = (4 * size + 15) / 16 * 16 + sizeof(Value) * size;
  REQUIRE(allow_shared(ordered_hash_kernel<Value>, smem));
  struct RowCase {
    int count, columns;
  };
  // no terms, one, columns repeated within warps, one column for all, as
  // many columns as the table's load factor allows
  for (const RowCase& c : {RowCase{0, 1}, RowCase{1, 1}, RowCase{3000, 40}, RowCase{700, 1},
                           RowCase{2000, size / 2}}) {
    for (int threads : {32, 256}) {
      INFO("terms " << c.count << ", columns " << c.columns << ", threads " << threads);
      const std::vector<int> palette = distinct_keys(c.columns, 1 << 30, rng);
      std::uniform_int_distribution<int> pick(0, c.columns - 1);
      std::vector<int> cols(c.count);
      std::vector<Value> terms(c.count);
      for (int p = 0; p < c.count; ++p) {
        cols[p] = palette[pick(rng)];
        terms[p] = random_value<Value>(rng);
      }
      DeviceArray<int> d_cols(cols), keys(size);
      DeviceArray<Value> d_terms(terms), values(size);
      ordered_hash_kernel<Value><<<1, threads, smem>>>(d_cols.get(), d_terms.get(), c.count,
                                                       log2_size, keys.get(), values.get());
      launched("ordered_hash_kernel");
      const std::map<int, Value> expected = ordered_sums(cols, terms, threads);
      const std::vector<int> k = keys.read();
      const std::vector<Value> v = values.read();
      std::map<int, Value> got;
      for (int s = 0; s < size; ++s)
        if (k[s] != kEmptyKey) got.emplace(k[s], v[s]);
      REQUIRE(got.size() == expected.size());
      const bool same = std::equal(got.begin(), got.end(), expected.begin(), [](auto& a, auto& b) {
        return a.first == b.first && same_bits(a.second, b.second);
      });
      CHECK(same);
    }
  }
}
