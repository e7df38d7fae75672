#include "multi/partitioned_engine.hpp"

#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/configs/bins.hpp"
#include "cuda/cuda_engine.hpp"
#include "cuda/partition/row_split.hpp"
#include "multi/row_blocks.hpp"

#include <cuda_runtime_api.h>

#include <optional>
#include <utility>
#include <vector>

namespace spgemm {

namespace {

using multi::at_once;
using multi::copy_between;
using multi::Event;

template <class Value, class Offset, class Col>
class PartitionedEngine final : public Engine {
  using PartT = multi::Part<Value, Offset, Col>;

 public:
  explicit PartitionedEngine(Context& ctx)
      : ctx_(ctx),
        home_(make_cuda_engine<Value, Offset, Col>(ctx)),
        settings_(ctx.partitioning()) {}

  ~PartitionedEngine() override { retire_parts(); }

  std::unique_ptr<Transpose> make_transpose() override { return home_->make_transpose(); }

  size_t workspace_bytes(const Operands& shapes) const override {
    return home_->workspace_bytes(shapes) +
           cuda::split_rows_workspace_bytes(shapes.A->rows, SPGEMM_MAX_DEVICES);
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    home_->check_structures(operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return home_->fingerprint(m); }

  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    retire_parts();
    split_ = false;
    if (count > 0) home_->check_structures(checks, count);  // before any part reads them
    int n = static_cast<int>(settings_.parts.size());
    cuda::RowSplit cut = cuda::split_rows<Offset, Col>(ctx_, in, [&](long long) {
      return settings_.shares.empty() ? std::vector<double>(static_cast<size_t>(n), 1.0)
                                      : settings_.shares;
    });
    total_ = cut.total;
    rows_ = in.A->rows;
    const long long least =
        settings_.min_products < 0 ? cuda::kPartitionMinProducts : settings_.min_products;
    std::vector<Context*> contexts;
    for (const auto& part : settings_.parts) contexts.push_back(part.get());
    if (in.A->rows == 0 || cut.total < least) {
      if (!settings_.distributed) {
        home_->analyze(in, nullptr, 0);
        return;
      }
      // whole, yet C still a block of the plan's own: one part, the handle's
      cut = whole(in, cut.total);
      contexts = {&ctx_};
      n = 1;
    }
    for (int p = 0; p < n; ++p)
      parts_.push_back(
          std::make_unique<PartT>(cut, p, *contexts[static_cast<size_t>(p)], ctx_.device(), in));
    split_ = true;
    ready_.record(ctx_.stream());  // the operands as the caller's stream left them
    at_once(n, [&](int p) {
      PartT& part = *parts_[static_cast<size_t>(p)];
      if (part.rows == 0) return;
      const PartScope scope(ctx_, *part.ctx);
      ready_.wait_on(part.stream());
      part.place_structures(in);
      part.engine = make_cuda_engine<Value, Offset, Col>(*part.ctx);
      part.engine->analyze(part.operands(), nullptr, 0);
    });
  }

  int64_t symbolic(const Operands& in, MatrixDesc& C) override {
    if (!split_) return home_->symbolic(in, C);
    at_once(static_cast<int>(parts_.size()), [&](int p) {
      PartT& part = *parts_[static_cast<size_t>(p)];
      part.c_nnz = 0;
      if (part.rows == 0) return;
      const PartScope scope(ctx_, *part.ctx);
      part.describe_c(C);
      part.c_nnz = part.engine->symbolic(part.operands(), part.C);
      part.C.nnz = part.c_nnz;
      if (own_c(part) && part.c_nnz <= max_nnz(C)) {
        part.c_cols.reallocate(*part.ctx, static_cast<size_t>(part.c_nnz));
        part.c_values.reallocate(*part.ctx, static_cast<size_t>(part.c_nnz));
      }
      part.done.record(part.stream());
    });
    int64_t total = 0;
    for (auto& part : parts_) {
      part->c_first = total;
      total += part->c_nnz;
    }
    // nnz(C) too large for C's offsets: the plan says so, C stays untouched
    if (total > max_nnz(C) || settings_.distributed) return total;
    const cudaStream_t stream = ctx_.stream();
    for (auto& part : parts_) {
      if (part->rows == 0) continue;
      part->done.wait_on(stream);
      auto* to = static_cast<Offset*>(C.row_offsets) + part->first_row;
      const Offset* from = part->c_offsets.get();
      if (part->remote) {
        copy_between(to, ctx_.device(), from, part->ctx->device(), part->rows + 1, stream);
        from = to;
      }
      cuda::shift_offsets(to, from, part->rows + 1, part->c_first, stream);
    }
    return total;
  }

