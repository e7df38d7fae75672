// SPDX-License-Identifier: Apache-2.0
#include "host/host_engine.hpp"

#include "core/csr_checks.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "host/accumulators.hpp"
#include "host/row_choice.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace spgemm {

namespace {

// Below this many rows a product runs on the calling thread alone: waking a
// team costs more than such a product (a 50 x 50 product took 10 ms in the
// parallel region on a loaded 2-core machine, 0.02 ms serially).
constexpr int64_t kMinRowsForThreads = 256;
// The input checks' pass and the look at B's rows, likewise: positions (row
// offsets or entries).
constexpr int64_t kMinPositionsForThreads = 65536;
// Below this many products a phase computes its rows on the calling thread:
// a team costs more than such a product alone, and on a machine shared with
// other work a parallel region waits whole scheduler slices (several ms) for
// a thread that was descheduled (qh1484, 29k products: 40 ms with two
// threads beside a build). Products of 16k to 64k on a quiet machine take
// two threads in 0.55-0.62x the time of one (cryg2500, lp_ship04l, qh1484).
// Above this bound every region takes all of OpenMP's threads: teams sized
// by each region's work (a thread per 65536 products or positions) took 1.30x
// the time in geometric mean on the GPU machine's 16 threads.
// Chosen with: spgemm-host-ab --threads 2 (docs/performance.md, "Small
//   products on threads"); spgemm-host-ab --threads 16 (docs/performance.md,
//   "Teams of all threads").
constexpr int64_t kMinProductsForThreads = 16384;

// Rows are dealt to threads in blocks of kRowsPerBlock consecutive rows
// (neighbouring rows read neighbouring rows of B), taken dynamically: a
// thread whose rows are heavier, or that another process slows, takes fewer
// blocks, and a block costs one atomic increment, not a pass over A to
// weigh the rows first. A block of stencil27:48 is ~100 us of work, of
// poisson2d:700 ~10 us (spgemm-bench --host --gen stencil27:48
// --gen poisson2d:700; the runs of docs/performance.md, Host backend).
constexpr int64_t kRowsPerBlock = 64;

// A row's rows of B are named by A's columns: rows anywhere in B, whose
// first cache lines no hardware prefetcher can guess, so each is a miss
// that the row's work waits on. The rows of B of the row this many rows
// ahead are prefetched (their first lines of columns, and of values in the
// numeric phase), so that those misses overlap the rows in between.
// With 2 threads over the 28 inputs of docs/performance.md ("B's rows
// fetched ahead"): 0.876 of the time in geometric mean; 8 rows ahead gained
// less than 4.
// Chosen with: spgemm-bench --threads 2 --reps 5 --warmup 1 --huge-pages
//   --no-graphblas --dir <matrices> --all-generators --gen stencil27:48
constexpr int64_t kPrefetchRows = 4;

// A core's L2 cache in bytes, as the system reports it (1 MiB where it does
// not): where a window over all of C's columns fits it (row_choice.hpp).
int64_t l2_cache_bytes() {
  static const int64_t bytes = [] {
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) return static_cast<int64_t>(reported);
#endif
    return int64_t{1} << 20;
  }();
  return bytes;
}

// Runs body(first, last, scratch) for blocks [first, last) of rows on all
// threads (one alone below kMinRowsForThreads rows, or without `threads`);
// each thread owns one Scratch. Exceptions cannot leave an OpenMP region, so
// the first one thrown (a failed allocation, a row that disagrees with C's
// row offsets) is kept, every thread then skips its remaining blocks, and it
// is rethrown after the region.
template <class Scratch, class Body>
void for_each_block(int64_t rows, bool threads, Body body) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  auto keep = [&] {
    if (!failed.exchange(true)) first = std::current_exception();
  };
#pragma omp parallel if (threads && rows >= kMinRowsForThreads)
  {
    Scratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (int64_t block = 0; block < blocks; ++block) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        body(block * kRowsPerBlock, std::min(rows, (block + 1) * kRowsPerBlock), scratch);
      } catch (...) {
        keep();
      }
    }
  }
  if (first) std::rethrow_exception(first);
}

