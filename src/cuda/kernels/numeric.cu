// Numeric phase: the sorted columns and the values of every row of C.
#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/configs/launch.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/ordered_loop.cuh"
#include "cuda/sorting/bitonic.cuh"
#include "cuda/sorting/block_compact.cuh"
#include "cuda/sorting/rank_scatter.cuh"
#include "cuda/sorting/warp_compact.cuh"

#include "core/values.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

namespace spgemm::cuda {

namespace {

// The kernels below are compiled with and without an addend D (the loop
// over D's entries, even when skipped at run time, slowed the warp kernels by
// 40%: G3_circuit numeric 1.30 -> 1.89 ms, H200), and with the terms added in
// a fixed order (Ordered: kernels/ordered_loop.cuh, the default) or with
// shared-memory atomics in whatever order they come.

// One group per row: accumulate in a shared hash map, sort it, copy out.
template <Group G, bool Addend, bool Ordered, class Value, class Offset, class Col>
__global__ void __launch_bounds__(max_block_threads(G))
    hash_numeric_kernel(NumericArgs<Value, Offset, Col> args, const BinCounts* counts, int bin,
                        const int* __restrict__ binned_rows, int log2_table, int lanes) {
  extern __shared__ __align__(16) unsigned char smem[];
  const auto group = make_group<G>();
  const int per_block = groups_per_block<G>();
  const int slot = group_in_block<G>();
  const int table = 1 << log2_table;
  int* keys = reinterpret_cast<int*>(smem) + slot * table;
  Value* values = reinterpret_cast<Value*>(smem + sizeof(int) * per_block * table) + slot * table;
  // one int per row behind the tables (configs/configs.cu sizes it)
  int* counter =
      reinterpret_cast<int*>(smem + (sizeof(int) + sizeof(Value)) * per_block * table) + slot;
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());
  const SharedHashMap<Value> map{keys, values, log2_table};

