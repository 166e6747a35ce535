//===- KernelWork.cpp - The least work a kernel must do -------------------===//

#include "egg/Agents/KernelWork.h"
#include "egg/Analysis/GemmAnalysis.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::egg;

static double bytesOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return double(shaped.getNumElements()) *
         ((shaped.getElementTypeBitWidth() + 7) / 8);
}

KernelWork mlir::egg::measureWork(KernelOp kernel) {
  KernelWork work;
  for (Type t : kernel.getInputs().getTypes())
    work.bytes += bytesOf(t);
  for (Type t : kernel->getResultTypes())
    work.bytes += bytesOf(t);
  kernel.walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      double iterations = 1;
      for (int64_t extent : linalgOp.getStaticLoopRanges())
        iterations *= ShapedType::isDynamic(extent) ? 1 : double(extent);
      int64_t ops = 0;
      for (Operation &inner : linalgOp.getBlock()->without_terminator())
        if (llvm::any_of(inner.getResultTypes(),
                         [](Type t) { return isa<FloatType>(t); }))
          ++ops;
      work.flops += iterations * ops;
    } else if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      // max, subtract, exp, sum, divide per element.
      work.flops += 5 * bytesOf(softmax.getOutput().getType()) /
                    ((cast<ShapedType>(softmax.getOutput().getType())
                          .getElementTypeBitWidth() +
                      7) /
                     8);
    }
  });
  std::string why;
  Operation *anchor = kernel.getAnchorOp();
  if (anchor && succeeded(analyzeGemmLoops(anchor, why))) {
    Type a = getElementTypeOrSelf(
        cast<linalg::LinalgOp>(anchor).getDpsInputOperand(0)->get());
    work.tensorCores =
        a.isF16() || a.isBF16() || (a.isF32() && allowsTf32(kernel));
    work.tf32 = work.tensorCores && a.isF32();
  }
  return work;
}

double mlir::egg::peakFlops(TargetAttr target, bool tensorCores, bool tf32) {
  if (!tensorCores)
    return double(target.getFp32Gflops()) * 1e9;
  return double(target.getTensorGflops()) * 1e9 / (tf32 ? 2.0 : 1.0);
}

double mlir::egg::rooflineFloorMs(const KernelWork &work, TargetAttr target) {
  double bandwidth = double(target.getDramGbps()) * 1e9; // bytes/s
  double peak = peakFlops(target, work.tensorCores, work.tf32);
  return 1e3 * std::max(work.bytes / bandwidth, work.flops / peak);
}
