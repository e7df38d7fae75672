// SPDX-License-Identifier: Apache-2.0
// The structs behind the public opaque handles.
#pragma once

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "plan/plan.hpp"

#include <spgemm/spgemm.h>

#include <memory>

// Shared with the plans created from it (see Plan).
struct spgemmContext {
  std::shared_ptr<spgemm::Context> ctx = std::make_shared<spgemm::Context>();
};

struct spgemmMatrix {
  spgemm::MatrixDesc desc;
};

struct spgemmPlanObject {
  std::unique_ptr<spgemm::Plan> plan;
};
