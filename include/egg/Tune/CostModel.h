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

#include "egg/Agents/KernelWork.h"

#include <string>

namespace mlir::egg {

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
