// SPDX-License-Identifier: Apache-2.0
#include "multi/chunked_engine.hpp"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "multi/policy.hpp"
#include "cuda/cuda_engine.hpp"
#include "cuda/partition/row_split.hpp"
#include "multi/chunk_rows.hpp"
#include "multi/row_blocks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

namespace spgemm {

namespace {

template <class Value, class Offset, class Col>
class ChunkedEngine final : public Engine {
  using PartT = multi::Part<Value, Offset, Col>;
  static constexpr size_t kEntryBytes = sizeof(Col) + sizeof(Value);

 public:
  ChunkedEngine(Context& ctx, multi::SplitContext& split)
      : ctx_(ctx),
        split_(split),
        whole_(make_cuda_engine<Value, Offset, Col>(ctx)) {}

  ~ChunkedEngine() override {
    if (copy_stream_) {
      cudaStreamSynchronize(copy_stream_);
      cudaStreamDestroy(copy_stream_);
    }
  }

  std::unique_ptr<Transpose> make_transpose() override { return whole_->make_transpose(); }

  // The whole product's analysis and its symbolic phase's row offsets; the
  // kept chunks' state (each chunk's analysis no more than the whole one's
  // for its rows, plus its own constant part; its shifted row offsets of A,
  // D and C); one more chunk's transient scratch; the cuts; the chunk
  // buffers: at most the chunk bytes as they are now, if no row of C alone
  // takes more than half.
  size_t workspace_bytes(const Operands& shapes) const override {
    const int64_t rows = shapes.A->rows;
    MatrixDesc no_rows = *shapes.A;
    no_rows.rows = no_rows.nnz = 0;
    const size_t per_chunk = whole_->workspace_bytes({&no_rows, shapes.B, nullptr}) +
                             3 * (sizeof(Offset) + 2 * Arena::kAlignment);
    return 3 * whole_->workspace_bytes(shapes) + multi::kKeptOutputChunks * per_chunk +
           4 * DeviceBuffer<Offset>::workspace_bytes(rows + 1) +
           2 * DeviceBuffer<long long>::workspace_bytes(rows + 1) + chunk_bytes() +
           4 * Arena::kAlignment;
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    whole_->check_structures(operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return whole_->fingerprint(m); }

  int64_t nnz_lower_bound(const Operands& in, int64_t limit) override {
    return whole_->nnz_lower_bound(in, limit);
  }

  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    forget_chunks();
    chunk_rows_.clear();
    whole_->analyze(in, checks, count);
  }

  int64_t symbolic(const Operands& in, MatrixDesc& C) override {
    forget_chunks();
    const int64_t rows = C.rows;
    DeviceBuffer<Offset> offsets(ctx_, static_cast<size_t>(rows + 1));
    MatrixDesc on_device = C;
    on_device.row_offsets = offsets.get();
    on_device.memory = SPGEMM_MEMORY_DEVICE;
    const int64_t nnz = whole_->symbolic(in, on_device);
    if (nnz > max_nnz(C)) return nnz;
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(C.row_offsets, offsets.get(), sizeof(Offset) * (rows + 1),
                                      cudaMemcpyDeviceToHost, ctx_.stream()));
    SPGEMM_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    return nnz;
  }

