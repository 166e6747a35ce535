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
//              writes the means: one kernel, no barrier between blocks;
//   tma:       column tiles of [BR rows][TC columns] boxes brought into
//              shared memory by TMA bulk copies, ST stages in flight per
//              block, combined over S slices by the last block;
//   balanced:  every SM busy: the tiles' row chunks dealt out evenly to a
//              grid of 1-4 blocks per SM, partials added by atomics, the
//              block that completes a tile writes its means;
//   rows:      whole 8 KB rows per block (a copy's access pattern), row
//              chunks or interleaved rows, 16-byte vector atomics into a
//              workspace, the last block writes the means; also the fold
//              alone, and clusters that add their blocks' partials through
//              distributed shared memory before the atomics;
//   in step:   whole, with a cluster's neighbouring column tiles kept on
//              the same rows by a split cluster barrier per batch.
// CUDA events, a read flush of 120 MB before every run, median of 40; each
// kernel's means checked against a float64 host mean.
// Build and run: bench/ceilings.sh col_reduce
#include <cuda.h>
#include <cooperative_groups.h>
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
__device__ void foldTile(const __nv_bfloat16 *x, int r0, int extent, float *acc,
                         int tile = -1) {
  int ty = threadIdx.y;
  int col = (tile < 0 ? blockIdx.x : tile) * TX * V + threadIdx.x * V;
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

// The S row slices' blocks of a column tile write their partials (threads
// with `writer` set, V columns from `col`) to the workspace; the last block
// of the tile to arrive (a per-tile counter, reset by that block) adds them
// in slice order and writes the means: one kernel, no barrier between blocks.
template <int V>
__device__ void combineSlices(const float *acc, bool writer, int col, float *ws,
                              unsigned *counters, __nv_bfloat16 *y) {
  __shared__ bool amLast;
  int slices = gridDim.z;
  if (writer)
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
  if (!amLast || !writer)
    return;
  float total[V] = {};
  for (int z = 0; z < slices; ++z)
#pragma unroll
    for (int e = 0; e < V; ++e)
      total[e] += __ldcg(&ws[size_t(z) * kCols + col + e]);
  storeMeans<V>(y, col, total);
}

template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    lastBlock(const __nv_bfloat16 *x, float *ws, unsigned *counters,
              __nv_bfloat16 *y) {
  int slice = kRows / gridDim.z;
  float acc[V];
  foldTile<TX, R, V, U>(x, blockIdx.z * slice, slice, acc);
  combineSlices<V>(acc, threadIdx.y == 0, blockIdx.x * TX * V + threadIdx.x * V,
                   ws, counters, y);
}

// A column tile of TC columns fed by TMA: one thread keeps ST
// boxes of [BR rows][TC columns] in flight (cp.async.bulk.tensor into
// shared memory, a "full" mbarrier per stage); all 256 threads fold each
// box from shared memory (a warp reads 64 consecutive bf16 of one row),
// meet at a barrier, and the stage is refilled with the box ST steps on.
// The S row slices (grid z) are combined by the last block.
__device__ inline unsigned smemAddr(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
template <int TC, int BR>
__device__ void tmaIssue(const CUtensorMap *map, unsigned long long *bar,
                         __nv_bfloat16 *dst, int col, int row) {
  constexpr unsigned bytes = BR * TC * 2;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smemAddr(bar)),
               "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smemAddr(dst)),
      "l"(map), "r"(col), "r"(row), "r"(smemAddr(bar))
      : "memory");
}
__device__ inline void mbarWait(unsigned long long *bar, unsigned parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra wait;\n"
               "}\n" ::"r"(smemAddr(bar)),
               "r"(parity)
               : "memory");
}

