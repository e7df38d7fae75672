// SPDX-License-Identifier: Apache-2.0
#include "plan/plan.hpp"

#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/cuda_engine.hpp"
#include "host/host_engine.hpp"
#include "multi/chunked_engine.hpp"
#include "multi/partitioned_engine.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace spgemm {

namespace {

bool supported_value_type(cudaDataType t) {
  return t == CUDA_R_32F || t == CUDA_R_64F || t == CUDA_C_32F || t == CUDA_C_64F;
}

void require_supported_layout(const MatrixDesc& m, const MatrixDesc& like, const char* name) {
  if (m.offset_type == SPGEMM_INDEX_32I && m.index_type == SPGEMM_INDEX_64I)
    fail(SPGEMM_STATUS_NOT_SUPPORTED,
         std::string(name) + ": 32-bit row offsets with 64-bit column indices are not supported "
                             "(use 32/32, 64/32 or 64/64)");
  if (m.offset_type != like.offset_type || m.index_type != like.index_type ||
      m.base != like.base)
    fail(SPGEMM_STATUS_NOT_SUPPORTED,
         std::string(name) + ": offset type, index type and index base must be those of A");
  if (!supported_value_type(m.value_type))
    fail(SPGEMM_STATUS_NOT_SUPPORTED,
         std::string(name) + ": values must be CUDA_R_32F, CUDA_R_64F, CUDA_C_32F or CUDA_C_64F");
  // Kernels index rows and columns with int; 64-bit types lift the limit on
  // nnz only.
  constexpr int64_t max32 = std::numeric_limits<int32_t>::max();
  if (m.rows > max32 || m.cols > max32)
    fail(SPGEMM_STATUS_INDEX_OVERFLOW,
         std::string(name) + ": more than 2^31 - 1 rows or columns are not supported");
  if (m.nnz > max_nnz(m))
    fail(SPGEMM_STATUS_INDEX_OVERFLOW,
         std::string(name) + ": nnz = " + std::to_string(m.nnz) +
             " does not fit its row offset type");
}

// Complex values are read as libcu++ complex, aligned to their full size
// (as cuComplex / cuDoubleComplex are).
size_t value_alignment(cudaDataType t) {
  switch (t) {
    case CUDA_C_32F: return alignof(ComplexFloat);
    case CUDA_C_64F: return alignof(ComplexDouble);
    default: return 1;
  }
}

void require_aligned_values(const MatrixDesc& m, const char* name) {
  if (reinterpret_cast<uintptr_t>(m.values) % value_alignment(m.value_type) != 0)
    fail(SPGEMM_STATUS_INVALID_VALUE,
         std::string(name) + ": complex values must be aligned to " +
             std::to_string(value_alignment(m.value_type)) + " bytes");
}

void require_operand_arrays(const MatrixDesc& m, const char* name) {
  // a 0 x n matrix without entries needs no arrays at all
  if (!m.row_offsets && (m.rows > 0 || m.nnz > 0))
    fail(SPGEMM_STATUS_INVALID_VALUE, std::string(name) + ": rowOffsets is NULL");
  if (m.nnz > 0 && (!m.col_ind || !m.values))
    fail(SPGEMM_STATUS_INVALID_VALUE, std::string(name) + ": colInd or values is NULL");
  require_aligned_values(m, name);
}

// One array of a matrix as bytes [begin, end) of its memory, for the
// aliasing checks; empty where the array is NULL or has no elements.
struct Extent {
  uintptr_t begin = 0, end = 0;
  spgemmMemoryType_t memory = SPGEMM_MEMORY_DEVICE;
  const char* matrix = "";
  const char* array = "";

  bool overlaps(const Extent& other) const {
    return memory == other.memory && begin < other.end && other.begin < end;
  }
};

size_t index_bytes(spgemmIndexType_t t) { return t == SPGEMM_INDEX_32I ? 4 : 8; }

size_t value_bytes(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    default: return 16;  // CUDA_C_64F (the plan takes no other type)
  }
}

Extent extent_of(const MatrixDesc& m, const void* array, int64_t count, size_t size,
                 const char* matrix, const char* name) {
  if (!array || count <= 0) return {};
  const auto begin = reinterpret_cast<uintptr_t>(array);
  const uintptr_t room = std::numeric_limits<uintptr_t>::max() - begin;
  // count * size in 128 bits: a declared nnz may be anything up to 2^63
  const unsigned __int128 bytes = static_cast<unsigned __int128>(count) * size;
  return {begin, begin + (bytes > room ? room : static_cast<uintptr_t>(bytes)), m.memory, matrix,
          name};
}

