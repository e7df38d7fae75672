// SPDX-License-Identifier: Apache-2.0
// The GPU backend.
#pragma once

#include "core/context.hpp"
#include "core/settings.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

// The engine reads `settings` (the handle's, which outlive it) at every call.
template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx, const Settings& settings);

}  // namespace spgemm
