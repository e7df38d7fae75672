// SPDX-License-Identifier: Apache-2.0
// How the host backend computes one row of C, chosen per row from what the
// analysis knows of it: its entries in A, its products (terms, D's entries
// included) and the column span [lo, hi] of the B rows (and D row) it reads.
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
         method == RowMethod::terms_sort;
}

}  // namespace spgemm::host
