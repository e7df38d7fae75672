// SPDX-License-Identifier: Apache-2.0
// A device allocator for spgemmSetDeviceAllocator that refuses to hold more
// than `cap` bytes at once and checks that everything it hands out comes
// back, with the right size, and that it is asked on the expected stream;
// it records what each allocation brought the total to (a cap one byte
// below that refuses that allocation in a run that asks the same).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace spgemm_test {

struct CappedAllocator {
  size_t cap = SIZE_MAX;
  size_t outstanding = 0;
  size_t peak = 0;
  int refusals = 0;
  int allocations = 0;  // granted
  cudaStream_t stream = nullptr;
  bool wrong_stream = false;
  bool bad_free = false;
  std::map<void*, size_t> live;
  std::vector<size_t> reached;  // the bytes held after each granted allocation, in order

  static int alloc(void* user, void** ptr, size_t bytes, cudaStream_t s) {
    auto& self = *static_cast<CappedAllocator*>(user);
    if (s != self.stream) self.wrong_stream = true;
    if (self.outstanding + bytes > self.cap) {
      ++self.refusals;
      return 1;
    }
    if (cudaMallocAsync(ptr, bytes, s) != cudaSuccess) return 1;
    self.live[*ptr] = bytes;
    ++self.allocations;
    self.outstanding += bytes;
    self.peak = std::max(self.peak, self.outstanding);
    self.reached.push_back(self.outstanding);
    return 0;
  }
  static void free(void* user, void* ptr, size_t bytes, cudaStream_t s) {
    auto& self = *static_cast<CappedAllocator*>(user);
    const auto it = self.live.find(ptr);
    if (it == self.live.end() || it->second != bytes) {
      self.bad_free = true;
      return;
    }
    self.live.erase(it);
    self.outstanding -= bytes;
    cudaFreeAsync(ptr, s);
  }
};

}  // namespace spgemm_test
