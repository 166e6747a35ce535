// What a column mean of a bf16 matrix (bench/memory's col_mean_bf16, 8192 x
// 4096, 64 MB) can reach, and which structure gets there: hand-written
// kernels against a read-only sweep and a copy of the same bytes.
//   whole:     a block owns TX*V columns, [TX, R] threads fold rows y, y+R,
//              ... (U rows of loads in flight), a shared-memory tree, row 0
//              writes the means (egg's reduce_two_stage);
//   split:     the same over S row slices (grid z) into an f32 workspace,
//              then a second kernel adds the S slices (egg's split_k);
//   last:      the S slices' blocks write their partials to the workspace,
//              and the last block of a column tile to arrive (a per-tile
//              counter, reset by that block) adds them in slice order and
//              writes the means: one kernel, no barrier between blocks.
// CUDA events, a read flush of 120 MB before every run, median of 40; each
// kernel's means checked against a float64 host mean.
// Build and run: bench/ceilings.sh col_reduce
#include <cuda_bf16.h>

#include "probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>


constexpr int kRows = 8192, kCols = 4096;

// V bf16 values at p, widened.
template <int V> __device__ void loadV(const __nv_bfloat16 *p, float *out) {
  if constexpr (V == 4) {
    uint2 raw = *reinterpret_cast<const uint2 *>(p);
    const __nv_bfloat16 *h = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      out[e] = __bfloat162float(h[e]);
  } else {
    uint4 raw = *reinterpret_cast<const uint4 *>(p);
    const __nv_bfloat16 *h = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      out[e] = __bfloat162float(h[e]);
  }
}

// loadV<4> with an L2 prefetch hint on the load: 1 = L2::128B, 2 = L2::256B
// (the neighbouring tile's 128 bytes of the row come into L2 with ours).
template <int HINT>
__device__ void loadHinted(const __nv_bfloat16 *p, float *out) {
  unsigned lo, hi;
  if constexpr (HINT == 1)
    asm volatile("ld.global.nc.L2::128B.v2.u32 {%0, %1}, [%2];"
                 : "=r"(lo), "=r"(hi)
                 : "l"(p));
  else
    asm volatile("ld.global.nc.L2::256B.v2.u32 {%0, %1}, [%2];"
                 : "=r"(lo), "=r"(hi)
                 : "l"(p));
  uint2 raw = make_uint2(lo, hi);
  const __nv_bfloat16 *h = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
  for (int e = 0; e < 4; ++e)
    out[e] = __bfloat162float(h[e]);
}

// Stage 2: the [R][TX * V] partials combined in shared memory by a tree;
// row 0's threads end with the tile's column partials in `acc`.
template <int TX, int R, int V> __device__ void combineRows(float *acc) {
  __shared__ float buf[R][TX * V];
  int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int e = 0; e < V; ++e)
    buf[ty][tx * V + e] = acc[e];
  __syncthreads();
#pragma unroll
  for (int s = R / 2; s > 0; s /= 2) {
    if (ty < s)
#pragma unroll
      for (int e = 0; e < V; ++e)
        buf[ty][tx * V + e] += buf[ty + s][tx * V + e];
    if (s > 1)
      __syncthreads();
  }
#pragma unroll
  for (int e = 0; e < V; ++e)
    acc[e] = buf[0][tx * V + e];
}

// Stage 1 and 2 of a column tile over rows [r0, r0 + extent): returns, in
// the threads with y = 0, the tile's V column partials.
template <int TX, int R, int V, int U, int HINT = 0>
__device__ void foldTile(const __nv_bfloat16 *x, int r0, int extent,
                         float *acc) {
  int ty = threadIdx.y;
  int col = blockIdx.x * TX * V + threadIdx.x * V;
#pragma unroll
  for (int e = 0; e < V; ++e)
    acc[e] = 0;
  for (int t = 0; t < extent / R; t += U) {
    float v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if constexpr (HINT == 0)
        loadV<V>(x + size_t(r0 + (t + u) * R + ty) * kCols + col, v[u]);
      else
        loadHinted<HINT>(x + size_t(r0 + (t + u) * R + ty) * kCols + col,
                         v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e)
        acc[e] += v[u][e];
  }
  combineRows<TX, R, V>(acc);
}

