//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// egg-eval opens libcuda.so.1 with dlopen rather than linking it, so the tool
// starts (and says clearly that there is no GPU) on machines without a
// driver, and the static bundle carries no dependency on one.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TOOLS_EGG_EVAL_CUDADRIVER_H
#define EGG_TOOLS_EGG_EVAL_CUDADRIVER_H

#include <cuda.h>

#include <string>

namespace egg::cuda {

struct Driver {
#define EGG_CUDA_FN(name) decltype(&::name) name = nullptr;
#include "CudaFunctions.def"
#undef EGG_CUDA_FN

  /// Loads the driver library and every entry point; on failure `error`
  /// says what is missing.
  bool load(std::string &error);

  /// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
  std::string describe(CUresult result) const;
};

} // namespace egg::cuda

#endif // EGG_TOOLS_EGG_EVAL_CUDADRIVER_H
