// SPDX-License-Identifier: Apache-2.0
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/configs/launch.cuh"
#include "cuda/partition/row_split.hpp"
#include "cuda/post.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;  // of every kernel here

struct Sum64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

struct Least {
  __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
};
struct Greatest {
  __device__ long long operator()(long long a, long long b) const { return a > b ? a : b; }
};

// What one share of the count leaves for the readback: its fingerprints
// (RowSplit::prints) and its rows' statistics (the most terms of a row).
struct ShareResults {
  unsigned long long prints[kMaxPrinted];
  ProductStats stats;
};

// What the counting pass reads back: the total, the checks' verdict,
// (counts kept) B's order, and each share's results (the handle's first).
struct Head {
  long long total;
  unsigned long long b_disorder;
  CsrDefects found[kMaxCheckedOperands];
  ShareResults shares[SPGEMM_MAX_DEVICES];
};

// One cut as the kernels write it (the span fields: RowSplit's, of the part
// the cut begins).
struct Cut {
  long long row_start, first_product, a_offset, d_offset;
  long long col_least, col_greatest, b_row_first, b_row_end, b_begin, b_end;
};
static_assert(sizeof(Head) % sizeof(uint32_t) == 0 && sizeof(Cut) % sizeof(uint32_t) == 0,
              "the box is posted in words");

// Parts a cut is made for at most (split_rows: one per device of a list).
constexpr int kMaxCutParts = SPGEMM_MAX_DEVICES;

template <class Offset>
struct CutArgs {
  const long long* before;  // products of the rows before each row boundary, rows + 1
  long long rows;
  int parts;
  double cumulative[kMaxCutParts + 1];  // shares summed up to each cut, 0 ... 1, parts + 1
  const Offset* a_offsets;
  const Offset* d_offsets;  // nullptr: no D
  long long* total;         // nullptr, or where the total of products goes
};

// Thread p finds cut p: the row boundary whose products before it come
// nearest to its share of the total (a binary search of the scan). Parts of
// share 0 at either end get no rows, not even rows without products.
template <class Offset>
__global__ void cut_kernel(CutArgs<Offset> s, Cut* out) {
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p > s.parts) return;
  const long long total = s.before[s.rows];
  if (p == 0 && s.total) *s.total = total;
  long long row = p == 0 || s.cumulative[p] <= 0.0 ? 0 : s.rows;
  if (p > 0 && p < s.parts && s.cumulative[p] > 0.0 && s.cumulative[p] < 1.0) {
    const double target = s.cumulative[p] * static_cast<double>(total);
    long long lo = 0, hi = s.rows;  // the first row boundary at or past the target
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (static_cast<double>(s.before[mid]) >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    row = lo;
    if (row > 0 && target - static_cast<double>(s.before[row - 1]) <
                       static_cast<double>(s.before[row]) - target)
      --row;
  }
  out[p] = {row,         s.before[row], static_cast<long long>(s.a_offsets[row]),
            s.d_offsets ? static_cast<long long>(s.d_offsets[row]) : 0,
            LLONG_MAX,   LLONG_MIN,
            0,           0,
            0,           0};
}

__device__ __forceinline__ long long clamped(long long x, long long lo, long long hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

// The least and greatest column of each part's entries of A (blockIdx.y:
// the part), block by block into its cut. (Reads stay within A's nnz
// entries, and B's rows, even where the input checks' verdict is not known
// yet: split_rows's cut for an expected total.)
template <class Col>
__global__ void __launch_bounds__(kThreads)
    span_kernel(const Col* cols, long long a_base, long long a_nnz, Cut* cuts) {
  using Reduce = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  Cut& cut = cuts[blockIdx.y];
  const long long begin = clamped(cut.a_offset - a_base, 0, a_nnz);
  const long long end = clamped(cuts[blockIdx.y + 1].a_offset - a_base, begin, a_nnz);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (long long i = begin + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < end; i += stride) {
    const auto c = static_cast<long long>(cols[i]);
    lo = c < lo ? c : lo;
    hi = c > hi ? c : hi;
  }
  lo = Reduce(temp).Reduce(lo, Least{});
  __syncthreads();
  hi = Reduce(temp).Reduce(hi, Greatest{});
  if (threadIdx.x == 0 && lo <= hi) {
    atomicMin(&cut.col_least, lo);
    atomicMax(&cut.col_greatest, hi);
  }
}

// Thread p: the rows of B that part p's columns name, and B's row offsets
// there.
template <class Offset>
__global__ void b_rows_kernel(const Offset* b_offsets, long long b_rows, long long a_base,
                              int parts, Cut* cuts) {
  const int p = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= parts) return;
  Cut& cut = cuts[p];
  const bool any = cut.col_least <= cut.col_greatest;
  cut.b_row_first = any ? clamped(cut.col_least - a_base, 0, b_rows) : 0;
  cut.b_row_end = any ? clamped(cut.col_greatest - a_base + 1, cut.b_row_first, b_rows)
                      : (b_rows < 1 ? b_rows : 1);
  cut.b_begin = static_cast<long long>(b_offsets[cut.b_row_first]);
  cut.b_end = static_cast<long long>(b_offsets[cut.b_row_end]);
}

