// SPDX-License-Identifier: Apache-2.0
// How the host backend computes one row of C, chosen per row from what the
// analysis knows of it: its entries in A, its products (terms, D's entries
// included) and the column span [lo, hi] of the B rows (and D row) it reads;
// in the numeric phase first its length in C (takes_short_list).
// Every method sums a column's terms in the order they come (A's entries in
// order, each with B's row in order, then D's row), so the choice changes
// the speed, never the bits.
#pragma once

#include <cstdint>

namespace spgemm::host {

enum class RowMethod : int {
  empty,       // no terms: the row of C is empty
  copy,        // one entry of A, no D, its B row strictly increasing: a scaled copy of it
  dense_span,  // every column of [lo, hi] is in the row (its B rows' runs cover the
               // span): a dense window without flags, read back in order whole
  dense_scan,  // dense window over [lo, hi]; columns read back by scanning its flags
  dense_sort,  // dense window over all of C's columns where they fit a core's
               // L2 (else over [lo, hi]); the row's columns listed, then sorted
  hash,        // a hash table of 4x the row's terms (its columns listed, then
               // sorted): for spans wide against the terms, C too wide for L2
  terms_sort,  // the row's terms listed and sorted by (column, order): too many terms
               // for a hash table and a span too wide for a window
  short_list,  // (numeric phase) at most kShortRowColumns columns in C's row: sums and
               // flags over all of C's columns, the columns listed as first met, then
               // sorted by insertion; chosen before the row's facts, which it needs not
  count_       // (the number of methods)
};

// A dense window holds at most this many columns per thread: a value and a
// flag byte each (2^22 fp64 columns are 36 MiB a thread; wider spans go to
// hash or terms_sort, whose memory follows the row, not C's width).
inline constexpr int64_t kDenseMaxSpan = int64_t{1} << 22;

// dense_scan reads a flag per kScanBytes (16) columns of the span, then 16
// flags for each group flagged (at most one per term); sorting the row's
// columns costs about terms * log2(terms) compares. Scanning wins while the
// span is at most this many columns per term: stencil27:48 (span ~9.4k, 729
// terms a row), poisson2d:700 (~2.8k, 25) and the long rows of
// powerlaw:100000 scan; its short rows (spans near C's width, a few terms)
// take a hash table (kHashMaxTerms).
// Chosen with: spgemm-bench --host --gen stencil27:48 --gen poisson2d:700
//   --gen powerlaw:100000 --gen rmat:16:16 --gen uniform:500000:8, each
//   also with SPGEMM_TEST_HOST_ROW_METHOD=dense_scan and =dense_sort
inline constexpr int64_t kScanSpanPerTerm = 256;

// Within dense_scan's numeric phase: a span of at most this many columns per
// term is short. Its flags are then read whole (16 a step) instead of only
// the groups that its terms flag (a store a term): stencil27:48 (span ~9.4k,
// 729 terms a row) is not short. (The symbolic phase counts rows by marks,
// whatever their method: accumulators.hpp, ColumnMarks.)
// Chosen with: spgemm-bench --host --gen stencil27:48 --gen banded:500000:16
inline constexpr int64_t kShortSpanPerTerm = 2;

// Rows whose span is wider than kScanSpanPerTerm columns a term, where a
// dense window over all of C's columns (1 + sizeof(Value) bytes a column)
// fits a core's L2 cache, take that window, indexed by column, their columns
// listed and then sorted (dense_sort). Neighbouring rows read neighbouring
// rows of B, so they sum into the same cache lines of the window, as the
// symbolic phase's marks do (accumulators.hpp, ColumnMarks); a window placed
// at each row's span puts the same column at another address in each row.
// Against the hash table, the numeric phase takes 0.75x the time on
// delaunay_n15 (32k columns) and 0.83x on commanche_dual; past L2 the
// window's lines miss where a hash table's stay in L1: G3_circuit (1.59M
// columns, 14 MB a thread) took 1.16x in such a window.
// Chosen with: spgemm-host-ab (docs/performance.md, "Wide rows in a window
//   over C's columns").
//
// Otherwise such rows take a hash table of at least four times their terms
// (a power of two; at half that, collisions cost uniform:500000:8's
// symbolic phase half again), up to this many terms (2^17 slots, 2 MiB with
// fp64, within L2); beyond, a window over the span with its columns sorted,
// or above kDenseMaxSpan the sorted terms. The table touches the row's
// columns only, not its whole span.
// Chosen with: spgemm-bench --host --gen uniform:500000:8 --gen rmat:16:16
//   --gen powerlaw:100000, each also with SPGEMM_TEST_HOST_ROW_METHOD=dense_sort
inline constexpr int64_t kHashMaxTerms = int64_t{1} << 15;

// A row of C with at most this many columns, known before the row is
// computed (the numeric phase reads it off C's row offsets), takes
// short_list unless it is a copy. Such rows are most of G3_circuit's (13
// columns a row), poisson2d:700's (13), cryg2500's and airfoil1's; the
// row's facts (a pass over its B rows' ends), its window or hash table and
// its list of every term cost as much as its sums. The bound is where the
// list stops sorting by insertion (accumulators.hpp, kInsertionKeys); past
// it, a row's sort costs more than its facts.
// Measured with: spgemm-host-ab --threads 1 (docs/performance.md, "Short
//   rows without their facts").
inline constexpr int64_t kShortRowColumns = 32;

// short_list's sums and flags cover all of C's columns, of which a row
// touches its span and its neighbours much the same lines. It is taken where
// the rows' mean span (of a sample: short_list_fits) takes at most this many
// L2 caches at 1 + sizeof(Value) bytes a column. Without the bound,
// G3_circuit (spans of ~312k of its 1.59M columns, 2.8 MB in fp64) took
// 0.84x the time of its hash tables; uniform:1000000:4 (spans near its 1M
// columns, 9 MB) 1.15x, uniform:2000000:2 1.34x.
// Chosen with: spgemm-host-ab --threads 2 (docs/performance.md, "Short rows
//   without their facts").
inline constexpr int64_t kShortSpanCaches = 4;

// Whether short_list can take a numeric phase's rows: C's `columns` within a
// dense window (kDenseMaxSpan) and, at `column_bytes` a column, all of them
// or the rows' mean span (mean_span() computes it, only where asked) within
// kShortSpanCaches of `l2_bytes`.
template <class MeanSpan>
bool short_list_fits(int64_t columns, int64_t column_bytes, int64_t l2_bytes, MeanSpan&& mean_span) {
  if (columns > kDenseMaxSpan) return false;
  const int64_t budget = kShortSpanCaches * l2_bytes / column_bytes;
  return columns <= budget || mean_span() <= budget;
}

// Whether a numeric phase's row of `row_columns` columns in C (its row
// offsets) takes short_list before its facts are computed, where
// short_list_fits: `copy` says the row is a copy (one entry of A, no D, B
// sorted).
inline bool takes_short_list(int64_t row_columns, bool copy, RowMethod forced) {
  if (forced == RowMethod::short_list) return true;
  return forced == RowMethod::count_ && !copy && row_columns <= kShortRowColumns;
}

struct RowFacts {
  int64_t a_entries = 0;     // entries of the row of A
  int64_t d_entries = 0;     // entries of the row of D (0 without D)
  int64_t terms = 0;         // products plus D's entries
  int64_t span = 0;          // hi - lo + 1 over the B rows read (and D's row); 0 if none
  bool b_row_ordered = false;  // a_entries == 1: its B row strictly increasing
  // B's rows it reads are each a run of consecutive columns, and together
  // (with D's row) they cover [lo, hi]: the row has exactly `span` columns.
  bool covers_span = false;
  // a window over all of C's columns fits a core's L2 (kHashMaxTerms)
  bool columns_fit_cache = false;
};

// The method for one row; `forced` (a valid method other than count_) is
// taken wherever it can compute the row (tests use it to reach every method
// on every input).
inline RowMethod choose_row_method(const RowFacts& row, RowMethod forced = RowMethod::count_) {
  if (row.terms == 0) return RowMethod::empty;
  const bool can_copy = row.a_entries == 1 && row.d_entries == 0 && row.b_row_ordered;
  const bool fits_window = row.span <= kDenseMaxSpan;
  switch (forced) {
    case RowMethod::copy:
      if (can_copy) return RowMethod::copy;
      break;
    case RowMethod::dense_span:
      if (row.covers_span && fits_window) return RowMethod::dense_span;
      break;
    case RowMethod::dense_scan:
    case RowMethod::dense_sort:
      if (fits_window) return forced;
      return RowMethod::terms_sort;
    case RowMethod::hash:
      if (row.terms <= kHashMaxTerms) return RowMethod::hash;
      return fits_window ? RowMethod::dense_sort : RowMethod::terms_sort;
    case RowMethod::terms_sort: return RowMethod::terms_sort;
    case RowMethod::short_list:  // (where it fits: takes_short_list)
      return fits_window ? RowMethod::dense_sort : RowMethod::terms_sort;
    default: break;
  }
  if (can_copy) return RowMethod::copy;
  if (row.covers_span && fits_window) return RowMethod::dense_span;
  if (row.span <= kScanSpanPerTerm * row.terms && fits_window) return RowMethod::dense_scan;
  if (row.columns_fit_cache) return RowMethod::dense_sort;
  if (row.terms <= kHashMaxTerms) return RowMethod::hash;
  return fits_window ? RowMethod::dense_sort : RowMethod::terms_sort;
}

// Whether a numeric phase run again tries the row's columns already in C
// (accumulators.hpp, KnownColumns): for the methods that sort their columns
// (hash, dense_sort, terms_sort), whose sort and listing it spares. Dense
// windows read theirs back in order, and a copy is one pass: with the known
// columns tried there too, poisson2d:700 and stencil27:48 came out
// 1.05-1.15x slower (docs/performance.md, "Numeric again: the columns
// already in C").
inline bool tries_known_columns(RowMethod method) {
  return method == RowMethod::hash || method == RowMethod::dense_sort ||
         method == RowMethod::terms_sort || method == RowMethod::short_list;
}

}  // namespace spgemm::host
