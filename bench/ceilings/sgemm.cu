// What an f32 FMA product (TF32 off) can reach against cuBLAS SGEMM in the
// same process, and which structure gets there: bench/gemm's bmm_f32 (4 x
// 1024^3) and matmul_f32 (2048^3), row-major A[M][K] x B[K][N].
//   egg-like: egg's FMA tiles (docs/pipeline.md, "GEMM through shared
//             memory"): 128x128 block tile, 256 threads of 8x8 values in
//             halves (rows ty*4.. and 64+ty*4.., columns likewise), K steps
//             of BK, tiles stored [BK][128 + 4], A transposed by 4-byte
//             cp.async (a warp's copies: 2 rows x 16 k, as egg's lowering),
//             B by 16-byte cp.async, STAGES stages, one barrier per step;
//   variants: A's 4-byte copies as 4 rows x 8 k per warp (no bank
//             conflicts on the transposed stores); A through registers
//             (16-byte loads along K, four 4-byte stores transposed, a warp
//             covering 32 rows); lanes of a warp as 4 x 8 threads (fewer
//             distinct B addresses per warp-wide read); other BK / stages.
// CUDA events, a read flush of 120 MB before every run, median of 40; each
// kernel's result checked against cuBLAS (itself checked on sampled
// entries against a float64 host product).
// Build and run: bench/ceilings.sh sgemm
// nvcc-flags: -lcublas
#include <cublas_v2.h>

#include "probe.h"

#include <cmath>
#include <cstdint>

constexpr int BM = 128, BN = 128, PAD = 4, NT = 256;

enum ACopy { kEggCopies = 0, kQuadCopies = 1, kRegisterCopies = 2 };