// Tests reach every row method on any input by naming it here (row_choice.hpp
// takes it wherever it can compute the row); unset, the analysis chooses.
host::RowMethod forced_row_method() {
  const char* name = std::getenv("SPGEMM_TEST_HOST_ROW_METHOD");
  if (!name) return host::RowMethod::count_;
  const std::string s = name;
  if (s == "copy") return host::RowMethod::copy;
  if (s == "dense_span") return host::RowMethod::dense_span;
  if (s == "dense_scan") return host::RowMethod::dense_scan;
  if (s == "dense_sort") return host::RowMethod::dense_sort;
  if (s == "hash") return host::RowMethod::hash;
  if (s == "terms_sort") return host::RowMethod::terms_sort;
  if (s == "short_list") return host::RowMethod::short_list;
  return host::RowMethod::count_;
}

// X^T by counting sort: rows of X are visited in order, so every row of X^T
// comes out sorted.
template <class Value, class Offset, class Col>
class HostTranspose final : public Transpose {
 public:
  void build(const MatrixDesc& x) override {
    const auto X = view_of<const Value, const Offset, const Col>(x);
    const auto nnz = static_cast<size_t>(x.nnz);
    offsets_.assign(static_cast<size_t>(x.cols) + 1, 0);
    for (size_t i = 0; i < nnz; ++i) ++offsets_[static_cast<size_t>(X.col(i)) + 1];
    for (size_t c = 0; c < static_cast<size_t>(x.cols); ++c) offsets_[c + 1] += offsets_[c];
    cols_.resize(nnz);
    permutation_.resize(nnz);
    values_.resize(nnz);
    std::vector<Offset> next(offsets_.begin(), offsets_.end() - 1);
    for (int64_t row = 0; row < x.rows; ++row)
      for (int64_t i = X.begin(row); i < X.end(row); ++i) {
        const auto j = static_cast<size_t>(next[static_cast<size_t>(X.col(i))]++);
        cols_[j] = static_cast<Col>(row);
        permutation_[j] = static_cast<Offset>(i);
      }
    describe(x, offsets_.data(), cols_.data(), values_.data());
  }

  size_t workspace_bytes(const MatrixDesc&) const override { return 0; }  // host memory only

  void gather_values(const MatrixDesc& x, bool conjugate) override {
    const auto* values = static_cast<const Value*>(x.values);
    for (size_t j = 0; j < values_.size(); ++j)
      values_[j] = conjugate_if(values[static_cast<size_t>(permutation_[j])], conjugate);
  }

 private:
  std::vector<Offset> offsets_;
  std::vector<Col> cols_;
  std::vector<Offset> permutation_;
  std::vector<Value> values_;
};

template <class Value, class Offset, class Col>
class HostEngine final : public Engine {
  using View = CsrView<const Value, const Offset, const Col>;

  // D's view; offsets == nullptr without a D.
  static View addend_of(const Operands& in) {
    if (in.D) return view_of<const Value, const Offset, const Col>(*in.D);
    return {0, 0, nullptr, nullptr, nullptr, 0};
  }

 public:
  void check_structures(const CheckedOperand* operands, int count) override {
    for (int i = 0; i < count; ++i) check_structure(*operands[i].m, operands[i].name);
  }

  static void check_structure(const MatrixDesc& m, const char* name) {
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    CsrDefects found;
    std::fill(std::begin(found.first), std::end(found.first), CsrDefects::kNoDefect);
    const int64_t entries = checked_entries(m.nnz, offsets[m.rows], m.base);
    const int64_t positions = std::max(m.rows + 1, entries);
    // each thread's first defects, then the least of them
#pragma omp parallel if (positions >= kMinPositionsForThreads)
    {
      CsrDefects mine;
      std::fill(std::begin(mine.first), std::end(mine.first), CsrDefects::kNoDefect);
#pragma omp for schedule(static)
      for (int64_t i = 0; i < positions; ++i)
        inspect_csr_position(i, m.rows, m.cols, m.nnz, entries, m.base, offsets, cols,
                             [&](int defect, int64_t at) {
                               mine.first[defect] =
                                   std::min(mine.first[defect], static_cast<uint64_t>(at));
                             });
#pragma omp critical(spgemm_host_checks)
      for (int d = 0; d < kCsrDefects; ++d) found.first[d] = std::min(found.first[d], mine.first[d]);
    }
    fail_on_defects(
        found, name, m, [&](int64_t at) { return static_cast<int64_t>(offsets[at]); },
        [&](int64_t at) { return static_cast<int64_t>(cols[at]); });
  }

