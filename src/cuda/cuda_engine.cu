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
// All work runs on the handle's stream; workspace comes from its pool, the
// caller's allocator, or the plan's buffer (workspace_bytes is its size).
#include "cuda/cuda_engine.hpp"

#include "core/arena.hpp"
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

// Everything the device computes about a product that the host may need.
struct Summary {
  BinCounts symbolic;
  BinCounts numeric;
  long long nnz;
  ProductStats products;  // C with <= kSmallMaxRows rows: statistics and gate
  int longest_row;        // small products: nnz of C's longest row
  unsigned long long b_disorder;  // examined: nonzero where a row of B repeats or lowers a column
  int rows_beyond;        // with a mask cap: rows beyond every symbolic table (MaskCap)
  int gate_shut;          // small products tried behind the gate: nonzero once a row has shut it
  unsigned int symbolic_blocks_done;  // small products: finished blocks (row_offsets.cuh)
  unsigned int work_counters[kMaxBins];  // a row counter per bin (binning.cuh's next_row)
  CsrDefects checks[kMaxCheckedOperands];  // analyze's input checks (~position; 0: none)
};

static_assert(sizeof(Summary) % sizeof(uint32_t) == 0, "the summary is posted in words");
static_assert(sizeof(Summary) <= Context::kZeroedBytes &&
                  sizeof(Summary) / sizeof(uint32_t) <= kPostZeroWordsPerThread * 32,
              "a gated small product's counters fit the handle's zeroed memory and its post");

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

// analyze's buffers, carved from one allocation (each pool allocation costs
// the host about a microsecond, which small products feel): the summary, the
// rows of both phases' bins, the terms of every row of C (the analysis
// counts them; both phases bin by them) and, only where the analysis finds
// them, the width and first column of their columns' range
// (TermCount::spans, span_firsts; the symbolic phase's binning and its
// bitmasks over ranges use them).
class AnalysisBuffers {
 public:
  Summary* summary = nullptr;
  int* symbolic_rows = nullptr;
  int* numeric_rows = nullptr;
  int* terms = nullptr;
  int* spans = nullptr;        // nullptr: not allocated
  int* span_firsts = nullptr;  // nullptr: not allocated

  // `ranges` arrays of the columns' ranges: 0, 1 (spans) or 2 (and firsts).
  static size_t bytes(int rows, int ranges) {
    return Arena::round_up(sizeof(Summary)) + (3 + ranges) * pitch(rows);
  }
  // Bytes from one array of rows to the next (terms, spans and span_firsts
  // follow each other: take_counts copies them at once).
  static size_t pitch(int rows) { return Arena::round_up(sizeof(int) * rows); }
  // Gives back the previous buffers first (never two at once).
  void reallocate(Context& ctx, int rows, int ranges) {
    block_.reallocate(ctx, bytes(rows, ranges));
    unsigned char* at = block_.get();
    summary = reinterpret_cast<Summary*>(at);
    at += Arena::round_up(sizeof(Summary));
    spans = span_firsts = nullptr;
    int** arrays[] = {&symbolic_rows, &numeric_rows, &terms, &spans, &span_firsts};
    for (int i = 0; i < 3 + ranges; ++i) {
      *arrays[i] = reinterpret_cast<int*>(at);
      at += pitch(rows);
    }
  }

 private:
  DeviceBuffer<unsigned char> block_;
};

// The side streams of one phase's bins (kernels.hpp's LaunchStreams):
// forked from the handle's stream for `launches` launches, joined to it
// again by done(), or on the way out if a launch threw.
class BinFork {
 public:
  BinFork(Context& ctx, int launches)
      : ctx_(ctx), sides_(std::min(std::max(launches - 1, 0), Context::kSideStreams)) {
    streams_.main = ctx.stream();
    if (sides_ > 0) streams_.side = ctx.fork(sides_);
    streams_.sides = sides_;
  }
  ~BinFork() {
    if (sides_ > 0) ctx_.join(sides_);
  }
  BinFork(const BinFork&) = delete;
  BinFork& operator=(const BinFork&) = delete;
  const LaunchStreams& streams() const { return streams_; }
  void done() {
    const int sides = std::exchange(sides_, 0);
    if (sides > 0) SPGEMM_CUDA_CHECK(ctx_.join(sides));
  }

