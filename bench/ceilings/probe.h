// What the hand-written ceilings share: error checks, a read-only sweep
// (also the L2 flush), a grid-stride copy, and a CUDA-event timer that
// flushes L2 by reading 120 MB before every run and returns the median of
// 40 runs after 5 of warm-up.
#ifndef EGG_BENCH_CEILINGS_PROBE_H
#define EGG_BENCH_CEILINGS_PROBE_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__);       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void sweep(const float4 *p, size_t n, float *never) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1234567.f)
    *never = s;
}

__global__ void copyAll(const float4 *p, float4 *q, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    q[i] = p[i];
}

static float *gFlush, *gNever;
static size_t gFlushN;

/// The flush buffer (120 MB, twice the H200's L2) and the sweep's sink.
static void initFlush() {
  gFlushN = size_t(120) << 18;
  CK(cudaMalloc(&gFlush, gFlushN * 4));
  CK(cudaMalloc(&gNever, 4));
  CK(cudaMemset(gFlush, 0, gFlushN * 4));
}

template <typename F> float timeIt(F launch, int runs = 40) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ts;
  for (int i = 0; i < runs + 5; ++i) {
    sweep<<<132 * 4, 512>>>((const float4 *)gFlush, gFlushN / 4, gNever);
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 5)
      ts.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

#endif // EGG_BENCH_CEILINGS_PROBE_H
