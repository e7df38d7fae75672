// SPDX-License-Identifier: Apache-2.0
// The host backend's row accumulators (row_choice.hpp says which row takes
// which). Each is one thread's for a whole phase, and grows (at least
// doubling) only when a row needs more than it has: a phase allocates a few
// times per thread, not per row. Both sum a column's terms in the order they are added,
// starting from Value(0), so they give the same bits for the same terms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "host/row_choice.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <sys/mman.h>

namespace spgemm::host {

// Sorts n keys by insertion (few keys: kInsertionKeys below); always
// inlined, since a short row (ShortRow) pays for a call as much as for its
// sort.
template <class Key>
__attribute__((always_inline)) inline void insertion_sort(Key* keys, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    const Key key = keys[i];
    int64_t j = i;
    for (; j > 0 && key < keys[j - 1]; --j) keys[j] = keys[j - 1];
    keys[j] = key;
  }
}

// Sorts distinct keys that come as ascending runs (a row's new columns, B's
// row by B's row): runs found by their descents are merged pairwise until
// one is left, each merge without a branch per key (a comparison sort of
// random keys mispredicts about every other compare); few keys, by
// insertion (G3_circuit's rows: 13 columns in ~5 runs). `tmp` has n keys.
// Up to kInsertionKeys keys, insertion sort costs less than the passes.
inline constexpr int64_t kInsertionKeys = 32;

template <class Key>
void sort_runs(Key* keys, Key* tmp, int64_t n) {
  if (n <= kInsertionKeys) {
    insertion_sort(keys, n);
    return;
  }
  Key* from = keys;
  Key* to = tmp;
  for (;;) {
    int64_t runs = 0;
    for (int64_t a = 0; a < n;) {
      int64_t mid = a + 1;
      while (mid < n && from[mid - 1] < from[mid]) ++mid;
      int64_t end = mid;
      if (end < n) {
        ++end;
        while (end < n && from[end - 1] < from[end]) ++end;
      }
      ++runs;
      const Key* x = from + a;
      const Key* const x_end = from + mid;
      const Key* y = from + mid;
      const Key* const y_end = from + end;
      Key* out = to + a;
      while (x < x_end && y < y_end) {
        const bool take_y = *y < *x;
        *out++ = take_y ? *y : *x;
        y += take_y;
        x += !take_y;
      }
      while (x < x_end) *out++ = *x++;
      while (y < y_end) *out++ = *y++;
      a = end;
    }
    std::swap(from, to);
    if (runs == 1) break;
  }
  if (from != keys) std::copy(from, from + n, keys);
}

// A zeroed array of T; above kHugeBytes its memory is asked to come in huge
// pages (madvise; a hint), since a wide dense window is read at random and a
// TLB miss per term would cost more than the term.
template <class T>
class ScratchArray {
 public:
  static constexpr size_t kHugeBytes = size_t{4} << 20;
  static constexpr size_t kHugePage = size_t{2} << 20;

  ScratchArray() = default;
  explicit ScratchArray(size_t n) : n_(n) {
    if (n == 0) return;
    const size_t bytes = n * sizeof(T);
    // (operator new, so that a program counting its heap sees these too)
    void* p = nullptr;
    if (bytes >= kHugeBytes) {
      const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
      p = ::operator new(rounded, std::align_val_t{kHugePage});
      huge_ = true;
#if defined(MADV_HUGEPAGE)
      madvise(p, rounded, MADV_HUGEPAGE);
#endif
    } else {
      p = ::operator new(bytes);
    }
    std::memset(p, 0, bytes);  // all-zero bytes: Value(0) for every value type here
    data_ = static_cast<T*>(p);
  }
  ~ScratchArray() {
    if (!data_) return;
    if (huge_)
      ::operator delete(data_, std::align_val_t{kHugePage});
    else
      ::operator delete(data_);
  }
  ScratchArray(ScratchArray&& other) noexcept { swap(other); }
  ScratchArray& operator=(ScratchArray&& other) noexcept {
    ScratchArray(std::move(other)).swap(*this);
    return *this;
  }
  ScratchArray(const ScratchArray&) = delete;
  ScratchArray& operator=(const ScratchArray&) = delete;