template <int V>
__device__ void storeMeans(__nv_bfloat16 *y, int col, const float *acc) {
#pragma unroll
  for (int e = 0; e < V; ++e)
    y[col + e] = __float2bfloat16(acc[e] * (1.0f / kRows));
}

// foldTile with the next U rows' loads issued before the current U rows
// are folded (two batches in flight per thread, loads never wait on adds).
template <int TX, int R, int V, int U>
__device__ void foldTilePipelined(const __nv_bfloat16 *x, int r0, int extent,
                                  float *acc) {
  int ty = threadIdx.y;
  int col = blockIdx.x * TX * V + threadIdx.x * V;
  using Raw = uint2; // V = 4 bf16
  static_assert(V == 4, "8-byte rows");
#pragma unroll
  for (int e = 0; e < V; ++e)
    acc[e] = 0;
  int steps = extent / R;
  Raw cur[U], nxt[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    cur[u] = *reinterpret_cast<const Raw *>(
        x + size_t(r0 + u * R + ty) * kCols + col);
  for (int t = 0; t < steps; t += U) {
    if (t + U < steps) {
#pragma unroll
      for (int u = 0; u < U; ++u)
        nxt[u] = *reinterpret_cast<const Raw *>(
            x + size_t(r0 + (t + U + u) * R + ty) * kCols + col);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const __nv_bfloat16 *h = reinterpret_cast<const __nv_bfloat16 *>(&cur[u]);
#pragma unroll
      for (int e = 0; e < V; ++e)
        acc[e] += __bfloat162float(h[e]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      cur[u] = nxt[u];
  }
  combineRows<TX, R, V>(acc);
}

template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    wholePipelined(const __nv_bfloat16 *x, __nv_bfloat16 *y) {
  float acc[V];
  foldTilePipelined<TX, R, V, U>(x, 0, kRows, acc);
  if (threadIdx.y == 0)
    storeMeans<V>(y, blockIdx.x * TX * V + threadIdx.x * V, acc);
}

template <int TX, int R, int V, int U, int HINT = 0>
__global__ void __launch_bounds__(TX *R)
    whole(const __nv_bfloat16 *x, __nv_bfloat16 *y) {
  float acc[V];
  foldTile<TX, R, V, U, HINT>(x, 0, kRows, acc);
  if (threadIdx.y == 0)
    storeMeans<V>(y, blockIdx.x * TX * V + threadIdx.x * V, acc);
}

template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    splitPartial(const __nv_bfloat16 *x, float *ws) {
  int slice = kRows / gridDim.z;
  float acc[V];
  foldTile<TX, R, V, U>(x, blockIdx.z * slice, slice, acc);
  int col = blockIdx.x * TX * V + threadIdx.x * V;
  if (threadIdx.y == 0)
#pragma unroll
    for (int e = 0; e < V; ++e)
      ws[size_t(blockIdx.z) * kCols + col + e] = acc[e];
}

__global__ void splitSum(const float *ws, __nv_bfloat16 *y, int slices) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int z = 0; z < slices; ++z)
    s += ws[size_t(z) * kCols + col];
  y[col] = __float2bfloat16(s * (1.0f / kRows));
}

template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    lastBlock(const __nv_bfloat16 *x, float *ws, unsigned *counters,
              __nv_bfloat16 *y) {
  __shared__ bool amLast;
  int slices = gridDim.z, slice = kRows / slices;
  float acc[V];
  foldTile<TX, R, V, U>(x, blockIdx.z * slice, slice, acc);
  int col = blockIdx.x * TX * V + threadIdx.x * V;
  if (threadIdx.y == 0)
#pragma unroll
    for (int e = 0; e < V; ++e)
      ws[size_t(blockIdx.z) * kCols + col + e] = acc[e];
  // Release this block's partials, count it; the last to arrive acquires
  // the others' and adds all S in slice order (the same sum whichever
  // block is last).
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    __threadfence();
    unsigned old = atomicAdd(&counters[blockIdx.x], 1u);
    amLast = old == unsigned(slices - 1);
    if (amLast)
      counters[blockIdx.x] = 0;
    __threadfence();
  }
  __syncthreads();
  if (!amLast || threadIdx.y != 0)
    return;
  float total[V] = {};
  for (int z = 0; z < slices; ++z)
#pragma unroll
    for (int e = 0; e < V; ++e)
      total[e] += __ldcg(&ws[size_t(z) * kCols + col + e]);
  storeMeans<V>(y, col, total);
}

