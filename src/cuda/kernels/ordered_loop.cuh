// SPDX-License-Identifier: Apache-2.0
// The numeric phase's adds: the terms that row_loop.cuh's for_each_product
// and for_each_addend visit, added in a fixed order
// (accumulators/ordered_add.cuh), so every numeric phase gives the same bits.
//
// A row's products are numbered: the entries of A's row are taken `threads`
// at a time (a chunk), a group-wide scan of their rows of B's lengths gives
// every product of the chunk a number, and product p is found back from p by
// a binary search over the chunk's starts in shared memory. So every thread
// has a term in every step, whatever the lengths of B's rows (striding over
// each row of B instead would leave most lanes idle on short rows: 13x
// slower on `spgemm-bench --gen rmat:16:16`). The numbered terms go in
// batches of threads * NumericPolicy::ordered_stash (a warp alone:
// NumericPolicy::ordered_warp_stash): each thread finds the slots of its terms and each warp
// combines its terms per slot, all in parallel; then the warps of a block add their sums one warp
// after the other, a block barrier between turns. (Turns handed over through a shared-memory flag,
// warps spinning on it, are slower: `spgemm-bench --gen rmat:16:16 --gen
// longrows:20000`, num; and racecheck cannot follow them.) The order of
// the adds, and so every bit of C, depends only on the structure of the
// operands and the launch configuration.
//
// Where B's rows are long against the group, a second order costs less:
// the group takes A's entries one after the other and its threads the
// entry's row of B, a thread per term, with a group barrier between entries
// (blocks gather several entries' loads before their adds and barriers:
// add_row_by_b_rows_stashed). The columns of one row of B differ, so no two
// threads add to one slot at once and nothing needs combining (no search, no
// __match_any_sync, no turns); only for B whose rows the analysis found
// strictly increasing (repeated columns are valid input), and for rows of C
// where those steps keep at least NumericPolicy::whole_rows_min_use of the threads busy
// (NumericPolicy::ranked_whole_rows_min_use for the dense kernel's ranked rows;
// configs/bins.hpp). Which order a row gets depends on the structure alone,
// so the result is as reproducible as with one order.
#pragma once

#include "cuda/accumulators/ordered_add.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/group_collectives.cuh"
#include "cuda/kernels/kernels.hpp"
#include "cuda/kernels/row_loop.cuh"
#include "cuda/warp_shuffle.cuh"

#include <type_traits>

