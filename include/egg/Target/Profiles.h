//===- Profiles.h - Built-in hardware profiles ------------------*- C++ -*-===//

#ifndef EGG_TARGET_PROFILES_H
#define EGG_TARGET_PROFILES_H

#include "egg/Dialect/Egg/IR/EggAttrs.h"

namespace mlir::egg {

/// The built-in profile for `chip` (sm_80, sm_90, sm_90a), or null.
/// Hopper figures are the ones measured on the H200 (docs/dialect.md).
TargetAttr getBuiltinTarget(MLIRContext *ctx, llvm::StringRef chip);

/// Names of the chips getBuiltinTarget knows, for diagnostics.
llvm::ArrayRef<llvm::StringRef> getBuiltinTargetChips();

/// What a target's chip can do; false for a null target. Warpgroup MMA
/// (wgmma.mma_async, with setmaxnreg) is sm_90a's alone: later `a` targets
/// have other MMAs. Thread-block clusters and programmatic dependent launch
/// come with sm_90.
bool supportsWgmma(TargetAttr target);
bool supportsClusters(TargetAttr target);
bool supportsDependentLaunch(TargetAttr target);
/// The same for a chip name (e.g. a pipeline option); false if malformed.
bool chipSupportsDependentLaunch(llvm::StringRef chip);

} // namespace mlir::egg

#endif // EGG_TARGET_PROFILES_H