  T* data() { return data_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  void swap(ScratchArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(n_, other.n_);
    std::swap(huge_, other.huge_);
  }
  T* data_ = nullptr;
  size_t n_ = 0;
  bool huge_ = false;
};

// A dense window of columns [base, base + width): a value per column, kept
// at Value(0) between rows (so adding a term is one add, with no test), and
// a flag byte per column that marks the row's columns (a structural zero
// stays in C). Flags are bytes, not bits: setting one is a plain store, so
// consecutive terms do not wait on each other's read-modify-write of a
// shared word. A row's columns are read back in order either by scanning
// its flags (dense_scan), or from a list of its columns, sorted
// (dense_sort). The scan reads kScanBytes flags at a time, and only the
// groups of kScanBytes columns that a second level of flags, one per group,
// marks: a row of stencil27:48 has 125 columns over a span of ~9.4k, in
// ~40 of its ~590 groups.
template <class Value, class Col>
class DenseWindow {
 public:
  static constexpr int64_t kScanBytes = 16;

  // A row whose columns lie in [lo, hi], with up to `listed` terms to list
  // (dense_sort; 0 otherwise).
  void start(int64_t lo, int64_t hi, int64_t listed) {
    base_ = lo & ~(kScanBytes - 1);
    chunks_ = (hi - base_) / kScanBytes + 1;
    const int64_t width = chunks_ * kScanBytes;
    if (width > static_cast<int64_t>(acc_.size())) {
      // all zero between rows, so the old contents need not move
      // (a dense row spans at most kDenseMaxSpan columns: row_choice.hpp)
      const auto grown = static_cast<size_t>(std::max(
          width, std::min(2 * static_cast<int64_t>(acc_.size()), kDenseMaxSpan + kScanBytes)));
      flags_ = ScratchArray<unsigned char>(grown);
      groups_ = ScratchArray<unsigned char>(grown / kScanBytes + kScanBytes);
      acc_ = ScratchArray<Value>(grown);
    }
    if (listed > static_cast<int64_t>(list_.size())) {
      const auto grown = static_cast<size_t>(std::max(listed, 2 * static_cast<int64_t>(list_.size())));
      list_.resize(grown);
      sorted_.resize(grown);
    }
  }

  // The row's terms: visit(term) calls term(col, value) for each in order.
  // With Flags, each column is flagged (without, only values are summed: a
  // row that covers its span, read back by emit_span); with Count, returns
  // the row's distinct columns (else 0); with List (and Count), they are
  // listed; with Groups, their groups are flagged too (for emit_flagged).
  // (Pointers are held in locals: a flag store, through unsigned char, may
  // alias anything in memory, locals in registers excepted.)
  template <bool Values, bool Flags, bool Count, bool List, bool Groups, class Visit>
  int64_t gather(Visit&& visit) {
    static_assert(Count || !List, "a list needs the count");
    static_assert(Flags || !(Count || Groups), "counts and groups need the flags");
    unsigned char* const flags = flags_.data();
    unsigned char* const groups = groups_.data();
    Value* const acc = acc_.data();
    Col* const list = list_.data();
    const int64_t base = base_;
    int64_t n = 0;
    visit([&](int64_t col, Value term) {
      const auto i = static_cast<size_t>(col - base);
      if constexpr (List) list[n] = static_cast<Col>(col);
      if constexpr (Count)
        n += flags[i] == 0;  // every term is listed; the next overwrites it unless it was new
      if constexpr (Flags) flags[i] = 1;
      if constexpr (Groups) groups[i / kScanBytes] = 1;
      if constexpr (Values) acc[i] += term;
    });
    count_ = n;
    return n;
  }

  // After a gather without Flags: out(col, value) for every column of
  // [lo, hi] in order; leaves the window clear.
  template <class Out>
  void emit_span(int64_t lo, int64_t hi, Out&& out) {
    Value* const acc = acc_.data();
    for (int64_t col = lo; col <= hi; ++col) {
      const auto i = static_cast<size_t>(col - base_);
      out(col, acc[i]);
      acc[i] = Value(0);
    }
  }

  // After a gather with Groups: out(col, value) for the flagged columns in
  // order; leaves the window clear; returns their number.
  template <class Out>
  int64_t emit_flagged(Out&& out) {
    unsigned char* const groups = groups_.data();
    int64_t n = 0;
    for (int64_t g0 = 0; g0 < chunks_; g0 += kScanBytes) {
      uint32_t marked = nonzero_bytes(groups + g0);
      if (!marked) continue;
      std::memset(groups + g0, 0, kScanBytes);
      do {
        const int64_t c = g0 + __builtin_ctz(marked);
        marked &= marked - 1;
        n += emit_chunk(c, out);
      } while (marked);
    }
    return n;
  }
  // After a gather without Groups: out(col, value) for the flagged columns
  // in order, every group read; leaves the window clear; returns their number.
  template <class Out>
  int64_t emit_all_flagged(Out&& out) {
    int64_t n = 0;
    for (int64_t c = 0; c < chunks_; ++c) n += emit_chunk(c, out);
    return n;
  }

