//===- Legality.h - What the lowerings build --------------------*- C++ -*-===//
//
// The agents never invent decisions: they pick from what this header
// enumerates, and everything they return is checked here against what the
// lowering implements before it reaches the IR. Each lowering's check lives
// beside its pass (<Pass>Legality.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_LEGALITY_H
#define EGG_DIALECT_EGG_TRANSFORMS_LEGALITY_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir::egg {

/// Structures the lowering implements for `kernel`, best first.
SmallVector<StructureAttr> enumerateStructures(KernelOp kernel);

/// Checks that `tuning` is within what the generic lowering (tile + fuse,
/// scf.forall on blocks and threads) implements for `kernel`.
LogicalResult checkLowerable(KernelOp kernel, TuningAttr tuning,
                             function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_LEGALITY_H
