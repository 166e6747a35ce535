//===- UnrollPrivateTiles.cpp - Keep a thread's tile in registers ---------===//
//
// LLVM promotes a thread's private array to registers only where every
// access has a constant index; the loops over a thread's tile of outputs
// (after linalg-to-loops) index it with their induction variables and
// NVPTX's unroller leaves loops of more than a few hundred instructions
// rolled. Unrolling them here keeps the tile in registers and lets LLVM
// share the loads that neighbouring outputs make of the same inputs.
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-unroll-private-tiles"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGUNROLLPRIVATETILES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

/// The private buffer (a small static alloca) that `memref` views, if any.
static memref::AllocaOp privateTile(Value memref, int64_t maxElements) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(def)) {
      MemRefType type = alloca.getType();
      if (!type.hasStaticShape() || type.getNumElements() > maxElements)
        return {};
      return alloca;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return {};
    memref = view.getViewSource();
  }
  return {};
}

/// Whether `value` is computed from `iv` by operations inside `loop`.
static bool dependsOn(Value value, Value iv, scf::ForOp loop) {
  SmallVector<Value> work = {value};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv)
      return true;
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isProperAncestor(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Whether `loop`'s induction variable indexes a private tile: an index of
/// an access, or an offset of a view, of such a tile inside the loop.
static bool indexesPrivateTile(scf::ForOp loop, int64_t maxElements) {
  Value iv = loop.getInductionVar();
  WalkResult found = loop.getBody()->walk([&](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
      memref = view.getViewSource();
      indices = op->getOperands().drop_front();
    } else {
      return WalkResult::advance();
    }
    if (!privateTile(memref, maxElements))
      return WalkResult::advance();
    for (Value index : indices)
      if (dependsOn(index, iv, loop))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether the kernel function's threads each own a tile of its outputs
/// (egg-apply-schedule's thread tiles). Rows shared by lanes, scans and
/// block ops kept whole have register plans of their own: unrolled, a
/// lane's loop over the rows it holds grew a row softmax eightfold.
static bool ownsThreadTiles(func::FuncOp func) {
  auto structure = func->getAttrOfType<egg::StructureAttr>(
      egg::EggDialect::getStructureAttrName());
  auto tuning = func->getAttrOfType<egg::TuningAttr>(
      egg::EggDialect::getTuningAttrName());
  return structure && tuning && !egg::isCooperativeRow(structure) &&
         structure.getFormulation() != egg::Formulation::scan_warp &&
         !egg::lowersBlockOpsWhole(structure, tuning);
}

static int64_t countOps(scf::ForOp loop) {
  int64_t ops = 0;
  loop.getBody()->walk([&](Operation *) { ++ops; });
  return ops;
}

namespace {
struct UnrollPrivateTilesPass
    : public egg::impl::EggUnrollPrivateTilesBase<UnrollPrivateTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // Post-order: inner loops come first, so an outer loop is measured with
    // its inner loops already unrolled.
    getOperation().walk([&](gpu::LaunchOp launch) {
      auto func = launch->getParentOfType<func::FuncOp>();
      if (func && ownsThreadTiles(func))
        launch.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    });
    for (scf::ForOp loop : loops) {
      std::optional<APInt> count = loop.getStaticTripCount();
      if (!count || count->getZExtValue() <= 1 ||
          !indexesPrivateTile(loop, maxElements))
        continue;
      int64_t trips = count->getZExtValue(), ops = countOps(loop);
      if (trips * ops > maxOps) {
        LLVM_DEBUG(llvm::dbgs() << "kept rolled (" << trips << " x " << ops
                                << " ops): " << loop.getLoc() << "\n");
        continue;
      }
      if (failed(loopUnrollFull(loop))) {
        loop.emitError("could not unroll the loop over a private tile");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