template <int TC, int BR, int ST>
__global__ void __launch_bounds__(256)
    tmaTile(const __grid_constant__ CUtensorMap map, float *ws,
            unsigned *counters, __nv_bfloat16 *y) {
  extern __shared__ __align__(128) unsigned char tmaSmem[];
  auto *tile = reinterpret_cast<__nv_bfloat16 *>(tmaSmem); // [ST][BR][TC]
  __shared__ __align__(8) unsigned long long full[ST];
  constexpr int P = TC / 2, G = 256 / P; // column pairs, row groups
  static_assert(BR % G == 0, "every row group gets the same rows");
  int tid = threadIdx.x, tx = tid % P, ry = tid / P;
  int col0 = blockIdx.x * TC, slice = kRows / gridDim.z;
  int row0 = blockIdx.z * slice, steps = slice / BR;
  if (tid == 0) {
    for (int s = 0; s < ST; ++s)
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int s = 0; s < ST && s < steps; ++s)
      tmaIssue<TC, BR>(&map, &full[s], tile + s * BR * TC, col0, row0 + s * BR);
  }
  __syncthreads();
  float a0 = 0, a1 = 0;
  for (int t = 0; t < steps; ++t) {
    int s = t % ST;
    mbarWait(&full[s], (t / ST) & 1);
    const __nv_bfloat162 *box =
        reinterpret_cast<const __nv_bfloat162 *>(tile + s * BR * TC);
#pragma unroll
    for (int i = 0; i < BR / G; ++i) {
      float2 v = __bfloat1622float2(box[(ry + i * G) * P + tx]);
      a0 += v.x;
      a1 += v.y;
    }
    __syncthreads(); // every thread is done with stage s
    if (tid == 0 && t + ST < steps)
      tmaIssue<TC, BR>(&map, &full[s], tile + s * BR * TC, col0,
                       row0 + (t + ST) * BR);
  }
  // The G row groups' partials of each column pair, added in shared memory.
  __shared__ float2 part[256];
  part[tid] = make_float2(a0, a1);
  __syncthreads();
  float acc[2] = {0, 0};
  if (ry == 0)
    for (int g = 0; g < G; ++g) {
      acc[0] += part[g * P + tx].x;
      acc[1] += part[g * P + tx].y;
    }
  combineSlices<2>(acc, ry == 0, col0 + 2 * tx, ws, counters, y);
}

// Every SM busy: the column tiles' row chunks ("units", tile-
// major) dealt out evenly to gridDim.x blocks, so each block folds 1-2
// runs of consecutive units; a run's column partials are added into an
// f32 workspace (atomics), and the block that completes a tile's last
// units writes its means and zeroes the workspace and counter again.
template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    balanced(const __nv_bfloat16 *x, float *ws, unsigned *counters,
             __nv_bfloat16 *y, int chunkRows) {
  __shared__ bool amLast;
  int perTile = kRows / chunkRows, units = perTile * (kCols / (TX * V));
  int u = int((long long)blockIdx.x * units / gridDim.x);
  int u1 = int((long long)(blockIdx.x + 1) * units / gridDim.x);
  while (u < u1) {
    int tile = u / perTile, end = min(u1, (tile + 1) * perTile);
    float acc[V];
    foldTile<TX, R, V, U>(x, (u % perTile) * chunkRows, (end - u) * chunkRows,
                          acc, tile);
    int col = tile * TX * V + threadIdx.x * V;
    if (threadIdx.y == 0)
#pragma unroll
      for (int e = 0; e < V; ++e)
        atomicAdd(&ws[col + e], acc[e]);
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      __threadfence();
      unsigned old = atomicAdd(&counters[tile], unsigned(end - u));
      amLast = old + (end - u) == unsigned(perTile);
      if (amLast)
        counters[tile] = 0;
      __threadfence();
    }
    __syncthreads();
    if (amLast && threadIdx.y == 0) {
      float total[V];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        total[e] = __ldcg(&ws[col + e]);
        ws[col + e] = 0;
      }
      storeMeans<V>(y, col, total);
    }
    __syncthreads(); // amLast and combineRows' buffer are reused
    u = end;
  }
}

