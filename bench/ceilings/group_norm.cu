// What a group norm of bench/memory's shape (32 x 64 x 64 x 64 f32, 8 groups:
// 256 groups of 32768 values, 128 KB each; 32 MB in, 32 MB out) can reach,
// and which structure gets there, against a copy of the same bytes:
//   regs:      a block of 1024 threads per group, 32 values per thread held
//              in registers, a block reduction for the mean and one for the
//              variance (egg's reduce_row_per_block with rows in
//              registers): one block per SM, two waves;
//   chan:      the same with one block reduction of (mean, M2) pairs
//              (Chan's combination of equal-sized halves);
//   smem/K:    K of each thread's 32 values held in shared memory, the rest
//              in registers, so that two blocks fit an SM (one wave).
// CUDA events, a read flush of 120 MB before every run, median of 40; each
// kernel checked against a float64 host group norm.
// Build and run: bench/ceilings.sh group_norm
#include "probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>


constexpr int kGroups = 256, kGroup = 32768, kThreads = 1024,
              kPer = kGroup / kThreads; // 32 values per thread
constexpr float kEps = 1e-5f;

__device__ float warpSum(float s) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}

// The block's sum of s, on every thread.
__device__ float blockSum(float s, float *part) {
  s = warpSum(s);
  if ((threadIdx.x & 31) == 0)
    part[threadIdx.x / 32] = s;
  __syncthreads();
  s = warpSum(part[threadIdx.x & 31]);
  __syncthreads();
  return s;
}

__global__ void __launch_bounds__(kThreads, 1)
    regs(const float4 *x, float4 *y) {
  __shared__ float part[32];
  const float4 *in = x + size_t(blockIdx.x) * (kGroup / 4);
  float4 *out = y + size_t(blockIdx.x) * (kGroup / 4);
  float4 v[kPer / 4];
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    v[k] = in[k * kThreads + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    s += v[k].x + v[k].y + v[k].z + v[k].w;
  float mean = blockSum(s, part) * (1.0f / kGroup);
  float q = 0;
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k) {
    v[k].x -= mean, v[k].y -= mean, v[k].z -= mean, v[k].w -= mean;
    q += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
  }
  float r = rsqrtf(blockSum(q, part) * (1.0f / kGroup) + kEps);
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    out[k * kThreads + threadIdx.x] =
        make_float4(v[k].x * r, v[k].y * r, v[k].z * r, v[k].w * r);
}

// Chan's combination of two equal-sized (mean, M2) halves of n values each.
__device__ void chanPair(float &m, float &m2, float om, float om2, float n) {
  float d = om - m;
  m = 0.5f * (m + om);
  m2 = m2 + om2 + d * d * (0.5f * n);
}

__global__ void __launch_bounds__(kThreads, 1)
    chan(const float4 *x, float4 *y) {
  __shared__ float partM[32], partQ[32];
  const float4 *in = x + size_t(blockIdx.x) * (kGroup / 4);
  float4 *out = y + size_t(blockIdx.x) * (kGroup / 4);
  float4 v[kPer / 4];
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    v[k] = in[k * kThreads + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    s += v[k].x + v[k].y + v[k].z + v[k].w;
  float m = s * (1.0f / kPer), m2 = 0;
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k) {
    float a = v[k].x - m, b = v[k].y - m, c = v[k].z - m, d = v[k].w - m;
    m2 += a * a + b * b + c * c + d * d;
  }
  float n = kPer;
#pragma unroll
  for (int o = 1; o < 32; o *= 2, n *= 2)
    chanPair(m, m2, __shfl_xor_sync(0xffffffffu, m, o),
             __shfl_xor_sync(0xffffffffu, m2, o), n);
  if ((threadIdx.x & 31) == 0)
    partM[threadIdx.x / 32] = m, partQ[threadIdx.x / 32] = m2;
  __syncthreads();
  m = partM[threadIdx.x & 31], m2 = partQ[threadIdx.x & 31];
#pragma unroll
  for (int o = 1; o < 32; o *= 2, n *= 2)
    chanPair(m, m2, __shfl_xor_sync(0xffffffffu, m, o),
             __shfl_xor_sync(0xffffffffu, m2, o), n);
  float r = rsqrtf(m2 * (1.0f / kGroup) + kEps);
#pragma unroll
  for (int k = 0; k < kPer / 4; ++k)
    out[k * kThreads + threadIdx.x] =
        make_float4((v[k].x - m) * r, (v[k].y - m) * r, (v[k].z - m) * r,
                    (v[k].w - m) * r);
}