// A read-only sweep with U independent 16-byte loads in flight per thread
// (a block reads U * blockDim.x consecutive vectors per round).
template <int U, int HINT>
__global__ void sweepU(const float4 *p, size_t n, float *never) {
  float s = 0;
  size_t stride = size_t(gridDim.x) * blockDim.x * U;
  for (size_t i = size_t(blockIdx.x) * blockDim.x * U + threadIdx.x; i < n;
       i += stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float4 *q = p + i + u * blockDim.x;
      if constexpr (HINT == 0)
        v[u] = __ldg(q);
      else
        asm volatile("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v[u].x), "=f"(v[u].y), "=f"(v[u].z), "=f"(v[u].w)
                     : "l"(q));
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      s += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  if (s == 1234567.f)
    *never = s;
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t n = size_t(kRows) * kCols;
  __nv_bfloat16 *x, *y;
  float *z, *ws;
  unsigned *counters;
  CK(cudaMalloc(&x, n * 2));
  CK(cudaMalloc(&z, n * 2));
  CK(cudaMalloc(&y, kCols * 2));
  CK(cudaMalloc(&ws, size_t(64) * kCols * 4));
  CK(cudaMalloc(&counters, kCols * 4));
  CK(cudaMemset(counters, 0, kCols * 4));
  initFlush();
  std::vector<__nv_bfloat16> h(n);
  srand(7);
  std::vector<double> ref(kCols, 0.0);
  for (size_t i = 0; i < n; ++i) {
    float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f), u2 = rand() / (float)RAND_MAX;
    h[i] = __float2bfloat16(sqrtf(-2 * logf(u1)) * cosf(6.2831853f * u2));
    ref[i % kCols] += __bfloat162float(h[i]);
  }
  for (auto &r : ref)
    r /= kRows;
  CK(cudaMemcpy(x, h.data(), n * 2, cudaMemcpyHostToDevice));
  auto check = [&](const char *name) {
    CK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> got(kCols);
    CK(cudaMemcpy(got.data(), y, kCols * 2, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int c = 0; c < kCols; ++c)
      worst = std::max(worst, std::fabs(__bfloat162float(got[c]) - ref[c]));
    if (worst > 4e-3)
      printf("  WRONG %s: max abs error %g\n", name, worst);
    CK(cudaMemset(y, 0, kCols * 2));
  };
  float copyMs = timeIt([&] {
    copyAll<<<sms * 16, 256>>>((const float4 *)x, (float4 *)z, n * 2 / 32);
  });
  float readMs = timeIt([&] {
    sweep<<<sms * 8, 256>>>((const float4 *)x, n * 2 / 16, gNever);
  });
  printf("== col mean %d x %d bf16 (64 MB): copy of the same bytes (32 MB "
         "read + 32 MB written) %.4f ms; read-only sweep %.4f ms\n",
         kRows, kCols, copyMs, readMs);
  for (int blocks : {sms * 2, sms * 4, sms * 8}) {
    printf("  read-only sweeps, %d blocks of 512: U=4 %.4f ms, U=8 %.4f ms, "
           "U=4 L2::256B %.4f ms\n",
           blocks,
           timeIt([&] {
             sweepU<4, 0><<<blocks, 512>>>((const float4 *)x, n * 2 / 16,
                                           gNever);
           }),
           timeIt([&] {
             sweepU<8, 0><<<blocks, 512>>>((const float4 *)x, n * 2 / 16,
                                           gNever);
           }),
           timeIt([&] {
             sweepU<4, 1><<<blocks, 512>>>((const float4 *)x, n * 2 / 16,
                                           gNever);
           }));
  }
  auto report = [&](const char *name, float ms) {
    printf("  %-40s %.4f ms  %5.1f%% of the copy\n", name, ms,
           100 * copyMs / ms);
  };
#define WHOLE(TX, R, V, U)                                                     \
  {                                                                            \
    const char *name = "whole [" #TX "," #R "] V=" #V " U=" #U;              \
    auto go = [&] {                                                            \
      whole<TX, R, V, U><<<kCols / (TX * V), dim3(TX, R)>>>(x, y);             \
    };                                                                         \
    report(name, timeIt(go));                                                  \
    go();                                                                      \
    check(name);                                                               \
  }
#define HINTED(TX, R, U, H)                                                    \
  {                                                                            \
    const char *name = "whole, L2 hint " #H " [" #TX "," #R "] U=" #U;        \
    auto go = [&] {                                                            \
      whole<TX, R, 4, U, H><<<kCols / (TX * 4), dim3(TX, R)>>>(x, y);          \
    };                                                                         \
    report(name, timeIt(go));                                                  \
    go();                                                                      \
    check(name);                                                               \
  }
#define SPLIT(TX, R, V, U, S)                                                  \
  {                                                                            \
    const char *name = "split [" #TX "," #R "] V=" #V " U=" #U " S=" #S;     \
    auto go = [&] {                                                            \
      splitPartial<TX, R, V, U>                                                \
          <<<dim3(kCols / (TX * V), 1, S), dim3(TX, R)>>>(x, ws);              \
      splitSum<<<kCols / 256, 256>>>(ws, y, S);                                \
    };                                                                         \
    report(name, timeIt(go));                                                  \
    go();                                                                      \
    check(name);                                                               \
  }
#define LAST(TX, R, V, U, S)                                                   \
  {                                                                            \
    const char *name = "last block [" #TX "," #R "] V=" #V " U=" #U " S=" #S; \
    auto go = [&] {                                                            \
      lastBlock<TX, R, V, U>                                                   \
          <<<dim3(kCols / (TX * V), 1, S), dim3(TX, R)>>>(x, ws, counters, y); \
    };                                                                         \
    report(name, timeIt(go));                                                  \
    go();                                                                      \
    check(name);                                                               \
  }
#define PIPE(TX, R, U)                                                         \
  {                                                                            \
    const char *name = "whole, next rows in flight [" #TX "," #R "] U=" #U;   \
    auto go = [&] {                                                            \
      wholePipelined<TX, R, 4, U><<<kCols / (TX * 4), dim3(TX, R)>>>(x, y);    \
    };                                                                         \
    report(name, timeIt(go));                                                  \
    go();                                                                      \
    check(name);                                                               \
  }
  // Sessions 30-31: the next batch in flight (PIPE), U = 32, splits and
  // the last-block combine (LAST); docs/benchmarks.md has their times.
  PIPE(8, 64, 8)
  PIPE(8, 64, 16)
  PIPE(16, 64, 8)
  PIPE(16, 64, 16)
  PIPE(8, 32, 16)
  PIPE(16, 32, 16)
  WHOLE(8, 32, 4, 32)
  WHOLE(8, 64, 4, 32)
  WHOLE(16, 64, 4, 32)
  WHOLE(8, 64, 4, 16)  // the expert's tiling
  WHOLE(16, 64, 4, 16) // session 27's best
  SPLIT(16, 64, 4, 16, 4)
  SPLIT(16, 32, 4, 16, 8)
  LAST(8, 64, 4, 16, 2)
  LAST(16, 64, 4, 16, 2)
  LAST(16, 64, 4, 16, 4)
  LAST(16, 32, 4, 16, 4)
  LAST(16, 32, 4, 16, 8)
  LAST(32, 16, 4, 16, 8)
  LAST(32, 16, 4, 16, 16)
  LAST(32, 32, 4, 16, 8)
  LAST(8, 64, 8, 8, 4)
  LAST(16, 32, 8, 8, 8)
  LAST(32, 16, 8, 8, 16)
  LAST(64, 8, 4, 16, 16)
  LAST(64, 8, 4, 16, 32)
  LAST(64, 16, 4, 16, 16)
  // Wide column tiles (1-2 KB of each row per block) over many slices.
  SPLIT(128, 8, 4, 16, 16)
  LAST(128, 8, 4, 16, 16)
  LAST(128, 8, 4, 16, 32)
  LAST(128, 4, 4, 16, 32)
  LAST(256, 4, 4, 16, 32)
  LAST(256, 4, 4, 16, 64)
  LAST(128, 8, 8, 8, 32)
  LAST(64, 8, 8, 8, 32)
  // Session 31: L2 prefetch hints on the loads.
  HINTED(8, 64, 16, 1)
  HINTED(8, 64, 16, 2)
  HINTED(16, 64, 16, 2)
  HINTED(16, 64, 32, 2)
  HINTED(8, 64, 32, 2)
  HINTED(16, 32, 32, 2)
  return 0;
}
