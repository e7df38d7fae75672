#include "multi/partitioned_engine.hpp"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "cuda/configs/bins.hpp"
#include "cuda/cuda_engine.hpp"
#include "cuda/partition/row_split.hpp"

#include <cuda_runtime_api.h>

#include <exception>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

namespace spgemm {

namespace {

// Runs body(i) for every i in [0, n) at once, one host thread each beyond
// the caller's; rethrows the first failure once all have ended.
template <class Body>
void at_once(int n, const Body& body) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto run = [&](int i) {
    try {
      body(i);
    } catch (...) {
      errors[static_cast<size_t>(i)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  try {
    for (int i = 1; i < n; ++i) threads.emplace_back(run, i);
  } catch (...) {
    for (std::thread& t : threads) t.join();
    throw;
  }
  if (n > 0) run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// A CUDA event, created on the current device at its first record (an event
// is recorded on streams of the device it was created on).
class Event {
 public:
  Event() = default;
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream) {
    if (!event_) SPGEMM_CUDA_CHECK(cudaEventCreate(&event_));
    SPGEMM_CUDA_CHECK(cudaEventRecord(event_, stream));
  }
  // `stream` waits for the last record.
  void wait_on(cudaStream_t stream) const {
    SPGEMM_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

template <class T>
void* advanced(void* p, int64_t n) {
  return static_cast<T*>(p) + n;
}

// One part: its rows of C, the operands as its engine sees them, and the
// copies it holds where it is on another device than the operands.
template <class Value, class Offset, class Col>
struct Part {
  std::shared_ptr<Context> ctx;
  bool remote = false;
  int64_t first_row = 0, rows = 0, products = 0;
  int64_t a_first = 0, a_nnz = 0, d_first = 0, d_nnz = 0;  // A's / D's entries of the rows
  int64_t c_first = 0, c_nnz = 0;                          // C's entries of the rows
  bool has_d = false;
  MatrixDesc A, B, D, C;
  std::unique_ptr<Engine> engine;
  DeviceBuffer<Offset> a_offsets, b_offsets, d_offsets, c_offsets;
  DeviceBuffer<Col> a_cols, b_cols, d_cols, c_cols;
  DeviceBuffer<Value> a_values, b_values, d_values, c_values;
  Event start, done;
  bool timed = false;

  Part() = default;
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ~Part() {
    Context::DeviceGuard guard(*ctx);  // its memory goes back on its device
    engine.reset();
    for (auto* b : {&a_offsets, &b_offsets, &d_offsets, &c_offsets}) b->reset();
    for (auto* b : {&a_cols, &b_cols, &d_cols, &c_cols}) b->reset();
    for (auto* b : {&a_values, &b_values, &d_values, &c_values}) b->reset();
  }
  Operands operands() const { return {&A, &B, has_d ? &D : nullptr}; }
  cudaStream_t stream() const { return ctx->stream(); }
};

template <class Value, class Offset, class Col>
class PartitionedEngine final : public Engine {
  using PartT = Part<Value, Offset, Col>;

 public:
  explicit PartitionedEngine(Context& ctx)
      : ctx_(ctx),
        home_(make_cuda_engine<Value, Offset, Col>(ctx)),
        settings_(ctx.partitioning()) {}

  ~PartitionedEngine() override { retire_parts(); }

  std::unique_ptr<Transpose> make_transpose() override { return home_->make_transpose(); }

  size_t workspace_bytes(const Operands& shapes) const override {
    return home_->workspace_bytes(shapes) + cuda::split_rows_workspace_bytes(shapes.A->rows);
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    home_->check_structures(operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return home_->fingerprint(m); }

  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    retire_parts();
    split_ = false;
    if (count > 0) home_->check_structures(checks, count);  // before any part reads them
    const int n = static_cast<int>(settings_.parts.size());
    const std::vector<double> shares =
        settings_.shares.empty() ? std::vector<double>(static_cast<size_t>(n), 1.0)
                                 : settings_.shares;
    const cuda::RowSplit cut = cuda::split_rows<Offset, Col>(ctx_, in, shares);
    total_ = cut.total;
    rows_ = in.A->rows;
    const long long least =
        settings_.min_products < 0 ? cuda::kPartitionMinProducts : settings_.min_products;
    if (in.A->rows == 0 || cut.total < least) {
      home_->analyze(in, nullptr, 0);
      return;
    }
    const int64_t a_base = in.A->base, d_base = in.D ? in.D->base : 0;
    for (int p = 0; p < n; ++p) {
      auto part = std::make_unique<PartT>();
      part->ctx = settings_.parts[static_cast<size_t>(p)];
      part->remote = part->ctx->device() != ctx_.device();
      part->first_row = cut.row_start[p];
      part->rows = cut.row_start[p + 1] - cut.row_start[p];
      part->products = cut.first_product[p + 1] - cut.first_product[p];
      part->a_first = cut.a_offset[p] - a_base;
      part->a_nnz = cut.a_offset[p + 1] - cut.a_offset[p];
      part->has_d = in.D != nullptr;
      part->d_first = cut.d_offset[p] - d_base;
      part->d_nnz = cut.d_offset[p + 1] - cut.d_offset[p];
      parts_.push_back(std::move(part));
    }
    split_ = true;
    ready_.record(ctx_.stream());  // the operands as the caller's stream left them
    at_once(n, [&](int p) {
      PartT& part = *parts_[static_cast<size_t>(p)];
      if (part.rows == 0) return;
      Context::CallScope scope(*part.ctx, nullptr);
      ready_.wait_on(part.stream());
      place_structures(part, in);
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
      Context::CallScope scope(*part.ctx, nullptr);
      part.C = C;
      part.C.rows = part.rows;
      part.C.nnz = 0;
      part.C.row_offsets = part.c_offsets.get();
      part.C.col_ind = part.C.values = nullptr;
      part.c_nnz = part.engine->symbolic(part.operands(), part.C);
      part.C.nnz = part.c_nnz;
      part.done.record(part.stream());
    });
    int64_t total = 0;
    for (auto& part : parts_) {
      part->c_first = total;
      total += part->c_nnz;
    }
    // nnz(C) too large for C's offsets: the plan says so, C stays untouched
    if (total > static_cast<int64_t>(std::numeric_limits<Offset>::max()) - C.base) return total;
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
      Context::CallScope scope(*part.ctx, nullptr);
      part.ctx->set_deterministic(ctx_.deterministic());
      const cudaStream_t stream = part.stream();
      ready_.wait_on(stream);
      part.start.record(stream);
      place_values(part, in);
      if (part.remote) {
        if (part.c_cols.size() != static_cast<size_t>(part.c_nnz)) {
          part.c_cols.reallocate(*part.ctx, static_cast<size_t>(part.c_nnz));
          part.c_values.reallocate(*part.ctx, static_cast<size_t>(part.c_nnz));
        }
        part.C.col_ind = part.c_cols.get();
        part.C.values = part.c_values.get();
      } else {
        part.C.col_ind = advanced<Col>(C.col_ind, part.c_first);
        part.C.values = advanced<Value>(C.values, part.c_first);
      }
      part.engine->numeric(part.operands(), part.C, alpha, beta);
      if (part.remote) {
        copy_between(static_cast<Col*>(C.col_ind) + part.c_first, ctx_.device(),
                     part.c_cols.get(), part.ctx->device(), part.c_nnz, stream);
        copy_between(static_cast<Value*>(C.values) + part.c_first, ctx_.device(),
                     part.c_values.get(), part.ctx->device(), part.c_nnz, stream);
      }
      part.done.record(stream);
      part.timed = true;
    }
    for (auto& part : parts_)
      if (part->rows > 0) part->done.wait_on(ctx_.stream());
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
  // `count` elements from one device to another, ordered on `stream`.
  template <class T>
  static void copy_between(T* to, int to_device, const T* from, int from_device, int64_t count,
                           cudaStream_t stream) {
    if (count > 0)
      SPGEMM_CUDA_CHECK(cudaMemcpyPeerAsync(to, to_device, from, from_device,
                                            static_cast<size_t>(count) * sizeof(T), stream));
  }

  // m's arrays from its entry `first` on, read in place.
  static void view_from(const MatrixDesc& m, int64_t first, MatrixDesc& out) {
    out.col_ind = advanced<Col>(m.col_ind, first);
    out.values = advanced<Value>(m.values, first);
  }

  // A row block of m (its entries [first, first + nnz)) as the part's
  // operand: shifted row offsets of its own; columns and values in place on
  // the operands' device, copies (columns now, values at numeric) elsewhere.
  void place_rows(PartT& part, const MatrixDesc& m, int64_t first, int64_t nnz, MatrixDesc& out,
                  DeviceBuffer<Offset>& offsets, DeviceBuffer<Col>& cols,
                  DeviceBuffer<Value>& values) {
    out = m;
    out.rows = part.rows;
    out.nnz = nnz;
    offsets.reallocate(*part.ctx, static_cast<size_t>(part.rows + 1));
    const Offset* from = static_cast<const Offset*>(m.row_offsets) + part.first_row;
    if (part.remote) {
      copy_between(offsets.get(), part.ctx->device(), from, ctx_.device(), part.rows + 1,
                   part.stream());
      from = offsets.get();
      cols.reallocate(*part.ctx, static_cast<size_t>(nnz));
      values.reallocate(*part.ctx, static_cast<size_t>(nnz));
      copy_between(cols.get(), part.ctx->device(), static_cast<const Col*>(m.col_ind) + first,
                   ctx_.device(), nnz, part.stream());
      out.col_ind = cols.get();
      out.values = values.get();
    } else {
      view_from(m, first, out);
    }
    cuda::shift_offsets(offsets.get(), from, part.rows + 1, -first, part.stream());
    out.row_offsets = offsets.get();
  }

  // The part's operands and C's row offsets, at analyze.
  void place_structures(PartT& part, const Operands& in) {
    place_rows(part, *in.A, part.a_first, part.a_nnz, part.A, part.a_offsets, part.a_cols,
               part.a_values);
    if (part.has_d)
      place_rows(part, *in.D, part.d_first, part.d_nnz, part.D, part.d_offsets, part.d_cols,
                 part.d_values);
    part.B = *in.B;
    if (part.remote) {
      const MatrixDesc& B = *in.B;
      part.b_offsets.reallocate(*part.ctx, static_cast<size_t>(B.rows + 1));
      part.b_cols.reallocate(*part.ctx, static_cast<size_t>(B.nnz));
      part.b_values.reallocate(*part.ctx, static_cast<size_t>(B.nnz));
      copy_between(part.b_offsets.get(), part.ctx->device(),
                   static_cast<const Offset*>(B.row_offsets), ctx_.device(), B.rows + 1,
                   part.stream());
      copy_between(part.b_cols.get(), part.ctx->device(), static_cast<const Col*>(B.col_ind),
                   ctx_.device(), B.nnz, part.stream());
      part.B.row_offsets = part.b_offsets.get();
      part.B.col_ind = part.b_cols.get();
      part.B.values = part.b_values.get();
    }
    part.c_offsets.reallocate(*part.ctx, static_cast<size_t>(part.rows + 1));
  }

  // The operands' values as they are now (and, on the operands' device,
  // their arrays as the descriptors name them now), at every numeric phase.
  void place_values(PartT& part, const Operands& in) {
    if (!part.remote) {
      view_from(*in.A, part.a_first, part.A);
      part.B = *in.B;
      if (part.has_d) view_from(*in.D, part.d_first, part.D);
      return;
    }
    auto copy_values = [&](const MatrixDesc& m, int64_t first, int64_t nnz, MatrixDesc& out) {
      copy_between(static_cast<Value*>(out.values), part.ctx->device(),
                   static_cast<const Value*>(m.values) + first, ctx_.device(), nnz,
                   part.stream());
    };
    copy_values(*in.A, part.a_first, part.a_nnz, part.A);
    copy_values(*in.B, 0, in.B->nnz, part.B);
    if (part.has_d) copy_values(*in.D, part.d_first, part.d_nnz, part.D);
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
  Event ready_;  // on the handle's stream: what the parts wait for
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