  std::unique_ptr<Transpose> make_transpose() override {
    return std::make_unique<HostTranspose<Value, Offset, Col>>();
  }

  size_t workspace_bytes(const Operands&) const override { return 0; }  // host memory only

  uint64_t fingerprint(const MatrixDesc& m) override {
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    uint64_t sum = 0;
    for (int64_t i = 0; i < std::max(m.rows + 1, m.nnz); ++i)
      sum += fingerprint_position(i, m.rows, m.nnz, offsets, cols);
    return sum;
  }

  void analyze(const Operands&, const CheckedOperand* checks, int count) override {
    written_ = {};
    check_structures(checks, count);
  }

  void output_overwritten() override { written_ = {}; }

  int64_t nnz_lower_bound(const Operands& in, int64_t limit) override {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
    // nnz(C) <= nnz(A) * (B's longest row) + nnz(D): where that fits the
    // limit, C fits, known from a sequential pass over B's row offsets
    // instead of the bound's pass over A, which reads B's offsets at random
    // (G3_circuit with 32-bit offsets).
    int64_t longest_b = 0;
#pragma omp parallel for reduction(max : longest_b) schedule(static) if (B.rows >= kMinPositionsForThreads)
    for (int64_t k = 0; k < B.rows; ++k) longest_b = std::max(longest_b, B.end(k) - B.begin(k));
    const int64_t a_entries = A.entries();
    const int64_t d_entries = D.offsets ? D.entries() : 0;
    if (d_entries <= limit &&
        (a_entries == 0 || longest_b <= (limit - d_entries) / a_entries))
      return 0;
    int64_t bound = 0;
#pragma omp parallel for reduction(+ : bound) schedule(static) if (A.rows >= kMinRowsForThreads)
    for (int64_t row = 0; row < A.rows; ++row) {
      int64_t longest = D.offsets ? D.end(row) - D.begin(row) : 0;
      for (int64_t i = A.begin(row); i < A.end(row); ++i) {
        const int64_t k = A.col(i);
        longest = std::max(longest, B.end(k) - B.begin(k));
      }
      bound += longest;
    }
    return bound;
  }

  int64_t symbolic(const Operands& in, MatrixDesc& c) override {
    // Each row's count goes to offsets[row + 1] (a row has at most B.cols +
    // D.cols entries, which the offset type holds), then the running sum
    // replaces them; past the offset type (INDEX_OVERFLOW) the offsets are
    // left undefined, as docs/api.md says.
    const int64_t rows = in.A->rows;
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    written_ = {};
    for_each_row_of_c<false>(in, Value(0), Value(0), [&](int64_t row, int64_t count) {
      offsets[row + 1] = static_cast<Offset>(count);
      return Place{};
    });
    int64_t running = c.base;
    const int64_t most = static_cast<int64_t>(std::numeric_limits<Offset>::max());
    offsets[0] = static_cast<Offset>(running);
    for (int64_t row = 0; row < rows; ++row) {
      running += static_cast<int64_t>(offsets[row + 1]);
      if (running > most) {
        for (int64_t rest = row + 1; rest < rows; ++rest)
          running += static_cast<int64_t>(offsets[rest + 1]);
        return running - c.base;  // the plan reports the overflow
      }
      offsets[row + 1] = static_cast<Offset>(running);
    }
    return running - c.base;
  }

