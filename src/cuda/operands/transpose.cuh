// SPDX-License-Identifier: Apache-2.0
// op(X) = X^T / X^H on the GPU (plan/transpose.hpp): a stable radix sort of
// X's entries by column gives the permutation; X^T's row offsets come from a
// column histogram and a scan. Cost: a sort of nnz(X) keys at analysis, a
// gather of nnz(X) values at every numeric phase; memory: X^T's arrays plus
// the permutation (nnz offsets), and O(nnz) temporary during the build.
#pragma once

#include "core/context.hpp"
#include "plan/transpose.hpp"

#include <memory>

namespace spgemm::cuda {

template <class Value, class Offset, class Col>
std::unique_ptr<Transpose> make_cuda_transpose(Context& ctx);

}  // namespace spgemm::cuda
