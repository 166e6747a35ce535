//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>

using namespace egg::cuda;

#define EGG_STR2(x) #x
#define EGG_STR(x) EGG_STR2(x)

bool Driver::load(std::string &error) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    error = std::string("no CUDA driver (libcuda.so.1): ") +
            (why ? why : "not found");
    return false;
  }
#define EGG_CUDA_FN(name)                                                      \
  name = reinterpret_cast<decltype(name)>(dlsym(lib, EGG_STR(name)));          \
  if (!name) {                                                                 \
    error = "the CUDA driver lacks " EGG_STR(name);                            \
    return false;                                                              \
  }
#include "CudaFunctions.def"
#undef EGG_CUDA_FN
  return true;
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA error") + ": " +
         (text ? text : std::to_string(int(result)));
}
