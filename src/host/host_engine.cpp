// SPDX-License-Identifier: Apache-2.0
#include "host/host_engine.hpp"

#include "core/csr_checks.hpp"
#include "core/error.hpp"
#include "core/values.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <cstdint>
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

// Runs body(row, scratch) for every row on all threads; each thread owns one
// Scratch. Exceptions cannot leave an OpenMP region, so the first one thrown
// (a failed allocation, a row that disagrees with C's row offsets) is kept,
// every thread then skips its remaining rows, and it is rethrown after the
// region.
template <class Scratch, class MakeScratch, class Body>
void for_each_row(int64_t rows, MakeScratch make_scratch, Body body) {
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  auto keep = [&] {
    if (!failed.exchange(true)) first = std::current_exception();
  };
#pragma omp parallel if (rows >= kMinRowsForThreads)
  {
    Scratch scratch;
    try {
      scratch = make_scratch();
    } catch (...) {
      keep();
    }
#pragma omp for schedule(dynamic, 64)
    for (int64_t row = 0; row < rows; ++row) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        body(row, scratch);
      } catch (...) {
        keep();
      }
    }
  }
  if (first) std::rethrow_exception(first);
}

// Row accumulators. Both sum a column's terms in the order they come (A's
// entries in order, each with B's row in order, then D's row), so they give
// the same bits.
// Dense: a marker and a value per column of C, O(1) per term; its arrays have
// B.cols entries per thread, so it serves products up to kDenseMaxCols
// columns (2^27 columns took 4.2 GB on two threads).
// Sorted: the row's terms in a list, stably sorted by column; memory follows
// the row, not the width of C.
constexpr int64_t kDenseMaxCols = int64_t{1} << 22;

template <class Value, class Col>
class DenseRow {
 public:
  DenseRow() = default;
  explicit DenseRow(int64_t cols)
      : marker_(static_cast<size_t>(cols), -1), acc_(static_cast<size_t>(cols)) {
    cols_.reserve(static_cast<size_t>(cols));  // push_back below never allocates
  }
  void start(int64_t row) {
    row_ = row;
    cols_.clear();
  }
  void add(int64_t col, Value term) {
    const auto c = static_cast<size_t>(col);
    if (marker_[c] != row_) {
      marker_[c] = row_;
      acc_[c] = Value(0);
      cols_.push_back(static_cast<Col>(col));
    }
    acc_[c] += term;
  }
  int64_t count() const { return static_cast<int64_t>(cols_.size()); }
  // out(col, value) for every column of the row, in column order.
  template <class Out>
  void emit(Out&& out) {
    std::sort(cols_.begin(), cols_.end());
    for (const Col col : cols_) out(col, acc_[static_cast<size_t>(col)]);
  }

 private:
  std::vector<int64_t> marker_;
  std::vector<Value> acc_;
  std::vector<Col> cols_;
  int64_t row_ = -1;
};

template <class Value, class Col>
class SortedRow {
 public:
  SortedRow() = default;
  explicit SortedRow(int64_t) {}
  void start(int64_t) { terms_.clear(); }
  void add(int64_t col, Value term) { terms_.push_back({static_cast<Col>(col), term}); }
  int64_t count() {
    sort();
    int64_t distinct = 0;
    for (size_t i = 0; i < terms_.size(); ++i)
      distinct += i == 0 || terms_[i].col != terms_[i - 1].col;
    return distinct;
  }
  template <class Out>
  void emit(Out&& out) {
    sort();
    for (size_t i = 0; i < terms_.size();) {
      Value sum = Value(0);
      const Col col = terms_[i].col;
      for (; i < terms_.size() && terms_[i].col == col; ++i) sum += terms_[i].value;
      out(col, sum);
    }
  }