  void numeric(const Operands& in, MatrixDesc& C, const void* alpha, const void* beta) override {
    if (C.rows == 0) return;
    const int64_t per_chunk = entries_per_chunk();
    const bool reuse = per_chunk == kept_per_chunk_;
    cuda::RowSplit cut;
    if (!reuse) {
      forget_chunks();
      cut = chunks(in, C, per_chunk);
    }
    const int n = reuse ? static_cast<int>(kept_.size()) : cut.parts;
    int64_t most = 0;  // entries of the largest chunk
    for (int p = 0; p < n; ++p) {
      if (reuse) {
        check_offsets(C, *kept_[static_cast<size_t>(p)]);
        most = std::max(most, kept_[static_cast<size_t>(p)]->c_nnz);
      } else {
        most = std::max(
            most, entries_before(C, cut.row_start[p + 1]) - entries_before(C, cut.row_start[p]));
      }
    }
    const cudaStream_t stream = ctx_.stream();
    if (!copy_stream_) {
      SPGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    }
    DeviceBuffer<Col> cols[2] = {{ctx_, static_cast<size_t>(most)},
                                 {ctx_, static_cast<size_t>(most)}};
    DeviceBuffer<Value> values[2] = {{ctx_, static_cast<size_t>(most)},
                                     {ctx_, static_cast<size_t>(most)}};
    // however a chunk fails, the buffers go back only once their copies are done
    struct Drain {
      ChunkedEngine& e;
      ~Drain() {
        for (multi::Event& copied : e.copied_)
          if (copied.get()) cudaStreamWaitEvent(e.ctx_.stream(), copied.get(), 0);
      }
    } drain{*this};
    const bool keep = !reuse && n <= multi::kKeptOutputChunks;
    std::vector<std::unique_ptr<PartT>> made;
    for (int p = 0; p < n; ++p) {
      std::unique_ptr<PartT> fresh;
      if (!reuse) fresh = prepare(cut, p, in, C);
      PartT& part = reuse ? *kept_[static_cast<size_t>(p)] : *fresh;
      if (reuse) {
        part.place_values(in);  // the operands' arrays as named now
        part.engine->output_overwritten();  // other chunks used its buffer since
      }
      const int b = p % 2;
      copied_[b].wait_on(stream);  // the buffer's previous chunk is on the host
      part.C.col_ind = cols[b].get();
      part.C.values = values[b].get();
      part.engine->numeric(part.operands(), part.C, alpha, beta);
      if (keep) made.push_back(std::move(fresh));
      if (part.c_nnz == 0) continue;
      computed_[b].record(stream);
      computed_[b].wait_on(copy_stream_);
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(static_cast<Col*>(C.col_ind) + part.c_first, cols[b].get(),
                                        sizeof(Col) * part.c_nnz, cudaMemcpyDeviceToHost,
                                        copy_stream_));
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(static_cast<Value*>(C.values) + part.c_first,
                                        values[b].get(), sizeof(Value) * part.c_nnz,
                                        cudaMemcpyDeviceToHost, copy_stream_));
      copied_[b].record(copy_stream_);
    }
    if (keep) {
      kept_ = std::move(made);
      kept_per_chunk_ = per_chunk;
    }
    if (!reuse) chunk_rows_.assign(cut.row_start.begin(), cut.row_start.end());
  }

  // The chunks of the last numeric phase (one part before the first).
  std::vector<PartReport> partition() override {
    std::vector<PartReport> report;
    for (size_t p = 0; p + 1 < chunk_rows_.size(); ++p)
      report.push_back(
          {ctx_.device(), chunk_rows_[p], chunk_rows_[p + 1] - chunk_rows_[p], -1, -1.0f});
    return report;
  }

 private:
  size_t chunk_bytes() const {
    if (split_.output_chunk_bytes() > 0) return split_.output_chunk_bytes();
    size_t free = 0, total = 0;
    SPGEMM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return static_cast<size_t>(static_cast<double>(total) * multi::kOutputChunkShare);
  }

  int64_t entries_per_chunk() const {
    return std::max<int64_t>(1, static_cast<int64_t>(chunk_bytes() / 2 / kEntryBytes));
  }

  // Chunk p of `cut` analyzed and counted, ready for its numeric phase.
  std::unique_ptr<PartT> prepare(const cuda::RowSplit& cut, int p, const Operands& in,
                                 const MatrixDesc& C) {
    auto part = std::make_unique<PartT>(cut, p, ctx_, ctx_.device(), in);
    part->place_structures(in);  // (on the operands' device: with their values)
    part->engine = make_cuda_engine<Value, Offset, Col>(ctx_);
    part->engine->analyze(part->operands(), nullptr, 0);
    part->describe_c(C);
    part->C.memory = SPGEMM_MEMORY_DEVICE;
    part->c_first = entries_before(C, part->first_row);
    part->c_nnz = part->engine->symbolic(part->operands(), part->C);
    part->C.nnz = part->c_nnz;
    check_offsets(C, *part);
    return part;
  }

  // The chunk's entries as C's host row offsets place them now.
  static void check_offsets(const MatrixDesc& C, const PartT& part) {
    if (entries_before(C, part.first_row) != part.c_first ||
        entries_before(C, part.first_row + part.rows) != part.c_first + part.c_nnz)
      fail(SPGEMM_STATUS_INVALID_VALUE,
           "C's row offsets differ from what spgemmSymbolic wrote (or A's or B's structure "
           "changed since): analyze and run spgemmSymbolic again");
  }

  void forget_chunks() {
    kept_.clear();
    kept_per_chunk_ = 0;
  }

  // C's entries before `row`, from its host row offsets.
  static int64_t entries_before(const MatrixDesc& C, int64_t row) {
    return static_cast<int64_t>(static_cast<const Offset*>(C.row_offsets)[row]) - C.base;
  }

  // Rows cut so that each chunk has at most half the chunk bytes of entries
  // (and at least one row), with A's and D's row offsets at the cuts.
  cuda::RowSplit chunks(const Operands& in, const MatrixDesc& C, int64_t per_chunk) const {
    cuda::RowSplit cut;
    const std::vector<int64_t> starts =
        multi::chunk_starts(static_cast<const Offset*>(C.row_offsets), C.rows, per_chunk);
    cut.row_start.assign(starts.begin(), starts.end());
    cut.parts = static_cast<int>(cut.row_start.size()) - 1;
    cut.first_product.assign(cut.row_start.size(), 0);
    cut.a_offset =
        cuda::offsets_at(ctx_, static_cast<const Offset*>(in.A->row_offsets), cut.row_start);
    cut.d_offset = cuda::offsets_at(
        ctx_, in.D ? static_cast<const Offset*>(in.D->row_offsets) : nullptr, cut.row_start);
    return cut;
  }

  Context& ctx_;
  multi::SplitContext& split_;     // the handle's (the plan keeps it alive)
  std::unique_ptr<Engine> whole_;  // analysis and symbolic phase of the whole product
  cudaStream_t copy_stream_ = nullptr;
  multi::Event computed_[2], copied_[2];  // per chunk buffer
  std::vector<int64_t> chunk_rows_;       // the last numeric phase's cuts
  // The chunks analyzed and counted for kept_per_chunk_ entries per chunk
  // (0: none kept).
  std::vector<std::unique_ptr<PartT>> kept_;
  int64_t kept_per_chunk_ = 0;
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_chunked_engine(Context& ctx, multi::SplitContext& split) {
  return std::make_unique<ChunkedEngine<Value, Offset, Col>>(ctx, split);
}

#define SPGEMM_INSTANTIATE_CHUNKED_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_chunked_engine<Value, Offset, Col>( \
      Context&, multi::SplitContext&);
#define SPGEMM_INSTANTIATE_CHUNKED_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_CHUNKED_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_CHUNKED_ENGINES)

}  // namespace spgemm
