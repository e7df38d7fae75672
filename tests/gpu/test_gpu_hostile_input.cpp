// SPDX-License-Identifier: Apache-2.0
// Hostile input on the GPU backend (tests/support/hostile_input.hpp) with
// arrays of exactly their elements from cudaMalloc: run under
// compute-sanitizer memcheck (tests/sanitize.sh), a read or write past any
// of them is reported.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <spgemm/spgemm.h>

struct Memory {
  static constexpr spgemmMemoryType_t kType = SPGEMM_MEMORY_DEVICE;

  static void ok(cudaError_t err, const char* what) {
    if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " +
                                                     cudaGetErrorString(err));
  }

  template <class T>
  static T* make(const std::vector<T>& host) {
    T* array = nullptr;
    ok(cudaMalloc(reinterpret_cast<void**>(&array), host.size() * sizeof(T) + (host.empty() ? 1 : 0)),
       "cudaMalloc");
    write(array, host);
    return array;
  }

  static void release(void* array) { cudaFree(array); }

  template <class T>
  static std::vector<T> read(const T* array, size_t count) {
    std::vector<T> host(count);
    ok(cudaMemcpy(host.data(), array, count * sizeof(T), cudaMemcpyDeviceToHost), "read");
    return host;
  }

  template <class T>
  static void write(T* array, const std::vector<T>& host) {
    ok(cudaMemcpy(array, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "write");
  }
};

#include "catch_main_skip.hpp"
#include "device_product.hpp"
#include "hostile_input.hpp"

int main(int argc, char** argv) {
  return spgemm_test::run_catch_tests(argc, argv, spgemm_test::gpu_skip_reason());
}
