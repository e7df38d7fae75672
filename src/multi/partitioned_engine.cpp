// SPDX-License-Identifier: Apache-2.0
#include "multi/partitioned_engine.hpp"

#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/values.hpp"
#include "multi/policy.hpp"
#include "cuda/cuda_engine.hpp"
#include "cuda/partition/row_split.hpp"
#include "multi/host_part.hpp"
#include "multi/row_blocks.hpp"
#include "multi/shares.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spgemm {

namespace {

using multi::copy_between;
using multi::Event;

template <class Value, class Offset, class Col>
class PartitionedEngine final : public Engine {
  using PartT = multi::Part<Value, Offset, Col>;
  using HostPartT = multi::HostPart<Value, Offset, Col>;

 public:
  PartitionedEngine(Context& ctx, const Settings& settings, multi::SplitContext& split)
      : ctx_(ctx),
        settings_(settings),
        split_(split),
        home_(make_cuda_engine<Value, Offset, Col>(ctx)),
        partitioning_(split.partitioning()),
        pool_(partitioning_.pool ? partitioning_.pool : std::make_shared<ThreadPool>()) {}

  ~PartitionedEngine() override {
    retire_parts();
    if (host_stream_) cudaStreamDestroy(host_stream_);
  }

  std::unique_ptr<Transpose> make_transpose() override { return home_->make_transpose(); }

  // (A product run whole with C distributed is one part on the handle's
  // context: its row offsets of A beside home_'s buffers and, during its
  // analysis, the cut's counts; its block of C is not workspace,
  // Part::hold_output.)
  size_t workspace_bytes(const Operands& shapes) const override {
    const auto rows = static_cast<size_t>(shapes.A->rows);
    return home_->workspace_bytes(shapes) +
           cuda::split_rows_workspace_bytes(shapes.A->rows, SPGEMM_MAX_DEVICES) +
           DeviceBuffer<Offset>::workspace_bytes(rows + 1);
  }

  void check_structures(const CheckedOperand* operands, int count) override {
    home_->check_structures(operands, count);
  }

  uint64_t fingerprint(const MatrixDesc& m) override { return home_->fingerprint(m); }

  int64_t nnz_lower_bound(const Operands& in, int64_t limit) override {
    return home_->nnz_lower_bound(in, limit);
  }

  // The cut on the handle's device, on the caller's thread; meanwhile each
  // part on another device fingerprints the replicas it is to read in place
  // (with the input checks on), to be compared with the operands' own
  // fingerprints taken with the cut. Then every part analyzes its rows at
  // once.
  void analyze(const Operands& in, const CheckedOperand* checks, int count) override {
    retire_parts();
    rows_ = in.A->rows;
    std::vector<Context*> contexts;  // nullptr: the host
    for (const auto& part : partitioning_.parts) contexts.push_back(part.get());
    const int n = static_cast<int>(contexts.size());
    std::vector<Taken> replica_prints(static_cast<size_t>(n));
    Prints home_prints;
    // the cut's outcome, which the other bodies poll for (core/thread_pool.hpp)
    std::promise<void> cut_made;
    const std::shared_future<void> cut_known = cut_made.get_future().share();
    std::atomic<bool> cut_settled{false};
    const RowCounters counters = row_counters(in, contexts);
    entry_.record(ctx_.stream());  // what the replicas' fingerprints wait for
    pool_->run(n, [&](int p) {
      Context* on = contexts[static_cast<size_t>(p)];
      if (p > 0) {
        replica_prints[static_cast<size_t>(p)] = fingerprint_replicas(in, on, counters);
        poll_for(kPoolAwait, [&] { return cut_settled.load(std::memory_order_acquire); });
        cut_known.get();  // (rethrows the cut's failure)
      } else {
        try {
          home_prints = cut_into_parts(in, checks, count, contexts, counters);
        } catch (...) {
          cut_made.set_exception(std::current_exception());
          cut_settled.store(true, std::memory_order_release);
          throw;
        }
        cut_made.set_value();
        cut_settled.store(true, std::memory_order_release);
        replica_prints[0] = fingerprint_replicas(in, on, counters);
      }
      if (p < static_cast<int>(parts_.size()))
        analyze_part(p, in, home_prints, replica_prints[static_cast<size_t>(p)]);
    });
    release_counts();
  }

