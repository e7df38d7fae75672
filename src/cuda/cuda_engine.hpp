// SPDX-License-Identifier: Apache-2.0
// The GPU backend.
#pragma once

#include "core/context.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_cuda_engine(Context& ctx);

}  // namespace spgemm