  void numeric(const Operands& in, MatrixDesc& c, const void* alpha_ptr,
               const void* beta_ptr) override {
    const auto C = view_of<Value, Offset, Col>(c);
    const Value alpha = load_scalar<Value>(alpha_ptr);
    const Value beta = in.D ? load_scalar<Value>(beta_ptr) : Value(0);
    // C's row offsets are what some symbolic phase wrote, but perhaps not for
    // these operands (structure changed without verification, C's offsets
    // edited, C shared with another plan): a row is written only inside its
    // range of C's arrays, and a row whose entries do not fill exactly that
    // range fails.
    auto refuse = [&](int64_t row, int64_t count) {
      fail(SPGEMM_STATUS_INVALID_VALUE,
           "C: row " + std::to_string(row) + " has " + std::to_string(count) +
               " entries but its row offsets give it [" + std::to_string(C.begin(row)) + ", " +
               std::to_string(C.end(row)) + ") of nnz(C) = " + std::to_string(c.nnz) +
               " (C's row offsets or the operands' structure changed since spgemmSymbolic)");
    };
    // C's columns as this engine's last numeric phase wrote them, in the
    // same arrays: each row first tries them (KnownColumns checks them).
    const WrittenArrays target{c.row_offsets, c.col_ind};
    const bool known = target == written_ && c.cols <= host::KnownColumns<Value, Col>::kMaxColumns;
    written_ = {};  // (a phase that throws leaves C's columns unknown)
    for_each_row_of_c<true>(
        in, alpha, beta,
        [&](int64_t row, int64_t count) {
          // count < 0: not known before the row is written (checked by `done`)
          const int64_t out = C.begin(row);
          if (out < 0 || C.end(row) > c.nnz || C.end(row) < out ||
              (count >= 0 && C.end(row) - out != count))
            refuse(row, count < 0 ? 0 : count);
          return Place{out, C.end(row)};
        },
        [&](int64_t row, int64_t count) {
          if (C.end(row) - C.begin(row) != count) refuse(row, count);
        },
        C.col_ind, C.values, static_cast<Col>(C.base), known);
    written_ = target;
  }

 private:
  WrittenArrays written_;  // (plan/engine.hpp)

  // What a phase learns of B before computing any row.
  struct Shape {
    // B's rows all strictly increasing (the usual case): a row's span is
    // read off its first and last column, and nothing below is kept per row
    // of B. Otherwise per row of B: least and greatest column (lo > hi:
    // empty) and whether it is strictly increasing.
    bool b_sorted = true;
    // the sum over A's entries of their B rows' lengths (D's not counted),
    // up to kMinProductsForThreads
    int64_t products = 0;
    std::vector<Col> b_lo, b_hi;
    std::vector<uint8_t> b_ordered;
    host::RowMethod forced = host::RowMethod::count_;
    // a window over all of C's columns fits a core's L2 (row_choice.hpp)
    bool columns_fit_cache = false;
    // At least half of B's rows of two or more entries are runs of
    // consecutive columns (B sorted): only then can many rows of C cover
    // their spans (dense_span), which the symbolic phase counts without
    // visiting their terms (count_by_marks). banded:500000:16's rows all
    // are; of the other 27 inputs of docs/performance.md ("Host backend"),
    // wb-cs-stanford's the most, 12%.
    bool b_runs = false;
  };