  // out(col, value) for the flagged columns of chunk c in order, the chunk's
  // flags and sums cleared; returns their number.
  template <class Out>
  int64_t emit_chunk(int64_t c, Out& out) {
    unsigned char* const at = flags_.data() + c * kScanBytes;
    Value* const acc = acc_.data();
    uint32_t mask = nonzero_bytes(at);
    if (!mask) return 0;
    std::memset(at, 0, kScanBytes);
    int64_t n = 0;
    do {
      const auto i = static_cast<size_t>(c * kScanBytes + __builtin_ctz(mask));
      out(base_ + static_cast<int64_t>(i), acc[i]);
      acc[i] = Value(0);
      ++n;
      mask &= mask - 1;
    } while (mask);
    return n;
  }

  // out(col, value) for the listed columns in order; leaves the window clear.
  template <class Out>
  void emit_listed(Out&& out) {
    sort_runs(list_.data(), sorted_.data(), count_);
    for (int64_t n = 0; n < count_; ++n) {
      const auto i = static_cast<size_t>(static_cast<int64_t>(list_[static_cast<size_t>(n)]) - base_);
      out(base_ + static_cast<int64_t>(i), acc_[i]);
      acc_[i] = Value(0);
      flags_[i] = 0;
    }
  }

 private:
  // Bit b set where at[b] != 0, b < kScanBytes.
  static uint32_t nonzero_bytes(const unsigned char* at) {
#if defined(__SSE2__)
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()))) ^
           0xFFFFu;
#else
    uint32_t mask = 0;
    for (int b = 0; b < kScanBytes; ++b) mask |= static_cast<uint32_t>(at[b] != 0) << b;
    return mask;
#endif
  }

  ScratchArray<unsigned char> flags_;
  ScratchArray<unsigned char> groups_;  // a flag per kScanBytes columns
  ScratchArray<Value> acc_;
  std::vector<Col> list_, sorted_;  // sorted_: sort_runs' second buffer
  int64_t base_ = 0, chunks_ = 0, count_ = 0;
};

// A short row (row_choice.hpp, short_list): a value and a flag per column of
// C, indexed by column as ColumnMarks' marks are, so that neighbouring rows
// sum into the same cache lines; the row's columns listed as first met, then
// sorted by insertion. The list holds the columns that C's row offsets give
// the row, and a slot past them: a longer row is counted, not listed, and
// its caller refuses it (the sums it leaves go with the phase's scratch).
template <class Value, class Col>
class ShortRow {
 public:
  // A row of `listed` columns over C's `columns`.
  void start(int64_t columns, int64_t listed) {
    if (columns > static_cast<int64_t>(sums_.size())) {
      sums_ = ScratchArray<Value>(static_cast<size_t>(columns));
      flags_ = ScratchArray<unsigned char>(static_cast<size_t>(columns));
    }
    if (listed + 1 > static_cast<int64_t>(list_.size())) {
      list_.resize(static_cast<size_t>(listed + 1));
      sorted_.resize(static_cast<size_t>(listed + 1));
    }
    listed_ = listed;
  }

  // The row's terms: visit(term) calls term(col, value) for each in order;
  // returns its distinct columns. Each term is listed at the count, which
  // moves on only for a new column: no branch on the flag, which irregular
  // rows (G3_circuit's) mispredict.
  template <class Visit>
  int64_t gather(Visit&& visit) {
    Value* const sums = sums_.data();
    unsigned char* const flags = flags_.data();
    Col* const list = list_.data();
    const int64_t listed = listed_;
    int64_t n = 0;
    visit([&](int64_t col, Value term) {
      const auto i = static_cast<size_t>(col);
      sums[i] += term;
      list[n < listed ? n : listed] = static_cast<Col>(col);
      n += flags[i] == 0;
      flags[i] = 1;
    });
    count_ = n;
    return n;
  }

  // After a gather of at most `listed` columns: out(n, col, value) for the
  // n-th of them in order; leaves the sums and flags clear. (Up to
  // kInsertionKeys columns sort by insertion here, inline, not through
  // sort_runs, a call per row.)
  template <class Out>
  void emit(Out&& out) {
    Col* const list = list_.data();
    const int64_t count = count_;
    if (count <= kInsertionKeys)
      insertion_sort(list, count);
    else
      sort_runs(list, sorted_.data(), count);
    Value* const sums = sums_.data();
    unsigned char* const flags = flags_.data();
    for (int64_t n = 0; n < count; ++n) {
      const auto i = static_cast<size_t>(list[n]);
      out(n, static_cast<int64_t>(i), sums[i]);
      sums[i] = Value(0);
      flags[i] = 0;
    }
  }

