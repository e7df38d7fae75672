// SPDX-License-Identifier: Apache-2.0
// The numeric phase's split rows: each of the last hash bin's few rows
// split among blocks that add their parts in a fixed order.
// (kernels/numeric.cuh launches it.)
#pragma once

#include "cuda/accumulators/direct_row.cuh"
#include "cuda/accumulators/hash_table.cuh"
#include "cuda/binning/binning.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/known_columns.cuh"
#include "cuda/kernels/ordered_loop.cuh"

#include <cuda/atomic>
#include <cstring>
#include <type_traits>

namespace spgemm::cuda {

namespace {

// The length of the row of B that A's entry at `a` names.
template <class Value, class Offset, class Col>
__device__ __forceinline__ long long b_row_length(const NumericArgs<Value, Offset, Col>& args,
                                                  Offset a) {
  const int k = args.A.col(a);
  return static_cast<long long>(args.B.end(k) - args.B.begin(k));
}

// The share [first, last) of `row`'s entries of A that part `part` of
// `parts` takes (split_numeric_kernel): the entries whose first term falls
// in the part's equal share of the row's terms, `total`. Block-collective.
template <class Value, class Offset, class Col>
__device__ void part_entries(const NumericArgs<Value, Offset, Col>& args, int row, int part,
                             int parts, long long total, long long* partial, int& first,
                             int& last) {
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const Offset a_begin = args.A.begin(row);
  const int entries = static_cast<int>(args.A.end(row) - a_begin);
  first = 0;
  last = 0;
  long long carry = 0;
  for (int chunk = 0; chunk < entries; chunk += threads) {
    const int e = chunk + rank;
    long long in_chunk = 0;
    const long long before =
        carry + group_exclusive_sum(e < entries ? b_row_length(args, a_begin + e) : 0, rank,
                                    threads, partial, in_chunk);
    const long long share = e >= entries ? parts : before * parts / total;
    first += __syncthreads_count(share < part);
    last += __syncthreads_count(share < part + 1);
    carry += in_chunk;
  }
}

// *p read from L2, past the SM's L1 (written by other blocks): __ldcg on
// the value's bytes, complex values too.
template <class Value>
__device__ __forceinline__ Value load_past_l1(const Value* p) {
  using Word = std::conditional_t<sizeof(Value) == 4, unsigned,
                                  std::conditional_t<sizeof(Value) == 8, unsigned long long, uint4>>;
  static_assert(sizeof(Word) == sizeof(Value) && alignof(Value) >= alignof(Word));
  const Word word = __ldcg(reinterpret_cast<const Word*>(p));
  Value value;
  memcpy(&value, &word, sizeof(Value));
  return value;
}

// The last hash bin's rows split among blocks (dispatch/choice.hpp's
// Choices::split_parts), without D, B's columns all in the
// table's direct slots. Item i of rows * parts is part i % parts of the
// set's row i / parts; blocks take the items in order, so the part a block
// waits for is always held by a running block. A row takes as many of its
// parts as it has NumericPolicy::split_rows_part_terms terms, at least one; each sums the
// products of its share of the row's entries of A (part_entries) in direct
// slots in the bin's order (add_entries_in_order). Then, once the parts
// before it are done (the row's flag), a part adds its sums to the row's
// dense array in device memory and its columns to the row's mask (the
// first writes both whole), NumericPolicy::split_rows_add_batch columns a thread at a time;
// the last adds them to its own slots instead and writes C's row from
// there. The same cut and the same order of adds in every numeric phase,
// so the same bits (the row is computed anew each time: C's known columns
// are not needed).
template <class Value, class Offset, class Col>
__global__ void __launch_bounds__(max_block_threads(Group::block), 1)
    split_numeric_kernel(NumericArgs<Value, Offset, Col> args, RowSet row_set, SplitRows split) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ long long partial[32];
  const int rank = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const int width = split.width;
  const int words = split.words();
  // the hash kernel's layout (the bin's ordered_smem_bytes: the table, an
  // int, the ordered adds' scratch), the table's keys as the slots' bitmask
  const int table = split.table;
  const DirectRow<Value> acc{reinterpret_cast<uint32_t*>(smem),
                             reinterpret_cast<Value*>(smem + sizeof(int) * table), 0, width};
  const size_t table_bytes = (sizeof(int) + sizeof(Value)) * table;
  const ChunkScratch<Offset> scratch =
      chunk_scratch_at<Offset>(smem + scratch_offset(table_bytes + sizeof(int)), threads);
  const RowSet::View rows = row_set.view();
  for (int i = next_row(split.work_counter, rows.size * split.parts); i >= 0;
       i = next_row(split.work_counter, rows.size * split.parts)) {
    const int r = i / split.parts;
    const int part = i % split.parts;
    const int row = rows[r];
    const Offset a_begin = args.A.begin(row);
    long long mine = 0, total = 0;
    for (Offset a = a_begin + rank; a < args.A.end(row); a += threads)
      mine += b_row_length(args, a);
    group_exclusive_sum(mine, rank, threads, partial, total);
    const int parts = static_cast<int>(min(static_cast<long long>(split.parts),
                                           max(1LL, total / NumericPolicy::split_rows_part_terms)));
    if (part >= parts) continue;  // (block-uniform)
    for (int c = rank; c < width; c += threads) acc.values[c] = Value(0);
    for (int w = rank; w < words; w += threads) acc.free_bits[w] = ~0u;
    int first, last;
    part_entries(args, row, part, parts, total, partial, first, last);  // (orders the clearing)
    add_entries_in_order<true>(args, a_begin + first, last - first, rank, threads, scratch,
                               ColumnWindow{}, args.b_rows_sorted(),
                               [&](int col, int& slot) { return (slot = acc.claim(col)) >= 0; },
                               acc.values);
    __syncthreads();
    Value* dense = static_cast<Value*>(split.dense) + static_cast<long long>(r) * width;
    uint32_t* mask = split.masks + static_cast<long long>(r) * words;
    ::cuda::atomic_ref<int, ::cuda::thread_scope_device> flag(split.flags[r]);
    if (part > 0) {
      if (rank == 0) {
        while (flag.load(::cuda::memory_order_acquire) != part) __nanosleep(64);
        __threadfence();
      }
      __syncthreads();
    }
    const bool to_c = part + 1 == parts;  // (else into the row's arrays)
    if (part > 0 || !to_c) {
      // (the first part writes every column, 0 where it has nothing; a
      // later one those it has, and the last takes the others' sums as
      // they are)
      for (int c0 = rank; c0 < width; c0 += NumericPolicy::split_rows_add_batch * threads) {
        bool own[NumericPolicy::split_rows_add_batch];
        Value before[NumericPolicy::split_rows_add_batch];
#pragma unroll
        for (int j = 0; j < NumericPolicy::split_rows_add_batch; ++j) {
          const int c = c0 + j * threads;
          own[j] = c < width && (part == 0 || !(acc.free_bits[c >> 5] >> (c & 31) & 1u));
          before[j] = part > 0 && c < width && (own[j] || to_c) ? load_past_l1(dense + c)
                                                                : Value(0);
        }
#pragma unroll
        for (int j = 0; j < NumericPolicy::split_rows_add_batch; ++j) {
          const int c = c0 + j * threads;
          if (own[j] && to_c) acc.values[c] = before[j] + acc.values[c];
          else if (own[j]) dense[c] = before[j] + acc.values[c];
          else if (to_c && c < width) acc.values[c] = before[j];
        }
      }
      __syncthreads();  // (the last part's own columns were read above)
      for (int w = rank; w < words; w += threads) {
        const uint32_t used = ~acc.free_bits[w];
        const uint32_t all = part > 0 ? load_past_l1(mask + w) | used : used;
        if (to_c) acc.free_bits[w] = ~all;
        else mask[w] = all;
      }
    }
    if (!to_c) {
      __threadfence();
      __syncthreads();
      if (rank == 0) flag.store(part + 1, ::cuda::memory_order_release);
      continue;  // (next_row's barrier frees the slots)
    }
    __syncthreads();
    const Offset out = args.c_begin(row);
    write_direct_row(acc, width, rank, threads, args, out, static_cast<int>(args.c_end(row) - out),
                     partial);
  }
}

}  // namespace

}  // namespace spgemm::cuda
