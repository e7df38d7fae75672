// The cudaDataType of a value type, for descriptors built by tests and bench.
#pragma once

#include <library_types.h>

namespace spgemm_test {

template <class V>
constexpr cudaDataType cuda_data_type();
template <>
constexpr cudaDataType cuda_data_type<float>() { return CUDA_R_32F; }
template <>
constexpr cudaDataType cuda_data_type<double>() { return CUDA_R_64F; }

}  // namespace spgemm_test
