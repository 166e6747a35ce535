//===- Profiles.cpp - Built-in hardware profiles --------------------------===//
//
// The profile is data: adding a chip is adding a row. Hopper rows use the
// ceilings measured on the H200 (copy bandwidth counting read + write bytes,
// cuBLAS SGEMM with TF32 off, cuBLAS bf16 GEMM); the A100 row uses datasheet
// figures and says so in docs/dialect.md.
//
//===----------------------------------------------------------------------===//

#include "egg/Target/Profiles.h"

using namespace mlir;
using namespace mlir::egg;

namespace {
struct Profile {
  llvm::StringLiteral chip, name;
  int64_t smCount, maxThreads, sharedPerBlock, regsPerBlock, maxRegsPerThread,
      l2Bytes, dramGbps, fp32Gflops, tensorGflops;
};
} // namespace

static const Profile kProfiles[] = {
    {"sm_90a", "H200", 132, 1024, 232448, 65536, 255, 62914560, 4250, 51000,
     790000},
    {"sm_90", "H200", 132, 1024, 232448, 65536, 255, 62914560, 4250, 51000,
     790000},
    {"sm_80", "A100-SXM4-80GB", 108, 1024, 166912, 65536, 255, 41943040, 2039,
     19500, 312000},
};

TargetAttr mlir::egg::getBuiltinTarget(MLIRContext *ctx, StringRef chip) {
  for (const Profile &p : kProfiles)
    if (p.chip == chip)
      return TargetAttr::get(ctx, p.chip, p.name, p.smCount, /*warpSize=*/32,
                             p.maxThreads, p.sharedPerBlock, p.regsPerBlock,
                             p.maxRegsPerThread, p.l2Bytes, p.dramGbps,
                             p.fp32Gflops, p.tensorGflops);
  return {};
}

ArrayRef<StringRef> mlir::egg::getBuiltinTargetChips() {
  static const StringRef chips[] = {"sm_90a", "sm_90", "sm_80"};
  return chips;
}

bool mlir::egg::supportsWgmma(TargetAttr target) {
  return target && target.getSmVersion() == 90 &&
         target.hasArchSpecificFeatures();
}

bool mlir::egg::supportsClusters(TargetAttr target) {
  return target && target.getSmVersion() >= 90;
}

bool mlir::egg::supportsDependentLaunch(TargetAttr target) {
  return target && target.getSmVersion() >= 90;
}

bool mlir::egg::chipSupportsDependentLaunch(StringRef chip) {
  FailureOr<std::pair<int64_t, bool>> parsed = parseChip(chip);
  return succeeded(parsed) && parsed->first >= 90;
}
