// SPDX-License-Identifier: Apache-2.0
// Hostile input on the GPU backend (tests/support/hostile_input.hpp) with
// arrays of exactly their elements from cudaMalloc: run under
// compute-sanitizer memcheck (tests/sanitize.sh), a read or write past any
// of them is reported.
#include <cuda_runtime_api.h>

#include <vector>

#include <spgemm/spgemm.h>

#include "catch_main_skip.hpp"
#include "device_product.hpp"

struct Memory {
  static constexpr spgemmMemoryType_t kType = SPGEMM_MEMORY_DEVICE;

  template <class T>
  static T* make(const std::vector<T>& host) {
    T* array = nullptr;
    spgemm_test::cuda_ok(cudaMalloc(reinterpret_cast<void**>(&array),
                                    host.size() * sizeof(T) + (host.empty() ? 1 : 0)),
                         "cudaMalloc");
    write(array, host);
    return array;
  }

  static void release(void* array) { cudaFree(array); }

  template <class T>
  static std::vector<T> read(const T* array, size_t count) {
    std::vector<T> host(count);
    spgemm_test::cuda_ok(
        cudaMemcpy(host.data(), array, count * sizeof(T), cudaMemcpyDeviceToHost), "read");
    return host;
  }

  template <class T>
  static void write(T* array, const std::vector<T>& host) {
    spgemm_test::cuda_ok(
        cudaMemcpy(array, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "write");
  }
};

#include "hostile_input.hpp"

int main(int argc, char** argv) {
  return spgemm_test::run_catch_tests(argc, argv, spgemm_test::gpu_skip_reason());
}