__device__ inline void cpAsync4(float *dst, const float *src) {
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src));
}
__device__ inline void cpAsync16(float *dst, const float *src) {
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d),
               "l"(src));
}
__device__ inline void cpCommit() { asm volatile("cp.async.commit_group;\n"); }
template <int N> __device__ inline void cpWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int BK, int STAGES, int AMODE, int LAYOUT>
__global__ void __launch_bounds__(NT, 2)
    gemm(const float *__restrict__ A, const float *__restrict__ B,
         float *__restrict__ C, int M, int N, int K) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  constexpr int LA = BM + PAD, LB = BN + PAD;
  float *As = smem;                    // [STAGES][BK][LA]
  float *Bs = smem + STAGES * BK * LA; // [STAGES][BK][LB]
  int tid = threadIdx.x;
  int tx, ty;
  if (LAYOUT == 0) {
    tx = tid % 16;
    ty = tid / 16;
  } else {
    int warp = tid / 32, lane = tid % 32;
    ty = (warp / 2) * 4 + lane / 8;
    tx = (warp % 2) * 8 + lane % 8;
  }
  size_t batch = blockIdx.z;
  A += batch * size_t(M) * K + size_t(blockIdx.y) * BM * K;
  B += batch * size_t(K) * N + size_t(blockIdx.x) * BN;
  C += batch * size_t(M) * N;
  int numK = K / BK;

  // Registers hold one tile, stored after the step that frees its stage.
  static_assert(AMODE != kRegisterCopies || STAGES == 2, "2 stages");
  float ra[(AMODE == kRegisterCopies) ? BM * BK / 4 / NT : 1][4];
  auto loadA = [&](int kt) { // registers: 16-byte loads along K
    if constexpr (AMODE == kRegisterCopies) {
#pragma unroll
      for (int c = 0; c < BM * BK / 4 / NT; ++c) {
        int p = tid + c * NT, m = p % BM, chunk = p / BM;
        float4 v = *reinterpret_cast<const float4 *>(A + size_t(m) * K +
                                                     kt * BK + chunk * 4);
        ra[c][0] = v.x, ra[c][1] = v.y, ra[c][2] = v.z, ra[c][3] = v.w;
      }
    }
  };
  auto storeA = [&](int stage) {
    if constexpr (AMODE == kRegisterCopies) {
      float *as = As + stage * BK * LA;
#pragma unroll
      for (int c = 0; c < BM * BK / 4 / NT; ++c) {
        int p = tid + c * NT, m = p % BM, chunk = p / BM;
#pragma unroll
        for (int j = 0; j < 4; ++j)
          as[(chunk * 4 + j) * LA + m] = ra[c][j];
      }
    }
  };
  auto copyTiles = [&](int kt, int stage) {
    float *as = As + stage * BK * LA, *bs = Bs + stage * BK * LB;
    if constexpr (AMODE == kEggCopies) {
#pragma unroll
      for (int c = 0; c < BM * BK / NT; ++c) {
        int p = tid + c * NT, k = p % BK, m = p / BK;
        cpAsync4(as + k * LA + m, A + size_t(m) * K + kt * BK + k);
      }
    } else if constexpr (AMODE == kQuadCopies) {
      static_assert(BK % 8 == 0, "rows of 8 k");
#pragma unroll
      for (int c = 0; c < BM * BK / NT; ++c) {
        int p = tid + c * NT, lo = p % 32, hi = p / 32;
        int k = (hi % (BK / 8)) * 8 + lo / 4, m = (hi / (BK / 8)) * 4 + lo % 4;
        cpAsync4(as + k * LA + m, A + size_t(m) * K + kt * BK + k);
      }
    }
#pragma unroll
    for (int c = 0; c < BK * BN / 4 / NT; ++c) {
      int p = tid + c * NT, n = (p % (BN / 4)) * 4, k = p / (BN / 4);
      cpAsync16(bs + k * LB + n, B + size_t(kt * BK + k) * N + n);
    }
  };

  float acc[8][8] = {};
  // Prologue: STAGES - 1 tiles in flight.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < numK) {
      if (AMODE == kRegisterCopies) {
        loadA(s);
        storeA(s);
      }
      copyTiles(s, s);
    }
    cpCommit();
  }
  for (int kt = 0; kt < numK; ++kt) {
    int stage = kt % STAGES;
    cpWait<STAGES - 2>();
    __syncthreads();
    // The stage read at kt - 1 is free: refill it with tile kt + STAGES - 1.
    int next = kt + STAGES - 1;
    bool more = next < numK;
    if (more) {
      copyTiles(next, next % STAGES);
      if (AMODE == kRegisterCopies)
        loadA(next);
    }
    cpCommit();
    const float *as = As + stage * BK * LA, *bs = Bs + stage * BK * LB;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4 *>(a) =
          *reinterpret_cast<const float4 *>(as + k * LA + ty * 4);
      *reinterpret_cast<float4 *>(a + 4) =
          *reinterpret_cast<const float4 *>(as + k * LA + 64 + ty * 4);
      *reinterpret_cast<float4 *>(b) =
          *reinterpret_cast<const float4 *>(bs + k * LB + tx * 4);
      *reinterpret_cast<float4 *>(b + 4) =
          *reinterpret_cast<const float4 *>(bs + k * LB + 64 + tx * 4);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    // Registers: A's next tile goes in after this step's reads (STAGES = 2:
    // the stage read at kt - 1, which the barrier above freed).
    if (AMODE == kRegisterCopies && more)
      storeA(next % STAGES);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int m = blockIdx.y * BM + (i / 4) * 64 + ty * 4 + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int n = blockIdx.x * BN + h * 64 + tx * 4;
      *reinterpret_cast<float4 *>(C + size_t(m) * N + n) =
          make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                      acc[i][h * 4 + 3]);
    }
  }
}

struct Problem {
  const char *name;
  int batch, M, N, K;
};