  int64_t symbolic(const Operands& in, MatrixDesc& C) override {
    if (parts_.empty()) return home_->symbolic(in, C);
    pool_->run(static_cast<int>(parts_.size()), [&](int p) {
      range(p).c_nnz = 0;
      if (range(p).rows == 0) return;
      if (!parts_[static_cast<size_t>(p)]) {
        host_->describe_c(C);
        host_->c_nnz = host_->engine->symbolic(host_->operands(), host_->C);
        if (host_->c_nnz <= max_nnz(C)) host_->own_c();
        return;
      }
      PartT& part = *parts_[static_cast<size_t>(p)];
      const PartScope scope(ctx_, *part.ctx);
      part.describe_c(C);
      part.c_nnz = part.engine->symbolic(part.operands(), part.C);
      part.C.nnz = part.c_nnz;
      if (own_c(part) && part.c_nnz <= max_nnz(C)) {
        part.hold_output(part.c_cols, static_cast<size_t>(part.c_nnz));
        part.hold_output(part.c_values, static_cast<size_t>(part.c_nnz));
      }
      part.done.record(part.stream());
    });
    int64_t total = 0;
    for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
      range(p).c_first = total;
      total += range(p).c_nnz;
    }
    // nnz(C) too large for C's offsets: the plan says so, C stays untouched
    if (total > max_nnz(C) || partitioning_.distributed) return total;
    const cudaStream_t stream = ctx_.stream();
    for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
      PartT* part = parts_[static_cast<size_t>(p)].get();
      const multi::RowRange& r = range(p);
      if (r.rows == 0) continue;
      auto* to = static_cast<Offset*>(C.row_offsets) + r.first_row;
      const Offset* from = to;
      if (!part) {
        SPGEMM_CUDA_CHECK(cudaMemcpyAsync(to, host_->c_offsets.get(), sizeof(Offset) * (r.rows + 1),
                                          cudaMemcpyHostToDevice, stream));
      } else if (part->remote) {
        part->done.wait_on(stream);
        copy_between(to, ctx_.device(), part->c_offsets.get(), part->ctx->device(), r.rows + 1,
                     stream);
      } else {
        part->done.wait_on(stream);
        from = part->c_offsets.get();
      }
      cuda::shift_offsets(to, from, r.rows + 1, r.c_first, stream);
    }
    return total;
  }

  // Every part's numeric phase enqueued at once, each from its thread of
  // the thread pool (the host part's computed there); the handle's stream then
  // waits for the GPU parts.
  void numeric(const Operands& in, MatrixDesc& C, const void* alpha, const void* beta) override {
    if (parts_.empty()) {
      home_->numeric(in, C, alpha, beta);
      return;
    }
    ready_.record(ctx_.stream());
    // the handle's stream waits for the GPU parts also when one failed: the
    // others may still be writing C
    auto wait_for_parts = [&] {
      for (auto& part : parts_)
        if (part && part->rows > 0) part->done.wait_on(ctx_.stream());
    };
    try {
      pool_->run(static_cast<int>(parts_.size()), [&](int p) {
        PartT* part = parts_[static_cast<size_t>(p)].get();
        if (!part) {
          if (host_->rows > 0) host_numeric(in, C, alpha, beta);
        } else if (part->rows > 0) {
          part_numeric(*part, in, C, alpha, beta);
        }
      });
    } catch (...) {
      try {
        wait_for_parts();
      } catch (...) {  // (the part's failure is the one to report)
      }
      throw;
    }
    wait_for_parts();
  }

  std::vector<RowBlock> row_blocks() override {
    std::vector<RowBlock> blocks;
    if (!partitioning_.distributed) return blocks;
    for (auto& part : parts_) {
      if (!part) {
        if (host_->rows > 0)
          blocks.push_back({SPGEMM_HOST_DEVICE, host_->first_row, host_->rows, host_->c_nnz,
                            host_->c_offsets.get(), host_->c_cols.get(), host_->c_values.get()});
      } else if (part->rows > 0) {
        blocks.push_back({part->ctx->device(), part->first_row, part->rows, part->c_nnz,
                          part->c_offsets.get(), part->c_cols.get(), part->c_values.get()});
      }
    }
    return blocks;
  }

  std::vector<PartReport> partition() override {
    if (parts_.empty()) return {{ctx_.device(), 0, rows_, total_, -1.0f}};
    std::vector<PartReport> report;
    for (auto& part : parts_) {
      if (!part) {
        report.push_back({SPGEMM_HOST_DEVICE, host_->first_row, host_->rows, host_->products,
                          host_->numeric_ms});
        continue;
      }
      PartReport r{part->ctx->device(), part->first_row, part->rows, part->products, -1.0f};
      if (part->numerics > 0) {
        SPGEMM_CUDA_CHECK(cudaEventSynchronize(part->done.get()));
        SPGEMM_CUDA_CHECK(cudaEventElapsedTime(&r.numeric_ms, part->start.get(), part->done.get()));
      }
      report.push_back(r);
    }
    return report;
  }

 private:
  multi::RowRange& range(int p) {
    PartT* part = parts_[static_cast<size_t>(p)].get();
    return part ? static_cast<multi::RowRange&>(*part) : *host_;
  }

  // C's rows of the part in arrays of its own: on another device, or all
  // parts' where C stays distributed.
  bool own_c(const PartT& part) const { return part.remote || partitioning_.distributed; }

  // Fingerprints of A's, B's and D's structures (none: not taken).
  using Prints = std::array<std::optional<uint64_t>, 3>;
  // Which of them a part took of its replicas: their values reach its
  // context's pinned stash with its stream.
  using Taken = std::array<bool, 3>;
  static constexpr size_t kPrintsBytes = 3 * sizeof(unsigned long long);
  // The counters of the cut's rows on other devices (row_counters), and the
  // replicas' views they read.
  struct RowCounters {
    std::vector<std::array<std::optional<MatrixDesc>, 3>> views;
    std::vector<cuda::RowCounter> list;
  };

  // The cut of op(A)'s rows into parts_ (none: the product runs whole on
  // home_, analyzed here), the input checks with it; with them, where the
  // checks are on, the fingerprints of the operands that a part on another
  // device reads from a replica, and those of the counters' replicas, which
  // are compared here. Then ready_ on the handle's stream.
  Prints cut_into_parts(const Operands& in, const CheckedOperand* checks, int count,
                        std::vector<Context*> contexts, const RowCounters& counters) {
    // the handle's GPU alone whatever the products: no need to count them
    const bool alone =
        multi::host_never_pays<Value, Col>(partitioning_, split_.throughput(), in) &&
        gpus_are_home(contexts);
    const MatrixDesc* const operands[3] = {in.A, in.B, in.D};
    const MatrixDesc* replicated[3] = {};
    for (int i = 0; i < 3 && settings_.input_checks && !alone; ++i)
      for (const Context* on : contexts)
        if (operands[i] && on && on->device() != ctx_.device() &&
            operands[i]->replica_on(on->device()))
          replicated[i] = operands[i];
    cuda::RowSplit cut;
    if (!alone) {  // the input checks with the count, before any part reads the operands
      cut = cuda::split_rows<Offset, Col>(
          ctx_, in, checks, count, {{replicated[0], replicated[1], replicated[2]}},
          names_b_rows(in, contexts), split_.throughput().split_total,
          [&](long long total) {
            return multi::part_shares<Value, Col>(partitioning_, split_.throughput(), in, total);
          },
          &counts_, counters.list);
      split_.throughput().split_total = cut.total;
    }
    Prints prints;
    if (!cut.prints.empty()) prints = cut.prints[0];
    for (size_t c = 0; c + 1 < cut.prints.size(); ++c)
      for (size_t i = 0; i < 3; ++i)
        if (cut.prints[c + 1][i] && cut.prints[c + 1][i] != prints[i])
          fail_replica(static_cast<int>(i), counters.list[c].ctx->device());
    total_ = alone ? -1 : cut.total;
    const long long least =
        partitioning_.min_products < 0 ? multi::kPartitionMinProducts : partitioning_.min_products;
    listed_ = true;
    if (alone || in.A->rows == 0 || cut.total < least || all_at_home(cut, contexts)) {
      if (!partitioning_.distributed) {
        if (alone) {
          home_->analyze(in, checks, count);
        } else {  // (checked with the cut)
          const std::optional<CountedRows> counted = counts_.from(0);
          home_->analyze({in.A, in.B, in.D, total_, counted ? &*counted : nullptr}, nullptr, 0);
        }
        return prints;
      }
      if (alone && count > 0) home_->check_structures(checks, count);
      // whole, yet C still a block of the plan's own: one part, the handle's
      cut = whole(in, total_);
      contexts = {&ctx_};
      listed_ = false;
    }
    for (int p = 0; p < static_cast<int>(contexts.size()); ++p) {
      Context* on = contexts[static_cast<size_t>(p)];
      if (on) {
        parts_.push_back(std::make_unique<PartT>(cut, p, *on, ctx_.device(), in));
        continue;
      }
      parts_.push_back(nullptr);
      host_ = std::make_unique<HostPartT>(cut, p, in);
      if (!host_stream_)
        SPGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&host_stream_, cudaStreamNonBlocking));
    }
    ready_.record(ctx_.stream());  // the operands as the caller's stream left them
    return prints;
  }

  // The other GPUs that take a share of the cut's count, each from its
  // replicas of A and B (and D): one per device that has them and may
  // write the cut's workspace; with the input checks on, each also
  // fingerprints its replicas in the same pass. (Their counts are read
  // before the input checks' verdict, and before the replicas' fingerprints
  // are compared: the count's reads stay within the arrays whatever they
  // hold, and a failed check or comparison fails the analysis.)
  RowCounters row_counters(const Operands& in, const std::vector<Context*>& contexts) {
    RowCounters counters;
    counters.views.reserve(contexts.size());  // (list points into views)
    std::vector<int> devices{ctx_.device()};
    for (Context* on : contexts) {
      if (!on || std::count(devices.begin(), devices.end(), on->device()) ||
          !ctx_.workspace_reachable_from(on->device()))
        continue;
      auto views = multi::replica_views(in, on->device());
      if (!views[0] || !views[1] || (in.D && !views[2])) continue;
      devices.push_back(on->device());
      const auto& v = counters.views.emplace_back(std::move(views));
      const MatrixDesc* const replicas[3] = {&*v[0], &*v[1], in.D ? &*v[2] : nullptr};
      Fingerprints printed;
      for (int i = 0; i < 3 && settings_.input_checks; ++i) printed.m[i] = replicas[i];
      counters.list.push_back({on, {replicas[0], replicas[1], replicas[2]}, printed});
    }
    return counters;
  }

  // Whether a counter on `device` fingerprints its replicas.
  static bool printed_by_counter(const RowCounters& counters, int device) {
    return std::any_of(counters.list.begin(), counters.list.end(), [&](const cuda::RowCounter& c) {
      return c.ctx->device() == device && c.printed.any();
    });
  }

  [[noreturn]] static void fail_replica(int operand, int device) {
    fail(SPGEMM_STATUS_INVALID_VALUE, std::string(1, "ABD"[operand]) + "'s replica on device " +
                                          std::to_string(device) + " differs from it in structure");
  }

  // With the input checks on, the fingerprints of the replicas of A, B and D
  // on `on`'s device, where it is a GPU other than the handle's and no
  // counter takes them: enqueued on its stream, copied into its pinned stash
  // (analyze_part reads them), no synchronization (whose wait at times kept
  // the part's thread busy past the cut: by up to ~100 us in analyses of
  // landmark on two H200s).
  Taken fingerprint_replicas(const Operands& in, Context* on, const RowCounters& counters) {
    Taken taken{};
    if (!on || on->device() == ctx_.device() || !settings_.input_checks ||
        printed_by_counter(counters, on->device()))
      return taken;
    const PartScope scope(ctx_, *on);
    entry_.wait_on(on->stream());  // replicas as the caller's stream leaves them, as parts read them
    const auto views = multi::replica_views(in, on->device());
    const MatrixDesc* replicas[3] = {};
    for (int i = 0; i < 3; ++i)
      if (views[i]) replicas[i] = &*views[i];
    if (!replicas[0] && !replicas[1] && !replicas[2]) return taken;
    stash_fingerprints(*on, replicas);
    for (int i = 0; i < 3; ++i) taken[static_cast<size_t>(i)] = replicas[i] != nullptr;
    return taken;
  }

  // The fingerprints of m[0], m[1], m[2] (null: 0) taken on `on`'s stream and
  // copied into its pinned stash there, without a synchronization: readable
  // once a later one has passed the copy.
  static void stash_fingerprints(Context& on, const MatrixDesc* const* m) {
    DeviceBuffer<unsigned long long> sums(on, 3);  // (freed in stream order, after the copy)
    cuda::launch_fingerprints<Offset, Col>(on, m, 3, sums.get());
    SPGEMM_CUDA_CHECK(cudaMemcpyAsync(on.pinned_stash(kPrintsBytes), sums.get(), kPrintsBytes,
                                      cudaMemcpyDeviceToHost, on.stream()));
  }

  // Part p's analysis (its device current on the calling thread): where it
  // reads replicas (on another device than the operands'), their
  // fingerprints compared with their operands', then its structures placed,
  // its engine's analysis enqueued. (A product that runs whole has one part,
  // on the handle's device, whatever the list entry's replicas.)
  void analyze_part(int p, const Operands& in, const Prints& home_prints,
                    const Taken& replica_prints) {
    if (!parts_[static_cast<size_t>(p)]) {
      if (host_->rows == 0) return;
      const Context::DeviceGuard guard(ctx_);  // its copies run on the operands' device
      ready_.wait_on(host_stream_);
      host_->place_structures(in, host_stream_);
      host_->engine->analyze(host_->operands(), nullptr, 0);
      return;
    }
    PartT& part = *parts_[static_cast<size_t>(p)];
    if (part.rows == 0) return;
    const bool printed = std::find(replica_prints.begin(), replica_prints.end(), true) !=
                         replica_prints.end();
    if (part.remote && printed) {  // the replicas' fingerprints, once their copy is done
      SPGEMM_CUDA_CHECK(cudaStreamSynchronize(part.stream()));
      const auto* taken =
          static_cast<const unsigned long long*>(part.ctx->pinned_stash(kPrintsBytes));
      for (int i = 0; i < 3; ++i)
        if (replica_prints[static_cast<size_t>(i)] &&
            home_prints[static_cast<size_t>(i)] != taken[i])
          fail_replica(i, part.ctx->device());
    }
    const PartScope scope(ctx_, *part.ctx);
    ready_.wait_on(part.stream());
    part.place_structures(in);
    part.engine = make_cuda_engine<Value, Offset, Col>(*part.ctx);
    Operands operands = part.operands();
    const std::optional<CountedRows> counted = counts_.from(part.first_row);
    if (counted) operands.counted = &*counted;
    part.engine->analyze(operands, nullptr, 0);
    part.counted.record(part.stream());  // (what the release of counts_ waits for)
  }

  // The cut's counts given back (on the handle's stream) once every part
  // has taken its rows' own.
  void release_counts() {
    if (!counts_.counts.get()) return;
    for (auto& part : parts_)
      if (part) part->counted.wait_on(ctx_.stream());
    counts_ = {};
  }

  // Whether a GPU part on another device than the handle's reads neither A
  // nor B from a replica there, and so copies only the rows of B that its
  // entries of A name (row_blocks.hpp), which the cut then finds
  // (split_rows's spans: a pass over A's columns, skipped where replicas
  // make it moot).
  bool names_b_rows(const Operands& in, const std::vector<Context*>& contexts) const {
    return std::any_of(contexts.begin(), contexts.end(), [&](const Context* on) {
      return on && on->device() != ctx_.device() && !in.A->replica_on(on->device()) &&
             !in.B->replica_on(on->device());
    });
  }

  // Whether the GPU parts are one, on the handle's device.
  bool gpus_are_home(const std::vector<Context*>& contexts) const {
    const auto gpus = std::count_if(contexts.begin(), contexts.end(),
                                    [](const Context* on) { return on != nullptr; });
    const auto home = std::find_if(contexts.begin(), contexts.end(), [&](const Context* on) {
      return on && on->device() == ctx_.device();
    });
    return gpus == 1 && home != contexts.end();
  }

  // A GPU part's numeric phase, enqueued on its stream after ready_: its
  // values placed, its rows of C computed (into C's arrays at its offset on
  // the handle's device, else its own, copied into C unless distributed),
  // timed by its events.
  void part_numeric(PartT& part, const Operands& in, MatrixDesc& C, const void* alpha,
                    const void* beta) {
    const PartScope scope(ctx_, *part.ctx);
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
    if (part.remote && !partitioning_.distributed) {
      copy_between(static_cast<Col*>(C.col_ind) + part.c_first, ctx_.device(), part.c_cols.get(),
                   part.ctx->device(), part.c_nnz, stream);
      copy_between(static_cast<Value*>(C.values) + part.c_first, ctx_.device(),
                   part.c_values.get(), part.ctx->device(), part.c_nnz, stream);
    }
    part.done.record(stream);
    ++part.numerics;
  }

  // The host part's numeric phase on its thread of the pool, while the GPU
  // parts' are enqueued: its values copied in, its rows computed, copied into C
  // (unless distributed) and waited for, since its pinned C is rewritten by
  // the next phase. Its throughputs go to the handle's model.
  void host_numeric(const Operands& in, MatrixDesc& C, const void* alpha, const void* beta) {
    HostPartT& h = *host_;
    const Context::DeviceGuard guard(ctx_);  // its copies run on the operands' device
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    const auto start = Clock::now();
    ready_.wait_on(host_stream_);
    int64_t bytes = h.place_values(in, host_stream_);
    SPGEMM_CUDA_CHECK(cudaStreamSynchronize(host_stream_));
    const auto copied = Clock::now();
    h.engine->numeric(h.operands(), h.C, alpha, beta);
    const auto computed = Clock::now();
    if (!partitioning_.distributed && h.c_nnz > 0) {
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(static_cast<Col*>(C.col_ind) + h.c_first, h.c_cols.get(),
                                        sizeof(Col) * h.c_nnz, cudaMemcpyHostToDevice,
                                        host_stream_));
      SPGEMM_CUDA_CHECK(cudaMemcpyAsync(static_cast<Value*>(C.values) + h.c_first,
                                        h.c_values.get(), sizeof(Value) * h.c_nnz,
                                        cudaMemcpyHostToDevice, host_stream_));
      SPGEMM_CUDA_CHECK(cudaStreamSynchronize(host_stream_));
      bytes += static_cast<int64_t>(sizeof(Col) + sizeof(Value)) * h.c_nnz;
    }
    const auto end = Clock::now();
    h.numeric_ms = static_cast<float>(1e3 * seconds(end - start));
    multi::Throughput& measured = split_.throughput();
    const double computing = seconds(computed - copied);
    const double copying = seconds(copied - start) + seconds(end - computed);
    if (computing > 0) measured.host = static_cast<double>(h.products) / computing;
    if (copying > 0 && bytes > 0) measured.copy = static_cast<double>(bytes) / copying;
  }

  // Whether the cut leaves every row to one GPU part on the handle's device
  // (the model gave the host nothing, or forced shares all to one part): the
  // product then runs as without devices.
  bool all_at_home(const cuda::RowSplit& cut, const std::vector<Context*>& contexts) const {
    int with_rows = -1;
    for (int p = 0; p < cut.parts; ++p) {
      if (cut.row_start[p + 1] == cut.row_start[p]) continue;
      if (with_rows >= 0) return false;
      with_rows = p;
    }
    const Context* on = with_rows >= 0 ? contexts[static_cast<size_t>(with_rows)] : nullptr;
    return on && on->device() == ctx_.device();
  }

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

  // The GPU parts' products per second in their last numeric phase, where
  // it has finished: per entry of the device list (the next cut's shares;
  // as a first numeric phase or one run again) and their mean (the
  // hybrid's model).
  void measure_gpu_parts() noexcept {
    multi::Throughput& measured = split_.throughput();
    double sum = 0;
    int count = 0;
    for (size_t p = 0; p < parts_.size(); ++p) {
      const PartT* part = parts_[p].get();
      float ms = 0;
      if (!part || part->numerics == 0 || cudaEventQuery(part->done.get()) != cudaSuccess ||
          cudaEventElapsedTime(&ms, part->start.get(), part->done.get()) != cudaSuccess) {
        cudaGetLastError();  // (not finished: not an error)
        continue;
      }
      if (!(ms > 0)) continue;
      const double seconds = 1e-3 * ms;
      sum += static_cast<double>(part->products) / seconds, ++count;
      std::vector<multi::PartHistory>& history =
          part->numerics > 1 ? measured.parts_again : measured.parts;
      if (listed_ && history.size() == partitioning_.parts.size())
        history[p].record({total_, static_cast<double>(part->products), seconds},
                          multi::kShareFitMinGap);
    }
    if (count > 0) measured.gpu = sum / count;
  }

  // The parts' memory may still be read by work on the handle's stream (C's
  // assembly): their streams wait for it before the parts give it back; the
  // host part's pinned memory waits for the stream itself.
  void retire_parts() noexcept {
    measure_gpu_parts();
    try {
      release_counts();  // (an analysis that failed midway)
    } catch (...) {
      cudaStreamSynchronize(ctx_.stream());
      counts_ = {};
    }
    if (parts_.empty()) return;
    Event now;
    try {
      now.record(ctx_.stream());
      for (auto& part : parts_) {
        if (!part) continue;
        Context::DeviceGuard guard(*part->ctx);
        now.wait_on(part->stream());
      }
      if (host_) SPGEMM_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    } catch (...) {
      cudaStreamSynchronize(ctx_.stream());  // (errors already reported by the calls)
    }
    parts_.clear();
    host_.reset();
  }

  Context& ctx_;
  const Settings& settings_;          // the handle's (the plan keeps them alive)
  multi::SplitContext& split_;        // the handle's (the plan keeps it alive)
  std::unique_ptr<Engine> home_;      // products that run whole, checks, transposes
  multi::Partitioning partitioning_;  // as the handle had them at the plan's creation
  std::shared_ptr<ThreadPool> pool_;  // the handle's: the parts' threads in every phase
  // empty: the product runs whole on home_; nullptr: the host's part
  std::vector<std::unique_ptr<PartT>> parts_;
  std::unique_ptr<HostPartT> host_;
  cudaStream_t host_stream_ = nullptr;  // the host part's copies (operands' device)
  bool listed_ = false;  // parts_ are the device list's entries (not one whole part)
  int64_t rows_ = 0;
  long long total_ = 0;  // products
  Event entry_;          // on the handle's stream at analysis: what replicas' fingerprints wait for
  Event ready_;          // on the handle's stream: what the parts wait for
  cuda::KeptCounts counts_;  // the cut's, from the cut until every part took its rows'
};

}  // namespace

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_partitioned_engine(Context& ctx, const Settings& settings,
                                                multi::SplitContext& split) {
  return std::make_unique<PartitionedEngine<Value, Offset, Col>>(ctx, settings, split);
}

#define SPGEMM_INSTANTIATE_PARTITIONED_ENGINE(Value, Offset, Col) \
  template std::unique_ptr<Engine> make_partitioned_engine<Value, Offset, Col>( \
      Context&, const Settings&, multi::SplitContext&);
#define SPGEMM_INSTANTIATE_PARTITIONED_ENGINES(Offset, Col) \
  SPGEMM_FOR_EACH_VALUE(SPGEMM_INSTANTIATE_PARTITIONED_ENGINE, Offset, Col)
SPGEMM_FOR_EACH_INDEX_LAYOUT(SPGEMM_INSTANTIATE_PARTITIONED_ENGINES)

}  // namespace spgemm
