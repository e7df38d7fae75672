#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/partition/row_split.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;  // of every kernel here

struct Sum64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};
struct Least {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? a : b;
  }
};
struct Greatest {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a > b ? a : b;
  }
};

// One cut as the kernel writes it.
struct Cut {
  long long row_start, first_product, a_offset, d_offset;
};

template <class Offset>
struct CutArgs {
  const long long* before;  // products of the rows before each row boundary, rows + 1
  long long rows;
  int parts;
  const double* cumulative;  // shares summed up to each cut, 0 ... 1, parts + 1
  const Offset* a_offsets;
  const Offset* d_offsets;  // nullptr: no D
};

// Thread p finds cut p: the row boundary whose products before it come
// nearest to its share of the total (a binary search of the scan). Parts of
// share 0 at either end get no rows, not even rows without products.
template <class Offset>
__global__ void cut_kernel(CutArgs<Offset> s, Cut* out) {
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p > s.parts) return;
  const long long total = s.before[s.rows];
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
  out[p] = {row, s.before[row], static_cast<long long>(s.a_offsets[row]),
            s.d_offsets ? static_cast<long long>(s.d_offsets[row]) : 0};
}

template <class Offset>
__global__ void __launch_bounds__(kThreads)
    shift_kernel(Offset* out, const Offset* in, int64_t n, int64_t delta) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<Offset>(static_cast<int64_t>(in[i]) + delta);
}

// span[0] = min, span[1] = max of the indices (>= 0), block by block.
template <class Col>
__global__ void __launch_bounds__(kThreads)
    span_kernel(const Col* cols, int64_t n, unsigned long long* span) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  unsigned long long lo = ~0ULL, hi = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const auto c = static_cast<unsigned long long>(cols[i]);
    lo = Least{}(lo, c);
    hi = Greatest{}(hi, c);
  }
  lo = Reduce(temp).Reduce(lo, Least{});
  __syncthreads();
  hi = Reduce(temp).Reduce(hi, Greatest{});
  if (threadIdx.x == 0) {
    atomicMin(span, lo);
    atomicMax(span + 1, hi);
  }
}

// *differ = 1 where a[i] != b[i] for some i.
template <class T>
__global__ void __launch_bounds__(kThreads)
    compare_kernel(const T* a, const T* b, int64_t n, int* differ) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  bool same = true;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    same = same && a[i] == b[i];
  if (__syncthreads_or(!same) && threadIdx.x == 0) *differ = 1;
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

}  // namespace

size_t split_rows_workspace_bytes(int64_t rows, int parts) {
  return DeviceBuffer<int>::workspace_bytes(rows + 1) +
         DeviceBuffer<long long>::workspace_bytes(rows + 1) +
         DeviceBuffer<unsigned char>::workspace_bytes(scan_temp_bytes(rows)) +
         DeviceBuffer<double>::workspace_bytes(parts + 1) +
         DeviceBuffer<Cut>::workspace_bytes(parts + 1);
}

