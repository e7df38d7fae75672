// SPDX-License-Identifier: Apache-2.0
// Analysis: one pass over the operands' structures (analysis_pass.cuh), in
// one kernel (analysis.cu) or in blocks of a small product's symbolic
// kernel (kernels/symbolic.cu):
//   - the input checks (core/csr_checks.hpp) of up to kMaxCheckedOperands
//     operands;
//   - the number of terms (products a_ik * b_kj, plus the entries of D) of
//     every row of C: an upper bound of the row's nnz and the measure of its
//     work, O(nnz(A));
//   - optionally their total and maximum;
//   - optionally the number of rows of more than a given number of terms;
//   - optionally whether B's rows all have strictly increasing columns;
//   - optionally the fingerprints (core/csr_checks.hpp) of up to
//     kMaxPrinted structures, in the checks' pass over their positions.
// The terms are counted while the checks run, so every index the count
// follows is clamped into its array: a defective operand gives meaningless
// counts but never a read outside its arrays, and nothing uses the counts
// before the checks' verdict is known (the host reads it before binning; the
// gate stays shut).
#pragma once

#include "core/context.hpp"
#include "core/csr_checks.hpp"
#include "core/matrix.hpp"
#include "cuda/configs/bins.hpp"
#include "cuda/pattern.cuh"
#include "plan/engine.hpp"

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>

namespace spgemm::cuda {

// The products of all rows and of the longest (small-product test,
// configs/bins.hpp). Zeroed before the analysis.
struct ProductStats {
  long long total;
  int max;
  // Of a small product tried behind the gate: the number of rows if the
  // product is small, its longest row takes no more terms than the gate
  // lets through and the input checks found nothing; 0 otherwise. Its
  // symbolic kernel's last block sets it (analysis_pass.cuh's
  // small_product_gate) and writes C's offsets only if it is open.
  int small_rows;
};

// What to count: sizes[i] = terms of C's row first_row + i for all rows of
// in.A from first_row on (or row_count of them), saturated at INT_MAX (such
// a row goes to the dense bin, whose loops use 64-bit counters); with stats
// also their total and maximum.
struct TermCount {
  const Operands* in;
  int* sizes;
  ProductStats* stats = nullptr;
  // If set (zeroed before): made nonzero if a row of B has columns that do
  // not strictly increase (unsorted or repeated; both valid input), which
  // rules out the numeric phase's whole rows of B (kernels/ordered_loop.cuh).
  unsigned long long* b_disorder = nullptr;
  // If set: spans[i] = the width of the column range from the least first
  // column to the greatest last column of the rows of B that row
  // first_row + i of A names (and D's columns), saturated at INT_MAX. Where
  // b_disorder reads 0 every row of B lies within its ends, so the row of C
  // has at most that many entries (binning.cuh's RowSizes).
  int* spans = nullptr;
  // If set (with spans): span_firsts[i] = that range's least column (0 for
  // a row without terms).
  int* span_firsts = nullptr;
  // If set (zeroed before): *rows_beyond = the number of rows of more than
  // beyond_terms terms (dispatch/choice.hpp's MaskCap).
  int* rows_beyond = nullptr;
  int beyond_terms = INT_MAX;
  // The rows counted: row_count of them from first_row on (-1: to the end).
  int64_t first_row = 0;
  int64_t row_count = -1;
};

// Whether B's order is worth examining (TermCount::b_disorder): only the
// deterministic numeric phase's whole rows of B need it, which pay only for
// rows of B long enough on average (configs/bins.hpp's
// NumericPolicy::whole_rows_min_b_average).
inline bool b_order_worth_examining(const MatrixDesc& B) {
  return B.rows > 0 &&
         B.nnz >= static_cast<int64_t>(NumericPolicy::whole_rows_min_b_average) * B.rows;
}

// *rows_beyond += the number of rows among terms[0, rows) of more than
// `beyond` terms, on ctx's stream: TermCount::rows_beyond for terms counted
// elsewhere (CountedRows).
void launch_count_beyond(Context& ctx, const int* terms, int rows, int beyond, int* rows_beyond);

// One launch: the checks of `count` operands into found[0, count) (device
// memory, zeroed before: there a defect's position p is kept as ~p, so that
// zero means none; report_csr_defects decodes), with `terms` the count, with
// `prints` the fingerprints.
template <class Offset, class Col>
void launch_analysis(Context& ctx, const CheckedOperand* checks, int count, CsrDefects* found,
                     const TermCount* terms, const Fingerprints* prints = nullptr);

// The verdict on found[0, count) as read back from launch_analysis: throws
// INVALID_VALUE naming the first defect of the first operand with one.
template <class Offset, class Col>
void report_csr_defects(const CheckedOperand* operands, int count, const CsrDefects* found);

// The input checks alone, with one synchronization of the handle's stream.
template <class Offset, class Col>
void check_csr_structures(Context& ctx, const CheckedOperand* operands, int count);

// core/csr_checks.hpp's fingerprint of m's structure. Synchronizes once.
template <class Offset, class Col>
uint64_t csr_fingerprint(Context& ctx, const MatrixDesc& m);

// The same added to *sum (device memory, zeroed before) on ctx's stream,
// without a synchronization.
template <class Offset, class Col>
void launch_fingerprint(Context& ctx, const MatrixDesc& m, unsigned long long* sum);

// The device workspace of one check_csr_structures plus one csr_fingerprint
// (each holds its block for the length of the call only).
size_t csr_checks_workspace_bytes();

// Engine::nnz_lower_bound on the GPU (one kernel and a readback; the
// workspace of csr_checks_workspace_bytes' sum, which is not held then).
template <class Offset, class Col>
int64_t nnz_lower_bound(Context& ctx, const Operands& in);

}  // namespace spgemm::cuda