  const int begin = bin_begin(counts, bin);
  const int n = counts->count[bin];
  for (int i = blockIdx.x * per_block + slot; i < n; i += gridDim.x * per_block) {
    const int row = binned_rows[begin + i];
    for (int s = rank; s < table; s += threads) {
      keys[s] = kEmptyKey;
      values[s] = Value(0);
    }
    group.sync();
    if constexpr (Ordered) {
      __shared__ long long starts[max_block_threads(G)];
      __shared__ Offset b_begins[max_block_threads(G)];
      __shared__ long long partial[32];
      const ChunkScratch<Offset> scratch{starts + slot * threads, b_begins + slot * threads,
                                         partial};
      add_row_in_order<Addend>(
          args, row, rank, threads, scratch,
          [&](int col, int& at) { return (at = map.claim(col)) >= 0; }, values);
    } else {
      for_each_product(args.A, args.B, row, rank, threads, lanes, [&](int col, Offset a, Offset b) {
        map.add(col, args.alpha * args.a_values[a] * args.b_values[b]);
      });
      if constexpr (Addend)
        for_each_addend(args.D, row, rank, threads,
                        [&](int col, Offset d) { map.add(col, args.beta * args.d_values[d]); });
    }
    group.sync();
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    if (table <= kRankSortMaxTable) {
      scatter_sorted_by_rank(group, keys, values, table, len, args.c_base, args.c_cols + out,
                             args.c_values + out);
    } else {
      int sort_length;
      if constexpr (G == Group::warp) {
        sort_length = compact_warp_table(group, keys, values, table);
      } else {
        sort_length = compact_block_table(group, keys, values, table, args.c_cols + out,
                                          args.c_values + out, len, counter);
      }
      bitonic_sort_pairs(group, keys, values, sort_length);
      for (int s = rank; s < len && s < sort_length; s += threads) {
        args.c_cols[out + s] = static_cast<Col>(keys[s] + args.c_base);
        args.c_values[out + s] = values[s];
      }
    }
    group.sync();  // the table is reused by the next row
  }
}

// One block per long row: a dense value array with a bitmask over windows of
// the row's column range; each window is compacted in column order.
template <bool Addend, bool Ordered, class Value, class Offset, class Col>
__global__ void __launch_bounds__(kDenseBlockThreads)
    dense_numeric_kernel(NumericArgs<Value, Offset, Col> args, const BinCounts* counts, int bin,
                         const int* __restrict__ binned_rows, int window, int lanes) {
  using BlockReduce = cub::BlockReduce<int, kDenseBlockThreads>;
  using BlockScan = cub::BlockScan<int, kDenseBlockThreads>;
  __shared__ union {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } temp;
  extern __shared__ __align__(16) unsigned char smem[];
  const DenseWindow<Value> acc{reinterpret_cast<Value*>(smem),
                               {reinterpret_cast<uint32_t*>(smem + sizeof(Value) * window)}};

  const int begin = bin_begin(counts, bin);
  const int n = counts->count[bin];
  for (int i = blockIdx.x; i < n; i += gridDim.x) {
    const int row = binned_rows[begin + i];
    int lo, hi;
    product_column_range<Addend, Offset, Col, BlockReduce>(args.A, args.B, args.D, row, lanes, window,
                                                   temp.reduce, lo, hi);
    const Offset out = args.c_begin(row);
    const int len = static_cast<int>(args.c_end(row) - out);
    int written = 0;
    for (long long w0 = lo; w0 <= hi && written < len; w0 += window) {
      // only the part of the window the row's column span reaches
      const long long reach = hi - w0 + 1;
      const int span = reach < window ? static_cast<int>(reach) : window;
      const int words = (span + 31) / 32;
      for (int s = threadIdx.x; s < span; s += blockDim.x) acc.values[s] = Value(0);
      for (int w = threadIdx.x; w < words; w += blockDim.x) acc.mask.words[w] = 0;
      __syncthreads();
      if constexpr (Ordered) {
        __shared__ long long starts[kDenseBlockThreads];
        __shared__ Offset b_begins[kDenseBlockThreads];
        __shared__ long long partial[32];
        add_row_in_order<Addend>(
            args, row, threadIdx.x, blockDim.x, ChunkScratch<Offset>{starts, b_begins, partial},
            [&](int col, int& offset) {
              const long long o = col - w0;
              if (o < 0 || o >= window) return false;
              offset = static_cast<int>(o);
              acc.mask.set(offset);
              return true;
            },
            acc.values);
      } else {
        auto add = [&](int col, Value term) {
          const long long offset = col - w0;
          if (offset >= 0 && offset < window) acc.add(static_cast<int>(offset), term);
        };
        for_each_product(args.A, args.B, row, threadIdx.x, blockDim.x, lanes,
                         [&](int col, Offset a, Offset b) {
                           add(col, args.alpha * args.a_values[a] * args.b_values[b]);
                         });
        if constexpr (Addend)
          for_each_addend(args.D, row, threadIdx.x, blockDim.x,
                          [&](int col, Offset d) { add(col, args.beta * args.d_values[d]); });
      }
      __syncthreads();
      // Each thread owns a contiguous run of words; a block scan of their
      // population counts gives every thread its place in the sorted output.
      const int words_per_thread = (words + blockDim.x - 1) / blockDim.x;
      const int my_first = min(words, static_cast<int>(threadIdx.x) * words_per_thread);
      const int my_last = min(words, my_first + words_per_thread);
      int mine = 0;
      for (int w = my_first; w < my_last; ++w) mine += __popc(acc.mask.words[w]);
      int position, window_total;
      BlockScan(temp.scan).ExclusiveSum(mine, position, window_total);
      position += written;
      for (int w = my_first; w < my_last; ++w) {
        for (uint32_t bits = acc.mask.words[w]; bits != 0; bits &= bits - 1) {
          const int offset = w * 32 + __ffs(bits) - 1;
          if (position < len) {
            args.c_cols[out + position] = static_cast<Col>(w0 + offset + args.c_base);
            args.c_values[out + position] = acc.values[offset];
          }
          ++position;
        }
      }
      written += window_total;
      __syncthreads();
    }
  }
}

template <Group G, bool Addend, bool Ordered, class Value, class Offset, class Col>
void launch_hash_bin(const DeviceLimits& limits, const HashBinLaunch& b, int bin, int rows_in_bin,
                     const NumericArgs<Value, Offset, Col>& args, int lanes,
                     const BinCounts* counts, const int* binned_rows, cudaStream_t stream) {
  auto kernel = hash_numeric_kernel<G, Addend, Ordered, Value, Offset, Col>;
  const int threads = b.spec.block_threads;
  const int grid = grid_for(rows_in_bin, b.rows_per_block,
                            resident_blocks(kernel, threads, b.smem_bytes, limits));
  const int group_threads = G == Group::block ? threads : static_cast<int>(G);
  kernel<<<grid, threads, b.smem_bytes, stream>>>(args, counts, bin, binned_rows,
                                                  log2_of_pow2(b.spec.table_size),
                                                  std::min(lanes, group_threads));
  SPGEMM_CUDA_CHECK_LAUNCH();
}

template <bool Addend, bool Ordered, class Value, class Offset, class Col>
void launch_bins(const DeviceLimits& limits, const BinLayout& layout,
                 const NumericArgs<Value, Offset, Col>& args, int lanes,
                 const BinCounts& host_counts, const BinCounts* counts, const int* binned_rows,
                 cudaStream_t stream) {
  for (int bin = 0; bin < static_cast<int>(layout.hash.size()); ++bin) {
    const int rows_in_bin = host_counts.count[bin];
    if (rows_in_bin == 0) continue;
    const HashBinLaunch& b = layout.hash[bin];
    switch (b.spec.group) {
      case Group::warp:
        launch_hash_bin<Group::warp, Addend, Ordered>(limits, b, bin, rows_in_bin, args, lanes,
                                                      counts, binned_rows, stream);
        break;
      case Group::block:
        launch_hash_bin<Group::block, Addend, Ordered>(limits, b, bin, rows_in_bin, args, lanes,
                                                       counts, binned_rows, stream);
        break;
    }
  }
  const int long_rows = host_counts.count[layout.dense_bin()];
  if (long_rows == 0) return;
  auto kernel = dense_numeric_kernel<Addend, Ordered, Value, Offset, Col>;
  const size_t smem_limit = dynamic_smem_limit(kernel, limits);
  // window * sizeof(Value) bytes of values + window / 8 bytes of bitmask
  const int window = static_cast<int>(smem_limit * 8 / (8 * sizeof(Value) + 1)) / 32 * 32;
  const size_t smem = sizeof(Value) * window + window / 8;
  const int grid = grid_for(long_rows, 1, resident_blocks(kernel, kDenseBlockThreads, smem, limits));
  kernel<<<grid, kDenseBlockThreads, smem, stream>>>(args, counts, layout.dense_bin(), binned_rows,
                                                     window, lanes);
  SPGEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class Value, class Offset, class Col>
void launch_numeric(const DeviceLimits& limits, const BinLayout& layout,
                    const NumericArgs<Value, Offset, Col>& args, int lanes, bool ordered,
                    const BinCounts& host_counts, const BinCounts* counts, const int* binned_rows,
                    cudaStream_t stream) {
  with_flag(args.D.offsets != nullptr, [&](auto addend) {
    with_flag(ordered, [&](auto in_order) {
      launch_bins<addend, in_order>(limits, layout, args, lanes, host_counts, counts, binned_rows,
                                    stream);
    });
  });
}

#define SPGEMM_INSTANTIATE_NUMERIC(Value, Offset, Col)                                        \
  template void launch_numeric<Value, Offset, Col>(                                           \
      const DeviceLimits&, const BinLayout&, const NumericArgs<Value, Offset, Col>&, int,     \
      bool, const BinCounts&, const BinCounts*, const int*, cudaStream_t);
#define SPGEMM_INSTANTIATE_NUMERIC_VALUES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_NUMERIC, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_NUMERIC_VALUES)

}  // namespace spgemm::cuda