// The arrays of m: its row offsets, and its column indices and values if
// `entries` (C's before its symbolic phase: nnz not known yet).
std::vector<Extent> extents_of(const MatrixDesc& m, const char* name, bool entries) {
  std::vector<Extent> out = {extent_of(m, m.row_offsets, m.rows + 1, index_bytes(m.offset_type),
                                       name, "rowOffsets")};
  if (entries) {
    out.push_back(extent_of(m, m.col_ind, m.nnz, index_bytes(m.index_type), name, "colInd"));
    out.push_back(extent_of(m, m.values, m.nnz, value_bytes(m.value_type), name, "values"));
  }
  return out;
}

// The backend for operands in `memory` and C in `c_memory`.
template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_engine(Context& ctx, const Settings& settings,
                                    multi::SplitContext& split, spgemmMemoryType_t memory,
                                    spgemmMemoryType_t c_memory) {
  if (memory == SPGEMM_MEMORY_HOST) return make_host_engine<Value, Offset, Col>();
  if (!ctx.has_device())
    fail(SPGEMM_STATUS_NO_DEVICE,
         std::string("device-memory matrices but no usable GPU: ") + ctx.no_device_reason());
  if (c_memory == SPGEMM_MEMORY_HOST)
    return make_chunked_engine<Value, Offset, Col>(ctx, split);
  if (!split.partitioning().parts.empty())
    return make_partitioned_engine<Value, Offset, Col>(ctx, settings, split);
  return make_cuda_engine<Value, Offset, Col>(ctx);
}

template <class Value>
std::unique_ptr<Engine> make_engine(Context& ctx, const Settings& settings,
                                    multi::SplitContext& split, const MatrixDesc& like,
                                    spgemmMemoryType_t c_memory) {
  if (like.offset_type == SPGEMM_INDEX_32I)
    return make_engine<Value, int32_t, int32_t>(ctx, settings, split, like.memory, c_memory);
  if (like.index_type == SPGEMM_INDEX_32I)
    return make_engine<Value, int64_t, int32_t>(ctx, settings, split, like.memory, c_memory);
  return make_engine<Value, int64_t, int64_t>(ctx, settings, split, like.memory, c_memory);
}

}  // namespace

