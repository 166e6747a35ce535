//===- OverlapLaunches.cpp - Programmatic dependent launches --------------===//
//
// Consecutive kernels of a function (a split product's partial products and
// their sum, a pad and its convolution) run one after the other: the second
// launches only when the first has finished, and its blocks then start from
// nothing (3-6 us for a small sum kernel on the H200, mostly launch). On
// Hopper a kernel may instead be launched while the one before it runs
// (programmatic dependent launch): it begins with `griddepcontrol.wait`,
// which holds it until the previous grid has completed and its writes are
// visible, and the previous grid's `griddepcontrol.launch_dependents` lets
// the runtime schedule it early. Here every kernel gets both at its entry
// (wait first: nothing may be read before the previous kernel is done),
// and every launch of it is marked `egg.waits_for_previous`, which the
// manifest passes on so that hosts may launch it that way. Launched
// normally, both instructions do nothing.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

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
    module.walk([](gpu::LaunchFuncOp launch) {
      launch->setAttr(egg::EggDialect::getWaitsForPreviousAttrName(),
                      UnitAttr::get(launch.getContext()));
    });
  }
};
} // namespace
