#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/analysis/analysis.cuh"
#include "cuda/partition/row_split.hpp"

#include <cub/device/device_scan.cuh>

#include <algorithm>

namespace spgemm::cuda {

namespace {

constexpr int kShiftThreads = 256;

struct Sum64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

template <class Offset>
struct SplitArgs {
  const long long* before;  // products of the rows before each row (exclusive scan)
  const int* products;      // of each row
  long long rows;
  int parts;
  double cumulative[kMaxParts + 1];  // shares summed up to each cut, 0 ... 1
  const Offset* a_offsets;
  const Offset* d_offsets;  // nullptr: no D
};

// Thread p finds cut p: the row boundary whose products before it come
// nearest to its share of the total (a binary search of the scan).
template <class Offset>
__global__ void split_kernel(SplitArgs<Offset> s, RowSplit* out) {
  const int p = threadIdx.x;
  if (p > s.parts) return;
  const long long total = s.rows > 0 ? s.before[s.rows - 1] + s.products[s.rows - 1] : 0;
  auto before = [&](long long row) { return row < s.rows ? s.before[row] : total; };
  long long row = p == 0 ? 0 : s.rows;
  if (p > 0 && p < s.parts) {
    const double target = s.cumulative[p] * static_cast<double>(total);
    long long lo = 0, hi = s.rows;  // the first row boundary at or past the target
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (static_cast<double>(before(mid)) >= target) hi = mid;
      else lo = mid + 1;
    }
    row = lo;
    if (row > 0 && target - static_cast<double>(before(row - 1)) <
                       static_cast<double>(before(row)) - target)
      --row;
  }
  out->row_start[p] = row;
  out->first_product[p] = before(row);
  out->a_offset[p] = s.a_offsets[row];
  out->d_offset[p] = s.d_offsets ? static_cast<long long>(s.d_offsets[row]) : 0;
  if (p == 0) {
    out->parts = s.parts;
    out->total = total;
  }
}

template <class Offset>
__global__ void __launch_bounds__(kShiftThreads)
    shift_kernel(Offset* out, const Offset* in, int64_t n, int64_t delta) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = static_cast<Offset>(static_cast<int64_t>(in[i]) + delta);
}

void scan_products(void* temp, size_t& bytes, const int* products, long long* before,
                   int64_t rows, cudaStream_t stream) {
  SPGEMM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, bytes, products, before, Sum64{}, 0LL,
                                                   rows, stream));
}

size_t scan_temp_bytes(int64_t rows) {
  size_t bytes = 0;
  scan_products(nullptr, bytes, nullptr, nullptr, rows, nullptr);
  return bytes;
}

}  // namespace

size_t split_rows_workspace_bytes(int64_t rows) {
  return DeviceBuffer<int>::workspace_bytes(rows) +
         DeviceBuffer<long long>::workspace_bytes(rows) +
         DeviceBuffer<unsigned char>::workspace_bytes(scan_temp_bytes(rows)) +
         DeviceBuffer<RowSplit>::workspace_bytes(1);
}

template <class Offset, class Col>
RowSplit split_rows(Context& ctx, const Operands& in, const std::vector<double>& shares) {
  const int parts = static_cast<int>(shares.size());
  if (parts < 1 || parts > kMaxParts)
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "split_rows: 1 to kMaxParts shares expected");
  SplitArgs<Offset> s{};
  s.rows = in.A->rows;
  s.parts = parts;
  double sum = 0;
  for (const double share : shares) sum += share;
  double running = 0;
  for (int p = 0; p < parts; ++p) {
    s.cumulative[p] = running / sum;
    running += shares[p];
  }
  s.cumulative[parts] = 1.0;
  s.a_offsets = static_cast<const Offset*>(in.A->row_offsets);
  s.d_offsets = in.D ? static_cast<const Offset*>(in.D->row_offsets) : nullptr;

  if (s.rows == 0) {  // (such an A may have no arrays at all)
    RowSplit none;
    none.parts = parts;
    return none;
  }
  const cudaStream_t stream = ctx.stream();
  DeviceBuffer<int> products(ctx, static_cast<size_t>(s.rows));
  DeviceBuffer<long long> before(ctx, static_cast<size_t>(s.rows));
  const TermCount count{&in, products.get()};
  launch_analysis<Offset, Col>(ctx, nullptr, 0, nullptr, &count);
  size_t bytes = scan_temp_bytes(s.rows);
  DeviceBuffer<unsigned char> temp(ctx, bytes);
  scan_products(temp.get(), bytes, products.get(), before.get(), s.rows, stream);
  s.before = before.get();
  s.products = products.get();
  DeviceBuffer<RowSplit> result(ctx, 1);
  split_kernel<Offset><<<1, kMaxParts + 1, 0, stream>>>(s, result.get());
  SPGEMM_CUDA_CHECK_LAUNCH();
  return ctx.read_back(result.get());
}

template <class Offset>
void shift_offsets(Offset* out, const Offset* in, int64_t n, int64_t delta, cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = std::min<int64_t>((n + kShiftThreads - 1) / kShiftThreads, 4096);
  shift_kernel<Offset><<<static_cast<int>(blocks), kShiftThreads, 0, stream>>>(out, in, n, delta);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

#define SPGEMM_INSTANTIATE_SPLIT(Offset, Col) \
  template RowSplit split_rows<Offset, Col>(Context&, const Operands&, const std::vector<double>&);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_SPLIT)
template void shift_offsets<int32_t>(int32_t*, const int32_t*, int64_t, int64_t, cudaStream_t);
template void shift_offsets<int64_t>(int64_t*, const int64_t*, int64_t, int64_t, cudaStream_t);

}  // namespace spgemm::cuda
