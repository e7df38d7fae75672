// SPDX-License-Identifier: Apache-2.0
// The host backend's row accumulators (row_choice.hpp says which row takes
// which). Each is one thread's, sized once per phase from the analysis, so
// no row allocates. Both sum a column's terms in the order they are added,
// starting from Value(0), so they give the same bits for the same terms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spgemm::host {

// A dense window of columns [base, base + width): a value per column, kept
// at Value(0) between rows (so adding a term is one add, with no test), and
// a bit per column that marks the row's columns (a structural zero stays in
// C). A row's columns are read back in order either by scanning the bitmap
// words of its span (dense_scan) or from a list of its columns, sorted
// (dense_sort).
template <class Value, class Col>
class DenseWindow {
 public:
  DenseWindow() = default;
  // width: columns, a multiple of 64; most_listed: the most terms of a
  // dense_sort row.
  DenseWindow(int64_t width, int64_t most_listed)
      : bits_(static_cast<size_t>(width / 64)),
        acc_(static_cast<size_t>(width)),
        list_(static_cast<size_t>(most_listed)) {}

  // A row whose columns lie in [lo, hi], hi - lo < width - 63.
  void start(int64_t lo, int64_t hi) {
    base_ = lo & ~int64_t{63};
    words_ = ((hi - base_) >> 6) + 1;
    count_ = 0;
  }

  // One term; with List, a column seen first is listed (every term is
  // written to the list, and the next one overwrites it unless it was new).
  template <bool Values, bool List>
  void add(int64_t col, Value term) {
    const int64_t i = col - base_;
    const uint64_t word = bits_[static_cast<size_t>(i >> 6)];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if constexpr (List) list_[static_cast<size_t>(count_)] = static_cast<Col>(col);
    count_ += (word & bit) == 0;
    bits_[static_cast<size_t>(i >> 6)] = word | bit;
    if constexpr (Values) acc_[static_cast<size_t>(i)] += term;
  }

  // The row's distinct columns so far.
  int64_t count() const { return count_; }

  // out(col, value) for the marked columns in order; leaves the window clear.
  template <class Out>
  void emit_marked(Out&& out) {
    for (int64_t w = 0; w < words_; ++w) {
      uint64_t word = bits_[static_cast<size_t>(w)];
      if (!word) continue;
      bits_[static_cast<size_t>(w)] = 0;
      do {
        const int64_t i = (w << 6) + __builtin_ctzll(word);
        out(base_ + i, acc_[static_cast<size_t>(i)]);
        acc_[static_cast<size_t>(i)] = Value(0);
        word &= word - 1;
      } while (word);
    }
  }
  void clear_marked() { std::fill_n(bits_.begin(), words_, uint64_t{0}); }

  // out(col, value) for the listed columns in order; leaves the window clear.
  template <class Out>
  void emit_listed(Out&& out) {
    std::sort(list_.begin(), list_.begin() + count_);
    for (int64_t n = 0; n < count_; ++n) {
      const int64_t i = static_cast<int64_t>(list_[static_cast<size_t>(n)]) - base_;
      out(base_ + i, acc_[static_cast<size_t>(i)]);
      acc_[static_cast<size_t>(i)] = Value(0);
      bits_[static_cast<size_t>(i >> 6)] = 0;
    }
  }
  void clear_listed() {
    for (int64_t n = 0; n < count_; ++n)
      bits_[static_cast<size_t>((static_cast<int64_t>(list_[static_cast<size_t>(n)]) - base_) >>
                                6)] = 0;
  }

 private:
  std::vector<uint64_t> bits_;
  std::vector<Value> acc_;
  std::vector<Col> list_;
  int64_t base_ = 0, words_ = 0, count_ = 0;
};

// A row's terms in a list, sorted by (column, position): for spans wider
// than any dense window. Memory follows the row, not C's width.
template <class Value, class Col>
class TermList {
 public:
  TermList() = default;
  explicit TermList(int64_t most_terms) : terms_(static_cast<size_t>(most_terms)) {}

  void start() { size_ = 0; }
  template <bool Values>
  void add(int64_t col, Value term) {
    Term& t = terms_[static_cast<size_t>(size_)];
    t.col = static_cast<Col>(col);
    t.order = size_++;
    if constexpr (Values) t.value = term;
  }
  // Sorts the terms; returns the number of distinct columns.
  int64_t sort_and_count() {
    std::sort(terms_.begin(), terms_.begin() + size_, [](const Term& x, const Term& y) {
      return x.col < y.col || (x.col == y.col && x.order < y.order);
    });
    int64_t distinct = 0;
    for (int64_t i = 0; i < size_; ++i)
      distinct += i == 0 || terms_[static_cast<size_t>(i)].col != terms_[static_cast<size_t>(i - 1)].col;
    return distinct;
  }
  // After sort_and_count: out(col, sum) per column in order.
  template <class Out>
  void emit(Out&& out) {
    for (int64_t i = 0; i < size_;) {
      const Col col = terms_[static_cast<size_t>(i)].col;
      Value sum = Value(0);
      for (; i < size_ && terms_[static_cast<size_t>(i)].col == col; ++i)
        sum += terms_[static_cast<size_t>(i)].value;
      out(static_cast<int64_t>(col), sum);
    }
  }

 private:
  struct Term {
    Col col;
    int64_t order;
    Value value;
  };
  std::vector<Term> terms_;
  int64_t size_ = 0;
};

}  // namespace spgemm::host
