//===- ForwardResultCopies.cpp - Results straight into out-params ---------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGFORWARDRESULTCOPIES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// True if every use of `value` other than `last` is in an op before `last`
/// in its block.
static bool allOtherUsesBefore(Value value, Operation *last) {
  Block *block = last->getBlock();
  for (Operation *user : value.getUsers()) {
    if (user == last)
      continue;
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || !top->isBeforeInBlock(last))
      return false;
  }
  return true;
}

namespace {
struct ForwardResultCopiesPass
    : public egg::impl::EggForwardResultCopiesBase<ForwardResultCopiesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    SmallVector<memref::CopyOp> copies;
    for (auto copy : func.getBody().front().getOps<memref::CopyOp>())
      copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!alloc || !out || out.getOwner() != &func.getBody().front() ||
          alloc->getBlock() != copy->getBlock() ||
          alloc.getType() != out.getType() || !out.hasOneUse() ||
          !allOtherUsesBefore(alloc, copy))
        continue;
      alloc.getResult().replaceAllUsesWith(out);
      copy.erase();
      alloc.erase();
    }
  }
};
} // namespace
