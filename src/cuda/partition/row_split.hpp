// The GPU side of splitting a product among devices (src/multi/): the rows
// of op(A) cut where the products, counted per row by the analysis pass, reach
// given shares; and row offsets moved from one place to another with a shift
// (a row block of an operand, a part's rows of C).
#pragma once

#include "core/context.hpp"
#include "plan/engine.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace spgemm::cuda {

// Where the rows of C = op(A) * op(B) (+ D) are cut: part p has the rows
// [row_start[p], row_start[p + 1]) and first_product[p + 1] - first_product[p]
// of the `total` products; a_offset / d_offset are A's / D's row offsets at
// row_start, as stored (with the index base; 0 without D). parts + 1 cuts.
struct RowSplit {
  int parts = 0;
  long long total = 0;
  std::vector<long long> row_start, first_product, a_offset, d_offset;
};

// Rows cut so that part p gets (as close as whole rows allow) the share
// shares[p] / sum(shares) of the products, where shares = shares_for(total
// products): one analysis pass and a scan on ctx's stream, a readback of the
// total, the cuts, and a readback of them. shares: at least one entry, each
// >= 0, not all 0.
template <class Offset, class Col>
RowSplit split_rows(Context& ctx, const Operands& in,
                    const std::function<std::vector<double>(long long total)>& shares_for);

// offsets[rows[i]] for every i (device offsets, nullptr: all 0), with one
// synchronization of ctx's stream.
template <class Offset>
std::vector<long long> offsets_at(Context& ctx, const Offset* offsets,
                                  const std::vector<long long>& rows);

// The device workspace of one split_rows for `rows` rows and `parts` parts.
size_t split_rows_workspace_bytes(int64_t rows, int parts);

// The least and greatest of the n indices cols (device, ctx's device), with
// one synchronization of ctx's stream; {0, -1} for n = 0.
template <class Col>
std::pair<int64_t, int64_t> index_span(Context& ctx, const Col* cols, int64_t n);

// Whether a[i] == b[i] for i in [0, n) (device arrays on ctx's device), with
// one synchronization of ctx's stream.
template <class T>
bool same_indices(Context& ctx, const T* a, const T* b, int64_t n);

// out[i] = in[i] + delta for i in [0, n), on `stream`, whose device holds
// both (out may be in). Also for column indices (Offset a column type).
template <class Offset>
void shift_offsets(Offset* out, const Offset* in, int64_t n, int64_t delta, cudaStream_t stream);

}  // namespace spgemm::cuda