  // The facts row_choice.hpp chooses by, and the row's span [lo, hi].
  // Whether B's runs cover the span is proven where B is sorted and the
  // runs come in order of their first columns (a band, a block row): each
  // starts at most one past the columns covered so far.
  static host::RowFacts row_facts(const View& A, const View& B, const View& D, const Shape& s,
                                  int64_t row, int64_t& lo, int64_t& hi) {
    host::RowFacts f;
    lo = std::numeric_limits<int64_t>::max();
    hi = -1;
    f.a_entries = A.end(row) - A.begin(row);
    bool covers = s.b_sorted;
    for (int64_t i = A.begin(row); i < A.end(row); ++i) {
      const int64_t k = A.col(i);
      const int64_t first = B.begin(k), last = B.end(k);
      f.terms += last - first;
      if (s.b_sorted) {
        if (first < last) {
          const int64_t from = B.col(first), to = B.col(last - 1);
          covers = covers && to - from == last - first - 1 &&
                   (hi < 0 || (from >= lo && from <= hi + 1));
          lo = std::min(lo, from);
          hi = std::max(hi, to);
        }
        f.b_row_ordered = true;
      } else {
        lo = std::min(lo, static_cast<int64_t>(s.b_lo[static_cast<size_t>(k)]));
        hi = std::max(hi, static_cast<int64_t>(s.b_hi[static_cast<size_t>(k)]));
        f.b_row_ordered = s.b_ordered[static_cast<size_t>(k)] != 0;
      }
    }
    if (D.offsets) {
      f.d_entries = D.end(row) - D.begin(row);
      f.terms += f.d_entries;
      for (int64_t j = D.begin(row); j < D.end(row); ++j) {
        covers = covers && D.col(j) >= lo && D.col(j) <= hi;  // inside the covered span
        lo = std::min(lo, D.col(j));
        hi = std::max(hi, D.col(j));
      }
    }
    f.span = hi >= lo ? hi - lo + 1 : 0;
    f.covers_span = covers && f.span > 0;
    f.columns_fit_cache = s.columns_fit_cache;
    return f;
  }

  // Whether the row is a copy of one row of B, known without its facts: one
  // entry of A, no D, B sorted (row_choice.hpp's can_copy, where every row
  // of B is strictly increasing).
  static bool is_copy(const View& A, const View& D, const Shape& s, int64_t row) {
    return A.end(row) - A.begin(row) == 1 && !D.offsets && s.b_sorted;
  }

  // The mean span of the rows with terms among every kRowsPerBlock-th row
  // (row_choice.hpp, short_list_fits).
  static int64_t mean_span(const View& A, const View& B, const View& D, const Shape& s) {
    int64_t sum = 0, sampled = 0;
    for (int64_t row = 0; row < A.rows; row += kRowsPerBlock) {
      int64_t lo, hi;
      const int64_t span = row_facts(A, B, D, s, row, lo, hi).span;
      sum += span;
      sampled += span > 0;
    }
    return sampled > 0 ? sum / sampled : 0;
  }

  // The first cache line of each row of B that A's `row` names: of its
  // columns, and with Values of its values (kPrefetchRows).
  template <bool Values>
  static void prefetch_b_rows(const View& A, const View& B, int64_t row) {
    for (int64_t i = A.begin(row); i < A.end(row); ++i) {
      const int64_t j = B.begin(A.col(i));
      __builtin_prefetch(B.col_ind + j);
      if constexpr (Values) __builtin_prefetch(B.values + j);
    }
  }

  // Whether B's rows are strictly increasing (else their spans, kept per
  // row), and the products up to kMinProductsForThreads.
  static Shape shape_of(const View& A, const View& B) {
    Shape s;
    s.forced = forced_row_method();
    s.columns_fit_cache = B.cols <= host::kDenseMaxSpan &&
                          B.cols * static_cast<int64_t>(1 + sizeof(Value)) <= l2_cache_bytes();
    int64_t disorder = 0, longer = 0, runs = 0;
#pragma omp parallel for schedule(static) reduction(+ : disorder, longer, runs) if (B.entries() >= kMinPositionsForThreads)
    for (int64_t k = 0; k < B.rows; ++k) {
      for (int64_t j = B.begin(k) + 1; j < B.end(k); ++j) disorder += B.col(j) <= B.col(j - 1);
      const int64_t length = B.end(k) - B.begin(k);
      if (length >= 2) {
        ++longer;
        runs += B.col(B.end(k) - 1) - B.col(B.begin(k)) == length - 1;
      }
    }
    s.b_sorted = disorder == 0;
    s.b_runs = s.b_sorted && 2 * runs >= longer && longer > 0;
    // Counted only up to kMinProductsForThreads, all the phase asks of it:
    // the whole count is a pass over A with a random read of B's offsets per
    // entry, in each phase (spgemm-bench --threads 2 --gen stencil27:48
    // G3_circuit.mtx.gz: the symbolic phase the faster for it).
    const int64_t a_entries = A.entries();
    for (int64_t i = 0; i < a_entries && s.products < kMinProductsForThreads; ++i)
      s.products += B.end(A.col_ind[i] - A.base) - B.begin(A.col_ind[i] - A.base);
    if (!s.b_sorted) {
      const auto b_rows = static_cast<size_t>(B.rows);
      s.b_lo.resize(b_rows);
      s.b_hi.resize(b_rows);
      s.b_ordered.resize(b_rows);
#pragma omp parallel for schedule(static) if (B.rows >= kMinRowsForThreads)
      for (int64_t k = 0; k < B.rows; ++k) {
        int64_t lo = B.cols, hi = -1;
        bool ordered = true;
        for (int64_t j = B.begin(k); j < B.end(k); ++j) {
          const int64_t col = B.col(j);
          ordered = ordered && col > hi;
          lo = std::min(lo, col);
          hi = std::max(hi, col);
        }
        s.b_lo[static_cast<size_t>(k)] = static_cast<Col>(lo);
        s.b_hi[static_cast<size_t>(k)] = static_cast<Col>(hi);
        s.b_ordered[static_cast<size_t>(k)] = ordered;
      }
    }
    return s;
  }

