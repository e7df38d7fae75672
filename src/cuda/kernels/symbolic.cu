// SPDX-License-Identifier: Apache-2.0
// Symbolic phase: the number of distinct columns in every row of C.
#include "cuda/accumulators/dense_window.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/accumulators/thread_row.cuh"
#include "cuda/analysis/analysis_pass.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/binning/row_offsets.cuh"
#include "cuda/configs/launch.cuh"
#include "cuda/group_collectives.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/lane_terms.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace spgemm::cuda {

namespace {

// Warp-collective: the distinct columns of a row of at most 32 terms, one
// term a lane (kernels/lane_terms.cuh), each column counted at the lowest
// lane holding it.
template <bool Addend, class Offset, class Col>
__device__ __forceinline__ int distinct_in_warp(const Pattern<Offset, Col>& A,
                                                const Pattern<Offset, Col>& B,
                                                const Pattern<Offset, Col>& D, int row) {
  int col = -1;
  bool held = false;
  auto hold = [&](int, int c, auto...) {  // a product's term or D's
    col = c;
    held = true;
  };
  for_lane_terms<1, Addend>(A, B, D, row, hold, hold);
  const unsigned holders = __ballot_sync(0xffffffffu, held);
  const unsigned peers = __match_any_sync(0xffffffffu, col) & holders;
  const bool lowest = held && __ffs(peers) - 1 == static_cast<int>(threadIdx.x & 31);
  return __popc(__ballot_sync(0xffffffffu, lowest));
}

// The terms of `row` (products and, with Addend, D's entries) where every
// position and row of B that its loops follow lies within the operands'
// arrays; -1 where one does not. For a small product's kernel, which counts
// its rows while the input checks still run (SmallFinish::gate): a row that
// fails comes from a defective operand, which shuts the gate, so its count
// is never used. Group-collective.
template <bool Addend, class Offset, class Col>
__device__ long long checked_row_terms(const Pattern<Offset, Col>& A,
                                       const Pattern<Offset, Col>& B,
                                       const Pattern<Offset, Col>& D, const OperandExtents& e,
                                       int row, int rank, int threads, long long* partial) {
  auto within = [](Offset begin, Offset end, long long nnz) {
    return 0 <= begin && begin <= end && static_cast<long long>(end) <= nnz;
  };
  const Offset a_begin = A.begin(row), a_end = A.end(row);
  if (!within(a_begin, a_end, e.a_nnz)) return -1;  // (the same on every thread)
  bool outside = false;
  long long terms = 0;
  for (Offset a = a_begin + rank; a < a_end; a += threads) {
    const int k = A.col(a);
    if (k < 0 || k >= e.b_rows) {
      outside = true;
      continue;
    }
    const Offset b_begin = B.begin(k), b_end = B.end(k);
    if (within(b_begin, b_end, e.b_nnz)) terms += b_end - b_begin;
    else outside = true;
  }
  if constexpr (Addend) {
    const Offset d_begin = D.begin(row), d_end = D.end(row);
    if (!within(d_begin, d_end, e.d_nnz)) return -1;
    if (rank == 0) terms += d_end - d_begin;
  }
  const bool any_outside =
      threads == 32 ? __any_sync(kFullWarp, outside) : __syncthreads_or(outside) != 0;
  long long total = 0;
  group_exclusive_sum(terms, rank, threads, partial, total);
  return any_outside ? -1 : total;
}

// One group of threads per row, a hash set of 2^log2_table slots per group
// (a set of several warp bins, RowSet::bins: each row the table of its
// bin, twice the one before), or where B's b_words words of columns fit in
// the table's bits (at most one word per slot, configs/bins.hpp) a bitmask
// over all of them in its place: a bit per column, no hashing, no probing,
// counted at the end.
// Match (warp groups only): rows of at most SymbolicPolicy::matched_max_terms terms are
// counted without a table (distinct_in_warp). Ranged (warp groups only):
// where B's columns do not fit a row's table, a row whose columns' range
// does (SymbolicRanges) gets a bitmask over that range. Finish (a small
// product's single launch over all rows, SmallFinish): the rows' terms are
// counted here, not read from the analysis, and the grid's last
// finish.analysis_blocks blocks run the analysis's pass (analysis_pass.cuh:
// the input checks, the statistics, the gate) beside the rows, so that the
// product needs no analysis kernel ahead; the last block to finish turns
// the counts into C's row offsets if the gate is open. Defer, Numbered
// (block groups only): how the block takes its row's products
// (row_loop.cuh's for_each_product with long rows of B put aside, and
// for_each_numbered_column, its scratch behind the table). All are compiled
// apart, so that the other launches keep their code and registers (the
// kernels below).
template <Group G, bool Addend, bool Finish, bool Match, bool Ranged, bool Defer, bool Numbered,
          class Offset, class Col>
__device__ __forceinline__ void count_rows(const Pattern<Offset, Col>& A,
                                           const Pattern<Offset, Col>& B,
                                           const Pattern<Offset, Col>& D, RowSet row_set,
                                           int log2_table, int b_words, int lanes,
                                           const int* __restrict__ terms,
                                           const SymbolicRanges& ranges,
                                           Offset* __restrict__ row_nnz,
                                           const SmallFinish<Offset>& finish,
                                           const AnalysisPass<Offset, Col>& analysis) {
  extern __shared__ __align__(16) unsigned char smem[];
  const auto group = make_group<G>();
  const int per_block = groups_per_block<G>();
  const int slot = group_in_block<G>();
  const int stride = 1 << (log2_table + row_set.bins - 1);  // the largest table
  int* keys = reinterpret_cast<int*>(smem) + slot * stride;
  int* counter = reinterpret_cast<int*>(smem) + per_block * stride + slot;
  const int rank = static_cast<int>(group.thread_rank());
  const int threads = static_cast<int>(group.num_threads());

  long long* partial = nullptr;  // blocks: group_collectives.cuh's scratch
  if constexpr (Finish && G == Group::block) {
    __shared__ long long block_partial[32];
    partial = block_partial;
  }
  ChunkScratch<Offset> chunk{};
  if constexpr (Numbered) {
    static_assert(G == Group::block && !Defer, "a block numbers its row's products");
    chunk = chunk_scratch_at<Offset>(smem + scratch_offset(sizeof(int) * (stride + 1)), threads);
  }
  auto each_column = [&](int row, auto&& column) {
    if constexpr (Numbered)
      for_each_numbered_column<Addend>(A, B, D, row, chunk, column);
    else
      for_each_column<Addend, Defer>(A, B, D, row, rank, threads, lanes, column);
  };
  // (a small product's counts wait for the gate in the workspace)
  auto put = [&](int row, int count) {
    if constexpr (Finish) finish.counts[row] = count;
    else row_nnz[row] = static_cast<Offset>(count);
  };

  int row_blocks = static_cast<int>(gridDim.x);
  bool analyzing = false;
  if constexpr (Finish) {
    row_blocks -= finish.analysis_blocks;
    analyzing = static_cast<int>(blockIdx.x) >= row_blocks;
    if (analyzing)
      analysis_pass(analysis.checks, analysis.count, static_cast<int>(blockIdx.x) - row_blocks,
                    finish.analysis_blocks);
  }

  long long rows_total = 0;  // with a gate: this thread's rows' terms (Finish)
  int rows_most = 0;
  __shared__ unsigned long long block_total;  // ... and its warps' (Finish, warps)
  __shared__ int block_most;
  if constexpr (Finish && G == Group::warp) {
    if (threadIdx.x == 0) {
      block_total = 0;
      block_most = 0;
    }
    __syncthreads();
  }
  const RowSet::View rows = row_set.view();
  const RowSet::Bins bins = row_set.bins > 1 ? row_set.bins_view() : RowSet::Bins{};
  const RowQueue<G == Group::block> queue{rows, static_cast<int>(blockIdx.x) * per_block + slot,
                                          row_blocks * per_block};
  auto* mask = reinterpret_cast<uint32_t*>(keys);
  bool ranged = false;
  if constexpr (Ranged) {
    static_assert(G == Group::warp, "ranges are for rows of warps");
    ranged = *ranges.b_disorder == 0;  // (launched only where some table lacks B's bits)
  }
  for (int i = analyzing ? -1 : queue.first(); i >= 0; i = queue.next(i)) {
    const int row = rows[i];
    const int log2_row = log2_table + (row_set.bins > 1 ? bins.of(i) : 0);
    const int table = 1 << log2_row;
    long long row_terms = 0;
    if constexpr (Finish) {
      row_terms = checked_row_terms<Addend>(A, B, D, finish.extents, row, rank, threads, partial);
      // With a gate, every row's terms (the gate's statistics, and the
      // binning's if it stays shut); a row that fails the tests (from a
      // defective operand) has none, so that no later kernel follows it.
      if (finish.sizes && rank == 0) {
        const long long size = row_terms < 0 ? 0 : row_terms;
        const int saturated = size > INT_MAX ? INT_MAX : static_cast<int>(size);
        finish.sizes[row] = saturated;
        rows_total += size;
        rows_most = max(rows_most, saturated);
        if (finish.rows_beyond && size > finish.beyond_terms) atomicAdd(finish.rows_beyond, 1);
      }
      // Rows of blocks: once a row has found the gate shut, the rows after
      // it are not hashed (their counts are never used). Rows of warps are
      // too short for a load of the flag ahead of each to pay (`spgemm-bench
      // delaunay_n15.mtx.gz`, sym).
      if constexpr (G == Group::block) {
        const bool shut = rank == 0 && finish.shut && *static_cast<volatile int*>(finish.shut);
        if (__syncthreads_or(shut)) {
          if (rank == 0) put(row, 0);
          continue;
        }
      }
      if (row_terms < 0 || row_terms > finish.max_row_terms) {  // (shuts the gate)
        if (rank == 0) {
          put(row, 0);
          if (finish.shut) *static_cast<volatile int*>(finish.shut) = 1;
        }
        continue;
      }
    } else if constexpr (Match) {
      row_terms = terms[row];
    }
    if constexpr (Match) {
      static_assert(G == Group::warp, "a row of few terms is a warp's");
      if (row_terms <= SymbolicPolicy::matched_max_terms) {  // (warp-uniform)
        const int count = distinct_in_warp<Addend>(A, B, D, row);
        if (rank == 0) put(row, count);
        continue;
      }
    }
    // the bitmask's first column and words (none: the hash set)
    int first = 0, words = b_words <= table ? b_words : 0;
    if (ranged && words == 0 && ranges.widths[row] <= 32 * table) {
      first = ranges.firsts[row];
      words = (ranges.widths[row] + 31) / 32;
    }
    if (words > 0) {
      for (int s = rank; s < words; s += threads) mask[s] = 0;
    } else {
      for (int s = rank; s < table; s += threads) keys[s] = kEmptyKey;
    }
    if (rank == 0) *counter = 0;
    group.sync();
    int inserted = 0;
    if (words > 0) {
      each_column(row, [&](int col) {
        const auto at = static_cast<unsigned>(col - first);
        const uint32_t bit = 1u << (at & 31);
        // (columns out of range only where the inputs were not checked, or
        // changed behind the plan)
        if (at >> 5 < static_cast<unsigned>(words) && !(mask[at >> 5] & bit))
          atomicOr(&mask[at >> 5], bit);
      });
      group.sync();
      for (int s = rank; s < words; s += threads) inserted += __popc(mask[s]);
    } else {
      const SharedHashSet set{keys, log2_row};
      each_column(row, [&](int col) { inserted += set.insert(col); });
    }
    if (inserted) atomicAdd(counter, inserted);
    group.sync();
    if (rank == 0) put(row, *counter);
    group.sync();  // the table and counter are reused by the next row
  }
  if constexpr (Finish) {
    __shared__ bool last;
    // the block's share of the statistics: its rows' are on the first
    // thread of each group (a reduction over the block's threads costs
    // about 1 us, `spgemm-bench lp_ship04l.mtx.gz`, sym)
    if (finish.stats && !analyzing) {  // (block-uniform)
      if constexpr (G == Group::warp) {
        if (rank == 0 && rows_total != 0) {
          atomicAdd(&block_total, static_cast<unsigned long long>(rows_total));
          atomicMax(&block_most, rows_most);
        }
        __syncthreads();
        rows_total = static_cast<long long>(block_total);
        rows_most = block_most;
      }
      if (threadIdx.x == 0) add_stats(finish.stats, rows_total, rows_most);
    }
    __threadfence();  // this block's counts (or share of the pass) before its share of blocks_done
    __syncthreads();
    if (threadIdx.x == 0) last = atomicInc(finish.blocks_done, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    // (a shut gate leaves C's offsets untouched)
    if (!finish.stats || small_product_gate(analysis.checks, finish.rows, finish.shut,
                                            finish.stats))
      block_row_offsets<int>(finish.counts, row_nnz, finish);
    if (finish.post.words > 0) post_to_host(finish.post);
  }
}

// The bins' kernels, without launch bounds: the bounds below would slow
// their symbolic phases (`spgemm-bench --gen rmat:16:16 --gen
// longrows:20000 --gen banded:500000:16 landmark.mtx.gz`, sym)...
template <Group G, bool Addend, bool Match, bool Ranged, class Offset, class Col>
__global__ void hash_symbolic_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                                     Pattern<Offset, Col> D, RowSet row_set, int log2_table,
                                     int b_words, int lanes, const int* __restrict__ terms,
                                     SymbolicRanges ranges, Offset* __restrict__ row_nnz) {
  count_rows<G, Addend, false, Match, Ranged, false, false>(A, B, D, row_set, log2_table,
                                                            b_words, lanes, terms, ranges,
                                                            row_nnz, SmallFinish<Offset>{},
                                                            AnalysisPass<Offset, Col>{});
}

// ... and, bounded to the registers of two blocks of 1024 threads per SM,
// the last bin's, whose blocks put long rows of B aside (Defer; unbounded,
// they may take 48 registers and one block per SM: `spgemm-bench --gen
// longrows:10000:800:1000:4`, sym), and any block
// bin's where B's rows are short (Numbered, configs/bins.hpp's
// SymbolicPolicy::numbered_max_lanes: its rows' products numbered, the scratch
// behind the table; 56 registers unbounded).
template <bool Addend, bool Numbered, class Offset, class Col>
__global__ void __launch_bounds__(max_block_threads(Group::block), 2)
    bounded_symbolic_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                            Pattern<Offset, Col> D, RowSet row_set, int log2_table, int b_words,
                            int lanes, const int* __restrict__ terms, SymbolicRanges ranges,
                            Offset* __restrict__ row_nnz) {
  count_rows<Group::block, Addend, false, false, false, !Numbered, Numbered>(
      A, B, D, row_set, log2_table, b_words, lanes, terms, ranges, row_nnz,
      SmallFinish<Offset>{}, AnalysisPass<Offset, Col>{});
}

