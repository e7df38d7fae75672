// SPDX-License-Identifier: Apache-2.0
// The host backend: the same API on matrices whose arrays are in host memory,
// computed by a multithreaded (OpenMP) row-wise Gustavson SpGEMM with a dense
// accumulator per thread. Results are deterministic: every row is summed in
// the order of A's and B's entries.
#pragma once

#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_host_engine();

}  // namespace spgemm
