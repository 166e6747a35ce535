//===- Cublas.cpp - cuBLAS baselines, loaded at run time ------------------===//

#include "Cublas.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace egg::cuda;
using mlir::egg::eval::ElementType;

bool Cublas::load(std::string &error) {
  std::vector<std::string> candidates = {"libcublas.so", "libcublas.so.13",
                                         "libcublas.so.12"};
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var))
      candidates.push_back(std::string(root) + "/lib64/libcublas.so");
  candidates.push_back("/usr/local/cuda/lib64/libcublas.so");
  void *lib = nullptr;
  for (const std::string &name : candidates)
    if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      library = name;
      break;
    }
  if (!lib) {
    error = "cuBLAS not found (libcublas.so)";
    return false;
  }
  create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
  setStream = reinterpret_cast<SetStreamFn>(dlsym(lib, "cublasSetStream_v2"));
  gemm = reinterpret_cast<GemmFn>(dlsym(lib, "cublasGemmStridedBatchedEx"));
  if (!create || !setStream || !gemm) {
    error = "cuBLAS lacks the entry points egg-eval needs";
    return false;
  }
  if (create(&handle) != CUBLAS_STATUS_SUCCESS) {
    error = "cublasCreate failed";
    return false;
  }
  return true;
}

static cudaDataType dataType(ElementType t) {
  switch (t) {
  case ElementType::F16:
    return CUDA_R_16F;
  case ElementType::BF16:
    return CUDA_R_16BF;
  case ElementType::F64:
    return CUDA_R_64F;
  case ElementType::F32:
    break;
  }
  return CUDA_R_32F;
}

cublasStatus_t Cublas::rowMajorGemm(CUstream stream, int64_t batch, int64_t m,
                                    int64_t n, int64_t k, bool transA,
                                    bool transB, CUdeviceptr a,
                                    ElementType aType, CUdeviceptr b,
                                    ElementType bType, CUdeviceptr c,
                                    ElementType cType, bool tf32) {
  setStream(handle, stream);
  // Row-major C = A B is column-major C^T = B^T A^T: B first.
  float alpha = 1, beta = 0;
  return gemm(
      handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
      transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m), int(k), &alpha,
      reinterpret_cast<void *>(b), dataType(bType), int(transB ? k : n), k * n,
      reinterpret_cast<void *>(a), dataType(aType), int(transA ? m : k), m * k,
      &beta, reinterpret_cast<void *>(c), dataType(cType), int(n), m * n,
      int(batch), tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT);
}
