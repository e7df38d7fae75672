// SPDX-License-Identifier: Apache-2.0
// The cudaDataType of a value type, for descriptors built by tests and bench.
#pragma once

#include <library_types.h>

#include <complex>

namespace spgemm_test {

template <class V>
constexpr cudaDataType cuda_data_type();
template <>
constexpr cudaDataType cuda_data_type<float>() { return CUDA_R_32F; }
template <>
constexpr cudaDataType cuda_data_type<double>() { return CUDA_R_64F; }
template <>
constexpr cudaDataType cuda_data_type<std::complex<float>>() { return CUDA_C_32F; }
template <>
constexpr cudaDataType cuda_data_type<std::complex<double>>() { return CUDA_C_64F; }

}  // namespace spgemm_test
