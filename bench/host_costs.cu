// SPDX-License-Identifier: Apache-2.0
// Host time of the CUDA calls a small product's pipeline makes: launches
// (runtime and driver), memset, pool allocation, event, readback by post or
// by synchronization. Not built by CMake; on the device machine:
//   nvcc -O2 -arch=sm_90 bench/host_costs.cu -lcuda -o host_costs && ./host_costs
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

template <int N>
struct Blob {
  unsigned char b[N];
};

template <int N>
__global__ void empty_kernel(Blob<N> p, int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && p.b[N - 1] == 7) *out = 1;
}

__global__ void post_kernel(volatile unsigned int* flag, unsigned int v) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = v;
}

using Clock = std::chrono::steady_clock;
static double us(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
static void report(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("%-44s median %7.2f  p10 %7.2f  p90 %7.2f us\n", what, v[v.size() / 2],
              v[v.size() / 10], v[v.size() * 9 / 10]);
}

template <int N>
int time_launch(cudaStream_t s, int* out, const char* name, int grid) {
  Blob<N> p{};
  std::vector<double> t;
  for (int i = 0; i < 600; ++i) {
    auto a = Clock::now();
    empty_kernel<N><<<grid, 128, 0, s>>>(p, out);
    auto b = Clock::now();
    if (i >= 100) t.push_back(us(a, b));
    if (i % 8 == 7) CK(cudaStreamSynchronize(s));
  }
  CK(cudaStreamSynchronize(s));
  report(name, t);
  return 0;
}

int main() {
  CK(cudaSetDevice(0));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* out;
  CK(cudaMalloc(&out, 1 << 20));
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long thr = ~0ull;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  // warm-up of every kernel
  empty_kernel<16><<<1, 128, 0, s>>>(Blob<16>{}, out);
  empty_kernel<256><<<1, 128, 0, s>>>(Blob<256>{}, out);
  empty_kernel<1024><<<1, 128, 0, s>>>(Blob<1024>{}, out);
  empty_kernel<2048><<<1, 128, 0, s>>>(Blob<2048>{}, out);
  empty_kernel<4000><<<1, 128, 0, s>>>(Blob<4000>{}, out);
  CK(cudaStreamSynchronize(s));

  if (time_launch<16>(s, out, "launch, 16 B params, 452 blocks", 452)) return 1;
  if (time_launch<256>(s, out, "launch, 256 B params, 452 blocks", 452)) return 1;
  if (time_launch<1024>(s, out, "launch, 1 KB params, 452 blocks", 452)) return 1;
  if (time_launch<2048>(s, out, "launch, 2 KB params, 452 blocks", 452)) return 1;
  if (time_launch<4000>(s, out, "launch, 4000 B params, 452 blocks", 452)) return 1;
  if (time_launch<16>(s, out, "launch, 16 B params, 1 block", 1)) return 1;

  {  // the driver API with a cached function
    CUfunction f;
    CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f),
                           reinterpret_cast<const void*>(empty_kernel<1024>)));
    Blob<1024> p{};
    void* args[] = {&p, &out};
    std::vector<double> t;
    for (int i = 0; i < 600; ++i) {
      auto a = Clock::now();
      cuLaunchKernel(f, 452, 1, 1, 128, 1, 1, 0, s, args, nullptr);
      auto b = Clock::now();
      if (i >= 100) t.push_back(us(a, b));
      if (i % 8 == 7) CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    report("cuLaunchKernel, 1 KB params, 452 blocks", t);
  }
  {
    std::vector<double> t;
    for (int i = 0; i < 600; ++i) {
      auto a = Clock::now();
      cudaMemsetAsync(out, 0, 408, s);
      auto b = Clock::now();
      if (i >= 100) t.push_back(us(a, b));
      if (i % 8 == 7) CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    report("cudaMemsetAsync 408 B", t);
  }
  {
    std::vector<double> ta, tf;
    for (int i = 0; i < 600; ++i) {
      void* p = nullptr;
      auto a = Clock::now();
      cudaMallocFromPoolAsync(&p, 20000, pool, s);
      auto b = Clock::now();
      cudaFreeAsync(p, s);
      auto c = Clock::now();
      if (i >= 100) {
        ta.push_back(us(a, b));
        tf.push_back(us(b, c));
      }
      if (i % 8 == 7) CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamSynchronize(s));
    report("cudaMallocFromPoolAsync 20 KB", ta);
    report("cudaFreeAsync", tf);
  }
  {
    cudaEvent_t ev;
    CK(cudaEventCreate(&ev));
    std::vector<double> t;
    for (int i = 0; i < 600; ++i) {
      auto a = Clock::now();
      cudaEventRecord(ev, s);
      auto b = Clock::now();
      if (i >= 100) t.push_back(us(a, b));
      if (i % 8 == 7) CK(cudaStreamSynchronize(s));
    }
    report("cudaEventRecord", t);
  }
  {
    std::vector<double> t;
    int d = 0;
    for (int i = 0; i < 600; ++i) {
      auto a = Clock::now();
      cudaGetDevice(&d);
      cudaSetDevice(d);
      auto b = Clock::now();
      if (i >= 100) t.push_back(us(a, b));
    }
    report("cudaGetDevice + cudaSetDevice", t);
  }
  {
    std::vector<double> t;
    for (int i = 0; i < 600; ++i) {
      auto a = Clock::now();
      cudaPeekAtLastError();
      auto b = Clock::now();
      if (i >= 100) t.push_back(us(a, b));
    }
    report("cudaPeekAtLastError", t);
  }
  {  // launch -> the host sees a mapped-memory post
    unsigned int* flag;
    CK(cudaHostAlloc(&flag, 64, cudaHostAllocMapped));
    unsigned int* dflag;
    CK(cudaHostGetDevicePointer(&dflag, flag, 0));
    std::vector<double> t, ts;
    for (unsigned int i = 1; i <= 600; ++i) {
      auto a = Clock::now();
      post_kernel<<<1, 32, 0, s>>>(dflag, i);
      while (*reinterpret_cast<volatile unsigned int*>(flag) != i) {
      }
      auto b = Clock::now();
      if (i > 100) t.push_back(us(a, b));
    }
    CK(cudaStreamSynchronize(s));
    for (unsigned int i = 1; i <= 600; ++i) {
      auto a = Clock::now();
      empty_kernel<16><<<1, 32, 0, s>>>(Blob<16>{}, out);
      cudaStreamSynchronize(s);
      auto b = Clock::now();
      if (i > 100) ts.push_back(us(a, b));
    }
    report("launch + poll of a mapped post", t);
    report("launch + cudaStreamSynchronize", ts);
  }
  std::printf("done\n");
  return 0;
}
