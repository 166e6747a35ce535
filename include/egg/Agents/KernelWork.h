//===- KernelWork.h - The least work a kernel must do -----------*- C++ -*-===//
//
// Bytes moved and floating-point operations of a kernel, and the roofline
// floor they give on a target: what the cost model ranks against and what
// the LLM agents are told about a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_KERNELWORK_H
#define EGG_AGENTS_KERNELWORK_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir::egg {

/// Every operand read once and every result written once, and the
/// floating-point operations of the kernel's loops.
struct KernelWork {
  double bytes = 0;
  double flops = 0;
  /// A matrix product tensor cores may compute: f16/bf16 inputs, or f32
  /// ones read as TF32 where the module allows it (half the 16-bit rate).
  bool tensorCores = false, tf32 = false;
};
KernelWork measureWork(KernelOp kernel);

/// FLOP/s of `target`: its tensor-core rate (half of it for TF32), else
/// its fp32 rate.
double peakFlops(TargetAttr target, bool tensorCores, bool tf32);

/// The larger of bytes / DRAM bandwidth and FLOPs / peak, in ms; the peak
/// is the tensor-core rate for products that may use them, else fp32's.
double rooflineFloorMs(const KernelWork &work, TargetAttr target);

} // namespace mlir::egg

#endif // EGG_AGENTS_KERNELWORK_H
