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

/// The `#egg.tuning` knobs the lowering of `kernel` built as `structure`
/// reads, each with the values it may take on its own (checkLowerable
/// still judges their combinations). The LLM agent's answer schema is
/// built from it, so a constrained decoder can only write these knobs and
/// values; knobs that are off keep the attribute's defaults.
struct TuningKnobs {
  /// Entries of `block` (and of `warp` and `thread` when they apply): the
  /// root op's parallel loops (a split kernel's too: its partial results'
  /// slice loop takes no entry); and of `reduction`: its reduction loops.
  unsigned parallelLoops = 0, reductionLoops = 0;
  /// Operand numbers `shared` and `registers` may name (the anchor's
  /// inputs); 0 when promotion does not apply.
  unsigned operands = 0;
  /// Values tile entries may take (0: untiled): powers of two up to the
  /// largest loop and the loops' extents; `reduction`'s likewise.
  SmallVector<int64_t> tiles, reductionTiles;
  bool warp = false, thread = false, padding = false, swizzle = false,
       copy = false, pipeline = false, cluster = false, rowShared = false,
       fragmentsAhead = false;
  /// `tf32_terms`: a product of f32 matrices, which warpgroup MMA may take.
  bool tf32Terms = false;
  /// `mma`: a product through shared memory, which tensor cores may take.
  bool mma = false;
  /// `vector` widths the lowering may take ({1} where it takes none).
  SmallVector<int64_t> vectors = {1};
};
TuningKnobs describeTuningKnobs(KernelOp kernel, StructureAttr structure);

/// The rules checkLowerable enforces for `kernel` built as `structure`, in
/// words, for the LLM agent's prompt: each lowering states them beside its
/// check, with the same limits (egg/Target/Limits.h).
std::string describeLoweringRules(KernelOp kernel, StructureAttr structure);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_LEGALITY_H
