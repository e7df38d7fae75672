// SPDX-License-Identifier: Apache-2.0
#include "memory_ops.hpp"

#include <cuComplex.h>

#include <cstdlib>
#include <cstring>

namespace spgemm_dropin {
namespace {

template <class Index>
__global__ void count_products_kernel(const Index* a_columns, int64_t a_nnz,
                                      const Index* b_offsets, int base,
                                      unsigned long long* total) {
  unsigned long long mine = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < a_nnz;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = static_cast<int64_t>(a_columns[i]) - base;
    mine += static_cast<unsigned long long>(b_offsets[k + 1] - b_offsets[k]);
  }
  for (int delta = 16; delta > 0; delta /= 2) mine += __shfl_down_sync(0xffffffffu, mine, delta);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

template <class Index>
int64_t count_on_host(const Index* a_columns, int64_t a_nnz, const Index* b_offsets, int base) {
  int64_t total = 0;
  for (int64_t i = 0; i < a_nnz; ++i) {
    const int64_t k = static_cast<int64_t>(a_columns[i]) - base;
    total += static_cast<int64_t>(b_offsets[k + 1] - b_offsets[k]);
  }
  return total;
}

__host__ __device__ inline float mul_add(float y, float b, float x) { return y + b * x; }
__host__ __device__ inline double mul_add(double y, double b, double x) { return y + b * x; }
__host__ __device__ inline cuFloatComplex mul_add(cuFloatComplex y, cuFloatComplex b,
                                                  cuFloatComplex x) {
  return cuCaddf(y, cuCmulf(b, x));
}
__host__ __device__ inline cuDoubleComplex mul_add(cuDoubleComplex y, cuDoubleComplex b,
                                                   cuDoubleComplex x) {
  return cuCadd(y, cuCmul(b, x));
}

template <class V>
__global__ void add_scaled_kernel(V* y, const V* x, V beta, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = mul_add(y[i], beta, x[i]);
}

template <class V>
bool add_scaled_typed(const MemoryOps& ops, void* y, const void* x, const void* beta, int64_t n) {
  V b;
  std::memcpy(&b, beta, sizeof b);
  if (ops.host) {
    for (int64_t i = 0; i < n; ++i)
      static_cast<V*>(y)[i] = mul_add(static_cast<V*>(y)[i], b, static_cast<const V*>(x)[i]);
    return true;
  }
  if (n == 0) return true;
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  add_scaled_kernel<V><<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), threads, 0,
                         ops.stream>>>(static_cast<V*>(y), static_cast<const V*>(x), b, n);
  return cudaPeekAtLastError() == cudaSuccess;
}

}  // namespace

bool MemoryOps::copy(void* dst, const void* src, size_t bytes) const {
  if (bytes == 0 || dst == src) return true;
  if (host) {
    std::memcpy(dst, src, bytes);
    return true;
  }
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream) == cudaSuccess;
}

bool MemoryOps::read_scalar(void* dst, const void* src, size_t bytes) const {
  if (host) {
    std::memcpy(dst, src, bytes);
    return true;
  }
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream) == cudaSuccess &&
         cudaStreamSynchronize(stream) == cudaSuccess;
}

bool MemoryOps::count_products(const void* a_columns, int64_t a_nnz, const void* b_offsets,
                               bool index64, int base, int64_t* products) const {
  if (host) {
    *products = index64 ? count_on_host(static_cast<const int64_t*>(a_columns), a_nnz,
                                        static_cast<const int64_t*>(b_offsets), base)
                        : count_on_host(static_cast<const int32_t*>(a_columns), a_nnz,
                                        static_cast<const int32_t*>(b_offsets), base);
    return true;
  }
  auto* total = static_cast<unsigned long long*>(scratch(sizeof(unsigned long long)));
  if (!total) return false;
  bool ok = cudaMemsetAsync(total, 0, sizeof *total, stream) == cudaSuccess;
  if (ok && a_nnz > 0) {
    const int threads = 256;
    const int64_t blocks = (a_nnz + threads - 1) / threads;
    const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
    if (index64)
      count_products_kernel<int64_t><<<grid, threads, 0, stream>>>(
          static_cast<const int64_t*>(a_columns), a_nnz, static_cast<const int64_t*>(b_offsets),
          base, total);
    else
      count_products_kernel<int32_t><<<grid, threads, 0, stream>>>(
          static_cast<const int32_t*>(a_columns), a_nnz, static_cast<const int32_t*>(b_offsets),
          base, total);
    ok = cudaPeekAtLastError() == cudaSuccess;
  }
  unsigned long long value = 0;
  ok = ok && read_scalar(&value, total, sizeof value);
  free_scratch(total);
  *products = static_cast<int64_t>(value);
  return ok;
}

bool MemoryOps::add_scaled(void* y, const void* x, const void* beta, int64_t n,
                           cudaDataType type) const {
  switch (type) {
    case CUDA_R_32F: return add_scaled_typed<float>(*this, y, x, beta, n);
    case CUDA_R_64F: return add_scaled_typed<double>(*this, y, x, beta, n);
    case CUDA_C_32F: return add_scaled_typed<cuFloatComplex>(*this, y, x, beta, n);
    case CUDA_C_64F: return add_scaled_typed<cuDoubleComplex>(*this, y, x, beta, n);
    default: return false;
  }
}

void* MemoryOps::scratch(size_t bytes) const {
  if (host) return std::malloc(bytes ? bytes : 1);
  void* p = nullptr;
  return cudaMallocAsync(&p, bytes ? bytes : 1, stream) == cudaSuccess ? p : nullptr;
}

void MemoryOps::free_scratch(void* p) const {
  if (!p) return;
  if (host) std::free(p);
  else cudaFreeAsync(p, stream);
}

}  // namespace spgemm_dropin
