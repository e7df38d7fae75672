// The structs behind the public opaque handles.
#pragma once

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "plan/plan.hpp"

#include <spgemm/spgemm.h>

#include <memory>

struct spgemmContext {
  spgemm::Context ctx;
};

struct spgemmMatrix {
  spgemm::MatrixDesc desc;
};

struct spgemmPlanObject {
  spgemmContext* owner;
  std::unique_ptr<spgemm::Plan> plan;
};
