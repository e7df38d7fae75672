// SPDX-License-Identifier: Apache-2.0
// Edits to C's column indices between two numeric phases of one plan, for the
// tests of structure reuse (a numeric phase into the same arrays tries the
// columns there): each leaves C wrong in a few rows only, so that edited
// columns may cost time but never correctness. Unsorted, a column the row
// has no term in (still ascending), out of range, poisoned, valid ascending
// columns that are not the row's, and those with the last out of order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace spgemm_test {

using ColumnEdit = void (*)(const std::vector<int32_t>& offsets, std::vector<int32_t>& cols);

inline const std::vector<std::pair<const char*, ColumnEdit>>& column_edits() {
  using Cols = std::vector<int32_t>;
  using Offsets = std::vector<int32_t>;
  static const std::vector<std::pair<const char*, ColumnEdit>> edits = {
      {"kept", [](const Offsets&, Cols&) {}},
      {"swapped",
       [](const Offsets& o, Cols& c) {
         for (size_t r = 0; r + 1 < o.size(); r += 7)
           if (o[r + 1] - o[r] >= 2) std::swap(c[o[r]], c[o[r] + 1]);
       }},
      {"foreign column",
       [](const Offsets& o, Cols& c) {
         for (size_t r = 0; r + 1 < o.size(); ++r)
           for (int32_t j = o[r]; j + 1 < o[r + 1]; ++j)
             if (c[j] + 1 < c[j + 1]) {
               ++c[j];
               break;
             }
       }},
      {"out of range",
       [](const Offsets& o, Cols& c) {
         for (size_t r = 0; r + 1 < o.size(); r += 5)
           if (o[r + 1] > o[r]) c[o[r + 1] - 1] = 1 << 30;
       }},
      {"poisoned", [](const Offsets&, Cols& c) { std::fill(c.begin(), c.end(), -1); }},
      {"ascending, not the row's",
       [](const Offsets& o, Cols& c) {
         for (size_t r = 0; r + 1 < o.size(); ++r)
           for (int32_t j = o[r]; j < o[r + 1]; ++j) c[j] = j - o[r];
       }},
      {"ascending, then not",
       [](const Offsets& o, Cols& c) {
         for (size_t r = 0; r + 1 < o.size(); ++r)
           if (o[r + 1] - o[r] >= 3) {
             for (int32_t j = o[r]; j < o[r + 1]; ++j) c[j] = j - o[r];
             c[o[r + 1] - 1] = 0;
           }
       }},
  };
  return edits;
}

}  // namespace spgemm_test
