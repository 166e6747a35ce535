//===- EggOps.h - EGG operations --------------------------------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_IR_EGGOPS_H
#define EGG_DIALECT_EGG_IR_EGGOPS_H

#include "egg/Dialect/Egg/IR/EggAttrs.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define GET_OP_CLASSES
#include "egg/Dialect/Egg/IR/EggOps.h.inc"

namespace mlir::egg {

/// The hardware profile attached to the module enclosing `op`, if any.
TargetAttr lookupTarget(Operation *op);

/// Whether the module enclosing `op` allows TF32 tensor cores for f32
/// products (`egg.allow_tf32`).
bool allowsTf32(Operation *op);

/// Whether the module enclosing `op` lets products split along K (no
/// `egg.no_split_k`).
bool allowsSplitK(Operation *op);

/// Bytes of shared memory that `tuning` asks for when applied to `anchor`:
/// for every promoted operand, the tile its indexing map touches (block tile
/// on parallel loops, reduction tile on reduction loops, whole extent where
/// untiled), plus padding on the innermost dimension, times the pipeline
/// depth. Fails when the anchor's shape is dynamic or an operand number is
/// out of range (the diagnostic says which).
FailureOr<int64_t>
estimateSharedMemoryBytes(Operation *anchor, TuningAttr tuning,
                          function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_IR_EGGOPS_H
