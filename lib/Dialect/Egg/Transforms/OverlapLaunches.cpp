//===- OverlapLaunches.cpp - Programmatic dependent launches --------------===//
//
// Consecutive kernels of a function (a split product's partial products and
// their sum) run one after the other: the second launches only when the
// first has finished, and its blocks then start from nothing (3.5-6 us for
// a split product's sum on the H200, mostly launch). On Hopper a kernel
// may instead be launched while the one before it runs (programmatic
// dependent launch): it begins with `griddepcontrol.wait`, which holds it
// until the previous grid has completed and its writes are visible, and
// the previous grid's `griddepcontrol.launch_dependents` lets the runtime
// schedule it early. Every kernel gets both at its entry (wait first:
// nothing may be read before the previous kernel is done; launched
// normally, both do nothing), and the launches of kernels that asked for
// it (`egg.overlap_previous` on their function: a split product's sum) are
// marked `egg.waits_for_previous`, which the manifest passes on so that
// hosts launch them that way. Other launches stay ordinary: a pad followed
// by its convolution (examples/conv_padded) took 3.3x as long overlapped
// on the H200 (session 19), for a reason not yet understood.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGOVERLAPLAUNCHES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
struct OverlapLaunchesPass
    : public egg::impl::EggOverlapLaunchesBase<OverlapLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.getBody().empty())
        return;
      OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
      NVVM::GriddepcontrolOp::create(b, func.getLoc(),
                                     NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(
          b, func.getLoc(), NVVM::GridDepActionKind::launch_dependents);
    });
    // Before inlining, a kernel's launches are still in the function it was
    // outlined into.
    module.walk([](func::FuncOp func) {
      if (!func->hasAttr(egg::EggDialect::getOverlapPreviousAttrName()))
        return;
      func.walk([](gpu::LaunchFuncOp launch) {
        launch->setAttr(egg::EggDialect::getWaitsForPreviousAttrName(),
                        UnitAttr::get(launch.getContext()));
      });
    });
  }
};
} // namespace
