// SPDX-License-Identifier: Apache-2.0
// The interface every backend implements for one product
// C = alpha * A * B (+ beta * D). Engines re-read the descriptors on every
// call, so pointers changed with spgemmCsrSetPointers between calls are
// honoured.
#pragma once

#include "core/csr_checks.hpp"
#include "core/matrix.hpp"
#include "plan/transpose.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace spgemm {

// What the GPU analysis counts per row of C, where a split product's cut
// counted it already (cuda/partition/row_split.hpp); only the GPU engine
// reads it.
struct CountedRows;

// The operands of one product as the engine sees them (already transposed
// where the plan asked for it). D is optional: its pattern joins C's, its
// values are scaled by beta.
struct Operands {
  const MatrixDesc* A;
  const MatrixDesc* B;
  const MatrixDesc* D;  // nullptr: no addend
  // The number of products where known before analyze (a part of a split
  // product: its cut counted them); -1: not known.
  int64_t products = -1;
  // The rows' counts where known before analyze (nullptr: not known).
  const CountedRows* counted = nullptr;
};

// C's arrays the last numeric phase since the symbolic phase wrote to: if
// the next writes to the same, their column indices are worth trying (an
// engine checks them row by row, never trusts them; the first numeric phase
// does not read them, so uninitialized arrays are never read).
struct WrittenArrays {
  const void* row_offsets = nullptr;  // null: none written
  const void* col_ind = nullptr;
  bool operator==(const WrittenArrays& o) const {
    return row_offsets && row_offsets == o.row_offsets && col_ind == o.col_ind;
  }
};

// One row block of a product split among devices or computed in chunks
// (src/multi/).
struct PartReport {
  int device = -1;
  int64_t first_row = 0;
  int64_t rows = 0;
  int64_t products = -1;   // predicted cost
  float numeric_ms = -1;   // the last numeric phase (-1: none yet)
};

// One row block of a C left distributed (spgemmSetOutputDistributed): a CSR
// matrix of its rows with C's types, owned by the engine.
struct RowBlock {
  int device = -1;
  int64_t first_row = 0, rows = 0, nnz = 0;
  void* row_offsets = nullptr;
  void* col_ind = nullptr;
  void* values = nullptr;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Storage and kernels for an explicit transpose of an operand.
  virtual std::unique_ptr<Transpose> make_transpose() = 0;
  // The most device workspace this engine holds at once over a plan's life
  // (input checks, fingerprints, analyze, symbolic, numeric, re-analysis),
  // from the operands' shapes and types alone (arrays may be NULL); every
  // block rounded up to Arena::kAlignment. Transposes report their own.
  virtual size_t workspace_bytes(const Operands& shapes) const = 0;
  // Throws INVALID_VALUE naming the first defect (core/csr_checks.hpp) of
  // the first of the `count` (<= kMaxCheckedOperands) operands that has one;
  // their row offsets are not NULL. GPU: one synchronization for all.
  virtual void check_structures(const CheckedOperand* operands, int count) = 0;
  // core/csr_checks.hpp's fingerprint of m's structure (debug option).
  virtual uint64_t fingerprint(const MatrixDesc& m) = 0;
  // Row statistics and binning from the structure of the operands.
  // First, with count > 0, the input checks of those operands, as
  // check_structures, except that the GPU engine may leave their verdict to
  // the symbolic phase's synchronization (small products: analyze then does
  // not synchronize at all), which then throws INVALID_VALUE for a defect.
  virtual void analyze(const Operands& in, const CheckedOperand* checks, int count) = 0;
  // A lower bound of nnz(C) in O(nnz(A)): each row of C has at least as many
  // entries as the longest row of B that its row of A names, and as its row
  // of D. With input checks on, the plan asks for it before a symbolic phase
  // whose nnz(C) could exceed C's offset type, and refuses the product at
  // once if the bound does (the symbolic phase of such a product can take hours: a 2M x 1
  // times 1 x 2M product has 4e12 entries to count). An engine that already
  // knows nnz(C) <= limit may return 0 instead.
  virtual int64_t nnz_lower_bound(const Operands& in, int64_t limit) = 0;
  // Writes C's row offsets; returns nnz(C) (64-bit, checked by the caller).
  // INVALID_VALUE: a defect found by analyze's input checks; C is untouched
  // and the plan must be analyzed again.
  virtual int64_t symbolic(const Operands& in, MatrixDesc& C) = 0;
  // Writes C's column indices and values; alpha and beta are host values
  // (beta only read when there is a D).
  virtual void numeric(const Operands& in, MatrixDesc& C, const void* alpha,
                       const void* beta) = 0;
  // C's arrays were written by others since this engine's last numeric
  // phase (a chunk's buffer shared among chunks): the next must not look
  // for the rows' columns there (structure reuse, WrittenArrays).
  virtual void output_overwritten() {}
  // After analyze: the row blocks of a product split among devices (or, C
  // in host memory, the chunks of the last numeric phase); empty where it
  // runs whole (every engine but src/multi's, and small products there).
  virtual std::vector<PartReport> partition() { return {}; }
  // After symbolic, for an engine that leaves C distributed (symbolic and
  // numeric then write no array of C): its row blocks in row order.
  virtual std::vector<RowBlock> row_blocks() { return {}; }
};

}  // namespace spgemm
