// SPDX-License-Identifier: Apache-2.0
#include "cuda/operands/transpose.cuh"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/configs/launch.cuh"
#include "cuda/pattern.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

namespace spgemm::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, (n + kThreads - 1) / kThreads));
}

// Per entry of X: its column (the sort key), its position (the sorted
// payload) and its row; per column: its number of entries.
template <class Offset, class Col>
__global__ void entry_keys_kernel(Pattern<Offset, Col> X, int rows, int* __restrict__ keys,
                                  Offset* __restrict__ positions, Col* __restrict__ entry_rows,
                                  int* __restrict__ column_counts) {
  // a warp per row, its lanes over the row's entries
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const int row = static_cast<int>(warp);
  for (Offset i = X.begin(row) + lane; i < X.end(row); i += 32) {
    const int col = X.col(i);
    keys[i] = col;
    positions[i] = i;
    entry_rows[i] = static_cast<Col>(row);
    atomicAdd(&column_counts[col], 1);
  }
}

template <class Offset, class Col>
__global__ void gather_rows_kernel(int64_t nnz, const Offset* __restrict__ permutation,
                                   const Col* __restrict__ entry_rows, Col* __restrict__ cols) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < nnz) cols[j] = entry_rows[permutation[j]];
}

template <class Value, class Offset>
__global__ void gather_values_kernel(int64_t nnz, const Offset* __restrict__ permutation,
                                     const Value* __restrict__ from, Value* __restrict__ to,
                                     bool conjugate) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < nnz) to[j] = conjugate_if(from[permutation[j]], conjugate);
}

template <class Offset>
struct Plus {
  __host__ __device__ Offset operator()(Offset a, Offset b) const { return a + b; }
};

int key_bits(int64_t cols) {
  int bits = 1;
  while (bits < 31 && (int64_t{1} << bits) < cols) ++bits;
  return bits;
}

template <class Value, class Offset, class Col>
class CudaTranspose final : public Transpose {
 public:
  explicit CudaTranspose(Context& ctx) : ctx_(ctx) {}

  // Every buffer of build, in its order (gather_values takes none).
  size_t workspace_bytes(const MatrixDesc& x) const override {
    const auto nnz = static_cast<size_t>(x.nnz), cols = static_cast<size_t>(x.cols);
    const size_t kept = DeviceBuffer<Offset>::workspace_bytes(cols + 1) +  // offsets_
                        DeviceBuffer<Offset>::workspace_bytes(nnz) +       // permutation_
                        DeviceBuffer<Col>::workspace_bytes(nnz) +          // cols_
                        DeviceBuffer<Value>::workspace_bytes(nnz);         // values_
    const size_t temporary =
        2 * DeviceBuffer<int>::workspace_bytes(nnz) +  // keys, sorted_keys
        DeviceBuffer<Offset>::workspace_bytes(nnz) +   // positions
        DeviceBuffer<Col>::workspace_bytes(nnz) +      // entry_rows
        DeviceBuffer<int>::workspace_bytes(cols + 1) +  // counts
        DeviceBuffer<unsigned char>::workspace_bytes(
            sort_and_scan_temp_bytes(x.nnz, static_cast<int>(x.cols)));  // temp
    return kept + temporary;
  }