 private:
  Context& ctx_;
  int sides_;
  LaunchStreams streams_;
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
  CudaEngine(Context& ctx, const Settings& settings)
      : ctx_(ctx),
        settings_(settings),
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
    for (const long long products : {known_products_, checked_products_})
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
    const cudaStream_t stream = ctx_.stream();
    lanes_ = lanes_for(in.B->rows, in.B->nnz);
    written_ = {};
    deferred_.count = 0;
    gate_ = {};
    // A product that looks small (configs/bins.hpp) is tried without a
    // readback here: the symbolic phase runs one kernel over all rows behind
    // a gate that its last block sets on the device, and its synchronization
    // brings the gate and the checks' verdict back. Other C with few rows
    // read their statistics back here, with the checks' verdict, unless
    // their products are known to be too many for the small-product mode
    // (a part of a split product: 20-25 us of each part's analysis of
    // landmark on two H200s).
    const bool small_ruled_out = in.products > kSmallMaxProducts;
    const Choices::Speculative speculative =
        small_ruled_out ? Choices::Speculative{}
                        : choices_.speculative(rows, estimated_products(in));
    const int bin = speculative.bin;
    const bool stats_read = rows <= kSmallMaxRows && !small_ruled_out;
    known_products_ = in.products;
    checked_products_ = -1;
    // counts made before (a split product's cut) are taken as they are
    // where there is nothing else to find: no checks, no statistics
    const CountedRows* counted = count == 0 && small_ruled_out ? in.counted : nullptr;
    b_order_examined_ = counted ? counted->b_examined : b_order_worth_examining(*in.B);
    // spans bound the binned symbolic phase's tables (a speculative small
    // product is not binned); their first columns place its warps'
    // bitmasks (counts made before bring none)
    const bool spans = bin < 0 && (!counted || counted->spans) &&
                       choices_.measure_ranges(rows, b_order_examined_);
    buffers_.reallocate(ctx_, rows, int{spans} + int{spans && (!counted || counted->span_firsts)});
    Summary* summary = buffers_.summary;
    // (the gated kernel counts into the handle's zeroed memory where it can:
    // no memset)
    counters_ = bin >= 0 ? static_cast<Summary*>(ctx_.zeroed_counters(sizeof(Summary))) : nullptr;
    if (!counters_) SPGEMM_CUDA_CHECK(cudaMemsetAsync(summary, 0, sizeof(Summary), stream));
    summary_stale_ = false;
    mask_cap_ = choices_.mask_cap(rows, in.B->cols, &counting()->rows_beyond);
    if (bin >= 0) {  // the analysis runs in the symbolic phase's kernel (symbolic_small)
      deferred_.keep(checks, count);
      symbolic_schedule_ = {nullptr, nullptr, nullptr, bin};
      gate_ = {true, speculative.gate_max_row};
      return;
    }
    // (with input checks, whose verdict is read back here anyway, the
    // products' total comes along: it spares nnz_lower_bound its pass)
    const TermCount terms = term_count(in, stats_read || count > 0);
    if (counted)
      take_counts(*counted, rows, terms);
    else
      launch_analysis<Offset, Col>(ctx_, checks, count, summary->checks, &terms);
    // The rows are binned before any readback, which then brings the bins'
    // counts too: the symbolic phase launches only bins with rows, with
    // exact grids (a product found small after all wasted the binning).
    bin_symbolic(rows);
    if (count == 0 && !stats_read) {
      schedule_binned(rows, nullptr);
      if (counted) symbolic_schedule_.most_terms = counted->most_terms;
      return;
    }
    const Summary host = read_summary();
    report_csr_defects<Offset, Col>(checks, count, host.checks);
    if (stats_read) known_products_ = host.products.total;
    if (count > 0 && !counted) checked_products_ = host.products.total;
    if (stats_read && schedule_small(rows, host.products)) return;
    symbolic_counts_ = host.symbolic;
    schedule_binned(rows, &symbolic_counts_);
  }

  int64_t symbolic(const Operands& in, MatrixDesc& c) override {
    const int rows = static_cast<int>(in.A->rows);
    const cudaStream_t stream = ctx_.stream();
    auto* offsets = static_cast<Offset*>(c.row_offsets);
    Summary* summary = buffers_.summary;
    written_ = {};
    bool shut = false;  // tried behind the gate, which stayed shut
    ProductStats stats{};
    if (gate_.tried) {  // tried behind the gate (analyze)
      // (the rows count their own terms: the pass only checks)
      const TermCount terms = term_count(in, true);
      TermCount checks_only = terms;
      checks_only.row_count = 0;
      const AnalysisPass<Offset, Col> pass = analysis_pass_of<Offset, Col>(
          ctx_, deferred_.operands, deferred_.count, counting()->checks, &checks_only);
      Summary host;
      try {
        host = symbolic_small(in, offsets, static_cast<Offset>(c.base), &pass, &terms);
      } catch (...) {
        if (counters_) ctx_.spoil_zeroed_counters();  // (may not have been set back)
        throw;
      }
      if (std::exchange(counters_, nullptr)) {  // (the plan's summary was never zeroed)
        posted_ = host;
        summary_stale_ = true;
      }
      report_csr_defects<Offset, Col>(deferred_.operands, deferred_.count, host.checks);
      deferred_.count = 0;
      gate_ = {};
      if (host.products.small_rows > 0) return small_nnz(host, rows);
      known_products_ = host.products.total;
      stats = host.products;
      shut = true;
    }
    if (summary_stale_) restore_counts();
    if (shut && !schedule_small(rows, stats)) {  // what analyze would have chosen
      bin_symbolic(rows);
      schedule_binned(rows, nullptr);
      symbolic_schedule_.most_terms = stats.max;  // (the bins no row reaches: skipped)
    }
    if (symbolic_schedule_.single_bin >= 0)
      return small_nnz(symbolic_small(in, offsets, static_cast<Offset>(c.base)), rows);
    // Rows without products are not binned: their count stays 0.
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(offsets, 0, sizeof(Offset) * (rows + 1), stream));
    BinFork fork(ctx_, scheduled_launches(choices_.layout(Phase::symbolic), symbolic_schedule_));
    launch_symbolic<Offset, Col>(choices_, pattern_of<Offset, Col>(in.A),
                                 pattern_of<Offset, Col>(in.B), pattern_of<Offset, Col>(in.D),
                                 rows, lanes_, buffers_.terms, symbolic_ranges(),
                                 symbolic_schedule_, offsets, nullptr, nullptr, fork.streams());
    fork.done();
    const Summary host = scan_bin_and_read(offsets, rows, static_cast<Offset>(c.base));
    b_sorted_ = b_order_examined_ && host.b_disorder == 0;
    numeric_counts_ = host.numeric;
    numeric_schedule_ = {&summary->numeric, buffers_.numeric_rows, &numeric_counts_, -1,
                         summary->work_counters};
    // (C's products are counted only for C of few rows: otherwise estimated)
    const double products = known_products_ >= 0 ? static_cast<double>(known_products_)
                                                  : estimated_products(in);
    numeric_schedule_.thread_rows = choices_.numeric_thread_rows(rows, products, host.nnz);
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
                                         static_cast<Value*>(c.values),
                                         b_sorted_};
    const WrittenArrays target{c.row_offsets, c.col_ind};
    DeviceBuffer<unsigned char> split_scratch;  // given back after the join
    Schedule schedule = numeric_schedule_;
    schedule.split = split_rows(in, c, split_scratch);
    BinFork fork(ctx_, scheduled_launches(choices_.layout(Phase::numeric), schedule));
    launch_numeric<Value, Offset, Col>(choices_, args, static_cast<int>(c.rows), lanes_,
                                       target == written_, schedule, fork.streams());
    fork.done();
    written_ = target;
  }

 private:
  // The last hash bin's rows split among blocks in the numeric phase where
  // Choices::split_parts says so (the bin's rows counted on the host), with
  // their scratch from `scratch` (its flags and counter zeroed); otherwise
  // none.
  SplitRows split_rows(const Operands& in, const MatrixDesc& c,
                       DeviceBuffer<unsigned char>& scratch) {
    const Schedule& s = numeric_schedule_;
    const BinLayout& layout = choices_.layout(Phase::numeric);
    const int last = layout.dense_bin() - 1;
    if (!s.host_counts || s.single_bin >= 0 || last < 0) return {};
    const int rows = s.host_counts->count[last];
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

  // The input checks whose verdict the symbolic phase reads back (copies of
  // the descriptors as analyze saw them, to name the defect).
  struct DeferredChecks {
    MatrixDesc matrices[kMaxCheckedOperands];
    CheckedOperand operands[kMaxCheckedOperands];
    int count = 0;
    void keep(const CheckedOperand* checks, int n) {
      for (count = 0; count < n; ++count) {
        matrices[count] = *checks[count].m;
        operands[count] = {&matrices[count], checks[count].name};
      }
    }
  };

  // Where the analysis and a gated small product's kernel count.
  Summary* counting() const { return counters_ ? counters_ : buffers_.summary; }

  // After a gated kernel that counted in the handle's zeroed memory, before
  // any kernel that counts in the plan's summary (a shut gate's symbolic
  // phase, or a later spgemmSymbolic): the summary, never zeroed, gets
  // what the binned phase reads on the device from it, as the gated kernel
  // posted it (the products' statistics, which a later small symbolic phase
  // reads back, B's disorder, the rows beyond the mask cap), and zeros for
  // the counters.
  void restore_counts() {
    Summary restored{};
    restored.products = posted_.products;
    restored.b_disorder = posted_.b_disorder;
    restored.rows_beyond = posted_.rows_beyond;
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(buffers_.summary, &restored, sizeof(Summary),
                                      cudaMemcpyHostToDevice, ctx_.stream()));
    summary_stale_ = false;
    if (mask_cap_.rows_beyond) mask_cap_.rows_beyond = &buffers_.summary->rows_beyond;
  }

  // What the analysis counts (analysis.cuh): the terms of every row, with
  // `stats` their statistics, B's order where it is examined, and the rows
  // beyond the mask cap; into counting().
  TermCount term_count(const Operands& in, bool stats) {
    Summary* summary = counting();
    TermCount terms{&in, buffers_.terms, stats ? &summary->products : nullptr};
    if (b_order_examined_) terms.b_disorder = &summary->b_disorder;
    terms.spans = buffers_.spans;  // (each nullptr where not counted)
    terms.span_firsts = buffers_.span_firsts;
    if (mask_cap_.rows_beyond) {
      terms.rows_beyond = &summary->rows_beyond;
      terms.beyond_terms = mask_cap_.beyond;
    }
    return terms;
  }

  // The symbolic phase of a small product: one kernel over all rows (behind
  // the gate if analyze set one, with `analysis` run in blocks of its own
  // beside the rows, which count `terms` themselves: row_offsets.cuh's
  // SmallFinish) whose last block writes C's offsets, and the summary read
  // back.
  Summary symbolic_small(const Operands& in, Offset* offsets, Offset base,
                         const AnalysisPass<Offset, Col>* analysis = nullptr,
                         const TermCount* terms = nullptr) {
    const int rows = static_cast<int>(in.A->rows);
    Summary* summary = counting();
    const Context::PostBox box = ctx_.post_box(sizeof(Summary));
    SmallFinish<Offset> finish{rows, base, &summary->nnz, &summary->longest_row,
                               &summary->symbolic_blocks_done,
                               post_into(box, summary, /*zero=*/counters_ != nullptr)};
    finish.counts = buffers_.symbolic_rows;  // (not binned: free)
    if (gate_.tried) {  // (no spans: analyze counts them only for binned products)
      finish.stats = terms->stats;
      finish.sizes = terms->sizes;
      finish.rows_beyond = terms->rows_beyond;
      finish.beyond_terms = terms->beyond_terms;
      finish.shut = &summary->gate_shut;
      finish.max_row_terms = gate_.max_row_terms;
    }
    finish.extents = {in.A->nnz, in.B->rows, in.B->nnz, in.D ? in.D->nnz : 0};
    launch_symbolic<Offset, Col>(choices_, pattern_of<Offset, Col>(in.A),
                                 pattern_of<Offset, Col>(in.B), pattern_of<Offset, Col>(in.D),
                                 rows, lanes_, nullptr, SymbolicRanges{}, symbolic_schedule_,
                                 offsets, &finish, analysis, LaunchStreams{ctx_.stream()});
    return wait_for_summary(box);
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

  // nnz(C) of a small product; its numeric phase runs in the sort bin that
  // holds its row of most terms, or else in the hash bin of its longest row
  // (there is one: nnz <= terms, and the symbolic bin was only chosen where
  // the numeric layout has one for the same rows).
  int64_t small_nnz(const Summary& host, int rows) {
    b_sorted_ = b_order_examined_ && host.b_disorder == 0;
    numeric_schedule_ = {nullptr, nullptr, nullptr,
                         choices_.small_numeric_bin(rows, host.products.max, host.longest_row)};
    return host.nnz;
  }

  // A small product's symbolic schedule, one bin over all rows, if its
  // statistics make it one (Choices::small_symbolic_bin); otherwise false.
  bool schedule_small(int rows, const ProductStats& stats) {
    const int bin = choices_.small_symbolic_bin(rows, stats.total, stats.max);
    if (bin < 0) return false;
    symbolic_schedule_ = {nullptr, nullptr, nullptr, bin};
    return true;
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
    Summary* summary = buffers_.summary;
    RowSizes sizes = sizes_from_terms(buffers_.terms, buffers_.spans, &summary->b_disorder);
    sizes.mask_cap = mask_cap_;
    symbolic_thresholds_ = choices_.symbolic_thresholds(rows);
    bin_rows(ctx_.limits(), sizes, rows, symbolic_thresholds_, &summary->symbolic,
             buffers_.symbolic_rows, ctx_.stream());
  }

  // The binned symbolic phase's column ranges, where the analysis found
  // them.
  SymbolicRanges symbolic_ranges() const {
    if (!buffers_.span_firsts) return {};
    return {buffers_.spans, buffers_.span_firsts, &buffers_.summary->b_disorder};
  }

  // The schedule of the binned rows of C's `rows`; with the bins' counts on
  // the host where they were read back.
  void schedule_binned(int rows, const BinCounts* host_counts) {
    Summary* summary = buffers_.summary;
    symbolic_schedule_ = {&summary->symbolic, buffers_.symbolic_rows, host_counts, -1,
                          summary->work_counters};
    symbolic_schedule_.one_warp_launch = choices_.few_launches(rows);
    symbolic_schedule_.thresholds = &symbolic_thresholds_;
  }

  // C's products (and D's entries) as if every row of B had B's average
  // length.
  static double estimated_products(const Operands& in) {
    const double per_b_row =
        in.B->rows > 0 ? static_cast<double>(in.B->nnz) / static_cast<double>(in.B->rows) : 0.0;
    return static_cast<double>(in.A->nnz) * per_b_row +
           (in.D ? static_cast<double>(in.D->nnz) : 0.0);
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
                              choices_.numeric_thresholds(rows, known_products_),
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
  const Settings& settings_;  // the handle's (the plan keeps them alive)
  Choices choices_;
  int lanes_ = 1;
  bool b_order_examined_ = false;  // by analyze (b_order_worth_examining, or as counted)
  bool b_sorted_ = false;          // ... and B's rows found strictly increasing (symbolic)
  // A gated small product's counters (analyze: the handle's zeroed memory,
  // Context::zeroed_counters), until its symbolic kernel has posted them;
  // nullptr: the plan's summary, zeroed by analyze.
  Summary* counters_ = nullptr;
  bool summary_stale_ = false;  // ... which have been posted (posted_), not the summary zeroed
  Summary posted_{};
  MaskCap mask_cap_;               // by analyze, for the symbolic binning
  long long known_products_ = -1;  // C's products where analyze or a missed gate read them back
  long long checked_products_ = -1;  // C's products where analyze's input checks read them back
  AnalysisBuffers buffers_;
  BinThresholds symbolic_thresholds_{};  // the symbolic binning's (symbolic_schedule_'s)
  BinCounts symbolic_counts_{};  // where analyze read them back
  BinCounts numeric_counts_{};
  DeferredChecks deferred_;
  // Whether analyze left a small product to be tried behind the gate
  // (ProductStats::small_rows) without knowing its statistics, and the most
  // terms a row may have for the gate to open.
  struct Gate {
    bool tried = false;
    int max_row_terms = 0;
  };
  Gate gate_;
  Schedule symbolic_schedule_;
  Schedule numeric_schedule_;
  WrittenArrays written_;
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx, const Settings& settings) {
  return std::make_unique<CudaEngine<Value, Offset, Col>>(ctx, settings);
}

#define SPGEMM_INSTANTIATE_CUDA_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_cuda_engine<Value, Offset, Col>(Context&, \
                                                                     const Settings&);
#define SPGEMM_INSTANTIATE_CUDA_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_CUDA_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_CUDA_ENGINES)

}  // namespace spgemm
