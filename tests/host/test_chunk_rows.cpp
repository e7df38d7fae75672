// SPDX-License-Identifier: Apache-2.0
// The cut of C's rows into chunks for a C in host memory
// (src/multi/chunk_rows.hpp), against a direct count, on random row lengths
// with empty rows and rows longer than a chunk, both index bases.
#include "multi/chunk_rows.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

template <class Offset>
std::vector<Offset> offsets_of(const std::vector<int64_t>& lengths, int base) {
  std::vector<Offset> offsets{static_cast<Offset>(base)};
  for (int64_t n : lengths) offsets.push_back(static_cast<Offset>(offsets.back() + n));
  return offsets;
}

// "" if `starts` cuts the rows as promised, else what is wrong.
std::string check_cut(const std::vector<int64_t>& lengths, const std::vector<int64_t>& starts,
                      int64_t per_chunk) {
  const auto rows = static_cast<int64_t>(lengths.size());
  if (starts.empty() || starts.front() != 0 || starts.back() != rows) return "not 0 ... rows";
  for (size_t c = 0; c + 1 < starts.size(); ++c) {
    const int64_t begin = starts[c], end = starts[c + 1];
    if (end <= begin) return "an empty chunk at " + std::to_string(c);
    int64_t entries = 0;
    for (int64_t r = begin; r < end; ++r) entries += lengths[static_cast<size_t>(r)];
    if (entries > per_chunk && end - begin > 1)
      return "chunk " + std::to_string(c) + " has " + std::to_string(entries) + " entries";
    if (end < rows && entries + lengths[static_cast<size_t>(end)] <= per_chunk)
      return "chunk " + std::to_string(c) + " could take row " + std::to_string(end);
  }
  return "";
}

}  // namespace

TEMPLATE_TEST_CASE("chunks of C's rows", "[chunks]", int32_t, int64_t) {
  using spgemm::multi::chunk_starts;
  SECTION("no rows, all rows in one chunk, a row longer than a chunk") {
    const std::vector<TestType> none{0};
    CHECK(chunk_starts(none.data(), 0, 5) == std::vector<int64_t>{0});
    const auto few = offsets_of<TestType>({1, 2, 0, 1}, 0);
    CHECK(chunk_starts(few.data(), 4, 4) == std::vector<int64_t>{0, 4});
    const auto wide = offsets_of<TestType>({0, 0, 5, 0, 1}, 1);
    CHECK(chunk_starts(wide.data(), 5, 1) == std::vector<int64_t>{0, 2, 3, 5});
  }
  SECTION("random row lengths") {
    std::mt19937_64 rng(20261122);
    for (int trial = 0; trial < 300; ++trial) {
      const auto rows = static_cast<int64_t>(rng() % 200);
      std::vector<int64_t> lengths(static_cast<size_t>(rows));
      for (int64_t& n : lengths) n = rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % 40);
      const int64_t per_chunk = 1 + static_cast<int64_t>(rng() % 120);
      const int base = static_cast<int>(rng() % 2);
      const auto offsets = offsets_of<TestType>(lengths, base);
      const std::string wrong =
          check_cut(lengths, chunk_starts(offsets.data(), rows, per_chunk), per_chunk);
      INFO("trial " << trial << ", " << rows << " rows, " << per_chunk << " entries a chunk");
      CHECK(wrong == "");
    }
  }
}
