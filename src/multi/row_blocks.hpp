// SPDX-License-Identifier: Apache-2.0
// What the engines of src/multi/ share: a product cut into row blocks
// ("parts"), each an ordinary product of its rows of op(A) (and D) times B,
// computed by a GPU engine on a context of its own or of the handle's.
#pragma once

#include "core/context.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "cuda/partition/row_split.hpp"
#include "plan/engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spgemm::multi {

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
  // `stream` waits for the last record (none yet: nothing to wait for).
  void wait_on(cudaStream_t stream) const {
    if (event_) SPGEMM_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

template <class T>
void* advanced(void* p, int64_t n) {
  return static_cast<T*>(p) + n;
}

// `count` elements from one device to another, ordered on `stream`.
template <class T>
void copy_between(T* to, int to_device, const T* from, int from_device, int64_t count,
                  cudaStream_t stream) {
  if (count > 0)
    SPGEMM_CUDA_CHECK(cudaMemcpyPeerAsync(to, to_device, from, from_device,
                                          static_cast<size_t>(count) * sizeof(T), stream));
}

// m as read from its replica on `device` (spgemmCsrSetReplica); none there:
// nullopt.
inline std::optional<MatrixDesc> replica_view(const MatrixDesc& m, int device) {
  const Replica* r = m.replica_on(device);
  if (!r) return std::nullopt;
  MatrixDesc here = m;
  here.row_offsets = r->row_offsets;
  here.col_ind = r->col_ind;
  here.values = r->values;
  return here;
}

// A, B and D as read from their replicas on `device` (none there, or no D:
// nullopt).
inline std::array<std::optional<MatrixDesc>, 3> replica_views(const Operands& in, int device) {
  return {replica_view(*in.A, device), replica_view(*in.B, device),
          in.D ? replica_view(*in.D, device) : std::nullopt};
}

// A part's rows of C, as part p of `cut` of the operands `in`: their
// products, and A's, D's (and once counted, C's) entries of them.
struct RowRange {
  int64_t first_row = 0, rows = 0, products = 0;
  int64_t a_first = 0, a_nnz = 0, d_first = 0, d_nnz = 0;
  int64_t c_first = 0, c_nnz = 0;
  bool has_d = false;

  RowRange(const cuda::RowSplit& cut, int p, const Operands& in) {
    const auto at = static_cast<size_t>(p);
    first_row = cut.row_start[at];
    rows = cut.row_start[at + 1] - cut.row_start[at];
    products = cut.first_product[at + 1] - cut.first_product[at];
    a_first = cut.a_offset[at] - in.A->base;
    a_nnz = cut.a_offset[at + 1] - cut.a_offset[at];
    has_d = in.D != nullptr;
    if (has_d) {
      d_first = cut.d_offset[at] - in.D->base;
      d_nnz = cut.d_offset[at + 1] - cut.d_offset[at];
    }
  }
};

// One part on a GPU: its rows, the operands as its engine sees them, and the
// copies it holds where it is on another device than the operands
// (`remote`) and they have no replica there (spgemmCsrSetReplica). Its
// memory comes from its context, on its stream.
template <class Value, class Offset, class Col>
struct Part : RowRange {
  Context* ctx = nullptr;
  int home = -1;  // the operands' device
  bool remote = false;
  MatrixDesc A, B, D, C;
  std::unique_ptr<Engine> engine;
  DeviceBuffer<Offset> a_offsets, b_offsets, d_offsets, c_offsets;
  DeviceBuffer<Col> a_cols, b_cols, d_cols, c_cols;
  DeviceBuffer<Value> a_values, b_values, d_values, c_values;
  Event start, done;
  Event counted;  // its analysis has taken its rows' counts from the cut's
  int numerics = 0;  // numeric phases run (the last one timed by the events)
  // B copied: the rows of B the copy holds, [b_row_first, + B.rows), from
  // B's entry b_first on.
  int64_t b_row_first = 0, b_first = 0;
  // The rows of B its entries of A name, [first_row, end_row), and B's
  // entries there, as stored (the cut's spans; none: not counted).
  struct NamedRows {
    int64_t first_row, end_row, first_entry, end_entry;
  };
  std::optional<NamedRows> named_b;

  // Part p of `cut` on `ctx`, of the operands `in` on device `home`.
  Part(const cuda::RowSplit& cut, int p, Context& context, int home_device, const Operands& in)
      : RowRange(cut, p, in),
        ctx(&context),
        home(home_device),
        remote(context.device() != home_device) {
    const auto at = static_cast<size_t>(p);
    if (at < cut.b_row_first.size())
      named_b = NamedRows{cut.b_row_first[at], cut.b_row_end[at], cut.b_begin[at], cut.b_end[at]};
  }
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ~Part() {
    Context::DeviceGuard guard(*ctx);  // its memory goes back on its device
    engine.reset();
    for (auto* b : {&a_offsets, &b_offsets, &d_offsets, &c_offsets}) b->reset();
    for (auto* b : {&a_cols, &b_cols, &d_cols, &c_cols}) b->reset();
    for (auto* b : {&a_values, &b_values, &d_values, &c_values}) b->reset();
  }

  Operands operands() const { return {&A, &B, has_d ? &D : nullptr, products}; }
  cudaStream_t stream() const { return ctx->stream(); }

  // The operands' structures as the part reads them, and its row offsets of
  // C, at analyze (its device current).
  void place_structures(const Operands& in) {
    place_rows(*in.A, a_first, a_nnz, A, a_offsets, a_cols, a_values);
    if (has_d) place_rows(*in.D, d_first, d_nnz, D, d_offsets, d_cols, d_values);
    if (const auto here = in_place(*in.B))
      B = *here;
    else
      place_b_rows(*in.B, !in_place(*in.A));
    hold_output(c_offsets, static_cast<size_t>(rows + 1));
  }

  // Storage of the part's rows of C, from its context's pool or allocator:
  // C's blocks are the plan's output, never from a workspace buffer of the
  // caller's (spgemmPlanSetWorkspace; the handle's context runs the one part
  // of a product left whole with C distributed), whose size cannot know
  // nnz(C).
  template <class T>
  void hold_output(DeviceBuffer<T>& buffer, size_t count) {
    const Context::CallScope pool(*ctx, nullptr);
    buffer.reallocate(*ctx, count);
  }

  // The operands' values as they are now (and, read in place, their arrays
  // as the descriptors name them now), at every numeric phase.
  void place_values(const Operands& in) {
    auto place = [&](const MatrixDesc& m, int64_t first, int64_t nnz, MatrixDesc& out) {
      if (const auto here = in_place(m))
        view_from(*here, first, out);
      else
        copy_between(static_cast<Value*>(out.values), ctx->device(),
                     static_cast<const Value*>(m.values) + first, home, nnz, stream());
    };
    place(*in.A, a_first, a_nnz, A);
    if (const auto here = in_place(*in.B))
      B = *here;
    else
      place(*in.B, b_first, B.nnz, B);
    if (has_d) place(*in.D, d_first, d_nnz, D);
  }

  // C's descriptor for the part's symbolic phase: C's types, its rows, its
  // own row offsets.
  void describe_c(const MatrixDesc& whole) {
    C = whole;
    C.rows = rows;
    C.nnz = 0;
    C.row_offsets = c_offsets.get();
    C.col_ind = C.values = nullptr;
  }

 private:
  // m as the part reads it in place: m itself on the operands' device, its
  // replica on another; none: the part reads copies.
  std::optional<MatrixDesc> in_place(const MatrixDesc& m) const {
    if (!remote) return m;
    return replica_view(m, ctx->device());
  }

  // m's arrays from its entry `first` on, read in place.
  static void view_from(const MatrixDesc& m, int64_t first, MatrixDesc& out) {
    out.col_ind = advanced<Col>(m.col_ind, first);
    out.values = advanced<Value>(m.values, first);
  }

  // A copy of B's rows: with `narrow` (A's columns are the part's copy),
  // only those its rows of A name (the cut's span: about half of B for half
  // of a banded A), those columns shifted to match.
  void place_b_rows(const MatrixDesc& whole, bool narrow) {
    if (narrow && !named_b)
      fail(SPGEMM_STATUS_INTERNAL_ERROR, "a part's rows of B were not counted with its cut");
    const NamedRows all{0, whole.rows, whole.base, whole.base + whole.nnz};
    const NamedRows r = narrow ? *named_b : all;
    B = whole;
    b_row_first = r.first_row;
    const int64_t b_rows = r.end_row - r.first_row;
    b_first = r.first_entry - whole.base;
    const int64_t b_nnz = r.end_entry - r.first_entry;
    b_offsets.reallocate(*ctx, static_cast<size_t>(b_rows + 1));
    copy_between(b_offsets.get(), ctx->device(),
                 static_cast<const Offset*>(whole.row_offsets) + b_row_first, home, b_rows + 1,
                 stream());
    cuda::shift_offsets(b_offsets.get(), b_offsets.get(), b_rows + 1, -b_first, stream());
    b_cols.reallocate(*ctx, static_cast<size_t>(b_nnz));
    b_values.reallocate(*ctx, static_cast<size_t>(b_nnz));
    copy_between(b_cols.get(), ctx->device(), static_cast<const Col*>(whole.col_ind) + b_first,
                 home, b_nnz, stream());
    if (b_row_first != 0)
      cuda::shift_offsets(a_cols.get(), a_cols.get(), a_nnz, -b_row_first, stream());
    A.cols = B.rows = b_rows;
    B.nnz = b_nnz;
    B.row_offsets = b_offsets.get();
    B.col_ind = b_cols.get();
    B.values = b_values.get();
  }

  // The part's row block of m (entries [first, first + nnz)): shifted row
  // offsets of its own; columns and values read in place where they can
  // be, else copied (columns now, values at numeric).
  void place_rows(const MatrixDesc& m, int64_t first, int64_t nnz, MatrixDesc& out,
                  DeviceBuffer<Offset>& offsets, DeviceBuffer<Col>& cols,
                  DeviceBuffer<Value>& values) {
    out = m;
    out.rows = rows;
    out.nnz = nnz;
    offsets.reallocate(*ctx, static_cast<size_t>(rows + 1));
    const Offset* from = nullptr;
    if (const auto here = in_place(m)) {
      from = static_cast<const Offset*>(here->row_offsets) + first_row;
      view_from(*here, first, out);
    } else {
      copy_between(offsets.get(), ctx->device(),
                   static_cast<const Offset*>(m.row_offsets) + first_row, home, rows + 1,
                   stream());
      from = offsets.get();
      cols.reallocate(*ctx, static_cast<size_t>(nnz));
      values.reallocate(*ctx, static_cast<size_t>(nnz));
      copy_between(cols.get(), ctx->device(), static_cast<const Col*>(m.col_ind) + first, home, nnz,
                   stream());
      out.col_ind = cols.get();
      out.values = values.get();
    }
    cuda::shift_offsets(offsets.get(), from, rows + 1, -first, stream());
    out.row_offsets = offsets.get();
  }
};

}  // namespace spgemm::multi