// K4 of each thread's 8 float4 in shared memory (each thread's own slots),
// the rest in registers.
template <int K4>
__global__ void __launch_bounds__(kThreads, 2)
    smem(const float4 *x, float4 *y) {
  extern __shared__ float4 held[]; // [K4][kThreads]
  __shared__ float part[32];
  constexpr int R4 = kPer / 4 - K4;
  const float4 *in = x + size_t(blockIdx.x) * (kGroup / 4);
  float4 *out = y + size_t(blockIdx.x) * (kGroup / 4);
  float4 v[R4];
  float4 w[K4];
#pragma unroll
  for (int k = 0; k < R4; ++k)
    v[k] = in[k * kThreads + threadIdx.x];
#pragma unroll
  for (int k = 0; k < K4; ++k)
    w[k] = in[(R4 + k) * kThreads + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int k = 0; k < R4; ++k)
    s += v[k].x + v[k].y + v[k].z + v[k].w;
#pragma unroll
  for (int k = 0; k < K4; ++k) {
    s += w[k].x + w[k].y + w[k].z + w[k].w;
    held[k * kThreads + threadIdx.x] = w[k];
  }
  float mean = blockSum(s, part) * (1.0f / kGroup);
  float q = 0;
#pragma unroll
  for (int k = 0; k < R4; ++k) {
    v[k].x -= mean, v[k].y -= mean, v[k].z -= mean, v[k].w -= mean;
    q += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
  }
#pragma unroll
  for (int k = 0; k < K4; ++k) {
    float4 t = held[k * kThreads + threadIdx.x];
    t.x -= mean, t.y -= mean, t.z -= mean, t.w -= mean;
    q += t.x * t.x + t.y * t.y + t.z * t.z + t.w * t.w;
  }
  float r = rsqrtf(blockSum(q, part) * (1.0f / kGroup) + kEps);
#pragma unroll
  for (int k = 0; k < R4; ++k)
    out[k * kThreads + threadIdx.x] =
        make_float4(v[k].x * r, v[k].y * r, v[k].z * r, v[k].w * r);
#pragma unroll
  for (int k = 0; k < K4; ++k) {
    float4 t = held[k * kThreads + threadIdx.x];
    out[(R4 + k) * kThreads + threadIdx.x] =
        make_float4((t.x - mean) * r, (t.y - mean) * r, (t.z - mean) * r,
                    (t.w - mean) * r);
  }
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t n = size_t(kGroups) * kGroup;
  float *x, *y;
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&y, n * 4));
  initFlush();
  std::vector<float> h(n), ref(n);
  srand(7);
  for (auto &v : h) {
    float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f), u2 = rand() / (float)RAND_MAX;
    v = 3.0f + sqrtf(-2 * logf(u1)) * cosf(6.2831853f * u2);
  }
  for (int g = 0; g < kGroups; ++g) {
    double s = 0, q = 0;
    for (int i = 0; i < kGroup; ++i)
      s += h[size_t(g) * kGroup + i];
    double m = s / kGroup;
    for (int i = 0; i < kGroup; ++i) {
      double d = h[size_t(g) * kGroup + i] - m;
      q += d * d;
    }
    double r = 1 / std::sqrt(q / kGroup + kEps);
    for (int i = 0; i < kGroup; ++i)
      ref[size_t(g) * kGroup + i] = float((h[size_t(g) * kGroup + i] - m) * r);
  }
  CK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
  auto check = [&](const char *name) {
    CK(cudaDeviceSynchronize());
    std::vector<float> got(n);
    CK(cudaMemcpy(got.data(), y, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, double(std::fabs(got[i] - ref[i])));
    if (!(worst < 1e-4))
      printf("  WRONG %s: max abs error %g\n", name, worst);
    CK(cudaMemset(y, 0, n * 4));
  };
  float copyMs = timeIt([&] {
    copyAll<<<sms * 16, 256>>>((const float4 *)x, (float4 *)y, n / 4);
  });
  printf("== group norm %d groups x %d f32 (32 MB in, 32 MB out): copy of "
         "the same bytes %.4f ms\n",
         kGroups, kGroup, copyMs);
  auto report = [&](const char *name, float ms) {
    printf("  %-40s %.4f ms  %5.1f%% of the copy\n", name, ms,
           100 * copyMs / ms);
  };
  auto run = [&](const char *name, auto go) {
    report(name, timeIt(go));
    go();
    check(name);
  };
  run("regs: two block reductions", [&] {
    regs<<<kGroups, kThreads>>>((const float4 *)x, (float4 *)y);
  });
  run("chan: one block reduction", [&] {
    chan<<<kGroups, kThreads>>>((const float4 *)x, (float4 *)y);
  });
#define SMEM(K4)                                                               \
  {                                                                            \
    size_t bytes = size_t(K4) * kThreads * 16;                                 \
    CK(cudaFuncSetAttribute(smem<K4>,                                          \
                            cudaFuncAttributeMaxDynamicSharedMemorySize,       \
                            int(bytes)));                                      \
    cudaFuncAttributes attr;                                                   \
    CK(cudaFuncGetAttributes(&attr, smem<K4>));                                \
    int blocks = 0;                                                            \
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, smem<K4>,        \
                                                     kThreads, bytes));        \
    printf("  (smem/" #K4 ": %d registers, %d local bytes, %d blocks/SM)\n",  \
           attr.numRegs, int(attr.localSizeBytes), blocks);                   \
    run("smem/" #K4 ": " #K4 " of 8 vectors in shared", [&] {                 \
      smem<K4><<<kGroups, kThreads, bytes>>>((const float4 *)x, (float4 *)y);  \
    });                                                                        \
  }
  SMEM(4)
  SMEM(5)
  SMEM(6)
  return 0;
}
