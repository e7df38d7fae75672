// SPDX-License-Identifier: Apache-2.0
// The GPU pipeline of one product, two-phase Gustavson with binning:
//   analyze:  terms per row (analysis/) -> rows binned by terms (binning/)
//   symbolic: nnz per row, per bin (kernels/symbolic.cu) -> one in-place
//             scan into C's row offsets, summed in 64 bits, whose last sum
//             is nnz(C) (CUB) -> rows re-binned by
//             their exact nnz for the numeric phase -> ONE readback of a
//             small summary (nnz(C) and the numeric bin counts): the only
//             host synchronization of a large product (posted to the
//             host, cuda/post.cuh, as analyze's readback is)
//   numeric:  per bin (kernels/numeric/), exact grids from the summary;
//             from the second numeric phase into the same arrays of C on,
//             rows keep the column indices already there if they still hold
//             (kernels/known_columns.cuh) and only get new values.
// Small products (configs/bins.hpp) are not binned at all: one kernel per
// phase over all rows, C's row offsets from its last block, which also posts
// the summary to the host (cuda/post.cuh: no copy, no synchronization). For C with few
// rows whose product is expected to be small, analyze does not synchronize:
// the symbolic phase's kernel runs behind a gate (analysis.cuh's
// ProductStats::small_rows) that opens only if the product is small and the
// input checks found nothing. That one kernel also runs the analysis's
// checks (in blocks of its own beside the rows', which count their terms
// themselves), and its last block sets the gate and writes C's offsets
// only if it opened; symbolic's readback brings the verdict,
// and a product that was not small after all goes the general way from
// there.
// Otherwise analyze reads back the input checks' verdict when it runs them
// and, for C with few rows, the products' total and maximum; that readback
// also brings the symbolic bins' counts, so that the symbolic phase then
// launches only the bins with rows, with exact grids (without it, every bin
// is launched and its kernel reads its count on the device).
// Each phase hands the next a typed result (pipeline.cuh): analyze an
// Analysis, whose path (gated, small or binned) the symbolic phase follows,
// and the symbolic phase a Structure, which the numeric phase follows.
// All work runs on the handle's stream; workspace comes from its pool, the
// caller's allocator, or the plan's buffer (workspace_bytes is its size).
#include "cuda/cuda_engine.hpp"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/analysis/analysis_pass.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/binning/row_offsets.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/configs/launch.cuh"
#include "cuda/dispatch/choice.hpp"
#include "cuda/kernels/kernels.hpp"
#include "cuda/operands/transpose.cuh"
#include "cuda/partition/row_split.hpp"
#include "cuda/pipeline.cuh"
#include "cuda/post.cuh"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/tabulate_output_iterator.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace spgemm {

namespace {

using namespace spgemm::cuda;

struct Sum64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

// Where the scan of row counts puts its 64-bit prefix sums: C's offset of
// every row, and, from the last (the total past the last row, which has no
// count), nnz(C) without the index base.
template <class Offset>
struct OffsetsAndTotal {
  Offset* offsets;
  int rows;
  long long base;
  long long* total;
  __host__ __device__ void operator()(long long i, long long prefix) const {
    offsets[i] = static_cast<Offset>(prefix);
    if (i == rows) *total = prefix - base;
  }
};

template <class T>
constexpr const char* name_of_type() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, ComplexFloat>) return "complex64";
  else if constexpr (std::is_same_v<T, ComplexDouble>) return "complex128";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32";
  else return "int64";
}

