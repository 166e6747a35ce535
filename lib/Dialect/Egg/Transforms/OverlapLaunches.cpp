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
// schedule it early. A kernel that asks for it (`egg.overlap_previous` on
// its function: a split product's sum) and the kernel launched before it
// get both at their entry (wait first: nothing may be read before the
// previous kernel is done; launched normally, both do nothing); the
// launches of the one that asked are marked `egg.waits_for_previous`,
// which the manifest passes on so that hosts launch them that way. Other
// kernels are left as they are: a pad followed
// by its convolution (examples/conv_padded) took 3.3x as long overlapped
// on the H200, for a reason not yet understood (docs/pipeline.md,
// "Launches that overlap").
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggAttrs.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Target/Profiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGOVERLAPLAUNCHES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

/// Begins `kernel` with the wait for the grid before it and the signal
/// that the grid after it may be scheduled.
static void instrument(gpu::GPUFuncOp kernel) {
  if (kernel.getBody().empty())
    return;
  Block &entry = kernel.getBody().front();
  if (!entry.empty() && isa<NVVM::GriddepcontrolOp>(entry.front()))
    return;
  OpBuilder b(&entry, entry.begin());
  NVVM::GriddepcontrolOp::create(b, kernel.getLoc(),
                                 NVVM::GridDepActionKind::wait);
  NVVM::GriddepcontrolOp::create(b, kernel.getLoc(),
                                 NVVM::GridDepActionKind::launch_dependents);
}

namespace {
struct OverlapLaunchesPass
    : public egg::impl::EggOverlapLaunchesBase<OverlapLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // griddepcontrol exists from sm_90 on.
    if (auto target = module->getAttrOfType<egg::TargetAttr>(
            egg::EggDialect::getTargetAttrName());
        target && !supportsDependentLaunch(target))
      return;
    SymbolTableCollection symbols;
    // Before inlining, each kernel's launches are in the function it was
    // outlined into, which the host function calls in order.
    auto launchesOf = [&](func::FuncOp func) {
      func.walk([&](gpu::LaunchFuncOp launch) {
        if (auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                launch, launch.getKernel()))
          instrument(kernel);
      });
    };
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee ||
          !callee->hasAttr(egg::EggDialect::getOverlapPreviousAttrName()))
        return;
      // The kernel that asked, and the one before it (its trigger lets the
      // runtime schedule the one that asked early).
      callee.walk([](gpu::LaunchFuncOp launch) {
        launch->setAttr(egg::EggDialect::getWaitsForPreviousAttrName(),
                        UnitAttr::get(launch.getContext()));
      });
      launchesOf(callee);
      for (Operation *op = call->getPrevNode(); op; op = op->getPrevNode())
        if (auto previous = dyn_cast<func::CallOp>(op)) {
          if (auto before = symbols.lookupNearestSymbolFrom<func::FuncOp>(
                  previous, previous.getCalleeAttr()))
            launchesOf(before);
          break;
        }
    });
  }
};
} // namespace
