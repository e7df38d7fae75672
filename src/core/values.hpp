// What the backends need to know about a value type beyond arithmetic.
#pragma once

#if defined(__CUDACC__)
#define SPGEMM_VALUE_FN __host__ __device__ inline
#else
#define SPGEMM_VALUE_FN inline
#endif

namespace spgemm {

// x, or its complex conjugate when asked (real types: always x).
template <class Value>
SPGEMM_VALUE_FN Value conjugate_if(Value x, bool) {
  return x;
}

}  // namespace spgemm