// ... and a small product's, whose analysis blocks' code must not take more
// registers than its largest blocks have.
template <Group G, bool Addend, class Offset, class Col>
__global__ void __launch_bounds__(max_block_threads(G))
    small_symbolic_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                          RowSet row_set, int log2_table, int b_words, int lanes,
                          Offset* __restrict__ row_nnz, SmallFinish<Offset> finish,
                          AnalysisPass<Offset, Col> analysis) {
  count_rows<G, Addend, true, G == Group::warp, false, false, false>(
      A, B, D, row_set, log2_table, b_words, lanes, nullptr, SymbolicRanges{}, row_nnz, finish,
      analysis);
}

// One block per long row (taken from a work counter: binning.cuh's RowQueue): a bitmask over
// windows of the row's column range.
template <bool Addend, class Offset, class Col>
__global__ void __launch_bounds__(BinPolicy::dense_block_threads)
    dense_symbolic_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                          RowSet row_set, int window_words, int lanes,
                          Offset* __restrict__ row_nnz) {
  using BlockReduce = cub::BlockReduce<int, BinPolicy::dense_block_threads>;
  __shared__ typename BlockReduce::TempStorage temp;
  extern __shared__ __align__(16) unsigned char smem[];
  const WindowBitmask mask{reinterpret_cast<uint32_t*>(smem)};
  const int window = window_words * 32;

  const RowSet::View rows = row_set.view();
  const RowQueue<true> queue{rows, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
  for (int i = queue.first(); i >= 0; i = queue.next(i)) {
    const int row = rows[i];
    int lo, hi;
    // B's order is not passed here: a bitmask window of the whole shared
    // memory covers ~1.8 M columns, so the range pass runs only for wider B
    product_column_range<Addend, Offset, Col, BlockReduce>(A, B, D, row, lanes, window,
                                                           /*b_sorted=*/false, temp, lo, hi);
    int count = 0;  // per thread; summed at the end
    for (long long w0 = lo; w0 <= hi; w0 += window) {
      // only the words the row's column span reaches in this window
      const long long reach = (hi - w0) / 32 + 1;
      const int words = reach < window_words ? static_cast<int>(reach) : window_words;
      for (int w = threadIdx.x; w < words; w += blockDim.x) mask.words[w] = 0;
      __syncthreads();
      for_each_column<Addend, false>(A, B, D, row, threadIdx.x, blockDim.x, lanes, [&](int col) {
        const long long offset = col - w0;
        if (offset >= 0 && offset < window) mask.set(static_cast<int>(offset));
      });
      __syncthreads();
      for (int w = threadIdx.x; w < words; w += blockDim.x) count += __popc(mask.words[w]);
      __syncthreads();
    }
    const int total = BlockReduce(temp).Sum(count);
    if (threadIdx.x == 0) row_nnz[row] = static_cast<Offset>(total);
    __syncthreads();
  }
}

// A thread per row of at most BinPolicy::thread_row_terms terms (the thread bin,
// configs/bins.hpp): the row's columns kept in order in the thread's slots
// (accumulators/thread_row.cuh), and counted.
template <bool Addend, class Offset, class Col>
__global__ void __launch_bounds__(BinPolicy::thread_row_block_threads)
    thread_symbolic_kernel(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                           RowSet row_set, Offset* __restrict__ row_nnz) {
  constexpr int kThreads = BinPolicy::thread_row_block_threads;
  __shared__ int col_slots[BinPolicy::thread_row_terms * kThreads];
  const RowSet::View rows = row_set.view();
  for (int i = static_cast<int>(blockIdx.x * kThreads + threadIdx.x); i < rows.size;
       i += static_cast<int>(gridDim.x) * kThreads) {
    const int row = rows[i];
    ThreadRow<BinPolicy::thread_row_terms, kThreads, Columns> acc{col_slots + threadIdx.x, nullptr};
    // (a row of more columns than slots: the structure changed behind the
    // plan; its count stops at the slots, and the numeric phase writes no
    // more than that)
    auto no_value = [](Offset) { return 0; };
    for_row_terms<Addend>(
        A, B, D, row, no_value, no_value, [&](int col, int, int) { return acc.add(col); },
        [&](int col, Offset) { return acc.add(col); });
    row_nnz[row] = static_cast<Offset>(acc.count);
  }
}

// The symbolic phase's launches: for each of the schedule's launches the
// kernel that Choices::symbolic_kernel names (dispatch/choice.hpp), with its
// grid and shared memory (compiled with or without D, see numeric.cuh).
template <bool Addend, class Offset, class Col>
class SymbolicLaunches {
 public:
  SymbolicLaunches(const Choices& choices, Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                   Pattern<Offset, Col> D, int lanes, const int* terms, SymbolicRanges ranges,
                   Offset* row_nnz, const SmallFinish<Offset>* small,
                   const AnalysisPass<Offset, Col>* pass)
      : choices_(choices),
        limits_(choices.limits()),
        layout_(choices.layout(Phase::symbolic)),
        A_(A),
        B_(B),
        D_(D),
        lanes_(lanes),
        terms_(terms),
        ranges_(ranges),
        row_nnz_(row_nnz),
        finish_(small ? *small : SmallFinish<Offset>{}),
        analysis_(pass ? *pass : AnalysisPass<Offset, Col>{}) {}

  // One launch: bin `bin` (of a set of several warp bins, the last).
  void operator()(int bin, RowSet set, int rows_in_set, cudaStream_t stream) {
    const bool hash = bin < layout_.dense_bin();
    const int first_bin = hash ? bin - set.bins + 1 : bin;
    const SymbolicLaunch q{bin, first_bin, finish_.total != nullptr, ranges_.widths != nullptr,
                           terms_ != nullptr, B_.num_cols, lanes_};
    switch (choices_.symbolic_kernel(q)) {
      case SymbolicKernel::thread_row: {
        auto kernel = thread_symbolic_kernel<Addend, Offset, Col>;
        const int grid = grid_for(rows_in_set, BinPolicy::thread_row_block_threads,
                                  resident_blocks(kernel, BinPolicy::thread_row_block_threads, 0,
                                                  limits_, SymbolicPolicy::thread_row_carveout));
        launch(kernel, grid, BinPolicy::thread_row_block_threads, 0, stream, A_, B_, D_, set,
               row_nnz_);
        return;
      }
      case SymbolicKernel::dense_window: {
        auto kernel = dense_symbolic_kernel<Addend, Offset, Col>;
        const size_t smem = dynamic_smem_limit(kernel, limits_) / 128 * 128;
        const int grid = grid_for(
            rows_in_set, 1, resident_blocks(kernel, BinPolicy::dense_block_threads, smem, limits_));
        launch(kernel, grid, BinPolicy::dense_block_threads, smem, stream, A_, B_, D_, set,
               static_cast<int>(smem / 4), lanes_, row_nnz_);
        return;
      }
      case SymbolicKernel::small_warp:
        return small(small_symbolic_kernel<Group::warp, Addend, Offset, Col>, bin, first_bin, set,
                     rows_in_set, stream);
      case SymbolicKernel::small_block:
        return small(small_symbolic_kernel<Group::block, Addend, Offset, Col>, bin, first_bin,
                     set, rows_in_set, stream);
      case SymbolicKernel::warp_hash:
        return binned(hash_symbolic_kernel<Group::warp, Addend, false, false, Offset, Col>, bin,
                      first_bin, set, rows_in_set, tables(bin), nullptr, stream);
      case SymbolicKernel::warp_hash_matched:
        return binned(hash_symbolic_kernel<Group::warp, Addend, true, false, Offset, Col>, bin,
                      first_bin, set, rows_in_set, tables(bin), terms_, stream);
      case SymbolicKernel::warp_range_mask:
        return binned(hash_symbolic_kernel<Group::warp, Addend, false, true, Offset, Col>, bin,
                      first_bin, set, rows_in_set, tables(bin), nullptr, stream);
      case SymbolicKernel::warp_range_mask_matched:
        return binned(hash_symbolic_kernel<Group::warp, Addend, true, true, Offset, Col>, bin,
                      first_bin, set, rows_in_set, tables(bin), terms_, stream);
      case SymbolicKernel::block_hash:
        return binned(hash_symbolic_kernel<Group::block, Addend, false, false, Offset, Col>, bin,
                      first_bin, set, rows_in_set, tables(bin), nullptr, stream);
      case SymbolicKernel::block_numbered:
        return binned(bounded_symbolic_kernel<Addend, true, Offset, Col>, bin, first_bin, set,
                      rows_in_set, choices_.numbered_symbolic_smem(bin), nullptr, stream);
      case SymbolicKernel::block_deferred:
        return binned(bounded_symbolic_kernel<Addend, false, Offset, Col>, bin, first_bin, set,
                      rows_in_set, tables(bin), nullptr, stream);
      case SymbolicKernel::count:
        break;
    }
    fail(SPGEMM_STATUS_INTERNAL_ERROR, "no symbolic kernel for the choice");
  }

 private:
  // A small product's one launch over all rows (no ranges), with its pass
  // of the analysis in blocks of their own after the rows'.
  template <class Kernel>
  void small(Kernel kernel, int bin, int first_bin, RowSet set, int rows_in_set,
             cudaStream_t stream) {
    const HashBinLaunch& b = layout_.hash[bin];
    const int threads = b.spec.block_threads;
    const int resident = resident_blocks(kernel, threads, b.smem_bytes, limits_);
    const int grid = grid_for(rows_in_set, b.rows_per_block, resident);
    SmallFinish<Offset> finish = finish_;
    finish.analysis_blocks = analysis_.work > 0 ? grid_for(analysis_.work, threads, resident) : 0;
    launch(kernel, grid + finish.analysis_blocks, threads, b.smem_bytes, stream, A_, B_, D_, set,
           log2_table(first_bin), b_words(), group_lanes(b.spec), row_nnz_, finish, analysis_);
  }

  // A binned launch of hash bins first_bin .. bin with `smem` bytes of
  // shared memory; `terms`: the rows' terms, for the kernels that match
  // columns (__match_any_sync), else nullptr.
  template <class Kernel>
  void binned(Kernel kernel, int bin, int first_bin, RowSet set, int rows_in_set, size_t smem,
              const int* terms, cudaStream_t stream) {
    const HashBinLaunch& b = layout_.hash[bin];
    const int threads = b.spec.block_threads;
    const int grid =
        grid_for(rows_in_set, b.rows_per_block, resident_blocks(kernel, threads, smem, limits_));
    launch(kernel, grid, threads, smem, stream, A_, B_, D_, set, log2_table(first_bin), b_words(),
           group_lanes(b.spec), terms, ranges_, row_nnz_);
  }

  size_t tables(int bin) const { return layout_.hash[bin].smem_bytes; }
  int log2_table(int bin) const { return log2_of_pow2(layout_.hash[bin].spec.table_size); }
  // B's columns in 32-bit words (where they fit every table's bits, their
  // bitmask covers every row's range)
  int b_words() const {
    return static_cast<int>(
        std::min<long long>((static_cast<long long>(B_.num_cols) + 31) / 32, INT_MAX));
  }
  int group_lanes(const HashBinSpec& spec) const {
    return std::min(lanes_, spec.group == Group::block ? spec.block_threads
                                                       : static_cast<int>(spec.group));
  }

  const Choices& choices_;
  const DeviceLimits& limits_;
  const BinLayout& layout_;
  Pattern<Offset, Col> A_, B_, D_;
  int lanes_;
  const int* terms_;
  SymbolicRanges ranges_;
  Offset* row_nnz_;
  SmallFinish<Offset> finish_;
  AnalysisPass<Offset, Col> analysis_;
};

}  // namespace

