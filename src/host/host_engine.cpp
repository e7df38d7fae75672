#include "host/host_engine.hpp"

#include "core/csr_checks.hpp"
#include "core/error.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace spgemm {

namespace {

// Runs body(row, scratch) for every row on all threads; each thread owns one
// Scratch. Exceptions cannot leave an OpenMP region, so a failed allocation is
// recorded and rethrown as a status after the region.
template <class Scratch, class MakeScratch, class Body>
void for_each_row(int64_t rows, MakeScratch make_scratch, Body body) {
  std::atomic<bool> alloc_failed{false};
#pragma omp parallel
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

template <class Value, class Index>
class HostEngine final : public Engine {
 public:
  void check_structure(const MatrixDesc& m, const char* name) override {
    const auto* offsets = static_cast<const Index*>(m.row_offsets);
    const auto* cols = static_cast<const Index*>(m.col_ind);
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

  void analyze(const MatrixDesc&, const MatrixDesc&) override {}

  int64_t symbolic(const MatrixDesc& a, const MatrixDesc& b, MatrixDesc& c) override {
    const auto A = view_of<Value, Index>(a);
    const auto B = view_of<Value, Index>(b);
    std::vector<int64_t> row_nnz(static_cast<size_t>(A.rows));
    // marker[col] == row + 1 once col was seen in this row: no clearing needed.
    for_each_row<std::vector<int64_t>>(
        A.rows, [&] { return std::vector<int64_t>(static_cast<size_t>(B.cols), 0); },
        [&](int64_t row, std::vector<int64_t>& marker) {
          int64_t count = 0;
          for (Index i = A.row_offsets[row]; i < A.row_offsets[row + 1]; ++i) {
            const Index k = A.col_ind[i];
            for (Index j = B.row_offsets[k]; j < B.row_offsets[k + 1]; ++j) {
              int64_t& mark = marker[static_cast<size_t>(B.col_ind[j])];
              if (mark != row + 1) {
                mark = row + 1;
                ++count;
              }
            }
          }
          row_nnz[static_cast<size_t>(row)] = count;
        });
    int64_t total = 0;
    for (int64_t n : row_nnz) total += n;
    if (total > std::numeric_limits<Index>::max())
      return total;  // the plan reports the overflow; offsets are not written
    auto* offsets = static_cast<Index*>(c.row_offsets);
    int64_t running = 0;
    for (int64_t row = 0; row < A.rows; ++row) {
      offsets[row] = static_cast<Index>(running);
      running += row_nnz[static_cast<size_t>(row)];
    }
    offsets[A.rows] = static_cast<Index>(running);
    return total;
  }

  void numeric(const MatrixDesc& a, const MatrixDesc& b, MatrixDesc& c,
               const void* alpha_ptr) override {
    const auto A = view_of<Value, Index>(a);
    const auto B = view_of<Value, Index>(b);
    const auto C = output_of<Value, Index>(c);
    const Value alpha = *static_cast<const Value*>(alpha_ptr);
    struct Scratch {
      std::vector<Value> acc;
      std::vector<int64_t> marker;
      std::vector<Index> cols;
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
          for (Index i = A.row_offsets[row]; i < A.row_offsets[row + 1]; ++i) {
            const Index k = A.col_ind[i];
            const Value av = alpha * A.values[i];
            for (Index j = B.row_offsets[k]; j < B.row_offsets[k + 1]; ++j) {
              const Index col = B.col_ind[j];
              if (s.marker[static_cast<size_t>(col)] != row + 1) {
                s.marker[static_cast<size_t>(col)] = row + 1;
                s.acc[static_cast<size_t>(col)] = Value(0);
                s.cols.push_back(col);
              }
              s.acc[static_cast<size_t>(col)] += av * B.values[j];
            }
          }
          std::sort(s.cols.begin(), s.cols.end());
          Index out = C.row_offsets[row];
          for (Index col : s.cols) {
            C.col_ind[out] = col;
            C.values[out] = s.acc[static_cast<size_t>(col)];
            ++out;
          }
        });
  }
};

}  // namespace

template <class Value, class Index>
std::unique_ptr<Engine> make_host_engine() {
  return std::make_unique<HostEngine<Value, Index>>();
}

template std::unique_ptr<Engine> make_host_engine<float, int32_t>();
template std::unique_ptr<Engine> make_host_engine<double, int32_t>();

}  // namespace spgemm