Plan::Plan(std::shared_ptr<Context> ctx, std::shared_ptr<const Settings> settings,
           std::shared_ptr<multi::SplitContext> split, spgemmOperation_t op_a,
           spgemmOperation_t op_b, const MatrixDesc* A, const MatrixDesc* B,
           const MatrixDesc* D, MatrixDesc* C, cudaDataType compute_type)
    : ctx_(std::move(ctx)),
      settings_(std::move(settings)),
      split_(std::move(split)),
      memory_(A->memory),
      c_memory_(C->memory),
      A_(A),
      B_(B),
      D_(D),
      C_(C),
      op_a_(op_a),
      op_b_(op_b) {
  if (A->value_type != compute_type || B->value_type != compute_type ||
      C->value_type != compute_type)
    fail(SPGEMM_STATUS_NOT_SUPPORTED,
         "the value types of A, B, C and the compute type must be the same");
  require_supported_layout(*A, *A, "A");
  require_supported_layout(*B, *A, "B");
  require_supported_layout(*C, *A, "C");
  if (A == C || B == C)
    fail(SPGEMM_STATUS_INVALID_VALUE, "C must not be A or B (the product is not in place)");
  if (D) {
    if (D == C) fail(SPGEMM_STATUS_INVALID_VALUE, "D must not be C (the product is not in place)");
    if (D->value_type != compute_type)
      fail(SPGEMM_STATUS_NOT_SUPPORTED, "the value type of D must be the compute type");
    require_supported_layout(*D, *A, "D");
    if (D->rows != C->rows || D->cols != C->cols)
      fail(SPGEMM_STATUS_INVALID_VALUE, "D must have C's shape");
    if (D->memory != A->memory)
      fail(SPGEMM_STATUS_INVALID_VALUE, "D must be in the same memory as A and B");
  }
  const bool t_a = op_a != SPGEMM_OPERATION_NON_TRANSPOSE;
  const bool t_b = op_b != SPGEMM_OPERATION_NON_TRANSPOSE;
  const int64_t m = t_a ? A->cols : A->rows, k = t_a ? A->rows : A->cols;
  const int64_t k_b = t_b ? B->cols : B->rows, n = t_b ? B->rows : B->cols;
  if (k != k_b) fail(SPGEMM_STATUS_INVALID_VALUE, "the inner dimensions of op(A) and op(B) differ");
  if (C->rows != m || C->cols != n)
    fail(SPGEMM_STATUS_INVALID_VALUE, "C must be rows(op(A)) x cols(op(B))");
  // C may be in host memory with A and B on the device: computed in chunks
  // (src/multi/chunked_engine.cpp); otherwise all in one memory
  if (A->memory != B->memory ||
      (A->memory != C->memory && A->memory != SPGEMM_MEMORY_DEVICE))
    fail(SPGEMM_STATUS_INVALID_VALUE,
         "A, B and C must all be in device or all in host memory, or A and B in device memory "
         "and C in host memory");
  check_inputs();
  distributed_ = split_->partitioning().distributed && !split_->partitioning().parts.empty() &&
                 A->memory == SPGEMM_MEMORY_DEVICE && C->memory == SPGEMM_MEMORY_DEVICE;
  const auto engine_for = [&](auto value) {
    return make_engine<decltype(value)>(*ctx_, *settings_, *split_, *A, C->memory);
  };
  switch (compute_type) {
    case CUDA_R_32F: engine_ = engine_for(float{}); break;
    case CUDA_R_64F: engine_ = engine_for(double{}); break;
    case CUDA_C_32F: engine_ = engine_for(ComplexFloat{}); break;
    default: engine_ = engine_for(ComplexDouble{}); break;  // CUDA_C_64F
  }
  if (t_a) transposed_a_ = engine_->make_transpose();
  if (t_b) transposed_b_ = engine_->make_transpose();
}

Plan::~Plan() {
  Context::CallScope scope(*ctx_, arena_.get());  // the workspace is freed on the handle's device
  transposed_a_.reset();
  transposed_b_.reset();
  engine_.reset();
}

void Plan::check_inputs() const {
  if (A_->memory != memory_ || B_->memory != memory_ || C_->memory != c_memory_ ||
      (D_ && D_->memory != memory_))
    fail(SPGEMM_STATUS_INVALID_VALUE,
         "the memory type of A, B, C or D changed after spgemmPlanCreate");
  require_operand_arrays(*A_, "A");
  require_operand_arrays(*B_, "B");
  if (D_) require_operand_arrays(*D_, "D");
}

void Plan::require_disjoint_output(bool c_entries) const {
  if (distributed_) return;  // C's arrays are the engine's own
  std::vector<Extent> inputs = extents_of(*A_, "A", true);
  for (const Extent& e : extents_of(*B_, "B", true)) inputs.push_back(e);
  if (D_)
    for (const Extent& e : extents_of(*D_, "D", true)) inputs.push_back(e);
  const std::vector<Extent> outputs = extents_of(*C_, "C", c_entries);
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto refuse = [&](const Extent& other) {
      fail(SPGEMM_STATUS_INVALID_VALUE,
           std::string("C's ") + outputs[i].array + " overlaps " + other.matrix + "'s " +
               other.array + ": C's arrays must not share memory with each other or with an " +
               "operand's (the product is not in place)");
    };
    for (const Extent& in : inputs)
      if (outputs[i].overlaps(in)) refuse(in);
    for (size_t j = 0; j < i; ++j)
      if (outputs[i].overlaps(outputs[j])) refuse(outputs[j]);
  }
}

void Plan::refuse_overflow() {
  // A pass over A like the input checks', and turned off with them (on the
  // GPU, with checks on, the products' total read back with their verdict
  // usually spares it: CudaEngine::nnz_lower_bound). Below rows x cols
  // entries C fits whatever its entries: always with 64-bit offsets.
  if (!settings_->input_checks) return;
  const double most = static_cast<double>(C_->rows) * static_cast<double>(C_->cols);
  if (most <= static_cast<double>(max_nnz(*C_))) return;
  const int64_t bound = engine_->nnz_lower_bound(operands(), max_nnz(*C_));
  if (bound > max_nnz(*C_))
    fail(SPGEMM_STATUS_INDEX_OVERFLOW,
         "nnz(C) is at least " + std::to_string(bound) +
             " (the longest row of B that each row of A names), which does not fit the row "
             "offset type of C");
}