  struct Scratch {
    host::DenseWindow<Value, Col> dense;
    host::TermList<Value, Col> list;
    host::HashRow<Value, Col> hash;
    host::ShortRow<Value, Col> short_row;  // a numeric phase's
    host::ColumnMarks marks;               // the symbolic phase's
    host::KnownColumns<Value, Col> known;  // a numeric phase's, C's columns known
  };

  // Where a row of C goes: entries [begin, end) of its arrays.
  struct Place {
    int64_t begin = 0, end = 0;
  };

  // The symbolic phase's count of a row's distinct columns where B's rows
  // are mostly runs or C is wider than the marks (else count_by_marks),
  // which needs no order: known from the row's shape (empty, a copy of one
  // row of B, a covered span), else counted by marks over C's `columns`
  // (accumulators.hpp, ColumnMarks); C wider than the marks: by the hash
  // table, or by sorted terms for the rows too long for one (and those
  // that the tests force to them).
  template <class Terms>
  static int64_t count_row(host::RowMethod method, const host::RowFacts& f, int64_t columns,
                           Scratch& scratch, Terms&& terms) {
    switch (method) {
      case host::RowMethod::empty: return 0;
      case host::RowMethod::copy: return f.terms;
      case host::RowMethod::dense_span: return f.span;
      default: break;
    }
    if (columns <= host::ColumnMarks::kMaxColumns) return scratch.marks.count(columns, terms);
    if (method != host::RowMethod::terms_sort && f.terms <= host::kHashMaxTerms) {
      scratch.hash.start(f.terms);
      const int64_t n = scratch.hash.template gather<false>(terms);
      scratch.hash.clear();
      return n;
    }
    scratch.list.start(f.terms);
    terms([&](int64_t col, Value) { scratch.list.template add<false>(col, Value(0)); });
    return scratch.list.sort_and_count();
  }

  // The symbolic phase's count of a row where C's columns fit the marks and
  // few rows can cover their spans (Shape::b_runs): by marks, without the
  // row's facts and method (count_row), whose pass over the row's entries
  // of A and its B rows' ends costs more than it spares there; a copy of
  // one sorted row of B is that row's length. The first and last cache
  // lines of the row's B rows are prefetched before the marks loop reads
  // them, as the facts' pass loaded them: without it, uniform:500000:8's
  // count took 2.3x the time (its B rows are read at random, and the loop
  // alone keeps fewer of them in flight).
  // Chosen with: spgemm-host-ab --threads 2 (docs/performance.md, "The
  //   symbolic phase by marks alone").
  template <class Terms>
  static int64_t count_by_marks(const View& A, const View& B, const View& D, const Shape& s,
                                int64_t row, Scratch& scratch, Terms&& terms) {
    if (is_copy(A, D, s, row)) {
      const int64_t k = A.col(A.begin(row));
      return B.end(k) - B.begin(k);
    }
    for (int64_t i = A.begin(row); i < A.end(row); ++i) {
      const int64_t k = A.col(i), first = B.begin(k);
      __builtin_prefetch(B.col_ind + first);
      __builtin_prefetch(B.col_ind + std::max(first, B.end(k) - 1));
    }
    return scratch.marks.count(B.cols, terms);
  }