  void numeric(const Operands& in, MatrixDesc& C, const void* alpha, const void* beta) override {
    if (!split_) {
      home_->numeric(in, C, alpha, beta);
      return;
    }
    ready_.record(ctx_.stream());
    for (auto& owned : parts_) {
      PartT& part = *owned;
      if (part.rows == 0) continue;
      const PartScope scope(ctx_, *part.ctx);
      part.ctx->set_deterministic(ctx_.deterministic());
      const cudaStream_t stream = part.stream();
      ready_.wait_on(stream);
      part.start.record(stream);
      part.place_values(in);
      if (own_c(part)) {
        part.C.col_ind = part.c_cols.get();
        part.C.values = part.c_values.get();
      } else {
        part.C.col_ind = multi::advanced<Col>(C.col_ind, part.c_first);
        part.C.values = multi::advanced<Value>(C.values, part.c_first);
      }
      part.engine->numeric(part.operands(), part.C, alpha, beta);
      if (part.remote && !settings_.distributed) {
        copy_between(static_cast<Col*>(C.col_ind) + part.c_first, ctx_.device(), part.c_cols.get(),
                     part.ctx->device(), part.c_nnz, stream);
        copy_between(static_cast<Value*>(C.values) + part.c_first, ctx_.device(),
                     part.c_values.get(), part.ctx->device(), part.c_nnz, stream);
      }
      part.done.record(stream);
      part.timed = true;
    }
    for (auto& part : parts_)
      if (part->rows > 0) part->done.wait_on(ctx_.stream());
  }

  std::vector<RowBlock> row_blocks() override {
    std::vector<RowBlock> blocks;
    if (!settings_.distributed) return blocks;
    for (auto& part : parts_)
      if (part->rows > 0)
        blocks.push_back({part->ctx->device(), part->first_row, part->rows, part->c_nnz,
                          part->c_offsets.get(), part->c_cols.get(), part->c_values.get()});
    return blocks;
  }

  std::vector<PartReport> partition() override {
    if (!split_) return {{ctx_.device(), 0, rows_, total_, -1.0f}};
    std::vector<PartReport> report;
    for (auto& part : parts_) {
      PartReport r{part->ctx->device(), part->first_row, part->rows, part->products, -1.0f};
      if (part->timed) {
        SPGEMM_CUDA_CHECK(cudaEventSynchronize(part->done.get()));
        SPGEMM_CUDA_CHECK(cudaEventElapsedTime(&r.numeric_ms, part->start.get(), part->done.get()));
      }
      report.push_back(r);
    }
    return report;
  }

 private:
  // C's rows of the part in arrays of its own: on another device, or all
  // parts' where C stays distributed.
  bool own_c(const PartT& part) const { return part.remote || settings_.distributed; }

  // The part's device current and its context's pool in use; a part on the
  // handle's context keeps the plan's scope.
  class PartScope {
   public:
    PartScope(Context& handle, Context& part) {
      if (&part != &handle) scope_.emplace(part, nullptr);
    }

   private:
    std::optional<Context::CallScope> scope_;
  };

  // A cut of one part: every row.
  static cuda::RowSplit whole(const Operands& in, long long total) {
    cuda::RowSplit cut;
    cut.parts = 1;
    cut.total = total;
    cut.row_start = {0, in.A->rows};
    cut.first_product = {0, total};
    cut.a_offset = {in.A->base, in.A->base + in.A->nnz};
    cut.d_offset = {in.D ? in.D->base : 0, in.D ? in.D->base + in.D->nnz : 0};
    return cut;
  }

  // The parts' memory may still be read by work on the handle's stream (C's
  // assembly): their streams wait for it before the parts give it back.
  void retire_parts() noexcept {
    if (parts_.empty()) return;
    Event now;
    try {
      now.record(ctx_.stream());
      for (auto& part : parts_) {
        Context::DeviceGuard guard(*part->ctx);
        now.wait_on(part->stream());
      }
    } catch (...) {
      cudaStreamSynchronize(ctx_.stream());  // (errors already reported by the calls)
    }
    parts_.clear();
  }

  Context& ctx_;
  std::unique_ptr<Engine> home_;  // products that run whole, checks, transposes
  Partitioning settings_;         // as the handle had them at the plan's creation
  std::vector<std::unique_ptr<PartT>> parts_;
  bool split_ = false;
  int64_t rows_ = 0;
  long long total_ = 0;  // products
  Event ready_;          // on the handle's stream: what the parts wait for
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_partitioned_engine(Context& ctx) {
  return std::make_unique<PartitionedEngine<Value, Offset, Col>>(ctx);
}

#define SPGEMM_INSTANTIATE_PARTITIONED_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_partitioned_engine<Value, Offset, Col>(Context&);
#define SPGEMM_INSTANTIATE_PARTITIONED_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_PARTITIONED_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_PARTITIONED_ENGINES)

}  // namespace spgemm
