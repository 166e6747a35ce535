//===- InlineKernels.cpp - Dissolve egg.kernel ops ------------------------===//

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGINLINEKERNELS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
struct InlineKernelsPass
    : public egg::impl::EggInlineKernelsBase<InlineKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp k) { kernels.push_back(k); });
    for (KernelOp kernel : kernels) {
      auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
      SmallVector<Value> results(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&kernel.getBodyBlock(), kernel,
                                 kernel.getInputs());
      rewriter.replaceOp(kernel, results);
    }
  }
};
} // namespace
