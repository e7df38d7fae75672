// SPDX-License-Identifier: Apache-2.0
// A product's plan: checks that the request is valid and supported, picks the
// backend from where the arrays live, enforces the phase order, and owns the
// caller's workspace buffer if one was given.
#pragma once

#include "core/arena.hpp"
#include "core/context.hpp"
#include "core/matrix.hpp"
#include "core/settings.hpp"
#include "multi/split_context.hpp"
#include "plan/engine.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace spgemm {

class Plan {
 public:
  // The plan shares ownership of the handle's context, settings and split
  // context: its workspace lives in the context's pool, so a handle
  // destroyed before its plans stays alive until the last plan is gone.
  // D may be nullptr (no addend).
  Plan(std::shared_ptr<Context> ctx, std::shared_ptr<const Settings> settings,
       std::shared_ptr<multi::SplitContext> split, spgemmOperation_t op_a, spgemmOperation_t op_b,
       const MatrixDesc* A, const MatrixDesc* B, const MatrixDesc* D, MatrixDesc* C,
       cudaDataType compute_type);

  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  void analyze();
  int64_t symbolic();
  // beta is required when the plan has a D, ignored otherwise.
  void numeric(const void* alpha, const void* beta);
  bool has_addend() const { return D_ != nullptr; }
  // The handle's context the plan was created with: alive as long as the
  // plan, so no later handle's context has its address.
  const Context* context() const { return ctx_.get(); }
  // After analyze: how the rows are split among the handle's devices (one
  // part when the product runs whole).
  std::vector<PartReport> partition();
  // After symbolic, C left distributed: its row blocks (INVALID_STATE
  // otherwise).
  std::vector<RowBlock> row_blocks();

  // The most device workspace the plan holds at once over its life, from
  // the shapes and types known at creation (0 for host memory).
  size_t workspace_bytes() const;
  // All device workspace from [buffer, buffer + bytes) from now on; nullptr
  // and 0: from the handle's pool or allocator again. Only before the first
  // analysis (INVALID_STATE after).
  void set_workspace(void* buffer, size_t bytes);

 private:
  enum class Stage { created, analyzed, symbolic_done };
  void check_inputs() const;
  // INVALID_VALUE if an array of C overlaps another of C's or an operand's
  // (C's row offsets alone before its nnz is known: c_entries false).
  void require_disjoint_output(bool c_entries) const;
  // INDEX_OVERFLOW, before the symbolic phase, for a product whose
  // Engine::nnz_lower_bound does not fit C's offset type.
  void refuse_overflow();
  // op(A) and op(B) as the engine computes on them.
  Operands operands() const {
    return {transposed_a_ ? &transposed_a_->desc() : A_,
            transposed_b_ ? &transposed_b_->desc() : B_, D_};
  }

  std::shared_ptr<Context> ctx_;
  std::shared_ptr<const Settings> settings_;  // the handle's
  std::shared_ptr<multi::SplitContext> split_;  // the handle's split settings and measures
  // Declared before everything that holds workspace: blocks from the arena go
  // back to it, so it must outlive them.
  std::unique_ptr<Arena> arena_;
  bool analysis_begun_ = false;  // the workspace can no longer change
  spgemmMemoryType_t memory_;    // A's, B's and D's
  spgemmMemoryType_t c_memory_;  // C's: host with device operands is out of core
  bool distributed_ = false;     // C left as the parts' row blocks
  const MatrixDesc* A_;
  const MatrixDesc* B_;
  const MatrixDesc* D_;
  MatrixDesc* C_;
  std::unique_ptr<Engine> engine_;
  spgemmOperation_t op_a_, op_b_;
  std::unique_ptr<Transpose> transposed_a_, transposed_b_;  // for op != N
  // Fingerprints of A's, B's, D's structure at analysis (verify_structure).
  uint64_t fingerprints_[3] = {0, 0, 0};
  bool fingerprinted_ = false;
  void verify_structure();
  uint64_t fingerprint(const MatrixDesc* m) const;  // 0 for no matrix / no arrays
  Stage stage_ = Stage::created;
  int64_t c_nnz_ = 0;  // nnz(C) from this plan's last symbolic phase
};

}  // namespace spgemm
