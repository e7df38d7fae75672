// The GPU pipeline of one product, two-phase Gustavson with binning:
//   analyze:  products per row (analysis/) -> rows binned by products (binning/)
//   symbolic: nnz per row, per bin (kernels/symbolic.cu) -> 64-bit total and
//             in-place scan into C's row offsets (CUB) -> rows re-binned by
//             their exact nnz for the numeric phase -> ONE readback of a
//             small summary (nnz(C) and the numeric bin counts): the only
//             host synchronization of a large product
//   numeric:  per bin (kernels/numeric.cu), exact grids from the summary;
//             from the second numeric phase into the same arrays of C on,
//             rows keep the column indices already there if they still hold
//             (kernels/known_columns.cuh) and only get new values.
// analyze reads back the input checks' verdict (when it runs them) and, for C
// with few rows, the products' total and maximum. Small products
// (configs/bins.hpp) are not binned at all: one kernel per phase over all
// rows, and C's row offsets from one block.
// All work runs on the handle's stream; workspace comes from its pool, the
// caller's allocator, or the plan's buffer (workspace_bytes is its size).
#include "cuda/cuda_engine.hpp"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/binning/row_offsets.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/kernels/kernels.hpp"
#include "cuda/operands/transpose.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

namespace spgemm {

namespace {

using namespace spgemm::cuda;

// Everything the device computes about a product that the host may need.
struct Summary {
  BinCounts symbolic;
  BinCounts numeric;
  long long nnz;
  ProductStats products;  // read back for C with <= kSmallMaxRows rows
  int longest_row;        // small products: nnz of C's longest row
  CsrDefects checks[kMaxCheckedOperands];  // input checks run by analyze
};

struct Sum64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

// Shifts an exclusive scan by the index base, so C's offsets come out in it.
template <class Offset>
struct PlusOffsets {
  __host__ __device__ Offset operator()(Offset a, Offset b) const { return a + b; }
};

// m == nullptr (no D): offsets nullptr, which the kernels read as no entries.
template <class Offset, class Col>
Pattern<Offset, Col> pattern_of(const MatrixDesc* m) {
  if (!m) return {nullptr, nullptr, 0, 0};
  return {static_cast<const Offset*>(m->row_offsets), static_cast<const Col*>(m->col_ind),
          static_cast<int>(m->cols), static_cast<int>(m->base)};
}

template <class Value>
const Value* values_of(const MatrixDesc* m) {
  return m ? static_cast<const Value*>(m->values) : nullptr;
}

template <class Value, class Offset, class Col>
class CudaEngine final : public Engine {
 public:
  explicit CudaEngine(Context& ctx)
      : ctx_(ctx),
        symbolic_layout_(make_bin_layout(ctx.limits(), sizeof(int))),
        numeric_layout_(make_bin_layout(ctx.limits(), sizeof(int) + sizeof(Value),
                                        ordered_scratch_bytes<Offset>())) {}

