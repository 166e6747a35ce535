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

} // namespace mlir::egg

#endif // EGG_TARGET_PROFILES_H
