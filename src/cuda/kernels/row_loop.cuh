// SPDX-License-Identifier: Apache-2.0
// Building blocks shared by the symbolic and numeric kernels: the thread
// group that owns a row, and the loop over the row's products.
#pragma once

#include "cuda/configs/bins.hpp"
#include "cuda/group_collectives.cuh"
#include "cuda/pattern.cuh"

#include <cooperative_groups.h>

namespace spgemm::cuda {

namespace cg = cooperative_groups;

template <Group G>
__device__ __forceinline__ auto make_group() {
  if constexpr (G == Group::block) {
    return cg::this_thread_block();
  } else {
    return cg::tiled_partition<static_cast<int>(G)>(cg::this_thread_block());
  }
}

template <Group G>
__device__ __forceinline__ int groups_per_block() {
  if constexpr (G == Group::block) return 1;
  else return blockDim.x / static_cast<int>(G);
}

template <Group G>
__device__ __forceinline__ int group_in_block() {
  if constexpr (G == Group::block) return 0;
  else return threadIdx.x / static_cast<int>(G);
}

// The rows of B a block puts aside (for_each_product's Defer, at most
// SymbolicPolicy::deferred_b_rows): A's positions of the entries that name them, and once
// numbered, where they begin and the number of each one's first term.
template <class Offset>
struct DeferredBRows {
  Offset* entries;
  Offset* b_begins;
  long long* starts;
  int* count;
};
template <class Offset>
__device__ __forceinline__ DeferredBRows<Offset> deferred_b_rows() {
  static_assert(SymbolicPolicy::deferred_b_rows == 32, "numbered by one warp, a row a lane");
  __shared__ Offset entries[SymbolicPolicy::deferred_b_rows];
  __shared__ Offset b_begins[SymbolicPolicy::deferred_b_rows];
  // [deferred_b_rows]: all their terms
  __shared__ long long starts[SymbolicPolicy::deferred_b_rows + 1];
  __shared__ int count;
  return {entries, b_begins, starts, &count};
}

// The last of starts[0 .. last] (ascending) at or before p: the entry, of
// numbered ones, that term p belongs to (entries without terms share their
// start with the next one).
__device__ __forceinline__ int last_start_at_or_before(const long long* starts, int last,
                                                       long long p) {
  int lo = 0, hi = last;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Calls column(col) for every term of the `waiting` rows of B put
// aside in d: their terms are numbered (one warp scans their lengths) and
// the block's threads take them in turn, so that every thread has terms
// however long each row is. One load at a time per thread: four, unrolled,
// take the last bin's kernel to 40-46 registers unbounded, and bounded to
// 32 its pipelines are slower (`spgemm-bench orani678.mtx.gz --gen
// stencil27:64`, num and num2). Block-collective.
template <class Offset, class Col, class Column>
__device__ void for_each_deferred_product(const Pattern<Offset, Col>& A,
                                          const Pattern<Offset, Col>& B,
                                          const DeferredBRows<Offset>& d, int waiting,
                                          Column&& column) {
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  if (rank < 32) {  // row `rank`
    long long length = 0;
    if (rank < waiting) {
      const int k = A.col(d.entries[rank]);
      d.b_begins[rank] = B.begin(k);
      length = static_cast<long long>(B.end(k) - d.b_begins[rank]);
    }
    long long all = 0;
    d.starts[rank] = group_exclusive_sum(length, rank, 32, nullptr, all);
    if (rank == 0) d.starts[SymbolicPolicy::deferred_b_rows] = all;
  }
  __syncthreads();
  const long long terms = d.starts[SymbolicPolicy::deferred_b_rows];
  for (long long p = rank; p < terms; p += threads) {
    const int i = last_start_at_or_before(d.starts, waiting - 1, p);
    const Offset b = d.b_begins[i] + static_cast<Offset>(p - d.starts[i]);
    column(B.col(b));
  }
}

// Shared memory of one group for one chunk of A's entries, whose products
// it numbers (for_each_numbered_column below; ordered_loop.cuh's ordered
// adds).
template <class Offset>
struct ChunkScratch {
  long long* start;     // [threads]: number of the chunk's first product of each entry
                        // (add_row_by_b_rows_stashed: the length of its row of B, as
                        // 32 unsigned bits, in the array's first 4 * threads bytes)
  Offset* b_begin;      // [threads]: where that entry's row of B begins
  long long* partial;   // [32]: per-warp totals of the scan (blocks only)
};

// The scratch of a kernel whose groups have at most MaxThreads threads in
// all per block (one static allocation per kernel; groups take slices of it).
template <int MaxThreads, class Offset>
__device__ __forceinline__ ChunkScratch<Offset> chunk_scratch() {
  __shared__ long long starts[MaxThreads];
  __shared__ Offset b_begins[MaxThreads];
  __shared__ long long partial[32];
  return {starts, b_begins, partial};
}

// The same in dynamic shared memory at `at` (8-byte aligned), for a block of
// `threads` threads: configs/bins.hpp's ordered_scratch_bytes(threads).
template <class Offset>
__device__ __forceinline__ ChunkScratch<Offset> chunk_scratch_at(unsigned char* at,
                                                                 int threads) {
  auto* starts = reinterpret_cast<long long*>(at);
  auto* partial = starts + threads;
  return {starts, reinterpret_cast<Offset*>(partial + 32), partial};
}

// Calls column(col) for every product a_ik * b_kj of `row` (its column j): the
// group's threads form sub-groups of `lanes` threads, each sub-group takes
// entries of A's row in turn and its lanes stride over B's row (coalesced).
// For block-wide groups, `lanes` (a power of two dividing `threads`) is
// widened while there are more sub-groups than entries in A's row, so that a
// row of A with one entry and a long row of B keeps the block busy (a 1 x 1
// A row times a 3M-entry B row would take 49 s without). Warps keep their
// lanes: widening them costs 35% (`spgemm-bench G3_circuit.mtx.gz`, sym).
// Defer (the group is the whole block; kernels of rows of many terms): where
// sub-groups are at most a warp and A's row names at most SymbolicPolicy::deferred_b_rows
// rows of B of at least `threads` entries, a first pass puts those aside and
// the whole block numbers and takes their terms after the sub-groups are
// done (with more, each sub-group has its share of them).
template <bool Defer, class Offset, class Col, class Column>
__device__ __forceinline__ void for_each_product(const Pattern<Offset, Col>& A,
                                                 const Pattern<Offset, Col>& B, int row, int rank,
                                                 int threads, int lanes, Column&& column) {
  const Offset a_begin = A.begin(row);
  const Offset a_end = A.end(row);
  if (threads > 32)
    while (lanes * 2 <= threads && threads / (lanes * 2) >= a_end - a_begin) lanes *= 2;
  [[maybe_unused]] DeferredBRows<Offset> deferred{};
  int waiting = 0;  // (block-uniform) rows of B put aside
  if constexpr (Defer) {
    if (lanes <= 32) {
      deferred = deferred_b_rows<Offset>();
      if (rank == 0) *deferred.count = 0;
      __syncthreads();
      for (Offset a = a_begin + rank; a < a_end; a += threads) {
        const int k = A.col(a);
        if (B.end(k) - B.begin(k) < threads) continue;
        const int at = atomicAdd(deferred.count, 1);
        if (at < SymbolicPolicy::deferred_b_rows) deferred.entries[at] = a;
      }
      __syncthreads();
      waiting = *deferred.count;
      if (waiting > SymbolicPolicy::deferred_b_rows) waiting = 0;  // (then none are)
    }
  }
  const int lane = rank % lanes;
  const int sub = rank / lanes;
  const int subs = threads / lanes;
  for (Offset a = a_begin + sub; a < a_end; a += subs) {
    const int k = A.col(a);
    const Offset b_end = B.end(k);
    const Offset b_begin = B.begin(k);
    if (Defer && waiting > 0 && b_end - b_begin >= threads) continue;  // (put aside)
    for (Offset b = b_begin + lane; b < b_end; b += lanes) column(B.col(b));
  }
  if constexpr (Defer) {
    if (waiting > 0) for_each_deferred_product(A, B, deferred, waiting, column);
    if (lanes <= 32) __syncthreads();  // (the next row's call resets the count)
  }
}

// Calls addend(col, d) for every entry d of D's row; nothing without a D
// (D.offsets == nullptr).
template <class Offset, class Col, class Addend>
__device__ __forceinline__ void for_each_addend(const Pattern<Offset, Col>& D, int row, int rank,
                                                int threads, Addend&& addend) {
  if (D.offsets == nullptr) return;
  const Offset end = D.end(row);
  for (Offset d = D.begin(row) + rank; d < end; d += threads) addend(D.col(d), d);
}

// Calls column(col) for every column `row` of C receives a term in, as
// for_each_column does, with the row's products numbered: the block takes
// A's entries blockDim.x at a time (a chunk), a scan of their rows of B's
// lengths numbers the chunk's products, and each thread takes every
// blockDim.x-th, found back by a binary search over the chunk's starts (as
// ordered_loop.cuh's ordered adds do). Every thread then has terms however
// the lengths of those rows of B differ, where sub-groups of a few lanes
// (B's rows short on average) would each step through their entries' rows
// of B alone (configs/bins.hpp's SymbolicPolicy::numbered_max_lanes).
// Block-collective.
template <bool Addend, class Offset, class Col, class Column>
__device__ void for_each_numbered_column(const Pattern<Offset, Col>& A,
                                         const Pattern<Offset, Col>& B,
                                         const Pattern<Offset, Col>& D, int row,
                                         const ChunkScratch<Offset>& scratch, Column&& column) {
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const Offset a_end = A.end(row);
  for (Offset chunk = A.begin(row); chunk < a_end; chunk += threads) {
    const int entries = a_end - chunk < threads ? static_cast<int>(a_end - chunk) : threads;
    Offset b_begin = 0;
    long long length = 0;
    if (rank < entries) {
      const int k = A.col(chunk + rank);
      b_begin = B.begin(k);
      length = static_cast<long long>(B.end(k) - b_begin);
    }
    long long terms = 0;
    scratch.start[rank] = group_exclusive_sum(length, rank, threads, scratch.partial, terms);
    scratch.b_begin[rank] = b_begin;
    __syncthreads();
    for (long long p = rank; p < terms; p += threads) {
      const int i = last_start_at_or_before(scratch.start, entries - 1, p);
      column(B.col(scratch.b_begin[i] + static_cast<Offset>(p - scratch.start[i])));
    }
    __syncthreads();  // the scratch is reused by the next chunk
  }
  if constexpr (Addend)
    for_each_addend(D, row, rank, threads, [&](int col, Offset) { column(col); });
}

// Calls column(col) for every column the row of C receives a term in: the
// products of A and B, then (Addend: compiled in only for plans with a D) the
// entries of D.
template <bool Addend, bool Defer, class Offset, class Col, class Column>
__device__ __forceinline__ void for_each_column(const Pattern<Offset, Col>& A,
                                                const Pattern<Offset, Col>& B,
                                                const Pattern<Offset, Col>& D, int row, int rank,
                                                int threads, int lanes, Column&& column) {
  for_each_product<Defer>(A, B, row, rank, threads, lanes, column);
  if constexpr (Addend) for_each_addend(D, row, rank, threads, [&](int col, Offset) { column(col); });
}

// The same for a whole block that only marks columns (no order, no
// values): each warp takes entries of A's row in turn, or the block takes
// them one by one where they are fewer than its warps, and its threads have
// kColumnLoads of the entry's row of B in flight at a time.
template <bool Addend, class Offset, class Col, class Column>
__device__ __forceinline__ void for_each_column_in_block(const Pattern<Offset, Col>& A,
                                                         const Pattern<Offset, Col>& B,
                                                         const Pattern<Offset, Col>& D, int row,
                                                         Column&& column) {
  constexpr int kColumnLoads = 4;
  const Offset a_begin = A.begin(row), a_end = A.end(row);
  const int warps = static_cast<int>(blockDim.x / 32);
  const bool whole_block = a_end - a_begin < warps;
  const int threads = whole_block ? static_cast<int>(blockDim.x) : 32;
  const int rank = static_cast<int>(threadIdx.x) % threads;
  const int group = whole_block ? 0 : static_cast<int>(threadIdx.x) / 32;
  for (Offset a = a_begin + group; a < a_end; a += whole_block ? 1 : warps) {
    const int k = A.col(a);
    const Offset b_end = B.end(k);
    for (Offset b = B.begin(k) + rank; b < b_end; b += kColumnLoads * threads) {
      int cols[kColumnLoads];
#pragma unroll
      for (int u = 0; u < kColumnLoads; ++u)
        cols[u] = b + u * threads < b_end ? B.col(b + u * threads) : -1;
#pragma unroll
      for (int u = 0; u < kColumnLoads; ++u)
        if (cols[u] >= 0) column(cols[u]);
    }
  }
  if constexpr (Addend)
    for_each_addend(D, row, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                    [&](int col, Offset) { column(col); });
}

// Calls column(col) for the first and the last column of each row of B
// that `row` of A references, then (Addend) for D's entries: where B's rows
// are sorted, the row of C's smallest and largest column are among them.
template <bool Addend, class Offset, class Col, class Column>
__device__ __forceinline__ void for_each_range_end(const Pattern<Offset, Col>& A,
                                                   const Pattern<Offset, Col>& B,
                                                   const Pattern<Offset, Col>& D, int row,
                                                   int rank, int threads, Column&& column) {
  for (Offset a = A.begin(row) + rank; a < A.end(row); a += threads) {
    const int k = A.col(a);
    const Offset b_begin = B.begin(k), b_end = B.end(k);
    if (b_begin == b_end) continue;
    column(B.col(b_begin));
    column(B.col(b_end - 1));
  }
  if constexpr (Addend)
    for_each_addend(D, row, rank, threads, [&](int col, Offset) { column(col); });
}

// Smallest and largest column a row of C receives a term in (block-wide). When all
// of B's columns fit one window the range is not worth a pass over the
// products: it is then B's whole column range. Where B's rows are known to
// be sorted (b_sorted), each row of B spans its first to its last column:
// one look at both ends per entry of A's row instead of a pass over every
// product (that pass takes 22% of the dense numeric kernel's samples on
// rmat:16:16, whose longest rows span all columns anyway; Nsight Compute).
template <bool Addend, class Offset, class Col, class BlockReduce>
__device__ void product_column_range(const Pattern<Offset, Col>& A, const Pattern<Offset, Col>& B,
                                     const Pattern<Offset, Col>& D, int row, int lanes,
                                     long long window, bool b_sorted,
                                     typename BlockReduce::TempStorage& temp, int& lo, int& hi) {
  if (B.num_cols <= window) {
    lo = 0;
    hi = B.num_cols - 1;
    return;
  }
  __shared__ int range[2];
  int my_lo = 0x7fffffff, my_hi = -1;
  auto column = [&](int col) {
    my_lo = min(my_lo, col);
    my_hi = max(my_hi, col);
  };
  if (b_sorted) {
    for_each_range_end<Addend>(A, B, D, row, threadIdx.x, blockDim.x, column);
  } else {
    for_each_column<Addend, false>(A, B, D, row, threadIdx.x, blockDim.x, lanes, column);
  }
  const int block_lo = BlockReduce(temp).Reduce(my_lo, [](int x, int y) { return min(x, y); });
  __syncthreads();
  const int block_hi = BlockReduce(temp).Reduce(my_hi, [](int x, int y) { return max(x, y); });
  if (threadIdx.x == 0) {
    range[0] = block_lo;
    range[1] = block_hi;
  }
  __syncthreads();
  lo = range[0];
  hi = range[1];
}

}  // namespace spgemm::cuda
