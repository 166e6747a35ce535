//===- SearchSpace.h - What egg-tune searches -------------------*- C++ -*-===//
//
// The stage-2 candidates egg-tune measures around the expert's choice.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_SEARCHSPACE_H
#define EGG_TUNE_SEARCHSPACE_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir::egg {

/// Stage-2 choices the generic lowering implements for `kernel` (structure
/// decided) on `target`: block and thread tiles of the loops `anchor`
/// tiles, in powers of two or whole loops, and vector widths up to the
/// anchor's. Ordered by closeness to `anchor` (the expert's choice, first),
/// at most `limit` of them. Every entry passes the dialect's verifier and
/// checkLowerable.
SmallVector<TuningAttr> enumerateTunings(KernelOp kernel, TargetAttr target,
                                         TuningAttr anchor, size_t limit = 512);

/// Steps between two tunings of one kernel: each halving or doubling of a
/// tile or of the vector width counts one.
double tuningDistance(TuningAttr a, TuningAttr b);

} // namespace mlir::egg

#endif // EGG_TUNE_SEARCHSPACE_H