 private:
  ScratchArray<Value> sums_;  // Value(0) between rows
  ScratchArray<unsigned char> flags_;
  std::vector<Col> list_, sorted_;  // sorted_: sort_runs' second buffer
  int64_t listed_ = 0, count_ = 0;
};

// The symbolic phase's count of a row's distinct columns: a mark per column
// of C, set to the row's stamp, so a column marked before in this row is
// known by its mark and nothing is cleared after the row. The marks are
// indexed by column, not by the row's span, so neighbouring rows, which
// read neighbouring rows of B, mark the same cache lines; a count needs no
// order, so no row sorts or scans here. Stamps are 16 bits: every 65535
// rows all marks are cleared at once. A mark is a load and a store where a
// hash table's probe is a multiply and a compare chain: G3_circuit's rows
// (24 terms over spans of ~250k columns) count in two thirds of the time,
// wing's and delaunay_n15's in half.
// Chosen with: spgemm-bench --threads 2 --no-graphblas --dir <matrices>
//   --all-generators --gen stencil27:48, against counting by each row's
//   method (docs/performance.md, "Counting by marks")
class ColumnMarks {
 public:
  // Marks take 2 bytes a column of C: up to 2^22 columns, 8 MiB a thread;
  // wider products count by hash or sorted terms.
  static constexpr int64_t kMaxColumns = int64_t{1} << 22;

  // visit(term) calls term(col, value) for each of the row's terms; returns
  // its distinct columns, all in [0, columns).
  template <class Visit>
  int64_t count(int64_t columns, Visit&& visit) {
    if (columns > static_cast<int64_t>(marks_.size())) {
      marks_ = ScratchArray<uint16_t>(static_cast<size_t>(columns));
      stamp_ = 0;
    }
    if (stamp_ == 0xFFFF) {
      std::memset(marks_.data(), 0, marks_.size() * sizeof(uint16_t));
      stamp_ = 0;
    }
    const auto stamp = static_cast<uint16_t>(++stamp_);
    uint16_t* const marks = marks_.data();
    int64_t n = 0;
    visit([&](int64_t col, auto) {
      n += marks[col] != stamp;
      marks[col] = stamp;
    });
    return n;
  }

 private:
  ScratchArray<uint16_t> marks_;
  uint32_t stamp_ = 0;  // the last row's stamp
};

// Structure reuse in the numeric phase: a row's columns as the previous
// numeric phase wrote them into C, used only where they hold. Each of C's
// columns maps to its position in the row, so a term is summed at its
// column's place with no table, no sort and no column written. Nothing is
// taken on trust: the columns must be in range and strictly ascending, and
// every term's column must be among them and every one of them be hit;
// then they are exactly the row's columns. A position is valid for a row
// only where the row's column there is the one looked up, so stale
// positions of other rows need no clearing.
template <class Value, class Col>
class KnownColumns {
 public:
  // Positions take 4 bytes a column of C: up to 2^22 columns, 16 MiB a
  // thread; wider products compute every row in full.
  static constexpr int64_t kMaxColumns = int64_t{1} << 22;

  // Sums the terms (visit(term) calls term(col, value) for each in order)
  // into values[0, len) at the positions of cols[0, len) (C's row, `base`
  // its index base), each sum from Value(0) in the terms' order. Returns
  // false where those are not the row's columns; values then hold partial
  // sums and the row must be computed in full.
  template <class Visit>
  bool sum(const Col* cols, Value* values, int64_t len, int64_t base, int64_t columns,
           Visit&& visit) {
    if (columns > static_cast<int64_t>(position_.size()))
      position_ = ScratchArray<int32_t>(static_cast<size_t>(columns));
    if (len > static_cast<int64_t>(hit_.size())) hit_.resize(static_cast<size_t>(len));
    int64_t previous = -1;
    for (int64_t j = 0; j < len; ++j) {
      const int64_t col = static_cast<int64_t>(cols[j]) - base;
      if (col <= previous || col >= columns) return false;
      position_[static_cast<size_t>(col)] = static_cast<int32_t>(j);
      previous = col;
    }
    std::fill(values, values + len, Value(0));
    std::fill(hit_.begin(), hit_.begin() + len, uint8_t{0});
    const int32_t* const position = position_.data();
    uint8_t* const hit = hit_.data();
    int64_t found = 0;
    bool all_found = true;
    visit([&](int64_t col, Value term) {
      const int64_t j = position[col];
      if (j < len && static_cast<int64_t>(cols[j]) - base == col) {
        found += hit[j] == 0;
        hit[j] = 1;
        values[j] += term;
      } else {
        all_found = false;
      }
    });
    return all_found && found == len;
  }

