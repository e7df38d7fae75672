// The deterministic counterpart of row_loop.cuh's for_each_product and
// for_each_addend: the same products, added in a fixed order
// (accumulators/ordered_add.cuh).
//
// A row's terms come in segments: an entry a_ik of A gives the row k of B
// scaled by alpha * a_ik, and D's row (scaled by beta) is one more. Segments
// are taken `threads / lanes` at a time (a round), `lanes` threads striding
// over each; a round runs in batches of kOrderedStash strides, and each
// batch is one turn: every thread finds the slots of its terms first (in
// parallel with the other warps' adds), then its warp adds them when its
// turn comes. The order of adds, and so every bit of the result, depends
// only on the structure of the operands and the launch configuration.
#pragma once

#include "cuda/accumulators/ordered_add.cuh"
#include "cuda/configs/bins.hpp"
#include "cuda/kernels/kernels.hpp"

namespace spgemm::cuda {

// A run of terms: positions [begin, begin + length) of B's (or D's) entries,
// each multiplied by scale.
template <class Value, class Offset>
struct Segment {
  Offset begin = 0;
  Offset length = 0;
  Value scale = Value(0);
};

__device__ __forceinline__ long long warp_max(long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x = max(x, __shfl_xor_sync(kFullWarp, x, offset));
  return x;
}

// open(e) -> Segment for e in [0, segments); locate(segment, position,
// slot&) -> whether the term at that position has a slot in the accumulator
// (it claims one if needed); term(segment, position) -> its value. Every
// thread of the group calls this (it is collective); `turn` counts the
// group's turns so far and carries over between calls on the same row.
template <class Value, class Open, class Locate, class Term>
__device__ void add_segments_in_order(int segments, int rank, int threads, int lanes, Open&& open,
                                      Locate&& locate, Term&& term, Value* values,
                                      WarpTurns turns, unsigned& turn) {
  const unsigned warps = static_cast<unsigned>(threads / 32);
  const unsigned warp = static_cast<unsigned>(rank / 32);
  const int lane = rank & 31;
  const int per_round = threads / lanes;
  for (int first = 0; first < segments; first += per_round) {
    const int mine = first + rank / lanes;
    const auto segment = mine < segments ? open(mine) : decltype(open(0)){};
    // Every warp finds the round's longest segment itself, so all of them
    // agree on the number of batches (and turns) without a barrier.
    long long longest = 0;
    for (int i = lane; i < per_round && first + i < segments; i += 32)
      longest = max(longest, static_cast<long long>(open(first + i).length));
    longest = warp_max(longest);
    for (long long batch = 0; batch < longest; batch += static_cast<long long>(kOrderedStash) * lanes) {
      bool valid[kOrderedStash];
      int slot[kOrderedStash];
      Value value[kOrderedStash];
#pragma unroll
      for (int s = 0; s < kOrderedStash; ++s) {
        const long long position = batch + static_cast<long long>(s) * lanes + rank % lanes;
        slot[s] = 0;
        valid[s] = position < segment.length && locate(segment, position, slot[s]);
        value[s] = valid[s] ? term(segment, position) : Value(0);
      }
      turns.wait(turn * warps + warp);
#pragma unroll
      for (int s = 0; s < kOrderedStash; ++s) add_in_lane_order(values, valid[s], slot[s], value[s]);
      turns.pass(turn * warps + warp);
      ++turn;
    }
  }
}

// All the terms of `row` of C: the products, then D's entries (Addend).
// Group-collective; lanes as for for_each_product (widened for blocks whose
// row of A is short).
template <bool Addend, class Value, class Offset, class Col, class Locate>
__device__ void add_row_in_order(const NumericArgs<Value, Offset, Col>& args, int row, int rank,
                                 int threads, int lanes, Locate&& locate_col, Value* values,
                                 WarpTurns turns) {
  using Run = Segment<Value, Offset>;
  const auto& A = args.A;
  const auto& B = args.B;
  const auto& D = args.D;
  const Offset a_begin = A.begin(row);
  const int entries = static_cast<int>(A.end(row) - a_begin);
  lanes = widened_lanes(threads, lanes, entries);
  unsigned turn = 0;
  auto product_term = [&](const Run& r, long long p) { return r.scale * args.b_values[r.begin + p]; };
  add_segments_in_order(
      entries, rank, threads, lanes,
      [&](int e) {
        const Offset a = a_begin + e;
        const int k = A.col(a);
        const Offset begin = B.begin(k);
        return Run{begin, B.end(k) - begin, args.alpha * args.a_values[a]};
      },
      [&](const Run& r, long long p, int& slot) { return locate_col(B.col(r.begin + p), slot); },
      product_term, values, turns, turn);
  if constexpr (Addend) {
    const Offset d_begin = D.begin(row);
    add_segments_in_order(
        1, rank, threads, threads,
        [&](int) { return Run{d_begin, D.end(row) - d_begin, args.beta}; },
        [&](const Run& r, long long p, int& slot) { return locate_col(D.col(r.begin + p), slot); },
        [&](const Run& r, long long p) { return r.scale * args.d_values[r.begin + p]; }, values, turns,
        turn);
  }
}

}  // namespace spgemm::cuda