 private:
  struct Term {
    Col col;
    Value value;
  };
  void sort() {
    std::stable_sort(terms_.begin(), terms_.end(),
                     [](const Term& x, const Term& y) { return x.col < y.col; });
  }
  std::vector<Term> terms_;
};

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
    for (int64_t i = 0; i < positions; ++i)
      inspect_csr_position(i, m.rows, m.cols, m.nnz, entries, m.base, offsets, cols,
                           [&](int defect, int64_t at) {
                             found.first[defect] =
                                 std::min(found.first[defect], static_cast<uint64_t>(at));
                           });
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
    check_structures(checks, count);
  }

  int64_t nnz_lower_bound(const Operands& in, int64_t) override {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
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
    const int64_t rows = in.A->rows;
    std::vector<int64_t> row_nnz(static_cast<size_t>(rows));
    for_each_row_of_c<false>(in, Value(0), Value(0), [&](int64_t row, auto& acc) {
      row_nnz[static_cast<size_t>(row)] = acc.count();
    });
    int64_t total = 0;
    for (int64_t n : row_nnz) total += n;
    if (total > std::numeric_limits<Offset>::max() - c.base)
      return total;  // the plan reports the overflow; offsets are not written
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    int64_t running = c.base;
    for (int64_t row = 0; row < rows; ++row) {
      offsets[row] = static_cast<Offset>(running);
      running += row_nnz[static_cast<size_t>(row)];
    }
    offsets[rows] = static_cast<Offset>(running);
    return total;
  }

  void numeric(const Operands& in, MatrixDesc& c, const void* alpha_ptr,
               const void* beta_ptr) override {
    const auto C = view_of<Value, Offset, Col>(c);
    const Value alpha = load_scalar<Value>(alpha_ptr);
    const Value beta = in.D ? load_scalar<Value>(beta_ptr) : Value(0);
    for_each_row_of_c<true>(in, alpha, beta, [&](int64_t row, auto& acc) {
      // C's row offsets are what some symbolic phase wrote, but perhaps not
      // for these operands (structure changed without verification, C's
      // offsets edited, C shared with another plan): a row is written only
      // where they hold exactly its entries, inside C's arrays.
      int64_t out = C.begin(row);
      const int64_t count = acc.count();
      if (out < 0 || C.end(row) - out != count || C.end(row) > c.nnz)
        fail(SPGEMM_STATUS_INVALID_VALUE,
             "C: row " + std::to_string(row) + " has " + std::to_string(count) +
                 " entries but its row offsets give it [" + std::to_string(out) + ", " +
                 std::to_string(C.end(row)) + ") of nnz(C) = " + std::to_string(c.nnz) +
                 " (C's row offsets or the operands' structure changed since spgemmSymbolic)");
      acc.emit([&](Col col, Value value) {
        C.col_ind[out] = static_cast<Col>(col + C.base);
        C.values[out] = value;
        ++out;
      });
    });
  }

 private:
  // done(row, accumulator) for every row of C, once its terms alpha * a * b
  // and beta * d are in the accumulator (dense or sorted by C's width).
  // Without Values (symbolic phase) the terms are zeros and no value array
  // is read.
  template <bool Values, class Done>
  void for_each_row_of_c(const Operands& in, Value alpha, Value beta, Done&& done) {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
    auto run = [&](auto accumulator) {
      using Row = decltype(accumulator);
      for_each_row<Row>(
          A.rows, [&] { return Row(B.cols); },
          [&](int64_t row, Row& acc) {
            acc.start(row);
            for (int64_t i = A.begin(row); i < A.end(row); ++i) {
              const int64_t k = A.col(i);
              const Value av = Values ? alpha * A.values[i] : Value(0);
              for (int64_t j = B.begin(k); j < B.end(k); ++j)
                acc.add(B.col(j), Values ? av * B.values[j] : Value(0));
            }
            if (D.offsets)
              for (int64_t j = D.begin(row); j < D.end(row); ++j)
                acc.add(D.col(j), Values ? beta * D.values[j] : Value(0));
            done(row, acc);
          });
    };
    if (B.cols <= kDenseMaxCols)
      run(DenseRow<Value, Col>());
    else
      run(SortedRow<Value, Col>());
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
