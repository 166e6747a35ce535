//===- CollapseReducedLoops.cpp - One row for trailing reduced loops ------===//
//
// A reduction over several trailing dimensions laid out contiguously is a
// reduction over one row of their product. The row analyses and lowerings
// spread lanes along the innermost reduced loop only, so without this a
// mean over C x D x H x W = 24 x 22 x 30 x 30 is planned as rows of 30.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-collapse-reduced-loops"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGCOLLAPSEREDUCEDLOOPS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

/// Singletons for every loop of `numLoops` but `group`, which stays whole.
static SmallVector<ReassociationIndices>
withGroup(unsigned numLoops, const ReassociationIndices &group) {
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < numLoops;) {
    if (d == unsigned(group.front())) {
      groups.push_back(group);
      d += group.size();
      continue;
    }
    groups.push_back({int64_t(d)});
    ++d;
  }
  return groups;
}

/// Whether every map reads the loops of each group as plain dimensions, in
/// order and side by side (upstream's check passes a loop that only appears
/// inside a compound index, as a pooling window's does).
static bool readsGroupsPlainly(ArrayRef<AffineMap> maps,
                               ArrayRef<ReassociationIndices> groups) {
  for (AffineMap map : maps)
    for (AffineExpr result : map.getResults())
      if (!isa<AffineDimExpr>(result))
        for (const ReassociationIndices &g : groups)
          for (int64_t d : g)
            if (result.isFunctionOfDim(unsigned(d)))
              return false;
  return linalg::areDimSequencesPreserved(maps, groups);
}

/// The loops to merge in `op`: its reduced loops when there are two or
/// more, all trailing, every operand laying them out contiguously, and
/// every input that walks them read by `op` alone.
static std::optional<ReassociationIndices> reducedGroup(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || linalg::isaContractionOpInterface(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = iterators.size(), first = n;
  while (first > 0 && iterators[first - 1] == utils::IteratorType::reduction)
    --first;
  if (n - first < 2 || llvm::any_of(ArrayRef(iterators).take_front(first),
                                    [](utils::IteratorType t) {
                                      return t != utils::IteratorType::parallel;
                                    }))
    return std::nullopt;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::nullopt;
  ReassociationIndices group =
      llvm::to_vector(llvm::seq<int64_t>(int64_t(first), int64_t(n)));
  if (!readsGroupsPlainly(op.getIndexingMapsArray(), {group}))
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    bool walks = llvm::any_of(
        group, [&](int64_t d) { return map.isFunctionOfDim(unsigned(d)); });
    if (walks && llvm::any_of(input->get().getUsers(),
                              [&](Operation *user) { return user != op; }))
      return std::nullopt;
  }
  return group;
}

/// Whether `map` reads along a loop of a group of more than one.
static bool walksMerged(AffineMap map, ArrayRef<ReassociationIndices> groups) {
  return llvm::any_of(groups, [&](const ReassociationIndices &g) {
    return g.size() > 1 && llvm::any_of(g, [&](int64_t d) {
             return map.isFunctionOfDim(unsigned(d));
           });
  });
}

/// An elementwise generic that may run on a collapsed shape in place of its
/// result: its one reader is the collapse, its result layout the identity,
/// and every input that walks a merged dimension is laid out like it.
static bool isCollapsibleMap(linalg::GenericOp op,
                             ArrayRef<ReassociationIndices> groups) {
  if (!op || op->getNumResults() != 1 || !op->getResult(0).hasOneUse() ||
      !op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapMatchingResult(op->getResult(0)).isIdentity())
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (walksMerged(map, groups) && !map.isIdentity())
      return false;
  }
  SmallVector<ReassociationIndices> merged;
  for (const ReassociationIndices &g : groups)
    if (g.size() > 1)
      merged.push_back(g);
  return readsGroupsPlainly(op.getIndexingMapsArray(), merged);
}

/// Whether `value` and everything that computes it before a kernel boundary
/// can run on the collapsed shape: a chain of such generics down to
/// function arguments or reshapes (a prologue, which egg-form-kernels fuses
/// into its reader). A chain that starts at other work (a convolution whose
/// epilogue it is) stays as it is, read through a reshape.
static bool isCollapsiblePrologue(Value value,
                                  ArrayRef<ReassociationIndices> groups,
                                  unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
    return true;
  auto op = dyn_cast<linalg::GenericOp>(def);
  if (depth > 16 || !isCollapsibleMap(op, groups))
    return false;
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return !walksMerged(op.getMatchingIndexingMap(input), groups) ||
           isCollapsiblePrologue(input->get(), groups, depth + 1);
  });
}

/// Runs the producer of `collapse`'s source on the collapsed shape and
/// queues the reshapes of its own inputs.
static void collapseProducer(tensor::CollapseShapeOp collapse,
                             RewriterBase &rewriter,
                             SmallVectorImpl<tensor::CollapseShapeOp> &work) {
  auto producer = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (!producer || !isCollapsibleMap(producer, groups))
    return;
  rewriter.setInsertionPoint(producer);
  FailureOr<linalg::CollapseResult> result =
      linalg::collapseOpIterationDims(producer, groups, rewriter);
  if (failed(result))
    return;
  auto expand = result->results.front().getDefiningOp<tensor::ExpandShapeOp>();
  Value collapsed = result->collapsedOp->getResult(0);
  if (!expand || collapsed.getType() != collapse.getType())
    return;
  LLVM_DEBUG(llvm::dbgs() << "collapsed the producer " << result->collapsedOp
                          << "\n");
  rewriter.replaceOp(producer, result->results);
  rewriter.replaceOp(collapse, collapsed);
  rewriter.eraseOp(expand);
  for (Value operand : result->collapsedOp->getOperands())
    if (auto next = operand.getDefiningOp<tensor::CollapseShapeOp>())
      work.push_back(next);
}

namespace {
struct CollapseReducedLoopsPass
    : public egg::impl::EggCollapseReducedLoopsBase<CollapseReducedLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ReassociationIndices> group = reducedGroup(op))
        found.push_back({op, *group});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, group] : found) {
      SmallVector<ReassociationIndices> groups =
          withGroup(op.getNumLoops(), group);
      // The producers are merged too only where they are a prologue that
      // would fuse into the reduction's kernel.
      bool prologue =
          llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
            AffineMap map = op.getMatchingIndexingMap(input);
            return !walksMerged(map, groups) ||
                   (map.isIdentity() &&
                    isCollapsiblePrologue(input->get(), groups));
          });
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> result =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(result))
        continue;
      LLVM_DEBUG(llvm::dbgs()
                 << "merged " << group.size() << " reduced loops of "
                 << result->collapsedOp << "\n");
      rewriter.replaceOp(op, result->results);
      if (!prologue)
        continue;
      SmallVector<tensor::CollapseShapeOp> work;
      for (Value operand : result->collapsedOp->getOperands())
        if (auto collapse = operand.getDefiningOp<tensor::CollapseShapeOp>())
          work.push_back(collapse);
      while (!work.empty())
        collapseProducer(work.pop_back_val(), rewriter, work);
    }
    // An init that was an empty tensor is an empty tensor of the new shape,
    // not a reshape that would become a kernel input.
    getOperation().walk([&](tensor::CollapseShapeOp collapse) {
      if (auto empty = collapse.getSrc().getDefiningOp<tensor::EmptyOp>()) {
        rewriter.setInsertionPoint(collapse);
        rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
            collapse, collapse.getResultType().getShape(),
            collapse.getResultType().getElementType());
      }
    });
  }
};
} // namespace