namespace spgemm::cuda {

// Adds terms 0 .. count-1 (count the same on every thread of the group):
// term(p, slot&, value&) -> whether term p has a slot in the accumulator
// (false: e.g. outside the dense window), Stash steps a batch (a warp adds
// its steps one after the other whatever their number: for a warp alone
// the stash sets the loads in flight, not the order; configs/bins.hpp).
// Group-collective.
template <int Stash = NumericPolicy::ordered_stash, class Value, class Term>
__device__ void add_terms_in_order(long long count, int rank, int threads, Term&& term,
                                   Value* values) {
  const int warps = threads / 32;
  const int warp = rank / 32;
  const long long step = threads;
  for (long long base = 0; base < count; base += step * Stash) {
    bool valid[Stash];
    int slot[Stash];
    Value value[Stash];
#pragma unroll
    for (int s = 0; s < Stash; ++s) {
      const long long p = base + s * step + rank;
      slot[s] = 0;
      value[s] = Value(0);
      valid[s] = p < count && term(p, slot[s], value[s]);
      if (base + s * step < count)  // the same on every lane: whole steps are skipped
        combine_in_lane_order(valid[s], slot[s], value[s]);
    }
    for (int turn = 0; turn < warps; ++turn) {
      if (turn == warp) {
#pragma unroll
        for (int s = 0; s < Stash; ++s)
          if (base + s * step < count) add_combined(values, valid[s], slot[s], value[s]);
      }
      if (warps > 1) __syncthreads();
    }
  }
}

// Columns [begin, end) of a dense window (numeric/dense_rows.cuh): the ordered adds
// number only the terms of B's entries there, found by a binary search in
// each row of B, where B's rows are sorted (b_disorder reads 0). Empty
// (end <= begin): every term, filtered by locate.
struct ColumnWindow {
  long long begin = 0;
  long long end = 0;
};

// The first position in [lo, hi) of B's sorted row whose column is >= col.
template <class Offset, class Col>
__device__ __forceinline__ Offset first_column_at(const Pattern<Offset, Col>& B, Offset lo,
                                                  Offset hi, long long col) {
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (B.col(mid) < col) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// D's entries of `row` (whose columns may repeat), in order. Group-collective.
template <class Value, class Offset, class Col, class Locate>
__device__ void add_addend_in_order(const NumericArgs<Value, Offset, Col>& args, int row,
                                    int rank, int threads, Locate&& locate, Value* values) {
  const Offset d_begin = args.D.begin(row);
  add_terms_in_order(
      static_cast<long long>(args.D.end(row) - d_begin), rank, threads,
      [&](long long p, int& slot, Value& value) {
        if (!locate(args.D.col(d_begin + p), slot)) return false;
        value = args.addend(d_begin + p);
        return true;
      },
      values);
}

// A's entry `a` times B's entries [b_begin, b_end) taken whole, a thread
// per term (see the top: B's columns strictly increase, so no two threads
// add to one slot), then a group barrier, as the next row of B's terms may
// go to the same slots. Group-collective.
template <class Value, class Offset, class Col, class Locate>
__device__ __forceinline__ void add_b_row_whole(const NumericArgs<Value, Offset, Col>& args,
                                                Offset a, Offset b_begin, Offset b_end, int rank,
                                                int threads, Locate&& locate, Value* values) {
  for (Offset b = b_begin + rank; b < b_end; b += threads) {
    int slot;
    if (locate(args.B.col(b), slot)) values[slot] += args.product(a, b);
  }
  group_sync(threads);
}

// All the terms of `row` of C, products then (Addend) D's entries, through
// locate(col, slot&) -> whether the column has a slot. Group-collective.
// WholeLong (compiled for blocks) and whole_long (B's rows strictly
// increase, see the top): an entry whose row of B keeps at least
// NumericPolicy::whole_rows_min_use of the threads busy is not numbered; its row of B is
// taken whole after its chunk's numbered terms (as in add_row_by_b_rows): a
// barrier per row and `threads` terms a step, instead of a turn of every
// warp per threads * NumericPolicy::ordered_stash terms. Which entries go whole follows
// from the structure, so the order of the adds stays fixed (`spgemm-bench
// --gen longrows:20000 --gen rmat:16:16 orani678.mtx.gz`, num).
// add_row_in_order takes the whole row; add_entries_in_order the products
// of A's entries [a_begin, a_begin + entries) of one row and not D's (a part
// of a split row: numeric/split_rows.cuh's split_numeric_kernel).
template <bool WholeLong, class Value, class Offset, class Col, class Locate>
__device__ void add_entries_in_order(const NumericArgs<Value, Offset, Col>& args, Offset a_begin,
                                     int entries, int rank, int threads,
                                     const ChunkScratch<Offset>& scratch,
                                     const ColumnWindow& window, bool whole_long, Locate&& locate,
                                     Value* values) {
  // one scan counts both: the numbered terms below kWholeTag, the entries
  // taken whole above it (a chunk's terms stay far below 2^44)
  constexpr long long kWholeTag = 1LL << 44;
  const auto& A = args.A;
  const auto& B = args.B;
  for (int chunk = 0; chunk < entries; chunk += threads) {
    const int e = chunk + rank;
    Offset b_begin = 0;
    long long length = 0;
    if (e < entries) {
      const int k = A.col(a_begin + e);
      b_begin = B.begin(k);
      Offset b_end = B.end(k);
      if (window.end > window.begin) {  // only the entries in the window
        b_begin = first_column_at(B, b_begin, b_end, window.begin);
        b_end = first_column_at(B, b_begin, b_end, window.end);
      }
      length = static_cast<long long>(b_end - b_begin);
    }
    const bool whole =
        WholeLong && whole_long && length >= NumericPolicy::whole_rows_min_use * threads;
    long long counted = 0;
    const long long before = group_exclusive_sum(whole ? kWholeTag : length, rank, threads,
                                                 scratch.partial, counted);
    const long long products = counted & (kWholeTag - 1);
    const int wholes = static_cast<int>(counted / kWholeTag);
    scratch.start[rank] = before & (kWholeTag - 1);
    scratch.b_begin[rank] = b_begin;
    group_sync(threads);
    const int last = min(threads, entries - chunk) - 1;
    const Offset a_chunk = a_begin + chunk;
    // (WholeLong is compiled for blocks: accumulate_row's InBlock)
    add_terms_in_order<WholeLong ? NumericPolicy::ordered_stash
                                 : NumericPolicy::ordered_warp_stash>(
        products, rank, threads,
        [&](long long p, int& slot, Value& value) {
          const int lo = last_start_at_or_before(scratch.start, last, p);
          const Offset b = scratch.b_begin[lo] + static_cast<Offset>(p - scratch.start[lo]);
          if (!locate(B.col(b), slot)) return false;
          value = args.product(a_chunk + lo, b);
          return true;
        },
        values);
    if (WholeLong && wholes > 0) {  // (block-uniform) the entries taken whole, in order
      group_sync(threads);
      if (whole) {
        const int at = static_cast<int>(before / kWholeTag);
        scratch.start[at] = length * threads + rank;
        scratch.b_begin[at] = b_begin;
      }
      group_sync(threads);
      for (int i = 0; i < wholes; ++i) {
        const long long packed = scratch.start[i];
        add_b_row_whole(args, a_chunk + static_cast<Offset>(packed % threads),
                        scratch.b_begin[i],
                        scratch.b_begin[i] + static_cast<Offset>(packed / threads), rank,
                        threads, locate, values);
      }
    }
    group_sync(threads);  // the scratch is reused by the next chunk
  }
}

template <bool Addend, bool WholeLong, class Value, class Offset, class Col, class Locate>
__device__ void add_row_in_order(const NumericArgs<Value, Offset, Col>& args, int row, int rank,
                                 int threads, const ChunkScratch<Offset>& scratch,
                                 const ColumnWindow& window, bool whole_long, Locate&& locate,
                                 Value* values) {
  const Offset a_begin = args.A.begin(row);
  add_entries_in_order<WholeLong>(args, a_begin, static_cast<int>(args.A.end(row) - a_begin),
                                  rank, threads, scratch, window, whole_long, locate, values);
  if constexpr (Addend) add_addend_in_order(args, row, rank, threads, locate, values);
}

// Whether taking the rows of B whole (see the top) keeps at least min_use
// of the group's threads busy over `row`'s steps: one pass
// over the lengths of the row's rows of B. Group-collective.
template <class Value, class Offset, class Col>
__device__ bool whole_b_rows_pay(const NumericArgs<Value, Offset, Col>& args, int row, int rank,
                                 int threads, long long* partial, double min_use) {
  const auto& A = args.A;
  const auto& B = args.B;
  long long terms = 0, steps = 0;
  for (Offset a = A.begin(row) + rank; a < A.end(row); a += threads) {
    const int k = A.col(a);
    const long long length = B.end(k) - B.begin(k);
    terms += length;
    steps += (length + threads - 1) / threads;
  }
  long long all_terms = 0, all_steps = 0;
  group_exclusive_sum(terms, rank, threads, partial, all_terms);
  group_exclusive_sum(steps, rank, threads, partial, all_steps);
  return static_cast<double>(all_terms) >=
         min_use * static_cast<double>(all_steps) * threads;
}

// All the terms of `row` with the rows of B taken whole (see the top), by a
// warp: products entry by entry of A, then (Addend) D's entries as in
// add_row_in_order. A's entries are read 32 at a time, a lane each loading
// its entry's row of B's bounds and alpha * a_ik, handed round by shuffles;
// each row of B goes two steps of 32 terms at a time, both steps' loads
// issued before their adds. So an entry's adds wait on one round of loads
// of its row of B, not on A's column, B's offsets and each step's loads in
// turn (`spgemm-bench --gen banded:500000:16 --gen stencil27:64`, rows of
// B of 33 and 27 entries, num). Warp-collective.
template <bool Addend, class Value, class Offset, class Col, class Locate>
__device__ void add_row_by_b_rows(const NumericArgs<Value, Offset, Col>& args, int row, int lane,
                                  Locate&& locate, Value* values) {
  const auto& A = args.A;
  const auto& B = args.B;
  const Offset a_end = A.end(row);
  for (Offset chunk = A.begin(row); chunk < a_end; chunk += 32) {
    Offset my_begin = 0, my_end = 0;
    Value my_scaled = Value(0);
    if (chunk + lane < a_end) {
      const int k = A.col(chunk + lane);
      my_begin = B.begin(k);
      my_end = B.end(k);
      my_scaled = args.scaled_a(chunk + lane);
    }
    const int entries = a_end - chunk < 32 ? static_cast<int>(a_end - chunk) : 32;
    for (int e = 0; e < entries; ++e) {
      const Offset b_end = shfl(kFullWarp, my_end, e);
      const Value scaled = shfl(kFullWarp, my_scaled, e);
      for (Offset b = shfl(kFullWarp, my_begin, e) + lane; b < b_end; b += 64) {
        const bool second = b + 32 < b_end;
        const int col = B.col(b);
        const Value term = args.product_of(scaled, b);
        const int col2 = second ? B.col(b + 32) : 0;
        const Value term2 = second ? args.product_of(scaled, b + 32) : Value(0);
        int slot;
        if (locate(col, slot)) values[slot] += term;
        if (second && locate(col2, slot)) values[slot] += term2;
      }
      __syncwarp();  // the next entry's terms may go to the same slots
    }
  }
  if constexpr (Addend) add_addend_in_order(args, row, lane, 32, locate, values);
}

// A chunk of in_chunk entries of A (from a_chunk) none of whose rows of B
// (b_begins, lengths) is longer than the block: each entry is one step, a
// thread per term. Steps go Steps at a time, all their loads before their
// adds, a barrier after each; batches of Steps whole take their barriers
// unconditionally. The general loop's bookkeeping of where each step is in
// its row of B, and its barriers under a condition, cost about 40% more
// warp instructions (bcsstk33's block kernel, Nsight Compute). The adds
// come in the order of add_row_by_b_rows_stashed's general loop.
// Block-collective.
template <int Steps, class Value, class Offset, class Col, class Locate>
__device__ __forceinline__ void add_one_step_entries(const NumericArgs<Value, Offset, Col>& args,
                                                     Offset a_chunk, int in_chunk, int rank,
                                                     const Offset* b_begins,
                                                     const unsigned* lengths, Locate&& locate,
                                                     Value* values) {
  auto batch = [&](int entry, auto whole) {
    bool has[Steps];
    int col[Steps];
    Value value[Steps];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const int e = entry + s;
      has[s] = (whole || e < in_chunk) && static_cast<unsigned>(rank) < lengths[e];
      const Offset b = has[s] ? b_begins[e] + static_cast<Offset>(rank) : Offset(0);
      col[s] = has[s] ? args.B.col(b) : 0;
      value[s] = has[s] ? args.product(a_chunk + e, b) : Value(0);
    }
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      if constexpr (!decltype(whole)::value) {
        if (entry + s >= in_chunk) break;
      }
      int slot;
      if (has[s] && locate(col[s], slot)) values[slot] += value[s];
      __syncthreads();  // the next entry's terms may go to the same slots
    }
  };
  int entry = 0;
  for (; entry + Steps <= in_chunk; entry += Steps) batch(entry, std::true_type{});
  if (entry < in_chunk) batch(entry, std::false_type{});
}