  void build(const MatrixDesc& x) override {
    const cudaStream_t stream = ctx_.stream();
    const int rows = static_cast<int>(x.rows);
    const int cols = static_cast<int>(x.cols);
    const int64_t nnz = x.nnz;
    offsets_.reallocate(ctx_, static_cast<size_t>(cols) + 1);
    permutation_.reallocate(ctx_, static_cast<size_t>(nnz));
    cols_.reallocate(ctx_, static_cast<size_t>(nnz));
    values_.reallocate(ctx_, static_cast<size_t>(nnz));
    {
      DeviceBuffer<int> keys(ctx_, static_cast<size_t>(nnz)), sorted_keys(ctx_, static_cast<size_t>(nnz));
      DeviceBuffer<Offset> positions(ctx_, static_cast<size_t>(nnz));
      DeviceBuffer<Col> entry_rows(ctx_, static_cast<size_t>(nnz));
      DeviceBuffer<int> counts(ctx_, static_cast<size_t>(cols) + 1);
      SPGEMM_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, sizeof(int) * (cols + 1), stream));
      if (rows > 0) {
        const Pattern<Offset, Col> X{static_cast<const Offset*>(x.row_offsets),
                                     static_cast<const Col*>(x.col_ind), cols,
                                     static_cast<int>(x.base)};
        launch(entry_keys_kernel<Offset, Col>, blocks_for(static_cast<int64_t>(rows) * 32),
               kThreads, 0, stream, X, rows, keys.get(), positions.get(), entry_rows.get(),
               counts.get());
      }
      size_t sort_bytes = sort_and_scan_temp_bytes(nnz, cols), scan_bytes = sort_bytes;
      DeviceBuffer<unsigned char> temp(ctx_, sort_bytes);
      cub_sort_and_scan(temp.get(), sort_bytes, scan_bytes, keys.get(), sorted_keys.get(),
                        positions.get(), permutation_.get(), counts.get(), offsets_.get(), nnz,
                        cols, stream);
      if (nnz > 0) {
        launch(gather_rows_kernel<Offset, Col>, blocks_for(nnz), kThreads, 0, stream, nnz,
               permutation_.get(), entry_rows.get(), cols_.get());
      }
    }  // the temporaries go back here
    describe(x, offsets_.get(), cols_.get(), values_.get());
  }

  void gather_values(const MatrixDesc& x, bool conjugate) override {
    if (x.nnz == 0) return;
    launch(gather_values_kernel<Value, Offset>, blocks_for(x.nnz), kThreads, 0, ctx_.stream(),
           x.nnz, permutation_.get(), static_cast<const Value*>(x.values), values_.get(),
           conjugate);
  }

 private:
  // The CUB calls of build: the sort of X's entries by column (stable:
  // entries of one column stay in X's order, i.e. by row) and the scan of the
  // column counts into X^T's offsets. temp == nullptr: CUB only stores the
  // scratch each needs, which is how both build and workspace_bytes size it.
  static void cub_sort_and_scan(void* temp, size_t& sort_bytes, size_t& scan_bytes,
                                const int* keys, int* sorted_keys, const Offset* positions,
                                Offset* permutation, const int* counts, Offset* offsets,
                                int64_t nnz, int cols, cudaStream_t stream) {
    SPGEMM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys, sorted_keys,
                                                      positions, permutation, nnz, 0,
                                                      key_bits(cols), stream));
    SPGEMM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, scan_bytes, counts, offsets,
                                                     Plus<Offset>{}, Offset(0), cols + 1,
                                                     stream));
  }

  static size_t sort_and_scan_temp_bytes(int64_t nnz, int cols) {
    size_t sort_bytes = 0, scan_bytes = 0;
    cub_sort_and_scan(nullptr, sort_bytes, scan_bytes, nullptr, nullptr, nullptr, nullptr,
                      nullptr, nullptr, nnz, cols, nullptr);
    return std::max(sort_bytes, scan_bytes);
  }

  Context& ctx_;
  DeviceBuffer<Offset> offsets_;
  DeviceBuffer<Offset> permutation_;
  DeviceBuffer<Col> cols_;
  DeviceBuffer<Value> values_;
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Transpose> make_cuda_transpose(Context& ctx) {
  return std::make_unique<CudaTranspose<Value, Offset, Col>>(ctx);
}

#define SPGEMM_INSTANTIATE_TRANSPOSE(Value, Offset, Col) \
  template std::unique_ptr<Transpose> make_cuda_transpose<Value, Offset, Col>(Context&);
#define SPGEMM_INSTANTIATE_TRANSPOSES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_TRANSPOSE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_TRANSPOSES)

}  // namespace spgemm::cuda
