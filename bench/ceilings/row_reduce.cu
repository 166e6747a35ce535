// What a row reduction of an f32 matrix can reach, and which structure gets
// there: hand-written kernels (a warp or a block per row, loads in flight,
// persistent grids) against a read-only sweep and a copy of the same bytes,
// at 64 MB and 256 MB. CUDA events, a read flush of 2x L2 before every run,
// median of 40; each kernel's sums checked against a float64 host sum.
// The floor is bytes at the bandwidth of a 256 MB copy by this program
// (egg-eval's uses a 1 GiB cuMemcpy, about 6% faster). Results:
// docs/benchmarks.md. Build and run: bench/ceilings.sh
#include "probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>


// Read-only ceiling: grid-stride 16-byte loads, U in flight per thread.
template <int U>
__global__ void readAll(const float4 *p, size_t n, float *never) {
  float s = 0;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = p[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u)
      s += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n; i += stride) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1234567.f)
    *never = s;
}

__device__ float warpSum(float s) {
#pragma unroll
  for (int o = 16; o; o >>= 1)
    s += __shfl_xor_sync(0xffffffff, s, o);
  return s;
}

// A warp per row, U 16-byte loads per lane before their adds. Rows given to
// warps with a stride (persistent when the grid is smaller than rows/warps).
template <int U, bool NC>
__global__ void warpRow(const float *x, float *y, int rows, int cols) {
  int lane = threadIdx.x & 31;
  int warps = blockDim.x / 32;
  int v4 = cols / 4;
  for (int r = blockIdx.x * warps + threadIdx.x / 32; r < rows;
       r += gridDim.x * warps) {
    const float4 *row = reinterpret_cast<const float4 *>(x + size_t(r) * cols);
    float s = 0;
    for (int c = lane; c < v4; c += 32 * U) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (NC)
          v[u] = __ldcs(row + c + 32 * u); // streaming (evict-first)
        else
          v[u] = row[c + 32 * u];
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        s += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    s = warpSum(s);
    if (lane == 0)
      y[r] = s;
  }
}

// W warps per row (a block per row), U loads in flight, shared combine.
template <int W, int U>
__global__ void blockRow(const float *x, float *y, int rows, int cols) {
  __shared__ float part[W];
  int r = blockIdx.x;
  const float4 *row = reinterpret_cast<const float4 *>(x + size_t(r) * cols);
  int v4 = cols / 4;
  float s = 0;
  for (int c = threadIdx.x; c < v4; c += W * 32 * U) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = row[c + W * 32 * u];
#pragma unroll
    for (int u = 0; u < U; ++u)
      s += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  s = warpSum(s);
  if ((threadIdx.x & 31) == 0)
    part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int w = 0; w < W; ++w)
      t += part[w];
    y[r] = t;
  }
}

