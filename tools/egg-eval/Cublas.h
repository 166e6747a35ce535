//===- Cublas.h - cuBLAS baselines, loaded at run time ----------*- C++ -*-===//

#ifndef EGG_TOOLS_EGG_EVAL_CUBLAS_H
#define EGG_TOOLS_EGG_EVAL_CUBLAS_H

#include "egg/Eval/Manifest.h"

#include <cublas_api.h>
#include <cuda.h>

#include <string>

namespace egg::cuda {

/// The few cuBLAS entry points a baseline needs, from libcublas found at
/// run time (the CUDA toolkit's, or the one PyTorch ships).
struct Cublas {
  using CreateFn = cublasStatus_t (*)(cublasHandle_t *);
  using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, CUstream);
  using GemmFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                    cublasOperation_t, int, int, int,
                                    const void *, const void *, cudaDataType,
                                    int, long long, const void *, cudaDataType,
                                    int, long long, const void *, void *,
                                    cudaDataType, int, long long, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  CreateFn create = nullptr;
  SetStreamFn setStream = nullptr;
  GemmFn gemm = nullptr;
  cublasHandle_t handle = nullptr;
  std::string library;

  bool load(std::string &error);

  /// Row-major C = op(A) op(B) (batched, strided), f32 accumulation, TF32
  /// only if `tf32`. A is [b][M][K] ([b][K][M] if transA), B [b][K][N]
  /// ([b][N][K] if transB), C [b][M][N].
  cublasStatus_t rowMajorGemm(CUstream stream, int64_t batch, int64_t m,
                              int64_t n, int64_t k, bool transA, bool transB,
                              CUdeviceptr a, mlir::egg::eval::ElementType aType,
                              CUdeviceptr b, mlir::egg::eval::ElementType bType,
                              CUdeviceptr c, mlir::egg::eval::ElementType cType,
                              bool tf32);
};

} // namespace egg::cuda

#endif // EGG_TOOLS_EGG_EVAL_CUBLAS_H
