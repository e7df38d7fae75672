// SPDX-License-Identifier: Apache-2.0
// Where C's rows are cut into chunks (src/multi/chunked_engine.cpp), from its
// row offsets on the host: host code only, so that it is tested without a GPU
// (tests/host/test_chunk_rows.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace spgemm::multi {

// The first row of every chunk, then `rows`: each chunk as many rows as keep
// its entries (offsets[end] - offsets[start], any index base) within
// `per_chunk` (>= 1), and at least one row.
template <class Offset>
std::vector<int64_t> chunk_starts(const Offset* offsets, int64_t rows, int64_t per_chunk) {
  std::vector<int64_t> starts{0};
  for (int64_t start = 0; start < rows;) {
    const Offset limit = static_cast<Offset>(std::min<int64_t>(
        static_cast<int64_t>(offsets[start]) + per_chunk, std::numeric_limits<Offset>::max()));
    // the first row boundary past the limit; the chunk ends one before it
    const Offset* past = std::upper_bound(offsets + start + 1, offsets + rows + 1, limit);
    start = std::max<int64_t>(start + 1, (past - offsets) - 1);
    starts.push_back(start);
  }
  return starts;
}

}  // namespace spgemm::multi