// "value/offset/column", as the choice log names an engine.
template <class Value, class Offset, class Col>
std::string type_name() {
  return std::string(name_of_type<Value>()) + "/" + name_of_type<Offset>() + "/" +
         name_of_type<Col>();
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
        choices_(ctx.limits(), sizeof(Value), sizeof(Offset), type_name<Value, Offset, Col>()) {}

  std::unique_ptr<Transpose> make_transpose() override {
    return make_cuda_transpose<Value, Offset, Col>(ctx_);
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    check_csr_structures<Offset, Col>(ctx_, operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return csr_fingerprint<Offset, Col>(ctx_, m); }

  int64_t nnz_lower_bound(const Operands& in, int64_t limit) override {
    // nnz(C) is at most the products' count: where analyze read it back and
    // it fits, no pass is needed (with the checks off and the pass run,
    // uniform:500000:8's pipeline took 0.93 ms against 0.87 with the checks
    // on and the pass spared, powerlaw:100000's 0.39 against 0.29; one H100,
    // spgemm-bench with and without --no-input-checks)
    for (const long long products : {analysis_.known_products, analysis_.checked_products})
      if (products >= 0 && products <= limit) return 0;
    return cuda::nnz_lower_bound<Offset, Col>(ctx_, in);
  }

  void output_overwritten() override { written_ = {}; }

  // analyze's buffers, symbolic's CUB scratch, and those of the input
  // checks and fingerprints.
  size_t workspace_bytes(const Operands& shapes) const override {
    const auto rows = static_cast<int>(shapes.A->rows);
    // (split_rows: at most half as many rows as SMs, B's columns in a table)
    const int64_t width = shapes.B->cols;
    const size_t split =
        width <= kHashBins[kHashBinCount - 1].table_size
            ? SplitRowsLayout(std::min<int64_t>(rows, ctx_.limits().sm_count / 2), width,
                              sizeof(Value))
                  .end
            : 0;
    return DeviceBuffer<unsigned char>::workspace_bytes(AnalysisBuffers::bytes(rows, 2)) +
           DeviceBuffer<unsigned char>::workspace_bytes(total_and_scan_temp_bytes(rows)) +
           DeviceBuffer<unsigned char>::workspace_bytes(split) + csr_checks_workspace_bytes();
  }

  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    const int rows = static_cast<int>(in.A->rows);
    written_ = {};
    analysis_ = {};
    Analysis& a = analysis_;
    a.lanes = lanes_for(in.B->rows, in.B->nnz);
    // A product that looks small (configs/bins.hpp) is tried without a
    // readback here: the symbolic phase runs one kernel over all rows behind
    // a gate that its last block sets on the device, and its synchronization
    // brings the gate and the checks' verdict back. Other C with few rows
    // read their statistics back here, with the checks' verdict, unless
    // their products are known to be too many for the small-product mode
    // (a part of a split product: 20-25 us of each part's analysis of
    // landmark on two H200s).
    const bool small_ruled_out = in.products > SmallPolicy::max_products;
    const Choices::Speculative speculative =
        small_ruled_out ? Choices::Speculative{}
                        : choices_.speculative(rows, estimated_products(in));
    const bool gated = speculative.bin >= 0;
    const bool stats_read = rows <= SmallPolicy::max_rows && !small_ruled_out;
    a.known_products = in.products;
    // counts made before (a split product's cut) are taken as they are
    // where there is nothing else to find: no checks, no statistics
    const CountedRows* counted = count == 0 && small_ruled_out ? in.counted : nullptr;
    a.b_order_examined = counted ? counted->b_examined : b_order_worth_examining(*in.B);
    // spans bound the binned symbolic phase's tables (a gated product is
    // not binned); their first columns place its warps' bitmasks (counts
    // made before bring none)
    const bool spans = !gated && (!counted || counted->spans) &&
                       choices_.measure_ranges(rows, a.b_order_examined);
    buffers_.reallocate(ctx_, rows, int{spans} + int{spans && (!counted || counted->span_firsts)});
    // (the gated kernel counts into the handle's zeroed memory where it can:
    // no memset)
    if (gated) a.counters = static_cast<Summary*>(ctx_.zeroed_counters(sizeof(Summary)));
    if (!a.counters)
      SPGEMM_CUDA_CHECK(cudaMemsetAsync(buffers_.summary, 0, sizeof(Summary), ctx_.stream()));
    a.mask_cap = choices_.mask_cap(rows, in.B->cols, &counting()->rows_beyond);
    if (gated) {  // the analysis runs in the symbolic phase's kernel (symbolic_gated)
      a.path = Path::gated;
      a.bin = speculative.bin;
      a.gate_max_row_terms = speculative.gate_max_row;
      a.deferred.keep(checks, count);
      return;
    }
    // (with input checks, whose verdict is read back here anyway, the
    // products' total comes along: it spares nnz_lower_bound its pass)
    const TermCount terms = term_count(in, stats_read || count > 0);
    if (counted)
      take_counts(*counted, rows, terms);
    else
      launch_analysis<Offset, Col>(ctx_, checks, count, buffers_.summary->checks, &terms);
    // The rows are binned before any readback, which then brings the bins'
    // counts too: the symbolic phase launches only bins with rows, with
    // exact grids (a product found small after all wasted the binning).
    bin_symbolic(rows);
    if (count == 0 && !stats_read) {
      if (counted) a.most_terms = counted->most_terms;
      return;
    }
    const Summary host = read_summary();
    report_csr_defects<Offset, Col>(checks, count, host.checks);
    if (stats_read) a.known_products = host.products.total;
    if (count > 0 && !counted) a.checked_products = host.products.total;
    if (stats_read && choose_small(rows, host.products)) return;
    a.counts = host.symbolic;
  }

  int64_t symbolic(const Operands& in, MatrixDesc& c) override {
    const int rows = static_cast<int>(in.A->rows);
    written_ = {};
    if (analysis_.path == Path::gated) {
      const Summary host = symbolic_gated(in, c);
      if (host.products.small_rows > 0) return small_structure(host, rows);  // (the gate opened)
    }
    if (analysis_.posted) restore_counts();
    if (analysis_.path == Path::small) return small_structure(symbolic_small(in, c), rows);
    return symbolic_binned(in, c);
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
                                         static_cast<Value*>(c.values),
                                         structure_.b_sorted};
    const WrittenArrays target{c.row_offsets, c.col_ind};
    DeviceBuffer<unsigned char> split_scratch;  // given back after the join
    Schedule schedule = numeric_schedule();
    schedule.split = split_rows(in, c, split_scratch);
    BinFork fork(ctx_, scheduled_launches(choices_.layout(Phase::numeric), schedule));
    launch_numeric<Value, Offset, Col>(choices_, args, static_cast<int>(c.rows), analysis_.lanes,
                                       target == written_, schedule, fork.streams());
    fork.done();
    written_ = target;
  }

 private:
  // ---- analyze ------------------------------------------------------------

  // Where the analysis and a gated product's kernel count.
  Summary* counting() const {
    return analysis_.counters ? analysis_.counters : buffers_.summary;
  }

  // What the analysis counts (analysis.cuh): the terms of every row, with
  // `stats` their statistics, B's order where it is examined, and the rows
  // beyond the mask cap; into counting().
  TermCount term_count(const Operands& in, bool stats) const {
    const Analysis& a = analysis_;
    Summary* summary = counting();
    TermCount terms{&in, buffers_.terms, stats ? &summary->products : nullptr};
    if (a.b_order_examined) terms.b_disorder = &summary->b_disorder;
    terms.spans = buffers_.spans;  // (each nullptr where not counted)
    terms.span_firsts = buffers_.span_firsts;
    if (a.mask_cap.rows_beyond) {
      terms.rows_beyond = &summary->rows_beyond;
      terms.beyond_terms = a.mask_cap.beyond;
    }
    return terms;
  }

  // What launch_analysis would write for `terms` (no statistics, no gate),
  // from the counts of the same rows made before: copied (from whichever
  // device holds them; the terms and, where analyze asked for them, the
  // ranges' widths and firsts, in one copy), B's disorder set where it was
  // found, the rows beyond the mask cap counted. (A split product's part,
  // whose cut counted all rows: an analysis kernel of its own would take
  // ~55 us a part, `spgemm-split-bench --devices 0,1 --gen stencil27:64`.)
  void take_counts(const CountedRows& counted, int rows, const TermCount& terms) {
    const cudaStream_t stream = ctx_.stream();
    const int arrays = 1 + int{terms.spans != nullptr} + int{terms.span_firsts != nullptr};
    if (rows > 0)
      SPGEMM_CUDA_CHECK(cudaMemcpy2DAsync(terms.sizes, AnalysisBuffers::pitch(rows), counted.terms,
                                          sizeof(int) * static_cast<size_t>(counted.pitch),
                                          sizeof(int) * static_cast<size_t>(rows), arrays,
                                          cudaMemcpyDefault, stream));
    if (terms.b_disorder && counted.b_disordered)  // (zeroed with the summary: now 1)
      SPGEMM_CUDA_CHECK(cudaMemsetAsync(terms.b_disorder, 1, 1, stream));
    if (terms.rows_beyond)
      launch_count_beyond(ctx_, terms.sizes, rows, terms.beyond_terms, terms.rows_beyond);
  }

  // The rows binned for the symbolic phase by their terms (which the
  // analysis counted), or by their columns' range where analyze counted it
  // (buffers_.spans) and it is narrower, within the mask cap.
  void bin_symbolic(int rows) {
    Analysis& a = analysis_;
    Summary* summary = buffers_.summary;
    RowSizes sizes = sizes_from_terms(buffers_.terms, buffers_.spans, &summary->b_disorder);
    sizes.mask_cap = a.mask_cap;
    a.path = Path::binned;
    a.thresholds = choices_.symbolic_thresholds(rows);
    bin_rows(ctx_.limits(), sizes, rows, a.thresholds, &summary->symbolic, buffers_.symbolic_rows,
             ctx_.stream());
  }

  // The small-product pipeline's one bin of all rows, if the products'
  // statistics make it one (Choices::small_symbolic_bin); otherwise false.
  bool choose_small(int rows, const ProductStats& stats) {
    const int bin = choices_.small_symbolic_bin(rows, stats.total, stats.max);
    if (bin < 0) return false;
    analysis_.path = Path::small;
    analysis_.bin = bin;
    return true;
  }

  // C's products (and D's entries) as if every row of B had B's average
  // length.
  static double estimated_products(const Operands& in) {
    const double per_b_row =
        in.B->rows > 0 ? static_cast<double>(in.B->nnz) / static_cast<double>(in.B->rows) : 0.0;
    return static_cast<double>(in.A->nnz) * per_b_row +
           (in.D ? static_cast<double>(in.D->nnz) : 0.0);
  }

  // ---- symbolic: a small product ------------------------------------------

  // A gated product's symbolic phase: its one kernel, which counts the
  // rows' terms itself and runs the input checks in blocks of its own, and
  // the verdict. The gate open, the path is small and the phase done (the
  // summary returned); shut, the path is what analyze would have chosen
  // from the products' statistics, with the rows binned where it is binned.
  Summary symbolic_gated(const Operands& in, MatrixDesc& c) {
    Analysis& a = analysis_;
    const int rows = static_cast<int>(in.A->rows);
    // (the rows count their own terms: the pass only checks)
    const TermCount terms = term_count(in, true);
    TermCount checks_only = terms;
    checks_only.row_count = 0;
    const auto deferred = a.deferred.operands();
    const AnalysisPass<Offset, Col> pass = analysis_pass_of<Offset, Col>(
        ctx_, deferred.data(), a.deferred.count, counting()->checks, &checks_only);
    Summary host;
    try {
      host = symbolic_small(in, c, &pass, &terms);
    } catch (...) {
      if (a.counters) ctx_.spoil_zeroed_counters();  // (may not have been set back)
      throw;
    }
    if (std::exchange(a.counters, nullptr)) a.posted = host;  // (the plan's summary was never zeroed)
    report_csr_defects<Offset, Col>(deferred.data(), a.deferred.count, host.checks);
    a.deferred.count = 0;
    if (host.products.small_rows > 0) {
      a.path = Path::small;
      return host;
    }
    a.known_products = host.products.total;
    if (a.posted) restore_counts();
    if (!choose_small(rows, host.products)) {
      bin_symbolic(rows);
      a.most_terms = host.products.max;  // (the bins no row reaches: skipped)
    }
    return host;
  }

  // The summary's counts as a gated kernel that counted in the handle's
  // zeroed memory posted them (Analysis::posted): what the binned phase
  // reads on the device from it (the products' statistics, which a later
  // small symbolic phase reads back, B's disorder, the rows beyond the mask
  // cap), and zeros for the counters.
  void restore_counts() {
    Analysis& a = analysis_;
    Summary restored{};
    restored.products = a.posted->products;
    restored.b_disorder = a.posted->b_disorder;
    restored.rows_beyond = a.posted->rows_beyond;
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(buffers_.summary, &restored, sizeof(Summary),
                                      cudaMemcpyHostToDevice, ctx_.stream()));
    a.posted.reset();
    if (a.mask_cap.rows_beyond) a.mask_cap.rows_beyond = &buffers_.summary->rows_beyond;
  }

  // The symbolic phase of a small product: one kernel over all rows (behind
  // the gate on the gated path, with `analysis` run in blocks of its own
  // beside the rows, which count `terms` themselves: row_offsets.cuh's
  // SmallFinish) whose last block writes C's offsets, and the summary read
  // back.
  Summary symbolic_small(const Operands& in, MatrixDesc& c,
                         const AnalysisPass<Offset, Col>* analysis = nullptr,
                         const TermCount* terms = nullptr) {
    const Analysis& a = analysis_;
    const int rows = static_cast<int>(in.A->rows);
    Summary* summary = counting();
    const Context::PostBox box = ctx_.post_box(sizeof(Summary));
    SmallFinish<Offset> finish{rows,
                               static_cast<Offset>(c.base),
                               &summary->nnz,
                               &summary->longest_row,
                               &summary->symbolic_blocks_done,
                               post_into(box, summary, /*zero=*/a.counters != nullptr)};
    finish.counts = buffers_.symbolic_rows;  // (not binned: free)
    if (a.path == Path::gated) {  // (no spans: analyze counts them only for binned products)
      finish.stats = terms->stats;
      finish.sizes = terms->sizes;
      finish.rows_beyond = terms->rows_beyond;
      finish.beyond_terms = terms->beyond_terms;
      finish.shut = &summary->gate_shut;
      finish.max_row_terms = a.gate_max_row_terms;
    }
    finish.extents = {in.A->nnz, in.B->rows, in.B->nnz, in.D ? in.D->nnz : 0};
    launch_symbolic<Offset, Col>(choices_, pattern_of<Offset, Col>(in.A),
                                 pattern_of<Offset, Col>(in.B), pattern_of<Offset, Col>(in.D),
                                 rows, a.lanes, nullptr, SymbolicRanges{}, symbolic_schedule(rows),
                                 static_cast<Offset*>(c.row_offsets), &finish, analysis,
                                 LaunchStreams{ctx_.stream()});
    return wait_for_summary(box);
  }

  // nnz(C) of a small product; its numeric phase runs in the sort bin that
  // holds its row of most terms, or else in the hash bin of its longest row
  // (there is one: nnz <= terms, and the symbolic bin was only chosen where
  // the numeric layout has one for the same rows).
  int64_t small_structure(const Summary& host, int rows) {
    structure_ = {};
    structure_.b_sorted = analysis_.b_order_examined && host.b_disorder == 0;
    structure_.bin = choices_.small_numeric_bin(rows, host.products.max, host.longest_row);
    return host.nnz;
  }

  // ---- symbolic: a binned product -----------------------------------------

  // The binned symbolic phase: the bins' kernels count each row's nnz into
  // C's row offsets, which scan_bin_and_read makes offsets; the numeric
  // bins' counts come back with nnz(C).
  int64_t symbolic_binned(const Operands& in, MatrixDesc& c) {
    const int rows = static_cast<int>(in.A->rows);
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    // Rows without products are not binned: their count stays 0.
    SPGEMM_CUDA_CHECK(
        cudaMemsetAsync(offsets, 0, sizeof(Offset) * (rows + 1), ctx_.stream()));
    const Schedule schedule = symbolic_schedule(rows);
    BinFork fork(ctx_, scheduled_launches(choices_.layout(Phase::symbolic), schedule));
    launch_symbolic<Offset, Col>(choices_, pattern_of<Offset, Col>(in.A),
                                 pattern_of<Offset, Col>(in.B), pattern_of<Offset, Col>(in.D),
                                 rows, analysis_.lanes, buffers_.terms, symbolic_ranges(),
                                 schedule, offsets, nullptr, nullptr, fork.streams());
    fork.done();
    const Summary host = scan_bin_and_read(offsets, rows, static_cast<Offset>(c.base));
    structure_ = {};
    structure_.b_sorted = analysis_.b_order_examined && host.b_disorder == 0;
    structure_.counts = host.numeric;
    // (C's products are counted only for C of few rows: otherwise estimated)
    const double products = analysis_.known_products >= 0
                                ? static_cast<double>(analysis_.known_products)
                                : estimated_products(in);
    structure_.thread_rows = choices_.numeric_thread_rows(rows, products, host.nnz);
    return host.nnz;
  }

  // The symbolic phase's schedule of C's `rows` rows, as analysis_ chose it.
  Schedule symbolic_schedule(int rows) const {
    const Analysis& a = analysis_;
    if (a.path != Path::binned) return {nullptr, nullptr, nullptr, a.bin};
    Summary* summary = buffers_.summary;
    Schedule s{&summary->symbolic, buffers_.symbolic_rows, a.counts ? &*a.counts : nullptr, -1,
               summary->work_counters};
    s.most_terms = a.most_terms;
    s.one_warp_launch = choices_.few_launches(rows);
    s.thresholds = &a.thresholds;
    return s;
  }

  // The binned symbolic phase's column ranges, where the analysis found
  // them.
  SymbolicRanges symbolic_ranges() const {
    if (!buffers_.span_firsts) return {};
    return {buffers_.spans, buffers_.span_firsts, &buffers_.summary->b_disorder};
  }

  // nnz(C) in 64 bits (so that overflow of the index type is detected, not
  // wrapped), and the row counts become row offsets in place, starting at
  // C's index base: one exclusive scan with a 64-bit sum over the counts and
  // the 0 past the last row (rows without products and offsets[rows] were
  // zeroed before the symbolic kernels). Then C's rows are binned for the
  // numeric phase by their nnz, and the summary is read back. All three by
  // one block for C of few rows (Choices::few_launches;
  // row_offsets.cuh), which posts the summary itself; else by CUB, bin_rows
  // and read_summary.
  Summary scan_bin_and_read(Offset* offsets, int rows, Offset base) {
    const cudaStream_t stream = ctx_.stream();
    Summary* summary = buffers_.summary;
    const NumericBinning bins{sizes_from_offsets(offsets, buffers_.terms),
                              choices_.numeric_thresholds(rows, analysis_.known_products),
                              &summary->numeric, buffers_.numeric_rows};
    if (choices_.few_launches(rows)) {
      const Context::PostBox box = ctx_.post_box(sizeof(Summary));
      const SmallFinish<Offset> f{rows,    base, &summary->nnz, &summary->longest_row,
                                  nullptr, post_into(box, summary)};
      launch(row_offsets_kernel<Offset>, 1, kOffsetsBlockThreads, 0, stream, offsets, f, bins);
      return wait_for_summary(box);
    }
    size_t bytes = total_and_scan_temp_bytes(rows);
    DeviceBuffer<unsigned char> temp(ctx_, bytes);
    cub_total_and_scan(temp.get(), bytes, offsets, rows, base, &summary->nnz, stream);
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(&summary->numeric, 0, sizeof(BinCounts), stream));
    bin_rows(ctx_.limits(), bins.sizes, rows, bins.thresholds, bins.counts, bins.binned_rows,
             stream);
    return read_summary();
  }

  // The CUB call of scan_bin_and_read. temp == nullptr: CUB only stores the
  // scratch it needs, which is how both the run and workspace_bytes size it.
  static void cub_total_and_scan(void* temp, size_t& bytes, Offset* offsets, int rows,
                                 Offset base, long long* total, cudaStream_t stream) {
    const auto out = thrust::make_tabulate_output_iterator(
        OffsetsAndTotal<Offset>{offsets, rows, static_cast<long long>(base), total});
    SPGEMM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, bytes, offsets, out, Sum64{},
                                                     static_cast<long long>(base), rows + 1,
                                                     stream));
  }

  static size_t total_and_scan_temp_bytes(int rows) {
    size_t bytes = 0;
    cub_total_and_scan(nullptr, bytes, nullptr, rows, Offset(0), nullptr, nullptr);
    return bytes;
  }

  // The summary, once the work enqueued so far is done (posted: a copy and
  // a stream synchronization take longer).
  Summary read_summary() {
    Summary host;
    read_back_posted(ctx_, &host, buffers_.summary, sizeof(Summary));
    return host;
  }

  // The summary a kernel posts into `box`.
  Summary wait_for_summary(const Context::PostBox& box) {
    Summary host;
    ctx_.wait_for(box, &host);
    return host;
  }

  // ---- numeric ------------------------------------------------------------

  // The numeric phase's schedule, as structure_ has it.
  Schedule numeric_schedule() const {
    const Structure& s = structure_;
    if (s.bin >= 0) return {nullptr, nullptr, nullptr, s.bin};
    Summary* summary = buffers_.summary;
    Schedule schedule{&summary->numeric, buffers_.numeric_rows, &s.counts, -1,
                      summary->work_counters};
    schedule.thread_rows = s.thread_rows;
    return schedule;
  }

  // The last hash bin's rows split among blocks in the numeric phase where
  // Choices::split_parts says so (binned products, the bin's rows counted
  // on the host), with their scratch from `scratch` (its flags and counter
  // zeroed); otherwise none.
  SplitRows split_rows(const Operands& in, const MatrixDesc& c,
                       DeviceBuffer<unsigned char>& scratch) {
    const BinLayout& layout = choices_.layout(Phase::numeric);
    const int last = layout.dense_bin() - 1;
    if (structure_.bin >= 0 || last < 0) return {};
    const int rows = structure_.counts.count[last];
    const auto width = static_cast<int>(std::min<int64_t>(in.B->cols, INT_MAX));
    const SplitRowsLayout split(rows, width, sizeof(Value));
    const int parts = choices_.split_parts(
        in.D != nullptr, in.B->cols, rows, static_cast<double>(split.end),
        static_cast<double>(c.nnz) * static_cast<double>(sizeof(Value) + sizeof(Col)));
    if (parts == 0) return {};
    scratch.reallocate(ctx_, split.end);
    const SplitRows rows_split =
        SplitRows::of(scratch.get(), parts, width, layout.hash[last].spec.table_size, split);
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(rows_split.flags, 0, split.zeroed_bytes(), ctx_.stream()));
    return rows_split;
  }

  Context& ctx_;
  Choices choices_;
  AnalysisBuffers buffers_;  // analyze's device arrays, kept for the plan's phases
  Analysis analysis_;        // by analyze (a gated symbolic phase settles its path)
  Structure structure_;      // by symbolic
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
