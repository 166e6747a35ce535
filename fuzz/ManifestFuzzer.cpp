//===- ManifestFuzzer.cpp - libFuzzer target for the manifest reader ------===//
//
// Any bytes: parseManifest must return a manifest or an error, never crash,
// hang or read out of bounds. Built and run by fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#include "egg/Eval/Manifest.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<mlir::egg::eval::Manifest> m = mlir::egg::eval::parseManifest(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!m) {
    llvm::consumeError(m.takeError());
    return 0;
  }
  // Walk what was accepted: every reference must be in range.
  for (const auto &f : m->functions)
    for (const auto &s : f.steps) {
      for (const auto &a : s.args)
        if (a.isBuffer && (a.buffer < 0 || a.buffer >= (int64_t)f.buffers.size()))
          __builtin_trap();
      if (s.kind == mlir::egg::eval::Step::Kind::Copy &&
          (s.src >= (int64_t)f.buffers.size() || s.dst >= (int64_t)f.buffers.size()))
        __builtin_trap();
    }
  return 0;
}
