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

/// Checks that `tuning` is within what the lowerings implement for `kernel`
/// built as `structure` (a query: the kernel's IR is not touched, and its
/// own decisions, if any, are not read).
LogicalResult checkLowerable(KernelOp kernel, StructureAttr structure,
                             TuningAttr tuning,
                             function_ref<InFlightDiagnostic()> emitError);

/// The same for the structure the kernel carries (a decided kernel).
inline LogicalResult
checkLowerable(KernelOp kernel, TuningAttr tuning,
               function_ref<InFlightDiagnostic()> emitError) {
  return checkLowerable(kernel, kernel.getStructureAttr(), tuning, emitError);
}

/// The rules checkLowerable enforces for `kernel` built as `structure`, in
/// words, for the LLM agent's prompt: each lowering states them beside its
/// check, with the same limits (egg/Target/Limits.h).
std::string describeLoweringRules(KernelOp kernel, StructureAttr structure);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_LEGALITY_H
