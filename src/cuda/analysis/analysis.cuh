// Analysis: the number of terms (products a_ik * b_kj, plus the entries of D) of every row of C,
// an upper bound of the row's nnz and the measure of its work. One pass over
// A's column indices and B's row offsets, O(nnz(A)).
#pragma once

#include "core/context.hpp"
#include "core/csr_checks.hpp"
#include "core/matrix.hpp"
#include "cuda/pattern.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace spgemm::cuda {

// The products of all rows and of the longest (small-product test,
// configs/bins.hpp). Zeroed before the analysis.
struct ProductStats {
  long long total;
  int max;
  // With a gate asked for: `rows` if the product is small, its longest row
  // has at most gate_max_row products and the input checks found nothing;
  // 0 otherwise. Kernels read it to run on all rows or on none, so that
  // the host need not know before its next synchronization.
  int small_rows;
  unsigned int blocks_done;  // the last block to finish sets small_rows
};

// sizes[row] = products of the row, saturated at INT_MAX (such a row goes to
// the dense bin, whose loops use 64-bit counters); with stats != nullptr also
// their total and maximum, and with gate_max_row > 0 the gate. If any of the
// `checked` results of input checks launched before it (launch_csr_checks)
// found a defect, it reads nothing and writes no sizes: the operands may not
// be safe to follow.
template <class Offset, class Col>
void row_products(Pattern<Offset, Col> A, Pattern<Offset, Col> B, Pattern<Offset, Col> D,
                  int rows, int* sizes, ProductStats* stats, int gate_max_row,
                  const CsrDefects* checks, int checked, cudaStream_t stream);

// The input checks (core/csr_checks.hpp) of `count` operands on the device:
// throws INVALID_VALUE naming the first defect of the first operand with
// one. One kernel per operand, then one synchronization of the handle's
// stream for all.
template <class Offset, class Col>
void check_csr_structures(Context& ctx, const CheckedOperand* operands, int count);

// Its two halves, for callers that read the result back with their own:
// the kernels, writing found[0, count) (device; poisoned here first), and
// the verdict on the copies read back (throws for the first defect).
template <class Offset, class Col>
void launch_csr_checks(Context& ctx, const CheckedOperand* operands, int count,
                       CsrDefects* found);
template <class Offset, class Col>
void report_csr_defects(const CheckedOperand* operands, int count, const CsrDefects* found);

// core/csr_checks.hpp's fingerprint of m's structure. Synchronizes once.
template <class Offset, class Col>
uint64_t csr_fingerprint(Context& ctx, const MatrixDesc& m);

// The device workspace of one check_csr_structures plus one csr_fingerprint
// (each holds its block for the length of the call only).
size_t csr_checks_workspace_bytes();

}  // namespace spgemm::cuda