// Whole rows: a block of 512 * G threads reads whole 8 KB rows
// (thread x owns 8 columns, one 16-byte load per row), so a block's reads are
// as contiguous as a copy's; G row groups interleave within the block. The
// block folds either a contiguous chunk of rows (INTERLEAVE false) or rows
// b, b + B, ... (B blocks), adds its 4096 column partials into an f32
// workspace with 16-byte vector atomics (sm_90), and the last block to
// arrive writes the means and zeroes the workspace and counter again.
template <int G, int U, bool INTERLEAVE>
__global__ void __launch_bounds__(512 * G)
    wholeRows(const __nv_bfloat16 *x, float *ws, unsigned *counter,
              __nv_bfloat16 *y) {
  __shared__ bool amLast;
  int tx = threadIdx.x % 512, g = threadIdx.x / 512, col = tx * 8;
  int first, end, step;
  if (INTERLEAVE) {
    first = blockIdx.x * G + g;
    end = kRows;
    step = gridDim.x * G;
  } else {
    first = int((long long)blockIdx.x * kRows / gridDim.x) + g;
    end = int((long long)(blockIdx.x + 1) * kRows / gridDim.x);
    step = G;
  }
  float acc[8] = {};
  int r = first;
  for (; r + (U - 1) * step < end; r += U * step) {
    float v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
      loadV<8>(x + size_t(r + u * step) * kCols + col, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int e = 0; e < 8; ++e)
        acc[e] += v[u][e];
  }
  for (; r < end; r += step) {
    float v[8];
    loadV<8>(x + size_t(r) * kCols + col, v);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      acc[e] += v[e];
  }
  if constexpr (G > 1) {
    __shared__ float buf[G - 1][512 * 8];
    if (g > 0)
#pragma unroll
      for (int e = 0; e < 8; ++e)
        buf[g - 1][e * 512 + tx] = acc[e];
    __syncthreads();
    if (g == 0)
      for (int h = 0; h < G - 1; ++h)
#pragma unroll
        for (int e = 0; e < 8; ++e)
          acc[e] += buf[h][e * 512 + tx];
  }
  if (g == 0) {
    atomicAdd(reinterpret_cast<float4 *>(ws + col),
              make_float4(acc[0], acc[1], acc[2], acc[3]));
    atomicAdd(reinterpret_cast<float4 *>(ws + col + 4),
              make_float4(acc[4], acc[5], acc[6], acc[7]));
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned old = atomicAdd(counter, 1u);
    amLast = old == gridDim.x - 1;
    if (amLast)
      *counter = 0;
    __threadfence();
  }
  __syncthreads();
  if (!amLast)
    return;
  for (int c = threadIdx.x * 4; c < kCols; c += blockDim.x * 4) {
    float4 s = __ldcg(reinterpret_cast<const float4 *>(ws + c));
    *reinterpret_cast<float4 *>(ws + c) = make_float4(0, 0, 0, 0);
    float t[4] = {s.x, s.y, s.z, s.w};
    storeMeans<4>(y, c, t);
  }
}