int main() {
  initFlush();
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    printf("cublasCreate failed\n");
    return 1;
  }
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH); // no TF32
  Problem problems[] = {{"bmm_f32 4 x 1024^3", 4, 1024, 1024, 1024},
                        {"matmul_f32 2048^3", 1, 2048, 2048, 2048}};
  for (const Problem &p : problems) {
    size_t na = size_t(p.batch) * p.M * p.K, nb = size_t(p.batch) * p.K * p.N,
           nc = size_t(p.batch) * p.M * p.N;
    std::vector<float> ha(na), hb(nb);
    srand(11);
    auto normal = [] {
      float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f),
            u2 = rand() / (float)RAND_MAX;
      return sqrtf(-2 * logf(u1)) * cosf(6.2831853f * u2);
    };
    for (auto &v : ha)
      v = normal();
    for (auto &v : hb)
      v = normal();
    float *a, *b, *c, *ref;
    CK(cudaMalloc(&a, na * 4));
    CK(cudaMalloc(&b, nb * 4));
    CK(cudaMalloc(&c, nc * 4));
    CK(cudaMalloc(&ref, nc * 4));
    CK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    auto cublas = [&](float *out) {
      return cublasSgemmStridedBatched(
          handle, CUBLAS_OP_N, CUBLAS_OP_N, p.N, p.M, p.K, &one, b, p.N,
          size_t(p.K) * p.N, a, p.K, size_t(p.M) * p.K, &zero, out, p.N,
          size_t(p.M) * p.N, p.batch);
    };
    if (cublas(ref) != CUBLAS_STATUS_SUCCESS) {
      printf("cublasSgemmStridedBatched failed on %s\n", p.name);
      return 1;
    }
    CK(cudaDeviceSynchronize());
    std::vector<float> hr(nc), hc(nc);
    CK(cudaMemcpy(hr.data(), ref, nc * 4, cudaMemcpyDeviceToHost));
    double worstRef = 0;
    for (int s = 0; s < 64; ++s) {
      int z = s % p.batch, m = (s * 977) % p.M, n = (s * 431) % p.N;
      double r = 0;
      for (int k = 0; k < p.K; ++k)
        r += double(ha[size_t(z) * p.M * p.K + size_t(m) * p.K + k]) *
             hb[size_t(z) * p.K * p.N + size_t(k) * p.N + n];
      worstRef = std::max(
          worstRef,
          std::fabs(r - hr[size_t(z) * p.M * p.N + size_t(m) * p.N + n]));
    }
    float cublasMs = timeIt([&] { cublas(c); });
    double flops = 2.0 * p.batch * p.M * p.N * p.K;
    printf("== %s: cuBLAS SGEMM %.4f ms (%.1f TFLOP/s; sampled max abs error "
           "vs float64 %.2g)\n",
           p.name, cublasMs, flops / cublasMs / 1e9, worstRef);
    auto check = [&](const char *name) {
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hc.data(), c, nc * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (size_t i = 0; i < nc; ++i)
        worst = std::max(worst, double(std::fabs(hc[i] - hr[i])));
      if (!(worst < 1e-2))
        printf("  WRONG %s: max abs difference from cuBLAS %g\n", name, worst);
      CK(cudaMemset(c, 0, nc * 4));
    };
#define VARIANT(BK, ST, AM, LAY, what)                                         \
  {                                                                            \
    auto kernel = gemm<BK, ST, AM, LAY>;                                       \
    int bytes = ST * BK * (BM + PAD + BN + PAD) * 4;                           \
    CK(cudaFuncSetAttribute(                                                   \
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));          \
    dim3 grid(p.N / BN, p.M / BM, p.batch);                                    \
    auto go = [&] { kernel<<<grid, NT, bytes>>>(a, b, c, p.M, p.N, p.K); };    \
    cudaFuncAttributes attr;                                                   \
    CK(cudaFuncGetAttributes(&attr, kernel));                                  \
    float ms = timeIt(go);                                                     \
    printf("  BK=%-2d stages=%d %-28s %3d regs  %.4f ms  %.3fx cuBLAS\n", BK,  \
           ST, what, attr.numRegs, ms, cublasMs / ms);                         \
    go();                                                                      \
    check(what);                                                               \
  }
    VARIANT(16, 2, kEggCopies, 0, "egg-like")
    VARIANT(16, 2, kQuadCopies, 0, "A copies 4 rows x 8 k")
    VARIANT(16, 2, kRegisterCopies, 0, "A through registers")
    VARIANT(16, 2, kEggCopies, 1, "lanes 4 x 8")
    VARIANT(16, 2, kQuadCopies, 1, "4x8 k-copies, lanes 4 x 8")
    VARIANT(16, 2, kRegisterCopies, 1, "registers, lanes 4 x 8")
    VARIANT(16, 3, kEggCopies, 0, "egg-like")
    VARIANT(16, 3, kQuadCopies, 1, "4x8 k-copies, lanes 4 x 8")
    VARIANT(8, 4, kQuadCopies, 0, "A copies 4 rows x 8 k")
    VARIANT(8, 4, kQuadCopies, 1, "4x8 k-copies, lanes 4 x 8")
    VARIANT(32, 2, kEggCopies, 0, "egg-like")
    VARIANT(32, 2, kQuadCopies, 1, "4x8 k-copies, lanes 4 x 8")
    VARIANT(16, 2, kEggCopies, 0, "egg-like (again)")
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(ref));
  }
  cublasDestroy(handle);
  return 0;
}
