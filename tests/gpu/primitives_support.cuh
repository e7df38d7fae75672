// SPDX-License-Identifier: Apache-2.0
// What the unit tests of the device primitives (test_gpu_primitives_*.cu)
// share: device arrays poisoned with 0xFF bytes before a kernel (an element
// the kernel does not write then reads as NaN, -1 or a huge count, and
// fails its comparison), checked launches, random values, bitwise equality.
#pragma once

#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/values.hpp"

namespace spgemm_test::primitives {

// The (value, column index) pairs of the tests that write C: each value
// type of core/values.hpp once, each column type of the index layouts
// (int32_t, int64_t) twice, so that every kernel's template is compiled and
// run in both column types without the 8 instances of the full product.
#define SPGEMM_PRIMITIVE_TYPES                                 \
  (std::tuple<float, int32_t>), (std::tuple<double, int64_t>), \
      (std::tuple<::spgemm::ComplexFloat, int64_t>),           \
      (std::tuple<::spgemm::ComplexDouble, int32_t>)

// The value types alone, for primitives without a column type.
#define SPGEMM_PRIMITIVE_VALUES float, double, ::spgemm::ComplexFloat, ::spgemm::ComplexDouble

inline void cuda_ok(cudaError_t err, const char* what) {
  INFO(what << ": " << cudaGetErrorString(err));
  REQUIRE(err == cudaSuccess);
}

// After a launch: its configuration error, then its execution error.
inline void launched(const char* kernel) {
  cuda_ok(cudaPeekAtLastError(), kernel);
  cuda_ok(cudaDeviceSynchronize(), kernel);
}

// Lets a kernel take `bytes` of dynamic shared memory; false (and a
// warning) where the device cannot give that many.
template <class Kernel>
bool allow_shared(Kernel kernel, size_t bytes) {
  int device = 0, optin = 0;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  cuda_ok(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute");
  if (bytes > static_cast<size_t>(optin)) {
    WARN("skipped: " << bytes << " bytes of shared memory, the device gives " << optin);
    return false;
  }
  cuda_ok(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes)),
          "cudaFuncSetAttribute");
  return true;
}

// n elements of device memory, every byte 0xFF until written.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) {
    cuda_ok(cudaMalloc(&data_, bytes() > 0 ? bytes() : 1), "cudaMalloc");
    cuda_ok(cudaMemset(data_, 0xFF, bytes() > 0 ? bytes() : 1), "cudaMemset");
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    cuda_ok(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data_); }

  T* get() const { return data_; }
  std::vector<T> read() const {
    std::vector<T> host(n_);
    cuda_ok(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  size_t bytes() const { return n_ * sizeof(T); }
  T* data_ = nullptr;
  size_t n_;
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Whether x still holds the poison (every byte 0xFF).
template <class T>
bool poisoned(const T& x) {
  T poison;
  std::memset(static_cast<void*>(&poison), 0xFF, sizeof(T));
  return same_bits(x, poison);
}

// A random value in [-1, 1) in each part: never -0, so that a sum "from
// zero" and the term alone have the same bits.
template <class Value>
Value random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<Value, float> || std::is_same_v<Value, double>) {
    return static_cast<Value>(u(rng));
  } else {
    using Real = typename Value::value_type;
    const Real re = static_cast<Real>(u(rng));
    const Real im = static_cast<Real>(u(rng));
    return Value(re, im);
  }
}

// n distinct random keys in [0, range), range >= n.
inline std::vector<int> distinct_keys(int n, int range, std::mt19937_64& rng) {
  std::vector<int> keys;
  if (n <= 0) return keys;
  std::set<int> taken;
  std::uniform_int_distribution<int> pick(0, range - 1);
  while (static_cast<int>(keys.size()) < n) {
    const int k = pick(rng);
    if (taken.insert(k).second) keys.push_back(k);
  }
  return keys;
}

// The first index where pred fails, -1 if none does.
template <class Pred>
long long first_failing(size_t n, Pred&& pred) {
  for (size_t i = 0; i < n; ++i)
    if (!pred(i)) return static_cast<long long>(i);
  return -1;
}

inline int next_pow2(int n) {
  int p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace spgemm_test::primitives