// The same for a block, whose barrier between entries also waits for the
// loads of all its warps: the entries are taken `threads` at a time (a
// chunk), their rows of B's starts and lengths put in the scratch with one
// load per thread; then each thread gathers NumericPolicy::ordered_stash steps (an entry's
// row of B, `threads` terms at a time) with all their loads in flight before
// it adds them, a barrier after each entry's last step: faster than
// add_row_by_b_rows for blocks (`spgemm-bench bcsstk33.mtx.gz
// landmark.mtx.gz astro-ph.mtx.gz --gen rmat:16:16`, num2). Warps keep
// add_row_by_b_rows: stashed, they are faster on some inputs and slower on
// others (`spgemm-bench --gen stencil27:64 --gen banded:500000:16`, num2).
// OneStep: a chunk whose rows of B all fit one step takes
// add_one_step_entries. Block-collective.
template <bool Addend, bool OneStep, class Value, class Offset, class Col, class Locate>
__device__ void add_row_by_b_rows_stashed(const NumericArgs<Value, Offset, Col>& args, int row,
                                          int rank, int threads,
                                          const ChunkScratch<Offset>& scratch, Locate&& locate,
                                          Value* values) {
  constexpr int kSteps = NumericPolicy::ordered_stash;
  const auto& A = args.A;
  const auto& B = args.B;
  const Offset a_begin = A.begin(row);
  const int entries = static_cast<int>(A.end(row) - a_begin);
  // a row of B taken whole has distinct columns, so fewer than 2^31 entries:
  // its length and the steps through it fit 32 unsigned bits (in 64 bits the
  // loop below is slower: `spgemm-bench landmark.mtx.gz`, num2)
  unsigned* lengths = reinterpret_cast<unsigned*>(scratch.start);
  for (int chunk = 0; chunk < entries; chunk += threads) {
    const int e = chunk + rank;
    bool long_entry = false;
    if (e < entries) {
      const int k = A.col(a_begin + e);
      const unsigned length = static_cast<unsigned>(B.end(k) - B.begin(k));
      scratch.b_begin[rank] = B.begin(k);
      lengths[rank] = length;
      long_entry = length > static_cast<unsigned>(threads);
    }
    bool one_step = false;
    if constexpr (OneStep) one_step = !__syncthreads_or(long_entry);
    else group_sync(threads);
    const int in_chunk = min(threads, entries - chunk);
    const Offset a_chunk = a_begin + chunk;
    if (one_step) {
      add_one_step_entries<kSteps>(args, a_chunk, in_chunk, rank, scratch.b_begin, lengths,
                                   locate, values);
      continue;  // (its last step's barrier frees the scratch)
    }
    int entry = 0;      // the next step's entry of the chunk (the same on every thread)
    unsigned done = 0;  // and the terms of its row of B before it
    while (entry < in_chunk) {
      Offset b[kSteps];
      int of[kSteps];  // the step's entry, -1 for none
      bool last[kSteps];
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        of[s] = -1;
        last[s] = false;
        b[s] = 0;
        if (entry < in_chunk) {
          const unsigned length = lengths[entry];
          if (done + rank < length) {
            of[s] = entry;
            b[s] = scratch.b_begin[entry] + static_cast<Offset>(done + rank);
          }
          done += threads;
          if (done >= length) {
            last[s] = true;
            ++entry;
            done = 0;
          }
        }
      }
      int col[kSteps];
      Value value[kSteps];
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        col[s] = of[s] >= 0 ? B.col(b[s]) : 0;
        value[s] = of[s] >= 0 ? args.product(a_chunk + of[s], b[s]) : Value(0);
      }
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        int slot;
        if (of[s] >= 0 && locate(col[s], slot)) values[slot] += value[s];
        if (last[s]) group_sync(threads);  // the next entry's terms may go to the same slots
      }
    }
    group_sync(threads);  // the scratch is reused by the next chunk
  }
  if constexpr (Addend) add_addend_in_order(args, row, rank, threads, locate, values);
}