template <class Offset>
__global__ void __launch_bounds__(kThreads)
    shift_kernel(Offset* out, const Offset* in, int64_t n, int64_t delta) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<Offset>(static_cast<int64_t>(in[i]) + delta);
}

// Blocks of kThreads for a grid-stride pass over n elements.
int64_t stride_blocks(const Context& ctx, int64_t n) {
  return std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1,
                             4 * std::max(1, ctx.limits().sm_count));
}

// out[i] = offsets[rows[i]].
template <class Offset>
__global__ void gather_kernel(const Offset* offsets, const long long* rows, long long n,
                              long long* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<long long>(offsets[rows[i]]);
}

// before[i] = products of the rows before row i, for i in [0, rows]
// (products[rows] is 0).
void scan_products(void* temp, size_t& bytes, const int* products, long long* before, int64_t rows,
                   cudaStream_t stream) {
  SPGEMM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, bytes, products, before, Sum64{}, 0LL,
                                                   rows + 1, stream));
}

size_t scan_temp_bytes(int64_t rows) {
  size_t bytes = 0;
  scan_products(nullptr, bytes, nullptr, nullptr, rows, nullptr);
  return bytes;
}

// The cuts of `shares` (each >= 0, not all 0) into cuts_d (parts + 1), and
// with `spans` the rows of B each part names, on ctx's stream; with `total`,
// the total of products there too.
template <class Offset, class Col>
void launch_cuts(Context& ctx, const Operands& in, const long long* before,
                 const std::vector<double>& shares, bool spans, Cut* cuts_d,
                 long long* total = nullptr) {
  const cudaStream_t stream = ctx.stream();
  const int parts = static_cast<int>(shares.size());
  if (parts > kMaxCutParts) fail(SPGEMM_STATUS_INTERNAL_ERROR, "split_rows: too many parts");
  double sum = 0;
  for (const double share : shares) sum += share;
  CutArgs<Offset> args{before,
                       in.A->rows,
                       parts,
                       {},
                       static_cast<const Offset*>(in.A->row_offsets),
                       in.D ? static_cast<const Offset*>(in.D->row_offsets) : nullptr,
                       total};
  double running = 0;
  for (int p = 0; p < parts; ++p) {
    args.cumulative[p] = running / sum;
    running += shares[static_cast<size_t>(p)];
  }
  args.cumulative[parts] = 1.0;
  const int blocks = (parts + 1 + kThreads - 1) / kThreads;
  launch(cut_kernel<Offset>, blocks, kThreads, 0, stream, args, cuts_d);
  if (!spans) return;
  const int64_t per_part = (in.A->nnz + parts - 1) / parts;
  const dim3 grid(static_cast<unsigned>(stride_blocks(ctx, per_part)),
                  static_cast<unsigned>(parts));
  launch(span_kernel<Col>, grid, kThreads, 0, stream, static_cast<const Col*>(in.A->col_ind),
         in.A->base, in.A->nnz, cuts_d);
  launch(b_rows_kernel<Offset>, (parts + kThreads - 1) / kThreads, kThreads, 0, stream,
         static_cast<const Offset*>(in.B->row_offsets), in.B->rows, in.A->base, parts, cuts_d);
}

// An event recorded on `stream` now (destroyed with its owner); the current
// device must be the stream's.
using OwnedEvent = std::unique_ptr<CUevent_st, cudaError_t (*)(cudaEvent_t)>;
OwnedEvent marked(cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  SPGEMM_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  OwnedEvent owned(event, cudaEventDestroy);
  SPGEMM_CUDA_CHECK(cudaEventRecord(event, stream));
  return owned;
}