size_t Plan::workspace_bytes() const {
  Context::DeviceGuard guard(*ctx_);  // CUB sizes its scratch for the handle's device
  const MatrixDesc a = transposed_a_ ? transposed_shape(*A_) : *A_;
  const MatrixDesc b = transposed_b_ ? transposed_shape(*B_) : *B_;
  size_t bytes = engine_->workspace_bytes({&a, &b, D_});
  if (transposed_a_) bytes += transposed_a_->workspace_bytes(*A_);
  if (transposed_b_) bytes += transposed_b_->workspace_bytes(*B_);
  return bytes;
}

void Plan::set_workspace(void* buffer, size_t bytes) {
  require(!analysis_begun_, SPGEMM_STATUS_INVALID_STATE,
          "the workspace of a plan can only be set before its first spgemmAnalyze (or "
          "spgemmSymbolic)");
  if (!buffer) {
    require(bytes == 0, SPGEMM_STATUS_INVALID_VALUE,
            "buffer is NULL but bytes is not 0 (NULL and 0 give the plan back to the handle's "
            "pool or allocator)");
    arena_.reset();
    return;
  }
  auto arena = std::make_unique<Arena>(buffer, bytes);  // checks the alignment
  const size_t needed = workspace_bytes();
  if (bytes < needed)
    fail(SPGEMM_STATUS_INVALID_VALUE,
         "the workspace buffer has " + std::to_string(bytes) + " bytes, the plan needs " +
             std::to_string(needed) + " (spgemmPlanGetWorkspaceSize)");
  arena_ = std::move(arena);
}

void Plan::analyze() {
  check_inputs();
  Context::CallScope scope(*ctx_, arena_.get());
  analysis_begun_ = true;
  stage_ = Stage::created;  // a failed analysis leaves nothing valid behind
  CheckedOperand checked[kMaxCheckedOperands];
  int count = 0;
  if (settings_->input_checks) {
    if (A_->row_offsets) checked[count++] = {A_, "A"};
    if (B_->row_offsets && !(A_->row_offsets && same_structure(*A_, *B_)))
      checked[count++] = {B_, "B"};
    if (D_ && D_->row_offsets) checked[count++] = {D_, "D"};
  }
  fingerprinted_ = settings_->verify_structure;
  // Fingerprints and transposes read the operands: they need the checks'
  // verdict first. Otherwise the engine's analysis takes the checks along.
  if (fingerprinted_ || transposed_a_ || transposed_b_) {
    engine_->check_structures(checked, count);
    count = 0;
  }
  if (fingerprinted_) {
    fingerprints_[0] = fingerprint(A_);
    fingerprints_[1] = fingerprint(B_);
    fingerprints_[2] = fingerprint(D_);
  }
  if (transposed_a_) transposed_a_->build(*A_);
  if (transposed_b_) transposed_b_->build(*B_);
  engine_->analyze(operands(), checked, count);
  stage_ = Stage::analyzed;
}

int64_t Plan::symbolic() {
  check_inputs();
  require(C_->row_offsets != nullptr || distributed_, SPGEMM_STATUS_INVALID_VALUE,
          "C: rowOffsets must be set (rows + 1 entries) before spgemmSymbolic");
  if (stage_ == Stage::created) {
    analyze();
  } else if (settings_->verify_structure) {
    // the symbolic phase reads the operands' structure as the analysis
    // found it: a change since is refused before any kernel reads it
    Context::CallScope scope(*ctx_, arena_.get());
    verify_structure();
  }
  // (after the checks: C's offsets are compared with the operands' arrays
  // as they declare them)
  require_disjoint_output(false);
  Context::CallScope scope(*ctx_, arena_.get());
  stage_ = Stage::analyzed;  // a failed symbolic leaves no valid structure behind
  refuse_overflow();
  int64_t nnz = 0;
  try {
    nnz = engine_->symbolic(operands(), *C_);
  } catch (const Error& e) {
    // the input checks' verdict, when it came with the symbolic phase's
    // synchronization (engine.hpp): nothing of the analysis is valid
    if (e.status() == SPGEMM_STATUS_INVALID_VALUE) stage_ = Stage::created;
    throw;
  }
  if (nnz > max_nnz(*C_))
    fail(SPGEMM_STATUS_INDEX_OVERFLOW,
         "nnz(C) = " + std::to_string(nnz) + " does not fit the row offset type of C");
  C_->nnz = nnz;
  c_nnz_ = nnz;
  stage_ = Stage::symbolic_done;
  return nnz;
}

