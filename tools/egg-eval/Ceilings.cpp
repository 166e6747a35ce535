//===- Ceilings.cpp - egg-eval: measured or profile ceilings -------------===//

#include "Evaluation.h"

#include "egg/Support/Json.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <random>

using namespace mlir::egg::eval;
namespace json = llvm::json;

void Evaluation::measureCeilings() {
  // Ceilings: measured once per device and cached; the profile otherwise.
  bandwidthGbps = double(manifest.dramGbps);
  fp32Gflops = double(manifest.fp32Gflops);
  tensorGflops = double(manifest.tensorGflops);
  if (opts.ceilings == "measure") {
    llvm::SmallString<256> cache;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
      cache = xdg;
    else if (const char *home = std::getenv("HOME"))
      llvm::sys::path::append(cache, home, ".cache");
    std::string key = llvm::formatv("ceilings-v2-{0}-sm{1}{2}.json", deviceName,
                                    major, minor);
    std::replace(key.begin(), key.end(), ' ', '_');
    llvm::sys::path::append(cache, "egg", key);
    auto cached = llvm::MemoryBuffer::getFile(cache);
    std::optional<json::Value> value;
    if (cached)
      if (auto parsed = mlir::egg::parseJson((*cached)->getBuffer()))
        value = std::move(*parsed);
    if (value && value->getAsObject()) {
      const json::Object &o = *value->getAsObject();
      bandwidthGbps = o.getNumber("copy_gbps").value_or(bandwidthGbps);
      fp32Gflops = o.getNumber("fp32_gflops").value_or(fp32Gflops);
      tensorGflops = o.getNumber("tensor_gflops").value_or(tensorGflops);
      ceilingSource = "measured (cached in " + cache.str().str() + ")";
    } else {
      // Copy bandwidth: a 1 GiB device-to-device copy, read + write bytes.
      size_t copyBytes = size_t(1) << 30;
      CUdeviceptr src, dst;
      check(cu.cuMemAlloc(&src, copyBytes), "cuMemAlloc");
      check(cu.cuMemAlloc(&dst, copyBytes), "cuMemAlloc");
      Stats copy = timeLoop(
          [&] { return cu.cuMemcpyDtoDAsync(dst, src, copyBytes, stream); },
          10);
      bandwidthGbps = 2.0 * double(copyBytes) / (copy.median * 1e-3) / 1e9;
      json::Object measured{{"copy_gbps", bandwidthGbps}};
      if (haveBlas) {
        // SGEMM (TF32 off) at 4096^3 and bf16 GEMM at 8192^3 through cuBLAS.
        auto rate = [&](int64_t size, ElementType type) {
          Stats s = timeLoop(
              [&] {
                return blas.rowMajorGemm(stream, 1, size, size, size, false,
                                         false, src, type, src, type, dst, type,
                                         /*tf32=*/false) ==
                               CUBLAS_STATUS_SUCCESS
                           ? CUDA_SUCCESS
                           : CUDA_ERROR_UNKNOWN;
              },
              10);
          return 2.0 * double(size) * size * size / (s.median * 1e-3) / 1e9;
        };
        // Random data (constant data runs faster than real data): bf16
        // values in [-1, 1], which read as f32 are finite values in [-1, 1].
        std::vector<uint16_t> host(size_t(8192) * 8192 * 2);
        std::mt19937 gen(1);
        std::uniform_real_distribution<float> dist(-1, 1);
        for (uint16_t &h : host)
          h = floatToBFloat16(dist(gen));
        check(cu.cuMemcpyHtoD(src, host.data(), host.size() * 2), "upload");
        fp32Gflops = rate(4096, ElementType::F32);
        tensorGflops = rate(8192, ElementType::BF16);
        measured["fp32_gflops"] = fp32Gflops;
        measured["tensor_gflops"] = tensorGflops;
      }
      cu.cuMemFree(src);
      cu.cuMemFree(dst);
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(cache));
      std::error_code ec;
      llvm::raw_fd_ostream os(cache, ec);
      if (!ec)
        os << json::Value(std::move(measured)) << "\n";
      ceilingSource = haveBlas ? "measured"
                               : "measured bandwidth; compute "
                                 "rates from the target profile";
    }
  }
}