// `stream` waits for `event` (the wait holds what it waits for: the event
// may go at once); the current device must be the stream's (a null stream
// is the current device's).
void wait_for(cudaStream_t stream, const OwnedEvent& event) {
  SPGEMM_CUDA_CHECK(cudaStreamWaitEvent(stream, event.get(), 0));
}

// Rows [first, first + rows) counted by `by` into the arrays of `into`
// (sizes, and spans with span_firsts) at the same rows, after `ready` (on
// the cut's stream: the buffers' allocation, the replicas as the caller's
// stream left them); the cut's stream then waits for them; its
// fingerprints (by.printed) and statistics are made on its device and
// copied into `results` (no peer atomics: not every pair of GPUs has
// them). Called with the cut's device current.
template <class Offset, class Col>
void count_elsewhere(const RowCounter& by, int64_t first, int64_t rows, const TermCount& into,
                     ShareResults* results, const OwnedEvent& ready, cudaStream_t cut_stream) {
  const cudaStream_t stream = by.ctx->stream();  // (a part's stream is its own, never null)
  wait_for(stream, ready);
  OwnedEvent counted(nullptr, cudaEventDestroy);
  {
    const Context::DeviceGuard guard(*by.ctx);
    TermCount terms{&by.in, into.sizes + first};
    if (into.spans) {
      terms.spans = into.spans + first;
      terms.span_firsts = into.span_firsts + first;
    }
    terms.first_row = first;
    terms.row_count = rows;
    // (freed in stream order, after the copy)
    DeviceBuffer<ShareResults> made(*by.ctx, 1);
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(made.get(), 0, sizeof(ShareResults), stream));
    terms.stats = &made.get()->stats;
    Fingerprints printed = by.printed;
    printed.sums = made.get()->prints;
    launch_analysis<Offset, Col>(*by.ctx, nullptr, 0, nullptr, &terms,
                                 printed.any() ? &printed : nullptr);
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(results, made.get(), sizeof(ShareResults),
                                      cudaMemcpyDefault, stream));
    counted = marked(stream);
  }
  wait_for(cut_stream, counted);
}

// shares_for(total), checked.
std::vector<double> checked_shares(
    const std::function<std::vector<double>(long long total)>& shares_for, long long total) {
  std::vector<double> shares = shares_for(total);
  double sum = 0;
  for (const double share : shares) sum += share;
  if (shares.empty() || !(sum > 0))
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "split_rows: shares must have a positive sum");
  return shares;
}

}  // namespace

std::optional<CountedRows> KeptCounts::from(int64_t first_row) const {
  if (!counts.get()) return std::nullopt;
  const int* terms = counts.get() + first_row;
  return CountedRows{terms, b_examined ? terms + pitch : nullptr,
                     b_examined ? terms + 2 * pitch : nullptr, pitch, b_examined, b_disordered,
                     most_terms};
}

size_t split_rows_workspace_bytes(int64_t rows, int parts) {
  return DeviceBuffer<int>::workspace_bytes(3 * (rows + 1)) +  // (terms, ranges' widths, firsts)
         DeviceBuffer<long long>::workspace_bytes(rows + 1) +
         DeviceBuffer<unsigned char>::workspace_bytes(sizeof(Head) + sizeof(Cut) * (parts + 1)) +
         DeviceBuffer<unsigned char>::workspace_bytes(scan_temp_bytes(rows)) +
         DeviceBuffer<Cut>::workspace_bytes(parts + 1);  // (cuts made again)
}