// wholeRows' fold alone (no combine: each block stores its partials to its
// own workspace row; the means are not written): what streaming whole rows
// costs before any combining, in row chunks or interleaved rows.
template <int U, bool INTERLEAVE = false>
__global__ void __launch_bounds__(512)
    wholeRowsFoldOnly(const __nv_bfloat16 *x, float *ws) {
  int col = threadIdx.x * 8;
  int r = int((long long)blockIdx.x * kRows / gridDim.x);
  int end = int((long long)(blockIdx.x + 1) * kRows / gridDim.x);
  int step = 1;
  if (INTERLEAVE)
    r = blockIdx.x, end = kRows, step = gridDim.x;
  float acc[8] = {};
  for (; r + (U - 1) * step < end; r += U * step) {
    float v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
      loadV<8>(x + size_t(r + u * step) * kCols + col, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int e = 0; e < 8; ++e)
        acc[e] += v[u][e];
  }
  for (; r < end; r += step) {
    float v[8];
    loadV<8>(x + size_t(r) * kCols + col, v);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      acc[e] += v[e];
  }
  float4 *out = reinterpret_cast<float4 *>(ws + size_t(blockIdx.x) * kCols + col);
  out[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
  out[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
}

// Whole rows in clusters of C blocks: each block folds its row chunk into
// shared memory, the cluster's blocks add each other's partials through
// distributed shared memory (block k adds columns k/C of the row), and only
// one partial per cluster goes to the workspace by vector atomics; the last
// block writes the means.
template <int C, int U>
__global__ void __launch_bounds__(512)
    wholeRowsCluster(const __nv_bfloat16 *x, float *ws, unsigned *counter,
                     __nv_bfloat16 *y) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float part[kCols];
  __shared__ bool amLast;
  int col = threadIdx.x * 8;
  int r = int((long long)blockIdx.x * kRows / gridDim.x);
  int end = int((long long)(blockIdx.x + 1) * kRows / gridDim.x);
  float acc[8] = {};
  for (; r + U - 1 < end; r += U) {
    float v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
      loadV<8>(x + size_t(r + u) * kCols + col, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int e = 0; e < 8; ++e)
        acc[e] += v[u][e];
  }
  for (; r < end; ++r) {
    float v[8];
    loadV<8>(x + size_t(r) * kCols + col, v);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      acc[e] += v[e];
  }
  reinterpret_cast<float4 *>(part)[threadIdx.x * 2] =
      make_float4(acc[0], acc[1], acc[2], acc[3]);
  reinterpret_cast<float4 *>(part)[threadIdx.x * 2 + 1] =
      make_float4(acc[4], acc[5], acc[6], acc[7]);
  cluster.sync();
  // This block's share: kCols / C columns, 4 per thread per step.
  int rank = cluster.block_rank(), share = kCols / C;
  for (int c = rank * share + threadIdx.x * 4; c < (rank + 1) * share;
       c += 512 * 4) {
    float4 t = make_float4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      float4 q = *reinterpret_cast<float4 *>(cluster.map_shared_rank(part, k) + c);
      t.x += q.x, t.y += q.y, t.z += q.z, t.w += q.w;
    }
    atomicAdd(reinterpret_cast<float4 *>(ws + c), t);
  }
  __threadfence();
  cluster.sync(); // no block leaves while another reads its shared memory
  if (threadIdx.x == 0) {
    unsigned old = atomicAdd(counter, 1u);
    amLast = old == gridDim.x - 1;
    if (amLast)
      *counter = 0;
    __threadfence();
  }
  __syncthreads();
  if (!amLast)
    return;
  for (int c = threadIdx.x * 4; c < kCols; c += blockDim.x * 4) {
    float4 s = __ldcg(reinterpret_cast<const float4 *>(ws + c));
    *reinterpret_cast<float4 *>(ws + c) = make_float4(0, 0, 0, 0);
    float t[4] = {s.x, s.y, s.z, s.w};
    storeMeans<4>(y, c, t);
  }
}

// whole, with the column tiles of a cluster of C neighbouring tiles held
// in step: after folding a batch of rows each block arrives on the cluster
// barrier and waits for the others' previous arrival before folding the
// next, so the cluster's blocks read the same rows (C * TX * V columns
// of each, contiguous) at the same time.
template <int TX, int R, int V, int U>
__global__ void __launch_bounds__(TX *R)
    wholeLockstep(const __nv_bfloat16 *x, __nv_bfloat16 *y) {
  int ty = threadIdx.y;
  int col = blockIdx.x * TX * V + threadIdx.x * V;
  float acc[V] = {};
  for (int t = 0; t < kRows / R; t += U) {
    float v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      loadV<V>(x + size_t((t + u) * R + ty) * kCols + col, v[u]);
    if (t > 0)
      asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e)
        acc[e] += v[u][e];
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  combineRows<TX, R, V>(acc);
  if (threadIdx.y == 0)
    storeMeans<V>(y, col, acc);
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

using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const cuuint32_t *, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

// The input as a 2-D tensor map with [BR][TC] boxes (no swizzle).
static CUtensorMap tileMap(const __nv_bfloat16 *x, int tc, int br,
                           CUtensorMapL2promotion promo) {
  static EncodeTiled encode = [] {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                        cudaEnableDefault, &q));
    if (!fn || q != cudaDriverEntryPointSuccess) {
      printf("cuTensorMapEncodeTiled not found\n");
      exit(1);
    }
    return reinterpret_cast<EncodeTiled>(fn);
  }();
  CUtensorMap map;
  cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 2};
  cuuint32_t box[2] = {cuuint32_t(tc), cuuint32_t(br)}, elem[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
                      const_cast<__nv_bfloat16 *>(x), dims, strides, box, elem,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                      promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    printf("cuTensorMapEncodeTiled failed (%d) for box [%d][%d]\n", int(r), br,
           tc);
    exit(1);
  }
  return map;
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
  CK(cudaMalloc(&ws, size_t(2048) * kCols * 4));
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
  // Sweeps on fewer blocks: does one block per SM (or 128 SMs) cap reads?
  for (int blocks : {128, sms}) {
    printf(
        "  read-only sweeps, %d blocks of 1024: U=4 %.4f ms, U=8 %.4f ms\n",
        blocks, timeIt([&] {
          sweepU<4, 0><<<blocks, 1024>>>((const float4 *)x, n * 2 / 16, gNever);
        }),
        timeIt([&] {
          sweepU<8, 0><<<blocks, 1024>>>((const float4 *)x, n * 2 / 16, gNever);
        }));
  }
  auto report = [&](const char *name, float ms) {
    printf("  %-40s %.4f ms  %5.1f%% of the copy\n", name, ms,
           100 * copyMs / ms);
  };
  // Time a variant, then run it once more and check its means.
  auto measure = [&](const char *name, auto go) {
    report(name, timeIt(go));
    go();
    check(name);
  };
