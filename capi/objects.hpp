// SPDX-License-Identifier: Apache-2.0
// The structs behind the public opaque handles.
#pragma once

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "core/settings.hpp"
#include "multi/split_context.hpp"
#include "plan/plan.hpp"

#include <spgemm/spgemm.h>

#include <memory>

// Shared with the plans created from it (see Plan): the device resources,
// the settings, and the settings and measures of split products.
struct spgemmContext {
  std::shared_ptr<spgemm::Context> ctx = std::make_shared<spgemm::Context>();
  std::shared_ptr<spgemm::Settings> settings = std::make_shared<spgemm::Settings>();
  std::shared_ptr<spgemm::multi::SplitContext> split =
      std::make_shared<spgemm::multi::SplitContext>();
};

struct spgemmMatrix {
  spgemm::MatrixDesc desc;
};

struct spgemmPlanObject {
  std::unique_ptr<spgemm::Plan> plan;
};