template <class Offset, class Col>
RowSplit split_rows(Context& ctx, const Operands& in, const CheckedOperand* checks, int count,
                    const Fingerprints& printed, bool spans, long long expected_total,
                    const std::function<std::vector<double>(long long total)>& shares_for,
                    KeptCounts* kept, const std::vector<RowCounter>& counters) {
  if (counters.size() >= SPGEMM_MAX_DEVICES)
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "split_rows: more counters than devices");
  RowSplit split;
  const int64_t rows = in.A->rows;
  const cudaStream_t stream = ctx.stream();
  // the terms of every row (the scan's input: a 0 past the last row), then
  // where B's order is examined the ranges' widths and firsts (KeptCounts)
  const bool b_examined = kept && rows > 0 && b_order_worth_examining(*in.B);
  const int64_t pitch = rows + 1;
  DeviceBuffer<int> counts(ctx, static_cast<size_t>(pitch * (b_examined ? 3 : 1)));
  int* const products = counts.get();
  DeviceBuffer<long long> before(ctx, static_cast<size_t>(rows + 1));
  const bool counted = rows > 0;  // (an A without rows may have no arrays at all)
  // The shares for the expected total, cut before the first readback; the
  // cut stands if the total's shares are the same.
  const std::vector<double> guessed =
      counted && expected_total >= 0 ? checked_shares(shares_for, expected_total)
                                     : std::vector<double>{};
  const size_t guessed_cuts = guessed.empty() ? 0 : guessed.size() + 1;
  // read back at once: the head, then the guessed cuts
  const size_t box_bytes = sizeof(Head) + sizeof(Cut) * guessed_cuts;
  DeviceBuffer<unsigned char> box(ctx, box_bytes);
  auto* head = reinterpret_cast<Head*>(box.get());
  auto* guessed_d = reinterpret_cast<Cut*>(box.get() + sizeof(Head));
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(head, 0, sizeof(Head), stream));
  TermCount terms{&in, products};
  if (b_examined) {  // (the disorder zeroed with the head)
    terms.b_disorder = &head->b_disorder;
    terms.spans = products + pitch;
    terms.span_firsts = products + 2 * pitch;
  }
  if (counted) SPGEMM_CUDA_CHECK(cudaMemsetAsync(products + rows, 0, sizeof(int), stream));
  // ctx counts the first share of the rows (with the checks and B's order);
  // the others theirs beside it, each on its device, from what ctx's stream
  // had before (a wait for ctx's count would leave them nothing to share).
  const auto sharing = static_cast<int64_t>(counters.size()) + 1;
  const OwnedEvent ready = sharing > 1 && counted ? marked(stream) : OwnedEvent(nullptr, nullptr);
  terms.row_count = rows / sharing;
  terms.stats = &head->shares[0].stats;
  Fingerprints home = printed;
  home.sums = head->shares[0].prints;
  const bool launched = counted || count > 0 || printed.any();
  if (launched)
    launch_analysis<Offset, Col>(ctx, checks, count, head->found, counted ? &terms : nullptr,
                                 &home);
  for (int64_t i = 1; counted && i < sharing; ++i) {
    const int64_t first = rows * i / sharing;
    count_elsewhere<Offset, Col>(counters[static_cast<size_t>(i - 1)], first,
                                 rows * (i + 1) / sharing - first, terms,
                                 &head->shares[i], ready, stream);
  }
  if (counted) {
    size_t bytes = scan_temp_bytes(rows);
    DeviceBuffer<unsigned char> temp(ctx, bytes);
    scan_products(temp.get(), bytes, products, before.get(), rows, stream);
    if (guessed.empty())
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(&head->total, before.get() + rows, sizeof(long long),
                                        cudaMemcpyDeviceToDevice, stream));
    else
      launch_cuts<Offset, Col>(ctx, in, before.get(), guessed, spans, guessed_d, &head->total);
  }
  std::vector<unsigned char> host(box_bytes);
  if (launched) {
    if (counted && !guessed.empty()) {
      // the box posted by a kernel behind the cuts, without a copy and a
      // stream synchronization (a third less from the scan's start to the
      // host's having the cut: `spgemm-split-bench --devices 0,1 --gen
      // stencil27:64`, traced with bench/trace_timeline.py)
      read_back_posted(ctx, host.data(), box.get(), host.size());
    } else {
      ctx.read_back(host.data(), box.get(), host.size());
    }
    Head verdict;
    std::memcpy(&verdict, host.data(), sizeof(Head));
    report_csr_defects<Offset, Col>(checks, count, verdict.found);
    split.total = verdict.total;
    // ctx's fingerprints, then those of the counters that ran
    const Fingerprints* of[SPGEMM_MAX_DEVICES] = {&printed};
    for (size_t i = 0; counted && i < counters.size(); ++i) of[i + 1] = &counters[i].printed;
    for (int64_t i = 0; i < (counted ? sharing : 1); ++i) {
      std::array<std::optional<uint64_t>, kMaxPrinted> sums;
      for (int k = 0; k < kMaxPrinted; ++k)
        if (of[i]->m[k])
          sums[static_cast<size_t>(k)] = verdict.shares[i].prints[of[i]->first_print(k)];
      split.prints.push_back(sums);
    }
    int most_terms = 0;
    for (int64_t i = 0; counted && i < sharing; ++i)
      most_terms = std::max(most_terms, verdict.shares[i].stats.max);
    if (kept && counted)
      *kept = {std::move(counts), pitch, b_examined, verdict.b_disorder != 0, most_terms};
  }
  const std::vector<double> shares = checked_shares(shares_for, split.total);
  const int parts = static_cast<int>(shares.size());
  split.parts = parts;
  std::vector<Cut> cuts(static_cast<size_t>(parts) + 1, Cut{rows, split.total});
  cuts[0] = Cut{};
  if (counted && shares == guessed) {
    std::memcpy(cuts.data(), host.data() + sizeof(Head), sizeof(Cut) * cuts.size());
  } else if (counted) {
    DeviceBuffer<Cut> cuts_d(ctx, cuts.size());
    launch_cuts<Offset, Col>(ctx, in, before.get(), shares, spans, cuts_d.get());
    ctx.read_back(cuts.data(), cuts_d.get(), sizeof(Cut) * cuts.size());
  }
  for (const Cut& c : cuts) {
    split.row_start.push_back(c.row_start);
    split.first_product.push_back(c.first_product);
    split.a_offset.push_back(c.a_offset);
    split.d_offset.push_back(c.d_offset);
  }
  for (int p = 0; spans && p < parts; ++p) {
    const Cut& c = cuts[static_cast<size_t>(p)];
    split.b_row_first.push_back(c.b_row_first);
    split.b_row_end.push_back(c.b_row_end);
    split.b_begin.push_back(c.b_begin);
    split.b_end.push_back(c.b_end);
  }
  return split;
}