 private:
  ScratchArray<int32_t> position_;  // a column's position in the row that last listed it
  std::vector<uint8_t> hit_;        // per position of the row: a term found it
};

// A hash table of a power of two slots, at least four times the row's terms
// (open addressing, linear probing): a key and a value per slot, the row's
// columns listed as they come, each with its slot, then sorted by column:
// the values are read back from the listed slots, with no second probe.
// Its memory follows the row's terms, not its span.
template <class Value, class Col>
class HashRow {
 public:
  // A row of up to `terms` terms.
  void start(int64_t terms) {
    int64_t slots = 16;
    while (slots < 4 * terms) slots *= 2;
    if (slots > static_cast<int64_t>(keys_.size())) {
      keys_.assign(static_cast<size_t>(slots), kEmpty);
      values_ = ScratchArray<Value>(static_cast<size_t>(slots));
    }
    if (terms > static_cast<int64_t>(list_.size())) {
      list_.resize(static_cast<size_t>(terms));
      sorted_.resize(static_cast<size_t>(terms));
    }
    mask_ = slots - 1;
    count_ = 0;
  }

  // The row's terms: visit(term) calls term(col, value) for each in order;
  // returns the row's distinct columns.
  template <bool Values, class Visit>
  int64_t gather(Visit&& visit) {
    int64_t* const keys = keys_.data();
    Value* const values = values_.data();
    Listed* const list = list_.data();
    const int64_t mask = mask_;
    int64_t n = 0;
    visit([&](int64_t col, Value term) {
      int64_t slot = hash(col) & mask;
      while (keys[slot] != col && keys[slot] != kEmpty) slot = (slot + 1) & mask;
      if (keys[slot] == kEmpty) {
        keys[slot] = col;
        list[n++] = {static_cast<Col>(col), static_cast<uint32_t>(slot)};
      }
      if constexpr (Values) values[slot] += term;
    });
    count_ = n;
    return n;
  }

  // out(col, value) for the row's columns in order; leaves the table clear.
  template <class Out>
  void emit(Out&& out) {
    int64_t* const keys = keys_.data();
    Value* const values = values_.data();
    Listed* const list = list_.data();
    sort_runs(list, sorted_.data(), count_);
    for (int64_t n = 0; n < count_; ++n) {
      const size_t slot = list[n].slot;
      out(static_cast<int64_t>(list[n].col), values[slot]);
      values[slot] = Value(0);
      keys[slot] = kEmpty;
    }
  }
  // Empties the slots the row used (not the whole table: a row of 24 terms
  // has 128 slots).
  void clear() {
    for (int64_t n = 0; n < count_; ++n) keys_[list_[static_cast<size_t>(n)].slot] = kEmpty;
  }

 private:
  static constexpr int64_t kEmpty = -1;
  // A listed column and its slot (slots number at most 4 * kHashMaxTerms
  // rounded up to a power of two), ordered by column alone: columns are
  // distinct.
  struct Listed {
    Col col;
    uint32_t slot;
    bool operator<(const Listed& other) const { return col < other.col; }
  };
  static_assert(4 * kHashMaxTerms * 2 <= (int64_t{1} << 32), "slots fit Listed::slot");
  static int64_t hash(int64_t col) {
    return static_cast<int64_t>((static_cast<uint64_t>(col) * 0x9E3779B97F4A7C15ull) >> 32);
  }
  std::vector<int64_t> keys_;
  ScratchArray<Value> values_;  // Value(0) between rows
  std::vector<Listed> list_, sorted_;  // sorted_: sort_runs' second buffer
  int64_t mask_ = 0, count_ = 0;
};

// A row's terms in a list, sorted by (column, position): for spans wider
// than any dense window. Memory follows the row, not C's width.
template <class Value, class Col>
class TermList {
 public:
  // A row of up to `terms` terms.
  void start(int64_t terms) {
    size_ = 0;
    if (terms > static_cast<int64_t>(terms_.size()))
      terms_.resize(static_cast<size_t>(std::max(terms, 2 * static_cast<int64_t>(terms_.size()))));
  }
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
