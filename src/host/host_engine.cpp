#include "host/host_engine.hpp"

#include "core/csr_checks.hpp"
#include "core/error.hpp"
#include "core/values.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace spgemm {

namespace {

// Below this many rows a product runs on the calling thread alone: waking a
// team costs more than such a product (a 50 x 50 product took 10 ms in the
// parallel region on a loaded 2-core machine, 0.02 ms serially).
constexpr int64_t kMinRowsForThreads = 256;

// Runs body(row, scratch) for every row on all threads; each thread owns one
// Scratch. Exceptions cannot leave an OpenMP region, so a failed allocation is
// recorded and rethrown as a status after the region.
template <class Scratch, class MakeScratch, class Body>
void for_each_row(int64_t rows, MakeScratch make_scratch, Body body) {
  std::atomic<bool> alloc_failed{false};
#pragma omp parallel if (rows >= kMinRowsForThreads)
  {
    Scratch scratch;
    bool ok = true;
    try {
      scratch = make_scratch();
    } catch (const std::bad_alloc&) {
      ok = false;
      alloc_failed = true;
    }
#pragma omp for schedule(dynamic, 64)
    for (int64_t row = 0; row < rows; ++row)
      if (ok) body(row, scratch);
  }
  if (alloc_failed) fail(SPGEMM_STATUS_ALLOC_FAILED, "host backend: out of host memory");
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
  void check_structure(const MatrixDesc& m, const char* name) override {
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    CsrDefects found;
    std::fill(std::begin(found.first), std::end(found.first), CsrDefects::kNoDefect);
    const int64_t positions = std::max(m.rows + 1, m.nnz);
    for (int64_t i = 0; i < positions; ++i)
      inspect_csr_position(i, m.rows, m.cols, m.nnz, m.base, offsets, cols,
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

  uint64_t fingerprint(const MatrixDesc& m) override {
    const auto* offsets = static_cast<const Offset*>(m.row_offsets);
    const auto* cols = static_cast<const Col*>(m.col_ind);
    uint64_t sum = 0;
    for (int64_t i = 0; i < std::max(m.rows + 1, m.nnz); ++i)
      sum += fingerprint_position(i, m.rows, m.nnz, offsets, cols);
    return sum;
  }

  void analyze(const Operands&) override {}

  int64_t symbolic(const Operands& in, MatrixDesc& c) override {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
    std::vector<int64_t> row_nnz(static_cast<size_t>(A.rows));
    // marker[col] == row + 1 once col was seen in this row: no clearing needed.
    for_each_row<std::vector<int64_t>>(
        A.rows, [&] { return std::vector<int64_t>(static_cast<size_t>(B.cols), 0); },
        [&](int64_t row, std::vector<int64_t>& marker) {
          int64_t count = 0;
          auto see = [&](int64_t col) {
            int64_t& mark = marker[static_cast<size_t>(col)];
            if (mark != row + 1) {
              mark = row + 1;
              ++count;
            }
          };
          for (int64_t i = A.begin(row); i < A.end(row); ++i) {
            const int64_t k = A.col(i);
            for (int64_t j = B.begin(k); j < B.end(k); ++j) see(B.col(j));
          }
          if (D.offsets)
            for (int64_t j = D.begin(row); j < D.end(row); ++j) see(D.col(j));
          row_nnz[static_cast<size_t>(row)] = count;
        });
    int64_t total = 0;
    for (int64_t n : row_nnz) total += n;
    if (total > std::numeric_limits<Offset>::max() - c.base)
      return total;  // the plan reports the overflow; offsets are not written
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    int64_t running = c.base;
    for (int64_t row = 0; row < A.rows; ++row) {
      offsets[row] = static_cast<Offset>(running);
      running += row_nnz[static_cast<size_t>(row)];
    }
    offsets[A.rows] = static_cast<Offset>(running);
    return total;
  }

  void numeric(const Operands& in, MatrixDesc& c, const void* alpha_ptr,
               const void* beta_ptr) override {
    const auto A = view_of<const Value, const Offset, const Col>(*in.A);
    const auto B = view_of<const Value, const Offset, const Col>(*in.B);
    const auto D = addend_of(in);
    const auto C = view_of<Value, Offset, Col>(c);
    const Value alpha = load_scalar<Value>(alpha_ptr);
    const Value beta = in.D ? load_scalar<Value>(beta_ptr) : Value(0);
    struct Scratch {
      std::vector<Value> acc;
      std::vector<int64_t> marker;
      std::vector<Col> cols;
    };
    for_each_row<Scratch>(
        A.rows,
        [&] {
          Scratch s{std::vector<Value>(static_cast<size_t>(B.cols)),
                    std::vector<int64_t>(static_cast<size_t>(B.cols), 0), {}};
          // a row has at most B.cols entries: push_back below never allocates,
          // so nothing can throw inside the OpenMP region
          s.cols.reserve(static_cast<size_t>(B.cols));
          return s;
        },
        [&](int64_t row, Scratch& s) {
          s.cols.clear();
          auto accumulate = [&](int64_t column, Value term) {
            const auto col = static_cast<size_t>(column);
            if (s.marker[col] != row + 1) {
              s.marker[col] = row + 1;
              s.acc[col] = Value(0);
              s.cols.push_back(static_cast<Col>(col));
            }
            s.acc[col] += term;
          };
          for (int64_t i = A.begin(row); i < A.end(row); ++i) {
            const int64_t k = A.col(i);
            const Value av = alpha * A.values[i];
            for (int64_t j = B.begin(k); j < B.end(k); ++j) accumulate(B.col(j), av * B.values[j]);
          }
          if (D.offsets)
            for (int64_t j = D.begin(row); j < D.end(row); ++j)
              accumulate(D.col(j), beta * D.values[j]);
          std::sort(s.cols.begin(), s.cols.end());
          int64_t out = C.begin(row);
          for (const Col col : s.cols) {
            C.col_ind[out] = static_cast<Col>(col + C.base);
            C.values[out] = s.acc[static_cast<size_t>(col)];
            ++out;
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