void Plan::numeric(const void* alpha, const void* beta) {
  require(stage_ == Stage::symbolic_done, SPGEMM_STATUS_INVALID_STATE,
          "spgemmNumeric needs a successful spgemmSymbolic on this plan first");
  require(alpha != nullptr, SPGEMM_STATUS_INVALID_VALUE, "alpha is NULL");
  require(!D_ || beta != nullptr, SPGEMM_STATUS_INVALID_VALUE,
          "beta is NULL but the plan has an addend D (use spgemmNumericWithAddend)");
  check_inputs();
  if (!distributed_) {
    require(C_->row_offsets != nullptr || C_->rows == 0, SPGEMM_STATUS_INVALID_VALUE,
            "C: rowOffsets is NULL (it must hold what spgemmSymbolic wrote)");
    require(C_->nnz == 0 || (C_->col_ind && C_->values), SPGEMM_STATUS_INVALID_VALUE,
            "C: colInd and values must be set (spgemmCsrSetPointers) before spgemmNumeric");
    require_aligned_values(*C_, "C");
    // C's descriptor may have been given to another plan whose symbolic
    // phase wrote its own nnz and offsets since this plan's
    if (C_->nnz != c_nnz_)
      fail(SPGEMM_STATUS_INVALID_VALUE,
           "C: nnz is " + std::to_string(C_->nnz) + " but this plan's spgemmSymbolic found " +
               std::to_string(c_nnz_) +
               " (is C's descriptor shared with another plan?): run spgemmSymbolic again");
    require_disjoint_output(true);
  }
  Context::CallScope scope(*ctx_, arena_.get());
  if (settings_->verify_structure) verify_structure();
  if (transposed_a_)
    transposed_a_->gather_values(*A_, op_a_ == SPGEMM_OPERATION_CONJUGATE_TRANSPOSE);
  if (transposed_b_)
    transposed_b_->gather_values(*B_, op_b_ == SPGEMM_OPERATION_CONJUGATE_TRANSPOSE);
  engine_->numeric(operands(), *C_, alpha, beta);
}

std::vector<PartReport> Plan::partition() {
  require(stage_ != Stage::created, SPGEMM_STATUS_INVALID_STATE,
          "the partition of a plan is known after spgemmAnalyze");
  Context::CallScope scope(*ctx_, arena_.get());
  std::vector<PartReport> parts = engine_->partition();
  if (parts.empty())  // whole, where the engine runs
    parts.push_back({memory_ == SPGEMM_MEMORY_HOST ? -1 : ctx_->device(), 0, C_->rows, -1, -1.0f});
  return parts;
}

std::vector<RowBlock> Plan::row_blocks() {
  require(distributed_, SPGEMM_STATUS_INVALID_STATE,
          "the plan's C is not distributed (spgemmSetOutputDistributed and spgemmSetDevices "
          "before spgemmPlanCreate, A, B and C in device memory)");
  require(stage_ == Stage::symbolic_done, SPGEMM_STATUS_INVALID_STATE,
          "the row blocks of C are known after spgemmSymbolic");
  return engine_->row_blocks();
}

uint64_t Plan::fingerprint(const MatrixDesc* m) const {
  return m && m->row_offsets ? engine_->fingerprint(*m) : 0;
}

void Plan::verify_structure() {
  require(fingerprinted_, SPGEMM_STATUS_INVALID_STATE,
          "structure verification was turned on after spgemmAnalyze: analyze again");
  const MatrixDesc* operands[3] = {A_, B_, D_};
  const char* names[3] = {"A", "B", "D"};
  for (int i = 0; i < 3; ++i)
    if (fingerprint(operands[i]) != fingerprints_[i])
      fail(SPGEMM_STATUS_INVALID_VALUE,
           std::string(names[i]) +
               ": row offsets or column indices changed since spgemmAnalyze (structure "
               "verification); analyze and run spgemmSymbolic again");
}

}  // namespace spgemm