template <class Offset, class Col>
void launch_symbolic(const Choices& choices, Pattern<Offset, Col> A, Pattern<Offset, Col> B,
                     Pattern<Offset, Col> D, int rows, int lanes, const int* terms,
                     SymbolicRanges ranges, const Schedule& schedule, Offset* row_nnz,
                     const SmallFinish<Offset>* small, const AnalysisPass<Offset, Col>* analysis,
                     const LaunchStreams& streams) {
  with_flag(D.offsets != nullptr, [&](auto addend) {
    for_each_scheduled_bin(choices.layout(Phase::symbolic), rows, schedule, streams,
                           SymbolicLaunches<addend, Offset, Col>(choices, A, B, D, lanes, terms,
                                                                 ranges, row_nnz, small,
                                                                 analysis));
  });
}

#define SPGEMM_INSTANTIATE_SYMBOLIC(Offset, Col)                                             \
  template void launch_symbolic<Offset, Col>(const Choices&, Pattern<Offset, Col>,            \
                                             Pattern<Offset, Col>,                            \
                                             Pattern<Offset, Col>, int, int, const int*,      \
                                             SymbolicRanges, const Schedule&, Offset*,        \
                                             const SmallFinish<Offset>*,                      \
                                             const AnalysisPass<Offset, Col>*,                \
                                             const LaunchStreams&);
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_SYMBOLIC)

}  // namespace spgemm::cuda
