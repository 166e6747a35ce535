//===- SplitK.cpp - Split kernels as partial results and a sum ----------===//

#include "egg/Agents/SplitK.h"
#include "egg/Agents/Agent.h"
#include "egg/Agents/LegalSpace.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGSPLITK
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
struct SplitKPass : public egg::impl::EggSplitKBase<SplitKPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp kernel) {
      StructureAttr structure = kernel.getStructureAttr();
      if (structure && structure.isSplit())
        kernels.push_back(kernel);
    });
    if (kernels.empty())
      return;
    std::unique_ptr<Agent> expert = createExpertAgent();
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels) {
      TargetAttr target = lookupTarget(kernel);
      if (!target || !kernel.getTuningAttr()) {
        kernel.emitOpError("is split along its reduced loop but has no ")
            << (target ? "tuning" : "hardware profile")
            << ": run the decision stages first";
        return signalPassFailure();
      }
      // The partial results keep the kernel's tuning less the slice loop;
      // a cluster has no meaning there (checkLowerable refuses it too).
      if (kernel.getTuningAttr().getCluster() != 1) {
        kernel.emitOpError("is split along its reduced loop and asks for "
                           "cluster = ")
            << kernel.getTuningAttr().getCluster()
            << ": clusters are implemented for unsplit column reductions "
               "only";
        return signalPassFailure();
      }
      FailureOr<SplitKernels> split = splitKernel(rewriter, kernel);
      if (failed(split))
        return signalPassFailure();
      KernelOp sum = split->sum;
      FailureOr<TuningAttr> tuning = expert->chooseTuning(sum, target);
      if (failed(tuning) || failed(checkLowerable(sum, *tuning, [&]() {
            return sum.emitOpError();
          })))
        return signalPassFailure();
      sum.setTuningAttr(*tuning);
      if (failed(verify(split->partial)) || failed(verify(sum)))
        return signalPassFailure();
    }
  }
};
} // namespace