// Two rows per warp, interleaved (2U loads in flight, two accumulators).
template <int U>
__global__ void warpTwoRows(const float *x, float *y, int rows, int cols) {
  int lane = threadIdx.x & 31;
  int r = 2 * (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
  if (r >= rows)
    return;
  const float4 *a = reinterpret_cast<const float4 *>(x + size_t(r) * cols);
  const float4 *b = a + cols / 4;
  int v4 = cols / 4;
  float s = 0, t = 0;
  for (int c = lane; c < v4; c += 32 * U) {
    float4 va[U], vb[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      va[u] = a[c + 32 * u];
      vb[u] = b[c + 32 * u];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      s += va[u].x + va[u].y + va[u].z + va[u].w;
      t += vb[u].x + vb[u].y + vb[u].z + vb[u].w;
    }
  }
  s = warpSum(s);
  t = warpSum(t);
  if (lane == 0) {
    y[r] = s;
    y[r + 1] = t;
  }
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t maxN = size_t(8192) * 8192;
  float *x, *y, *z;
  CK(cudaMalloc(&x, maxN * 4));
  CK(cudaMalloc(&z, maxN * 4));
  CK(cudaMalloc(&y, 16384 * 4)); // the most rows of any shape below
  initFlush();
  std::vector<float> h(maxN);
  srand(7);
  for (auto &v : h)
    v = float(rand()) / RAND_MAX - 0.5f;
  CK(cudaMemcpy(x, h.data(), maxN * 4, cudaMemcpyHostToDevice));

  float bigCopy = timeIt([&] {
    copyAll<<<sms * 16, 256>>>((const float4 *)x, (float4 *)z, maxN / 4);
  });
  double bw = 2.0 * maxN * 4 / bigCopy / 1e6; // GB/s, read + write
  printf("copy of 256 MB (512 MB moved): %.4f ms, %.0f GB/s = the floor's "
         "bandwidth\n", bigCopy, bw);
  struct Shape {
    int rows, cols;
  } shapes[] = {{4096, 4096}, {8192, 8192}, {16384, 1024}, {1024, 16384}};
  for (Shape sh : shapes) {
    int R = sh.rows, C = sh.cols;
    size_t n = size_t(R) * C;
    double mb = n * 4 / 1e6;
    std::vector<double> ref(R);
    for (int r = 0; r < R; ++r) {
      double s = 0;
      for (int c = 0; c < C; ++c)
        s += h[size_t(r) * C + c];
      ref[r] = s;
    }
    auto check = [&](const char *name) {
      std::vector<float> got(R);
      CK(cudaMemcpy(got.data(), y, R * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int r = 0; r < R; ++r)
        worst = std::max(worst, std::fabs(got[r] - ref[r]));
      if (worst > 1e-2)
        printf("  WRONG %s: max abs error %g\n", name, worst);
      CK(cudaMemset(y, 0, R * 4));
    };
    float copyMs = timeIt([&] {
      copyAll<<<sms * 16, 256>>>((const float4 *)x, (float4 *)z, n / 4);
    });
    double floorMs = n * 4 / bw / 1e6; // reading n floats at copy bandwidth
    printf("== %d x %d f32 (%.0f MB): copy %.4f ms (%.0f GB/s of r+w); "
           "floor (bytes / 256 MB copy bandwidth) %.4f ms\n",
           R, C, mb, copyMs, 2 * n * 4 / copyMs / 1e6, floorMs);
    auto report = [&](const char *name, float ms) {
      printf("  %-34s %.4f ms  %6.0f GB/s  %5.1f%% of floor\n", name, ms,
             n * 4 / ms / 1e6, 100 * floorMs / ms);
    };
    report("read-only sweep U=1 (sms*16x256)", timeIt([&] {
             readAll<1><<<sms * 16, 256>>>((const float4 *)x, n / 4, gNever);
           }));
    report("read-only sweep U=4 (sms*8x256)", timeIt([&] {
             readAll<4><<<sms * 8, 256>>>((const float4 *)x, n / 4, gNever);
           }));
    report("read-only sweep U=4 (sms*4x512)", timeIt([&] {
             readAll<4><<<sms * 4, 512>>>((const float4 *)x, n / 4, gNever);
           }));
#define WARP(U, NC, BLK, GRID, LABEL)                                          \
  report(LABEL, timeIt([&] {                                                   \
           warpRow<U, NC><<<GRID, BLK>>>(x, y, R, C);                          \
         }));                                                                  \
  warpRow<U, NC><<<GRID, BLK>>>(x, y, R, C);                                   \
  check(LABEL);
    int all4 = (R + 3) / 4;
    if (C / 4 >= 32 * 8) {
      WARP(8, false, 128, all4, "warp/row U8 128thr (egg today)");
      WARP(8, true, 128, all4, "warp/row U8 streaming loads");
    }
    if (C / 4 >= 32 * 4)
      WARP(4, false, 128, all4, "warp/row U4 128thr");
    if (C / 4 >= 32 * 16)
      WARP(16, false, 128, all4, "warp/row U16 128thr");
    if (C / 4 >= 32 * 8) {
      WARP(8, false, 256, (R + 7) / 8, "warp/row U8 256thr");
      WARP(8, false, 512, (R + 15) / 16, "warp/row U8 512thr");
      WARP(8, false, 128, sms * 8, "warp/row U8 persistent sms*8");
      WARP(8, false, 128, sms * 4, "warp/row U8 persistent sms*4");
    }
#define BLOCK(W, U, LABEL)                                                     \
  if (C / 4 >= W * 32 * U) {                                                   \
    report(LABEL, timeIt([&] { blockRow<W, U><<<R, W * 32>>>(x, y, R, C); })); \
    blockRow<W, U><<<R, W * 32>>>(x, y, R, C);                                 \
    check(LABEL);                                                              \
  }
    BLOCK(2, 8, "block/row 64thr U8");
    BLOCK(2, 4, "block/row 64thr U4");
    BLOCK(4, 4, "block/row 128thr U4");
    BLOCK(4, 8, "block/row 128thr U8");
    BLOCK(8, 4, "block/row 256thr U4");
    BLOCK(8, 2, "block/row 256thr U2");
    if (C / 4 >= 32 * 8) {
      report("two rows/warp U8 128thr", timeIt([&] {
               warpTwoRows<8><<<(R + 7) / 8, 128>>>(x, y, R, C);
             }));
      warpTwoRows<8><<<(R + 7) / 8, 128>>>(x, y, R, C);
      check("two rows/warp");
      report("two rows/warp U4 128thr", timeIt([&] {
               warpTwoRows<4><<<(R + 7) / 8, 128>>>(x, y, R, C);
             }));
    }
  }
  printf("== probe done\n");
  return 0;
}
