// SPDX-License-Identifier: Apache-2.0
// The GPU backend.
#pragma once

#include "core/context.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

// The engine reads none of the handle's settings: the plan passes it the
// operands to check (Engine::analyze) and chooses the partitioned or chunked
// engine around it; its kernels' choices read `ctx`'s device limits.
template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx);

}  // namespace spgemm