template <class Offset, class Col>
RowSplit split_rows(Context& ctx, const Operands& in,
                    const std::function<std::vector<double>(long long total)>& shares_for) {
  RowSplit split;
  const int64_t rows = in.A->rows;
  const cudaStream_t stream = ctx.stream();
  DeviceBuffer<int> products(ctx, static_cast<size_t>(rows + 1));
  DeviceBuffer<long long> before(ctx, static_cast<size_t>(rows + 1));
  if (rows > 0) {  // (an A without rows may have no arrays at all)
    SPGEMM_CUDA_CHECK(cudaMemsetAsync(products.get() + rows, 0, sizeof(int), stream));
    const TermCount count{&in, products.get()};
    launch_analysis<Offset, Col>(ctx, nullptr, 0, nullptr, &count);
    size_t bytes = scan_temp_bytes(rows);
    DeviceBuffer<unsigned char> temp(ctx, bytes);
    scan_products(temp.get(), bytes, products.get(), before.get(), rows, stream);
    split.total = ctx.read_back(before.get() + rows);
  }
  const std::vector<double> shares = shares_for(split.total);
  const int parts = static_cast<int>(shares.size());
  double sum = 0;
  for (const double share : shares) sum += share;
  if (parts < 1 || !(sum > 0))
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "split_rows: shares must have a positive sum");
  split.parts = parts;
  std::vector<Cut> cuts(static_cast<size_t>(parts) + 1, Cut{rows, split.total, 0, 0});
  cuts[0] = {0, 0, 0, 0};
  if (rows > 0) {
    std::vector<double> cumulative(static_cast<size_t>(parts) + 1, 1.0);
    double running = 0;
    for (int p = 0; p < parts; ++p) {
      cumulative[static_cast<size_t>(p)] = running / sum;
      running += shares[static_cast<size_t>(p)];
    }
    DeviceBuffer<double> cumulative_d(ctx, cumulative.size());
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(cumulative_d.get(), cumulative.data(),
                                      sizeof(double) * cumulative.size(), cudaMemcpyHostToDevice,
                                      stream));
    const CutArgs<Offset> args{before.get(),
                               rows,
                               parts,
                               cumulative_d.get(),
                               static_cast<const Offset*>(in.A->row_offsets),
                               in.D ? static_cast<const Offset*>(in.D->row_offsets) : nullptr};
    DeviceBuffer<Cut> cuts_d(ctx, cuts.size());
    const int blocks = static_cast<int>((cuts.size() + kThreads - 1) / kThreads);
    cut_kernel<Offset><<<blocks, kThreads, 0, stream>>>(args, cuts_d.get());
    SPGEMM_CUDA_CHECK_LAUNCH();
    ctx.read_back(cuts.data(), cuts_d.get(), sizeof(Cut) * cuts.size());
  }
  for (const Cut& c : cuts) {
    split.row_start.push_back(c.row_start);
    split.first_product.push_back(c.first_product);
    split.a_offset.push_back(c.a_offset);
    split.d_offset.push_back(c.d_offset);
  }
  return split;
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
  gather_kernel<Offset><<<static_cast<int>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      offsets, rows_d.get(), n, out_d.get());
  SPGEMM_CUDA_CHECK_LAUNCH();
  ctx.read_back(out.data(), out_d.get(), sizeof(long long) * rows.size());
  return out;
}

template <class Col>
std::pair<int64_t, int64_t> index_span(Context& ctx, const Col* cols, int64_t n) {
  if (n <= 0) return {0, -1};
  const cudaStream_t stream = ctx.stream();
  DeviceBuffer<unsigned long long> span(ctx, 2);
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(span.get(), 0xff, sizeof(unsigned long long), stream));
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(span.get() + 1, 0, sizeof(unsigned long long), stream));
  span_kernel<Col><<<static_cast<int>(stride_blocks(ctx, n)), kThreads, 0, stream>>>(cols, n,
                                                                                   span.get());
  SPGEMM_CUDA_CHECK_LAUNCH();
  unsigned long long out[2];
  ctx.read_back(out, span.get(), sizeof(out));
  return {static_cast<int64_t>(out[0]), static_cast<int64_t>(out[1])};
}

template <class T>
bool same_indices(Context& ctx, const T* a, const T* b, int64_t n) {
  if (n <= 0) return true;
  const cudaStream_t stream = ctx.stream();
  DeviceBuffer<int> differ(ctx, 1);
  SPGEMM_CUDA_CHECK(cudaMemsetAsync(differ.get(), 0, sizeof(int), stream));
  compare_kernel<T><<<static_cast<int>(stride_blocks(ctx, n)), kThreads, 0, stream>>>(a, b, n,
                                                                                  differ.get());
  SPGEMM_CUDA_CHECK_LAUNCH();
  return ctx.read_back(differ.get()) == 0;
}

template <class Offset>
void shift_offsets(Offset* out, const Offset* in, int64_t n, int64_t delta, cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 4096);
  shift_kernel<Offset><<<static_cast<int>(blocks), kThreads, 0, stream>>>(out, in, n, delta);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_SPLIT(Offset, Col)                          \
  template RowSplit split_rows<Offset, Col>(Context&, const Operands&, \
                                            const std::function<std::vector<double>(long long)>&);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_SPLIT)
template std::vector<long long> offsets_at<int32_t>(Context&, const int32_t*,
                                                    const std::vector<long long>&);
template std::vector<long long> offsets_at<int64_t>(Context&, const int64_t*,
                                                    const std::vector<long long>&);
template std::pair<int64_t, int64_t> index_span<int32_t>(Context&, const int32_t*, int64_t);
template std::pair<int64_t, int64_t> index_span<int64_t>(Context&, const int64_t*, int64_t);
template bool same_indices<int32_t>(Context&, const int32_t*, const int32_t*, int64_t);
template bool same_indices<int64_t>(Context&, const int64_t*, const int64_t*, int64_t);
template void shift_offsets<int32_t>(int32_t*, const int32_t*, int64_t, int64_t, cudaStream_t);
template void shift_offsets<int64_t>(int64_t*, const int64_t*, int64_t, int64_t, cudaStream_t);

}  // namespace spgemm::cuda