// What the numeric kernels call: adds every term of `row` of C (products,
// then with Addend D's entries) to values[locate(col)], skipping terms whose
// locate(col) is negative (no slot: outside a dense window, or not among a
// reused row's columns), in one of the fixed orders above, through scratch
// (the group's slice of its block's ChunkScratch; window: see ColumnWindow;
// whole rows of B where they keep whole_rows_min_use of the threads busy).
// Blocks (InBlock: the group is the whole block) take the rows of B that
// keep at least NumericPolicy::whole_rows_min_use of their threads busy whole
// (add_row_in_order's WholeLong). OneStep: blocks taking rows of B whole
// give chunks whose rows all fit one step add_one_step_entries
// (`spgemm-bench bcsstk33.mtx.gz`, blocks of 128 threads and rows of B of
// 68 entries, num and num2); the numeric hash kernel's lean instance has
// it, the regular one not: there it takes a spill (`spgemm-bench
// landmark.mtx.gz`, num2). Group-collective.
template <bool Addend, bool InBlock, bool OneStep, class Value, class Offset, class Col,
          class Locate>
__device__ __forceinline__ void accumulate_row(
    const NumericArgs<Value, Offset, Col>& args, int row, int rank, int threads,
    const ChunkScratch<Offset>& scratch, Locate&& locate, Value* values, ColumnWindow window = {},
    double whole_rows_min_use = NumericPolicy::whole_rows_min_use) {
  auto slot_of = [&](int col, int& slot) { return (slot = locate(col)) >= 0; };
  const bool b_sorted = args.b_rows_sorted();
  if (!b_sorted ||
      !whole_b_rows_pay(args, row, rank, threads, scratch.partial, whole_rows_min_use))
    add_row_in_order<Addend, InBlock>(args, row, rank, threads, scratch,
                                      b_sorted ? window : ColumnWindow{}, b_sorted, slot_of,
                                      values);
  else if (threads == 32)
    add_row_by_b_rows<Addend>(args, row, rank, slot_of, values);
  else
    add_row_by_b_rows_stashed<Addend, OneStep>(args, row, rank, threads, scratch, slot_of,
                                               values);
}

}  // namespace spgemm::cuda
