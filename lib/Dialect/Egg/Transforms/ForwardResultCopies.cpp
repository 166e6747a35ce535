//===- ForwardResultCopies.cpp - Results straight into out-params ---------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

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

/// The allocation a copy's source views through reshapes only, each used
/// only by the next (a result computed in one shape and returned
/// in another: a group norm's [N, G, C/G*H*W] as [N, C, H, W]). Fills
/// `chain` with the reshapes, last first.
static memref::AllocOp reshapedAlloc(Value source,
                                     SmallVectorImpl<Operation *> &chain) {
  while (Operation *def = source.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return alloc;
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def) ||
        !source.hasOneUse())
      return nullptr;
    chain.push_back(def);
    source = def->getOperand(0);
  }
  return nullptr;
}

/// `out` viewed with `type` (same element type and count, both contiguous
/// and static): collapsed to one dimension, then expanded.
static Value reshapeTo(OpBuilder &b, Location loc, Value out, MemRefType type) {
  auto outType = cast<MemRefType>(out.getType());
  if (outType == type)
    return out;
  Value flat = out;
  if (outType.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, outType.getRank()));
    flat = memref::CollapseShapeOp::create(b, loc, out,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return memref::ExpandShapeOp::create(b, loc, type.getShape(), flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// Whether `a` and `b` hold the same elements in the same order: static,
/// identity layouts, same element type and count.
static bool sameContiguousData(MemRefType a, MemRefType b) {
  return a.hasStaticShape() && b.hasStaticShape() &&
         a.getLayout().isIdentity() && b.getLayout().isIdentity() &&
         a.getElementType() == b.getElementType() &&
         a.getNumElements() == b.getNumElements() &&
         a.getMemorySpace() == b.getMemorySpace();
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
      SmallVector<Operation *> chain;
      memref::AllocOp alloc = reshapedAlloc(copy.getSource(), chain);
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!alloc || !out || out.getOwner() != &func.getBody().front() ||
          alloc->getBlock() != copy->getBlock() || !out.hasOneUse() ||
          !allOtherUsesBefore(alloc, copy))
        continue;
      if (alloc.getType() != out.getType() &&
          !sameContiguousData(alloc.getType(), cast<MemRefType>(out.getType())))
        continue;
      copy.erase();
      for (Operation *reshape : chain)
        reshape->erase();
      OpBuilder b(alloc);
      alloc.getResult().replaceAllUsesWith(
          reshapeTo(b, alloc.getLoc(), out, alloc.getType()));
      alloc.erase();
    }
  }
};
} // namespace