  std::unique_ptr<Transpose> make_transpose() override {
    return make_cuda_transpose<Value, Offset, Col>(ctx_);
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    check_csr_structures<Offset, Col>(ctx_, operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return csr_fingerprint<Offset, Col>(ctx_, m); }

  // analyze's three buffers, symbolic's CUB scratch, and those of the input
  // checks and fingerprints.
  size_t workspace_bytes(const Operands& shapes) const override {
    const auto rows = static_cast<int>(shapes.A->rows);
    return DeviceBuffer<Summary>::workspace_bytes(1) +
           2 * DeviceBuffer<int>::workspace_bytes(static_cast<size_t>(rows)) +
           DeviceBuffer<unsigned char>::workspace_bytes(total_and_scan_temp_bytes(rows)) +
           csr_checks_workspace_bytes();
  }

  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    const int rows = static_cast<int>(in.A->rows);
    const cudaStream_t stream = ctx_.stream();
    summary_.reallocate(ctx_, 1);
    symbolic_rows_.reallocate(ctx_, static_cast<size_t>(rows));
    numeric_rows_.reallocate(ctx_, static_cast<size_t>(rows));
    Summary* summary = summary_.get();
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(summary, 0, sizeof(Summary), stream));
    lanes_ = lanes_for(in.B->rows, in.B->nnz);
    written_ = {};
    launch_csr_checks<Offset, Col>(ctx_, checks, count, summary->checks);
    // The products per row are only needed until the rows are binned: they
    // borrow the numeric phase's row list.
    int* products = numeric_rows_.get();
    const bool maybe_small = rows <= kSmallMaxRows;
    row_products(pattern_of<Offset, Col>(in.A), pattern_of<Offset, Col>(in.B),
                 pattern_of<Offset, Col>(in.D), rows, products,
                 maybe_small ? &summary->products : nullptr, summary->checks, count, stream);
    if (count > 0 || maybe_small) {  // one readback: the checks' verdict and the statistics
      const Summary host = ctx_.read_back(summary);
      report_csr_defects<Offset, Col>(checks, count, host.checks);
      const int bin = maybe_small && host.products.total <= kSmallMaxProducts
                          ? small_bin(symbolic_layout_, rows, host.products.max)
                          : -1;
      if (bin >= 0 && small_bin(numeric_layout_, rows, host.products.max) >= 0) {
        symbolic_schedule_ = {nullptr, nullptr, nullptr, bin};
        return;
      }
    }
    bin_rows({products, nullptr}, rows, symbolic_layout_.thresholds, &summary->symbolic,
             symbolic_rows_.get(), stream);
    symbolic_schedule_ = {&summary->symbolic, symbolic_rows_.get(), nullptr, -1};
  }

  int64_t symbolic(const Operands& in, MatrixDesc& c) override {
    const int rows = static_cast<int>(in.A->rows);
    const cudaStream_t stream = ctx_.stream();
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    Summary* summary = summary_.get();
    written_ = {};
    const auto base = static_cast<Offset>(c.base);
    const bool small = symbolic_schedule_.single_bin >= 0;  // configs/bins.hpp
    // Rows without products are not binned: their count stays 0. (The single
    // bin of small products covers every row.)
    if (!small)
      SPGEMM_CUDA_CHECK(cudaMemsetAsync(offsets, 0, sizeof(Offset) * (rows + 1), stream));
    launch_symbolic<Offset, Col>(ctx_.limits(), symbolic_layout_, pattern_of<Offset, Col>(in.A),
                                 pattern_of<Offset, Col>(in.B), pattern_of<Offset, Col>(in.D),
                                 rows, lanes_, symbolic_schedule_, offsets, stream);
    if (small) {
      small_row_offsets(offsets, rows, base, &summary->nnz, &summary->longest_row, stream);
      const Summary host = ctx_.read_back(summary);
      // nnz <= products: the numeric layout has a bin (analyze checked)
      numeric_schedule_ = {nullptr, nullptr, nullptr,
                           small_bin(numeric_layout_, rows, host.longest_row)};
      return host.nnz;
    }
    total_and_scan(offsets, rows, base, &summary->nnz, stream);
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(&summary->numeric, 0, sizeof(BinCounts), stream));
    bin_rows(sizes_from_offsets(offsets), rows, numeric_layout_.thresholds, &summary->numeric,
             numeric_rows_.get(), stream);
    const Summary host = ctx_.read_back(summary);
    numeric_counts_ = host.numeric;
    numeric_schedule_ = {&summary->numeric, numeric_rows_.get(), &numeric_counts_, -1};
    return host.nnz;
  }

