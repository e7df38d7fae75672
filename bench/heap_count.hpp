// SPDX-License-Identifier: Apache-2.0
// spgemm-bench: bytes held through operator new (heap_count.cpp) and, with
// GraphBLAS, through its allocator (graphblas_runner.cpp), as one count.
#pragma once

#include <cstdint>

namespace bench {

void heap_count_add(int64_t bytes);  // negative: freed
int64_t heap_count_current();
// Starts a new peak at the current count; returns it.
int64_t heap_count_reset_peak();
int64_t heap_count_peak();

}  // namespace bench