template <class Offset, class Col>
void launch_fingerprints(Context& ctx, const MatrixDesc* const* m, int n,
                         unsigned long long* sums) {
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(sums, 0, sizeof(unsigned long long) * n, ctx.stream()));
  for (int i = 0; i < n; ++i)
    if (m[i]) launch_fingerprint<Offset, Col>(ctx, *m[i], sums + i);
}

template <class Offset>
std::vector<long long> offsets_at(Context& ctx, const Offset* offsets,
                                  const std::vector<long long>& rows) {
  std::vector<long long> out(rows.size(), 0);
  if (!offsets || rows.empty()) return out;
  const cudaStream_t stream = ctx.stream();
  DeviceBuffer<long long> rows_d(ctx, rows.size()), out_d(ctx, rows.size());
  SPGEMM_CUDA_CHECK(cudaMemcpyAsync(rows_d.get(), rows.data(), sizeof(long long) * rows.size(),
                                    cudaMemcpyHostToDevice, stream));
  const auto n = static_cast<long long>(rows.size());
  launch(gather_kernel<Offset>, static_cast<int>((n + kThreads - 1) / kThreads), kThreads, 0,
         stream, offsets, rows_d.get(), n, out_d.get());
  ctx.read_back(out.data(), out_d.get(), sizeof(long long) * rows.size());
  return out;
}

template <class Offset>
void shift_offsets(Offset* out, const Offset* in, int64_t n, int64_t delta, cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 4096);
  launch(shift_kernel<Offset>, static_cast<int>(blocks), kThreads, 0, stream, out, in, n, delta);
}

#define SPGEMM_INSTANTIATE_SPLIT(Offset, Col)                                                 \
  template RowSplit split_rows<Offset, Col>(Context&, const Operands&, const CheckedOperand*, int, \
                                            const Fingerprints&, bool, long long,                 \
                                            const std::function<std::vector<double>(long long)>&,  \
                                            KeptCounts*, const std::vector<RowCounter>&);          \
  template void launch_fingerprints<Offset, Col>(Context&, const MatrixDesc* const*, int,         \
                                                 unsigned long long*);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_SPLIT)
template std::vector<long long> offsets_at<int32_t>(Context&, const int32_t*,
                                                    const std::vector<long long>&);
template std::vector<long long> offsets_at<int64_t>(Context&, const int64_t*,
                                                    const std::vector<long long>&);
template void shift_offsets<int32_t>(int32_t*, const int32_t*, int64_t, int64_t, cudaStream_t);
template void shift_offsets<int64_t>(int64_t*, const int64_t*, int64_t, int64_t, cudaStream_t);

}  // namespace spgemm::cuda
