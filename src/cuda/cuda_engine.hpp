// SPDX-License-Identifier: Apache-2.0
// The GPU backend.
#pragma once

#include "core/context.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

// The engine's choices read only `ctx`'s device limits (the handle's settings
// shape the plan: the partitioned and chunked engines, not a kernel's choice).
template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx);

}  // namespace spgemm