#define WHOLE(TX, R, V, U)                                                     \
  {                                                                            \
    const char *name = "whole [" #TX "," #R "] V=" #V " U=" #U;                \
    auto go = [&] {                                                            \
      whole<TX, R, V, U><<<kCols / (TX * V), dim3(TX, R)>>>(x, y);             \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define HINTED(TX, R, U, H)                                                    \
  {                                                                            \
    const char *name = "whole, L2 hint " #H " [" #TX "," #R "] U=" #U;         \
    auto go = [&] {                                                            \
      whole<TX, R, 4, U, H><<<kCols / (TX * 4), dim3(TX, R)>>>(x, y);          \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define SPLIT(TX, R, V, U, S)                                                  \
  {                                                                            \
    const char *name = "split [" #TX "," #R "] V=" #V " U=" #U " S=" #S;       \
    auto go = [&] {                                                            \
      splitPartial<TX, R, V, U>                                                \
          <<<dim3(kCols / (TX * V), 1, S), dim3(TX, R)>>>(x, ws);              \
      splitSum<<<kCols / 256, 256>>>(ws, y, S);                                \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define LAST(TX, R, V, U, S)                                                   \
  {                                                                            \
    const char *name = "last block [" #TX "," #R "] V=" #V " U=" #U " S=" #S;  \
    auto go = [&] {                                                            \
      lastBlock<TX, R, V, U>                                                   \
          <<<dim3(kCols / (TX * V), 1, S), dim3(TX, R)>>>(x, ws, counters, y); \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define PIPE(TX, R, U)                                                         \
  {                                                                            \
    const char *name = "whole, next rows in flight [" #TX "," #R "] U=" #U;    \
    auto go = [&] {                                                            \
      wholePipelined<TX, R, 4, U><<<kCols / (TX * 4), dim3(TX, R)>>>(x, y);    \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define TMA(TC, BR, ST, S, PROMO)                                              \
  {                                                                            \
    const char *name =                                                         \
        "tma [" #BR "x" #TC "] stages=" #ST " S=" #S " " #PROMO;               \
    auto kernel = tmaTile<TC, BR, ST>;                                         \
    int bytes = ST * BR * TC * 2;                                              \
    CK(cudaFuncSetAttribute(                                                   \
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));          \
    CUtensorMap map = tileMap(x, TC, BR, CU_TENSOR_MAP_L2_PROMOTION_##PROMO);  \
    auto go = [&] {                                                            \
      kernel<<<dim3(kCols / TC, 1, S), 256, bytes>>>(map, ws, counters, y);    \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define BALANCED(TX, R, U, CHUNK, BLOCKS)                                      \
  {                                                                            \
    const char *name = "balanced [" #TX "," #R "] U=" #U " rows/unit=" #CHUNK  \
                       " blocks=" #BLOCKS;                                     \
    static_assert((CHUNK) / (R) % (U) == 0, "U batches cover a unit");         \
    CK(cudaMemset(ws, 0, kCols * 4));                                          \
    auto go = [&] {                                                            \
      balanced<TX, R, 4, U>                                                    \
          <<<BLOCKS, dim3(TX, R)>>>(x, ws, counters, y, CHUNK);                \
    };                                                                         \
    measure(name, go);                                                         \
  }
#define ROWS(G, U, IL, BLOCKS)                                                 \
  {                                                                            \
    const char *name = "whole rows G=" #G " U=" #U " interleave=" #IL          \
                       " blocks=" #BLOCKS;                                     \
    CK(cudaMemset(ws, 0, kCols * 4));                                          \
    CK(cudaMemset(counters, 0, 4));                                            \
    auto go = [&] {                                                            \
      wholeRows<G, U, IL><<<BLOCKS, 512 * G>>>(x, ws, counters, y);            \
    };                                                                         \
    measure(name, go);                                                         \
  }
  // Whole 8 KB rows per block, vector atomics, the last block writes; then
  // this run's references (the best TMA and plain tilings of earlier runs;
  // docs/benchmarks.md).
#define FOLDONLY(U, BLOCKS, IL)                                                \
  printf("  %-40s %.4f ms  (timing only, means not written)\n",               \
         "whole rows fold only U=" #U " blocks=" #BLOCKS " interleave=" #IL,   \
         timeIt([&] {                                                          \
           wholeRowsFoldOnly<U, IL><<<BLOCKS, 512>>>(x, ws);                   \
         }));
#define CLUSTER(C, U, BLOCKS)                                                  \
  {                                                                            \
    const char *name =                                                         \
        "whole rows, clusters of " #C " U=" #U " blocks=" #BLOCKS;             \
    CK(cudaMemset(ws, 0, kCols * 4));                                          \
    CK(cudaMemset(counters, 0, 4));                                            \
    auto go = [&] {                                                            \
      cudaLaunchConfig_t cfg = {};                                             \
      cfg.gridDim = BLOCKS;                                                    \
      cfg.blockDim = 512;                                                      \
      cudaLaunchAttribute attr;                                                \
      attr.id = cudaLaunchAttributeClusterDimension;                           \
      attr.val.clusterDim.x = C;                                               \
      attr.val.clusterDim.y = 1;                                               \
      attr.val.clusterDim.z = 1;                                               \
      cfg.attrs = &attr;                                                       \
      cfg.numAttrs = 1;                                                        \
      CK(cudaLaunchKernelEx(&cfg, wholeRowsCluster<C, U>, x, ws, counters, y));\
    };                                                                         \
    measure(name, go);                                                         \
  }
#define LOCKSTEP(TX, R, U, C)                                                  \
  {                                                                            \
    const char *name = "whole in step [" #TX "," #R "] U=" #U " cluster=" #C;  \
    auto go = [&] {                                                            \
      cudaLaunchConfig_t cfg = {};                                             \
      cfg.gridDim = kCols / (TX * 4);                                          \
      cfg.blockDim = dim3(TX, R);                                              \
      cudaLaunchAttribute attr;                                                \
      attr.id = cudaLaunchAttributeClusterDimension;                           \
      attr.val.clusterDim.x = C;                                               \
      attr.val.clusterDim.y = 1;                                               \
      attr.val.clusterDim.z = 1;                                               \
      cfg.attrs = &attr;                                                       \
      cfg.numAttrs = 1;                                                        \
      CK(cudaLaunchKernelEx(&cfg, wholeLockstep<TX, R, 4, U>, x, y));          \
    };                                                                         \
    measure(name, go);                                                         \
  }
  LOCKSTEP(8, 64, 8, 2)
  LOCKSTEP(8, 64, 8, 4)
  LOCKSTEP(8, 64, 8, 8)
  LOCKSTEP(8, 64, 16, 4)
  LOCKSTEP(8, 64, 16, 8)
  LOCKSTEP(8, 64, 4, 8)
  LOCKSTEP(16, 64, 8, 4)
  LOCKSTEP(16, 64, 8, 8)
  LOCKSTEP(16, 64, 16, 8)
  LOCKSTEP(16, 64, 32, 8)
  LOCKSTEP(8, 32, 16, 8)
  LOCKSTEP(8, 32, 32, 8)
  LOCKSTEP(16, 32, 16, 8)
  WHOLE(8, 64, 4, 32)
  ROWS(1, 4, false, sms)
  ROWS(1, 8, false, 128)
  FOLDONLY(8, sms, false)
  FOLDONLY(4, sms * 2, false)
  FOLDONLY(4, sms, true)
  FOLDONLY(8, sms, true)
  FOLDONLY(4, sms * 2, true)
  FOLDONLY(8, sms * 2, true)
  FOLDONLY(4, sms * 4, true)
  FOLDONLY(2, sms * 4, true)
  FOLDONLY(2, sms * 8, true)
  FOLDONLY(1, sms * 8, true)
  WHOLE(8, 64, 8, 16)
  WHOLE(8, 64, 8, 8)
  WHOLE(16, 32, 8, 16)
  WHOLE(8, 128, 8, 8)
  CLUSTER(2, 8, sms)
  CLUSTER(4, 8, sms)
  CLUSTER(4, 4, sms)
  CLUSTER(8, 8, 128)
  CLUSTER(8, 4, 128)
  CLUSTER(4, 4, sms * 2)
  CLUSTER(8, 4, 256)
  TMA(64, 64, 4, 4, L2_128B)
  WHOLE(16, 64, 4, 32)
  WHOLE(8, 64, 4, 16)
  BALANCED(8, 64, 16, 1024, sms * 2)
  BALANCED(8, 64, 16, 1024, sms)
  BALANCED(16, 64, 16, 1024, sms)
  BALANCED(16, 64, 16, 1024, sms * 2)
  BALANCED(16, 64, 32, 2048, sms)
  BALANCED(8, 64, 32, 2048, sms * 2)
  BALANCED(16, 32, 16, 512, sms * 2)
  BALANCED(16, 32, 16, 512, sms * 3)
  BALANCED(8, 32, 16, 512, sms * 4)
  // TMA-fed column tiles first, then the best of earlier runs for
  // comparison in this run.
  TMA(64, 64, 4, 2, L2_128B)
  TMA(64, 64, 8, 2, L2_128B)
  TMA(64, 32, 8, 2, L2_128B)
  TMA(64, 64, 4, 4, L2_128B)
  TMA(64, 32, 8, 4, L2_128B)
  TMA(64, 64, 8, 4, L2_128B)
  TMA(64, 64, 8, 4, L2_256B)
  TMA(64, 64, 8, 4, NONE)
  TMA(64, 128, 4, 4, L2_128B)
  TMA(128, 32, 4, 2, L2_256B)
  TMA(128, 32, 8, 2, L2_256B)
  TMA(128, 64, 4, 4, L2_256B)
  TMA(128, 32, 8, 4, L2_256B)
  TMA(128, 32, 4, 8, L2_256B)
  TMA(256, 16, 8, 4, L2_256B)
  TMA(256, 32, 4, 8, L2_256B)
  TMA(256, 16, 8, 8, L2_256B)
  TMA(64, 64, 8, 8, L2_128B)
  WHOLE(16, 64, 4, 32)
  WHOLE(8, 64, 4, 16)
  // The next batch in flight (PIPE), U = 32, splits and the last-block
  // combine (LAST); docs/benchmarks.md has their times.
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
  WHOLE(16, 64, 4, 16) // an earlier run's best
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
  // L2 prefetch hints on the loads.
  HINTED(8, 64, 16, 1)
  HINTED(8, 64, 16, 2)
  HINTED(16, 64, 16, 2)
  HINTED(16, 64, 32, 2)
  HINTED(8, 64, 32, 2)
  HINTED(16, 32, 32, 2)
  return 0;
}