  // Every row of C: its method (row_choice.hpp), its terms alpha * a * b
  // (and beta * d) gathered, its count passed to place(row, count), which
  // returns where the row goes in C (count -1: not known yet); with Values,
  // the row is then written to cols/values there (column + base; never past
  // the place's end), and where the count was not known, done(row, count)
  // gets it. With known, a row's columns already in C are tried first
  // (KnownColumns: only its values are written where they hold). Without
  // Values each row is only counted (count_row): no value array is read and
  // nothing is written.
  template <bool Values, class PlaceRow, class Done = void (*)(int64_t, int64_t)>
  void for_each_row_of_c(const Operands& in, Value alpha, Value beta, PlaceRow&& place,
                         Done&& done = nullptr, Col* cols = nullptr, Value* values = nullptr,
                         Col base = 0, bool known = false) {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
    const Shape s = shape_of(A, B);
    // Visits the row's terms in order: term(col, value). (The views are
    // copied into locals, which a flag store cannot alias.)
    auto for_each_term = [&](int64_t row, auto&& term) {
      const auto a = A;
      const auto b = B;
      const auto d = D;
      const Value al = alpha, be = beta;
      for (int64_t i = a.begin(row); i < a.end(row); ++i) {
        const int64_t k = a.col(i);
        const Value av = Values ? al * a.values[i] : Value(0);
        for (int64_t j = b.begin(k); j < b.end(k); ++j)
          term(b.col(j), Values ? av * b.values[j] : Value(0));
      }
      if (d.offsets)
        for (int64_t j = d.begin(row); j < d.end(row); ++j)
          term(d.col(j), Values ? be * d.values[j] : Value(0));
    };
    const int64_t d_entries = D.offsets ? D.entries() : 0;
    const bool threads = s.products + d_entries >= kMinProductsForThreads;
    const bool by_marks = B.cols <= host::ColumnMarks::kMaxColumns && !s.b_runs;
    // (where B's rows are mostly runs, rows can cover their spans, which
    // their facts tell: dense_span)
    const bool short_fits =
        Values && (!s.b_runs || s.forced == host::RowMethod::short_list) &&
        host::short_list_fits(B.cols, 1 + sizeof(Value), l2_cache_bytes(),
                              [&] { return mean_span(A, B, D, s); });
    // With known: the row's terms summed at C's columns already in its place
    // (KnownColumns), false where they are not the row's columns.
    auto sum_known = [&](int64_t row, const Place& range, Scratch& scratch) {
      return scratch.known.sum(cols + range.begin, values + range.begin, range.end - range.begin,
                               base, B.cols, [&](auto&& term) { for_each_term(row, term); });
    };
    // A numeric phase's row where short_list fits the phase: computed and
    // written where it is short (row_choice.hpp), else false. Kept out of
    // line, so that the row loop below keeps the other methods' code as it
    // is; against that loop alone, uniform:500000:8 (no short row) took
    // 1.06x the numeric phase's time with it inlined and 1.02-1.08x out of
    // line, one thread (docs/performance.md, "Short rows without their
    // facts").
    auto short_row = [&](int64_t row, Scratch& scratch) __attribute__((noinline)) {
      const Place range = place(row, -1);
      const int64_t length = range.end - range.begin;
      if (!host::takes_short_list(length, is_copy(A, D, s, row), s.forced)) return false;
      if (known && host::tries_known_columns(host::RowMethod::short_list) &&
          sum_known(row, range, scratch))
        return true;
      scratch.short_row.start(B.cols, length);
      // (refuses a row of another length)
      done(row, scratch.short_row.gather([&](auto&& term) { for_each_term(row, term); }));
      Col* const to_cols = cols + range.begin;
      Value* const to_values = values + range.begin;
      scratch.short_row.emit([&](int64_t n, int64_t col, Value value) {
        to_cols[n] = static_cast<Col>(col + base);
        to_values[n] = value;
      });
      return true;
    };
    for_each_block<Scratch>(A.rows, threads, [&](int64_t first, int64_t last, Scratch& scratch) {
      auto& dense = scratch.dense;
      auto& list = scratch.list;
      for (int64_t row = first; row < last; ++row) {
        if (row + kPrefetchRows < A.rows) prefetch_b_rows<Values>(A, B, row + kPrefetchRows);
        if constexpr (!Values) {
          if (by_marks) {
            place(row, count_by_marks(A, B, D, s, row, scratch,
                                      [&](auto&& term) { for_each_term(row, term); }));
            continue;
          }
        }
        if constexpr (Values) {
          if (short_fits && short_row(row, scratch)) continue;
        }
        Place at;
        auto write = [&](int64_t col, Value value) {
          if (at.begin < at.end) {
            cols[at.begin] = static_cast<Col>(col + base);
            values[at.begin] = value;
          }
          ++at.begin;
        };
        int64_t lo, hi;
        const host::RowFacts f = row_facts(A, B, D, s, row, lo, hi);
        const host::RowMethod method = host::choose_row_method(f, s.forced);
        if constexpr (!Values) {
          place(row, count_row(method, f, B.cols, scratch,
                               [&](auto&& term) { for_each_term(row, term); }));
        } else {
          if (known && host::tries_known_columns(method) && sum_known(row, place(row, -1), scratch))
            continue;
          switch (method) {
            case host::RowMethod::empty: place(row, 0); break;
            case host::RowMethod::copy: {
              const int64_t i = A.begin(row), k = A.col(i);
              at = place(row, B.end(k) - B.begin(k));
              const Value av = alpha * A.values[i];
              for (int64_t j = B.begin(k); j < B.end(k); ++j)
                write(B.col(j), Value(0) + av * B.values[j]);
              break;
            }
            case host::RowMethod::dense_span:
              dense.start(lo, hi, 0);
              dense.template gather<true, false, false, false, false>(
                  [&](auto&& term) { for_each_term(row, term); });
              at = place(row, f.span);
              dense.emit_span(lo, hi, write);
              break;
            case host::RowMethod::dense_scan:
            case host::RowMethod::dense_sort:
              if (method == host::RowMethod::dense_sort) {
                // over all of C's columns where they fit L2 (row_choice.hpp)
                dense.start(s.columns_fit_cache ? 0 : lo, hi, f.terms);
                at = place(row, dense.template gather<true, true, true, true, false>(
                                    [&](auto&& term) { for_each_term(row, term); }));
                dense.emit_listed(write);
              } else {
                // a span that is short for its terms is read whole, cheaper
                // than flagging each term's group; a longer one by its groups
                dense.start(lo, hi, 0);
                auto terms = [&](auto&& term) { for_each_term(row, term); };
                if (f.span <= host::kShortSpanPerTerm * f.terms) {
                  dense.template gather<true, true, false, false, false>(terms);
                  at = place(row, -1);  // counted as written
                  done(row, dense.emit_all_flagged(write));
                } else {
                  dense.template gather<true, true, false, false, true>(terms);
                  at = place(row, -1);
                  done(row, dense.emit_flagged(write));
                }
              }
              break;
            case host::RowMethod::hash:
              scratch.hash.start(f.terms);
              at = place(row, scratch.hash.template gather<true>(
                                  [&](auto&& term) { for_each_term(row, term); }));
              scratch.hash.emit(write);
              break;
            default:  // terms_sort
              list.start(f.terms);
              for_each_term(row, [&](int64_t col, Value v) { list.template add<true>(col, v); });
              at = place(row, list.sort_and_count());
              list.emit(write);
              break;
          }
        }
      }
    });
  }
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_host_engine() {
  return std::make_unique<HostEngine<Value, Offset, Col>>();
}

#define SPGEMM_INSTANTIATE_HOST_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_host_engine<Value, Offset, Col>();
#define SPGEMM_INSTANTIATE_HOST_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_HOST_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_HOST_ENGINES)

}  // namespace spgemm
