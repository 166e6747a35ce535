//===- CostModel.h - Analytic kernel time estimates -------------*- C++ -*-===//
//
// What egg-tune ranks candidates by when no GPU is available: a roofline
// (bytes and FLOPs against the target profile's ceilings) derated by the
// parallelism the tuning exposes (Little's law: bytes in flight), by wave
// quantisation, by uncoalesced row walks and, for contractions, by the
// operand reuse of the register tile. Every figure it gives is an estimate
// and is labelled so wherever it is shown (docs/egg-tune.md).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_COSTMODEL_H
#define EGG_TUNE_COSTMODEL_H

#include "egg/Dialect/Egg/IR/EggOps.h"

#include <string>

namespace mlir::egg {

/// The least work a kernel must do: every operand read once and every
/// result written once, and the floating-point operations of its loops.
struct KernelWork {
  double bytes = 0;
  double flops = 0;
};
KernelWork measureWork(KernelOp kernel);

struct KernelEstimate {
  double timeMs = 0;
  /// Roofline floor: the larger of bytes / bandwidth and FLOPs / peak.
  double floorMs = 0;
  KernelWork work;
  /// What limits the estimate: "memory", "compute", "cache" or "launch".
  std::string limiter;
};

/// Estimates `kernel` (its structure decided) run with `tuning` on `target`.
KernelEstimate estimateKernel(KernelOp kernel, TuningAttr tuning,
                              TargetAttr target);

} // namespace mlir::egg

#endif // EGG_TUNE_COSTMODEL_H