  void numeric(const Operands& in, MatrixDesc& c, const void* alpha,
               const void* beta) override {
    if (c.nnz == 0) return;
    NumericArgs<Value, Offset, Col> args{pattern_of<Offset, Col>(in.A),
                                         pattern_of<Offset, Col>(in.B),
                                         pattern_of<Offset, Col>(in.D),
                                         values_of<Value>(in.A),
                                         values_of<Value>(in.B),
                                         values_of<Value>(in.D),
                                         load_scalar<Value>(alpha),
                                         in.D ? load_scalar<Value>(beta) : Value(0),
                                         static_cast<const Offset*>(c.row_offsets),
                                         static_cast<int>(c.base),
                                         static_cast<Col*>(c.col_ind),
                                         static_cast<Value*>(c.values)};
    const WrittenArrays target{c.row_offsets, c.col_ind};
    launch_numeric<Value, Offset, Col>(ctx_.limits(), numeric_layout_, args,
                                       static_cast<int>(c.rows), lanes_, ctx_.deterministic(),
                                       target == written_, numeric_schedule_, ctx_.stream());
    written_ = target;
  }

 private:
  // The hash bin that takes all `rows` rows of a small product whose longest
  // row has `size` products (or nnz), -1 if none may (configs/bins.hpp).
  static int small_bin(const BinLayout& layout, int rows, int size) {
    for (int bin = 0; bin < static_cast<int>(layout.hash.size()); ++bin) {
      const HashBinSpec& spec = layout.hash[bin].spec;
      if (spec.max_size >= size)
        return static_cast<long long>(rows) * spec.table_size <= kSmallMaxTableSlots ? bin : -1;
    }
    return -1;
  }

  // nnz(C) in 64 bits (so that overflow of the index type is detected, not
  // wrapped), then the row counts become row offsets in place, starting at
  // C's index base.
  void total_and_scan(Offset* offsets, int rows, Offset base, long long* total,
                      cudaStream_t stream) {
    size_t reduce_bytes = total_and_scan_temp_bytes(rows), scan_bytes = reduce_bytes;
    DeviceBuffer<unsigned char> temp(ctx_, reduce_bytes);
    cub_total_and_scan(temp.get(), reduce_bytes, scan_bytes, offsets, rows, base, total, stream);
  }

  // The CUB calls of total_and_scan. temp == nullptr: CUB only stores the
  // scratch each needs, which is how both the run and workspace_bytes size it.
  static void cub_total_and_scan(void* temp, size_t& reduce_bytes, size_t& scan_bytes,
                                 Offset* offsets, int rows, Offset base, long long* total,
                                 cudaStream_t stream) {
    SPGEMM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp, reduce_bytes, offsets, total, rows, Sum64{},
                                                0LL, stream));
    SPGEMM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, scan_bytes, offsets, offsets,
                                                     PlusOffsets<Offset>{}, base, rows + 1,
                                                     stream));
  }

  static size_t total_and_scan_temp_bytes(int rows) {
    size_t reduce_bytes = 0, scan_bytes = 0;
    cub_total_and_scan(nullptr, reduce_bytes, scan_bytes, nullptr, rows, Offset(0), nullptr,
                       nullptr);
    return std::max(reduce_bytes, scan_bytes);
  }

  // C's arrays the last numeric phase since the symbolic phase wrote to:
  // if the next writes to the same, their column indices are worth trying
  // (they are checked row by row, never trusted; the first numeric phase
  // does not read them, so uninitialized arrays are never read).
  struct WrittenArrays {
    const void* row_offsets = nullptr;
    const void* col_ind = nullptr;
    bool operator==(const WrittenArrays& o) const {
      return row_offsets && row_offsets == o.row_offsets && col_ind == o.col_ind;
    }
  };

  Context& ctx_;
  BinLayout symbolic_layout_;
  BinLayout numeric_layout_;
  int lanes_ = 1;
  DeviceBuffer<Summary> summary_;
  DeviceBuffer<int> symbolic_rows_;
  DeviceBuffer<int> numeric_rows_;
  BinCounts numeric_counts_{};
  Schedule symbolic_schedule_;
  Schedule numeric_schedule_;
  WrittenArrays written_;
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx) {
  return std::make_unique<CudaEngine<Value, Offset, Col>>(ctx);
}

#define SPGEMM_INSTANTIATE_CUDA_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_cuda_engine<Value, Offset, Col>(Context&);
#define SPGEMM_INSTANTIATE_CUDA_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_CUDA_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_CUDA_ENGINES)

}  // namespace spgemm
