// SPDX-License-Identifier: Apache-2.0
// The GPU side of splitting a product among devices (src/multi/): the rows
// of op(A) cut where the products, counted per row by the analysis pass, reach
// given shares; the fingerprints that replicas are checked by; and row
// offsets moved from one place to another with a shift (a row block of an
// operand, a part's rows of C).
#pragma once

#include "core/context.hpp"
#include "core/csr_checks.hpp"
#include "core/device_buffer.hpp"
#include "plan/engine.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace spgemm {

// What the analysis counts per row of C, where a split product's cut
// counted it already (src/multi/): device arrays of the part's rows, on any
// device (cuda/analysis/analysis.cuh's TermCount).
struct CountedRows {
  const int* terms = nullptr;        // TermCount::sizes
  const int* spans = nullptr;        // TermCount::spans (nullptr: not counted),
  const int* span_firsts = nullptr;  // and span_firsts, each `pitch` ints past the one before
  int64_t pitch = 0;
  bool b_examined = false;     // B's order examined (TermCount::b_disorder),
  bool b_disordered = false;   // and found not strictly increasing
  int most_terms = INT_MAX;    // no row has more terms (INT_MAX: not known)
};

}  // namespace spgemm

namespace spgemm::cuda {

// Where the rows of C = op(A) * op(B) (+ D) are cut: part p has the rows
// [row_start[p], row_start[p + 1]) and first_product[p + 1] - first_product[p]
// of the `total` products; a_offset / d_offset are A's / D's row offsets at
// row_start, as stored (with the index base; 0 without D). parts + 1 cuts.
// With spans asked for, per part (parts entries): the rows of B its entries
// of op(A) name, [b_row_first[p], b_row_end[p]) from the least column to the
// greatest ([0, min(1, rows of B)) for a part without entries), and B's row
// offsets there, b_begin[p] and b_end[p], as stored.
// prints: the fingerprints asked of split_rows, those of ctx's pass first,
// then those of each counter that counted (none of a structure not given).
struct RowSplit {
  int parts = 0;
  long long total = 0;
  std::vector<long long> row_start, first_product, a_offset, d_offset;
  std::vector<long long> b_row_first, b_row_end, b_begin, b_end;
  std::vector<std::array<std::optional<uint64_t>, kMaxPrinted>> prints;
};

// What split_rows's count leaves for the parts' analyses (CountedRows):
// every row's terms and, where B's order was examined, the width and first
// column of its columns' range, on the cut's device, in one buffer (rows + 1
// ints apart: a part takes its rows of all three with one copy); B's order
// as found; the most terms of a row.
struct KeptCounts {
  // the terms (a 0 past the last row), then where B's order was examined
  // the ranges' widths and firsts
  DeviceBuffer<int> counts;
  int64_t pitch = 0;  // ints from one array to the next
  bool b_examined = false;
  bool b_disordered = false;
  int most_terms = INT_MAX;
  // The counts of the rows from first_row on (none kept: nullopt).
  std::optional<CountedRows> from(int64_t first_row) const;
};

// Another device that takes a share of split_rows's count: its context,
// and the operands as it reads them (A, B and D from replicas there, of the
// operands' shapes), and the structures it fingerprints in the same pass
// (its replicas; printed.sums unused). Its stream waits for the cut's (whose
// state the replicas are read in), and its counts go straight into the
// cut's workspace (Context::workspace_reachable_from).
struct RowCounter {
  Context* ctx;
  Operands in;
  Fingerprints printed;
};

// Rows cut so that part p gets (as close as whole rows allow) the share
// shares[p] / sum(shares) of the products, where shares = shares_for(total
// products): one analysis pass (with the input checks of `count` operands,
// whose defects it reports as INVALID_VALUE before anything uses the counts)
// and a scan on ctx's stream, the cuts (and with `spans`, the rows of B each
// part names) by the shares for `expected_total` (negative: none expected),
// one readback of the total and those cuts; where the total's shares differ
// from those, the cuts again and a second readback. shares: at least one
// entry, each >= 0, not all 0. With `kept`, the count's results go there,
// spans and B's order counted too. The rows' count is shared out evenly
// among ctx and `counters` (the input checks and B's order stay with ctx).
// The structures of `printed` (its sums unused) are fingerprinted in ctx's
// pass, each counter's in its own.
template <class Offset, class Col>
RowSplit split_rows(Context& ctx, const Operands& in, const CheckedOperand* checks, int count,
                    const Fingerprints& printed, bool spans, long long expected_total,
                    const std::function<std::vector<double>(long long total)>& shares_for,
                    KeptCounts* kept, const std::vector<RowCounter>& counters);

// The fingerprints (core/csr_checks.hpp) of the structures of the n
// matrices m[i] into sums[i] (device memory on ctx's device; a null m[i]:
// 0), on ctx's stream, without a synchronization.
template <class Offset, class Col>
void launch_fingerprints(Context& ctx, const MatrixDesc* const* m, int n,
                         unsigned long long* sums);

// offsets[rows[i]] for every i (device offsets, nullptr: all 0), with one
// synchronization of ctx's stream.
template <class Offset>
std::vector<long long> offsets_at(Context& ctx, const Offset* offsets,
                                  const std::vector<long long>& rows);

// The device workspace of one split_rows for `rows` rows and `parts` parts.
size_t split_rows_workspace_bytes(int64_t rows, int parts);

// out[i] = in[i] + delta for i in [0, n), on `stream`, whose device holds
// both (out may be in). Also for column indices (Offset a column type).
template <class Offset>
void shift_offsets(Offset* out, const Offset* in, int64_t n, int64_t delta, cudaStream_t stream);

}  // namespace spgemm::cuda
