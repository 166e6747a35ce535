//===- SplitK.cpp - Split products and column reductions ------------------===//

#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGSPLITK
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// More slices would make the sum kernel read more partial results than
/// the split saves (the legal space offers at most 8 for products, 64 for
/// column reductions).
static constexpr int64_t kMaxSlices = 64;

namespace {
/// What checkSplitK found: the product or column reduction, its reduced
/// loop and its initial value.
struct SplitPlan {
  linalg::LinalgOp anchor;
  /// A product (`gemm_split_k`), else a column reduction
  /// (`reduce_two_stage`).
  bool product = true;
  unsigned k = 0;     ///< The reduced loop: K, or the reduction's rows.
  int64_t extent = 0; ///< Its extent.
  /// The fill that starts the accumulator, or null when it starts from a
  /// kernel input.
  linalg::FillOp fill;
  /// The op of the anchor's body that folds values into the accumulator
  /// (sliceCombiner).
  Operation *combiner = nullptr;
};
} // namespace

/// The op that folds the body's value into the accumulator (`acc + x`,
/// `max(acc, x)`, `min(acc, x)`, the accumulator used by it alone), by
/// which the slices' partial results can be combined afterwards; null
/// otherwise. (maxnumf / minnumf are left out: their neutral element is
/// NaN, which a `nnan` flag would make poison.)
static Operation *sliceCombiner(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1)
    return nullptr;
  Operation *c = yield.getOperand(0).getDefiningOp();
  BlockArgument acc = body->getArguments().back();
  if (!c || c->getBlock() != body ||
      !isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp>(c) ||
      !acc.hasOneUse() || c->getOperand(0) == c->getOperand(1) ||
      (c->getOperand(0) != acc && c->getOperand(1) != acc))
    return nullptr;
  return c;
}

static FailureOr<SplitPlan>
planSplit(KernelOp kernel, Formulation formulation, int64_t splitK,
          function_ref<InFlightDiagnostic()> emitError) {
  SplitPlan plan;
  plan.product = formulation == Formulation::gemm_split_k;
  StringRef name = stringifyFormulation(formulation);
  if (formulation != Formulation::gemm_split_k &&
      formulation != Formulation::reduce_two_stage)
    return emitError() << name << " does not split";
  if (plan.product != (classifyKernel(kernel) == KernelClass::Contraction))
    return emitError() << name << " splits "
                       << (plan.product ? "a product" : "a column reduction")
                       << ": the kernel's anchor is not one";
  if (splitK > kMaxSlices)
    return emitError() << name << ": " << splitK << " slices exceed "
                       << kMaxSlices;
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (plan.product) {
    std::string why;
    FailureOr<GemmLoops> loops =
        anchor ? analyzeGemmLoops(anchor, why) : FailureOr<GemmLoops>();
    if (failed(loops))
      return emitError() << "gemm_split_k: " << why;
    if (loops->kLoops.size() != 1)
      return emitError() << "gemm_split_k splits a product with one K loop, "
                            "not "
                         << loops->kLoops.size();
    plan.k = loops->kLoops.front();
    if (anchor.getNumDpsInputs() != 2)
      return emitError() << "gemm_split_k needs a two-input product";
  } else {
    std::optional<unsigned> rows = columnReductionLoop(kernel);
    if (!anchor || !rows)
      return emitError() << "reduce_two_stage splits a column reduction: "
                            "one reduction loop that is not innermost, "
                            "inputs contiguous along the innermost loop";
    plan.k = *rows;
  }
  plan.anchor = anchor;
  SmallVector<int64_t> extents = anchor.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic) ||
      llvm::any_of(anchor->getOperandTypes(), [](Type t) {
        auto shaped = dyn_cast<ShapedType>(t);
        return !shaped || !shaped.hasStaticShape();
      }))
    return emitError() << name << " needs static shapes";
  plan.extent = extents[plan.k];
  if (splitK < 2 || plan.extent % splitK != 0 || plan.extent / splitK < 16)
    return emitError() << name << ": " << splitK << " slices do not divide "
                       << (plan.product ? "K" : "the reduced loop") << " = "
                       << plan.extent << " into slices of 16 or more";
  if (anchor.getNumDpsInits() != 1 ||
      !isa<FloatType>(getElementTypeOrSelf(anchor->getResult(0).getType())))
    return emitError() << name << " needs one floating-point result";
  plan.combiner = sliceCombiner(anchor);
  if (!plan.combiner || (plan.product && !isa<arith::AddFOp>(plan.combiner)))
    return emitError() << name << " combines the slices afterwards: the "
                       << (plan.product ? "product" : "reduction")
                       << "'s body must fold its value into the accumulator "
                       << (plan.product ? "by an add"
                                        : "by an add, a maximum or a minimum");
  for (OpOperand *in : anchor.getDpsInputOperands())
    if (!isa<BlockArgument>(in->get()))
      return emitError() << name << " needs the "
                         << (plan.product ? "product" : "reduction")
                         << "'s inputs to be kernel inputs (no fused "
                            "prologue)";
  // The result's dimensions are the parallel loops in order, so the tile
  // lists of the kernel's root and of the partial results line up.
  AffineMap out = anchor.getIndexingMapMatchingResult(anchor->getResult(0));
  SmallVector<unsigned> parallel;
  anchor.getParallelDims(parallel);
  // The slice loop comes in front of the parallel loops, and a grid has
  // three dimensions.
  if (parallel.size() > 2)
    return emitError() << name << " splits kernels of at most two parallel "
                       << "loops, not " << parallel.size()
                       << ": the slices would need a fourth grid dimension";
  bool ordered = out.getNumResults() == parallel.size();
  for (auto [expr, loop] : llvm::zip(out.getResults(), parallel))
    ordered &= expr == getAffineDimExpr(loop, kernel.getContext());
  Operation *root = kernel.getRootOp();
  if (auto linalgRoot = dyn_cast_or_null<linalg::LinalgOp>(root);
      root != anchor.getOperation() &&
      !(linalgRoot && linalgRoot.getNumParallelLoops() == parallel.size() &&
        linalgRoot.getNumReductionLoops() == 0 &&
        llvm::all_of(linalgRoot.getIndexingMapsArray(),
                     [](AffineMap m) { return m.isProjectedPermutation(); })))
    ordered = false;
  if (!ordered)
    return emitError() << name << " needs the result indexed by the parallel "
                       << "loops in order";
  Value init = anchor.getDpsInitOperand(0)->get();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (!fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() ||
        !fill->hasOneUse())
      return emitError() << name << ": the fill must fill an empty tensor "
                         << "used only by the "
                         << (plan.product ? "product" : "reduction");
    plan.fill = fill;
  } else if (!isa<BlockArgument>(init)) {
    return emitError() << name << " needs the accumulator to start from a "
                       << "fill or a kernel input";
  }
  // Only what builds the accumulator may come before the anchor.
  for (Operation &op : kernel.getBodyBlock()) {
    if (&op == anchor.getOperation())
      break;
    if (!isa<arith::ConstantOp, tensor::EmptyOp, linalg::FillOp>(op))
      return emitError() << name << ": '" << op.getName() << "' before the "
                         << (plan.product ? "product" : "reduction")
                         << " would be computed once per slice";
  }
  return plan;
}

LogicalResult
mlir::egg::checkSplitK(KernelOp kernel, Formulation formulation, int64_t splitK,
                       function_ref<InFlightDiagnostic()> emitError) {
  return planSplit(kernel, formulation, splitK, emitError);
}

/// `list` with `value` in front, or empty when `list` is.
static SmallVector<int64_t> prepend(int64_t value, ArrayRef<int64_t> list) {
  SmallVector<int64_t> result;
  if (list.empty())
    return result;
  result.push_back(value);
  llvm::append_range(result, list);
  return result;
}

static TuningAttr withLists(TuningAttr t, ArrayRef<int64_t> block,
                            ArrayRef<int64_t> warp, ArrayRef<int64_t> thread) {
  return TuningBuilder(t.getContext())
      .threads(t.getThreads())
      .block(block)
      .warp(warp)
      .thread(thread)
      .reduction(t.getReduction())
      .shared(t.getShared())
      .registers(t.getRegisters())
      .padding(t.getPadding())
      .swizzle(t.getSwizzle())
      .vector(t.getVector())
      .copy(t.getCopy())
      .pipeline(t.getPipeline())
      .fragmentsAhead(t.getFragmentsAhead())
      .tf32Terms(t.getTf32Terms())
      .mma(t.getMma())
      .get();
}

TuningAttr mlir::egg::partialTuning(TuningAttr tuning) {
  if (!tuning)
    return tuning;
  return withLists(tuning, prepend(1, tuning.getBlock()),
                   prepend(1, tuning.getWarp()),
                   prepend(1, tuning.getThread()));
}

TuningAttr mlir::egg::splitTuning(TuningAttr partial) {
  if (!partial)
    return partial;
  auto dropFront = [](ArrayRef<int64_t> list) {
    return list.empty() ? list : list.drop_front();
  };
  return withLists(partial, dropFront(partial.getBlock()),
                   dropFront(partial.getWarp()),
                   dropFront(partial.getThread()));
}

/// The partial results: `anchor`'s loops with the slice loop in front and
/// the reduced loop cut to one slice; the inputs that read the reduced loop
/// expanded so the slice is a dimension of theirs. Built into `partial`,
/// whose body has `inputs` (the anchor's, in order) as arguments.
static Value buildPartial(OpBuilder &b, const SplitPlan &plan, int64_t splitK,
                          ValueRange operands) {
  linalg::LinalgOp anchor = plan.anchor;
  Location loc = anchor.getLoc();
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = anchor.getNumLoops();
  int64_t slice = plan.extent / splitK;
  AffineExpr s = getAffineDimExpr(0, ctx);
  auto shifted = [&](AffineExpr e) { return e.shiftDims(numLoops, 1); };

  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  SmallVector<OpOperand *> anchorInputs = anchor.getDpsInputOperands();
  for (auto [value, operand] : llvm::zip(operands, anchorInputs)) {
    AffineMap map = anchor.getMatchingIndexingMap(operand);
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    bool expanded = false;
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      ReassociationIndices group;
      if (expr == getAffineDimExpr(plan.k, ctx)) {
        group = {int64_t(shape.size()), int64_t(shape.size() + 1)};
        results.append({s, shifted(expr)});
        shape.append({splitK, slice});
        expanded = true;
      } else {
        group = {int64_t(shape.size())};
        results.push_back(shifted(expr));
        shape.push_back(type.getDimSize(dim));
      }
      groups.push_back(group);
    }
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    // An input that does not read the reduced loop is read whole by every
    // slice.
    inputs.push_back(
        expanded
            ? tensor::ExpandShapeOp::create(
                  b, loc, RankedTensorType::get(shape, type.getElementType()),
                  value, groups)
                  .getResult()
            : value);
  }

  AffineMap out = anchor.getIndexingMapMatchingResult(anchor->getResult(0));
  SmallVector<AffineExpr> outResults = {s};
  for (AffineExpr e : out.getResults())
    outResults.push_back(shifted(e));
  maps.push_back(AffineMap::get(numLoops + 1, 0, outResults, ctx));
  auto resultType = cast<RankedTensorType>(anchor->getResult(0).getType());
  SmallVector<int64_t> shape = {splitK};
  llvm::append_range(shape, resultType.getShape());
  Type element = resultType.getElementType();
  // Each slice starts from the combiner's neutral element (0 for a sum):
  // the initial value is combined once, by the sum kernel.
  TypedAttr seed = b.getZeroAttr(element);
  if (!isa<arith::AddFOp>(plan.combiner))
    seed = *arith::getNeutralElement(plan.combiner);
  Value neutral = arith::ConstantOp::create(b, loc, element, seed);
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  Value init = linalg::FillOp::create(b, loc, neutral, empty).getResult(0);

  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  llvm::append_range(iterators, anchor.getIteratorTypesArray());
  auto generic = linalg::GenericOp::create(b, loc, init.getType(), inputs,
                                           ValueRange{init}, maps, iterators);
  IRMapping mapping;
  anchor->getRegion(0).cloneInto(&generic.getRegion(), mapping);
  return generic.getResult(0);
}

FailureOr<SplitKernels> mlir::egg::splitKernel(RewriterBase &rewriter,
                                               KernelOp kernel) {
  StructureAttr structure = kernel.getStructureAttr();
  if (!structure || !structure.isSplit())
    return kernel.emitOpError("is not a split kernel (gemm_split_k, or "
                              "reduce_two_stage with split_k > 1)");
  int64_t splitK = structure.getSplitK();
  FailureOr<SplitPlan> plan =
      planSplit(kernel, structure.getFormulation(), splitK,
                [&]() { return kernel.emitOpError(); });
  if (failed(plan))
    return failure();
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(kernel);

  // The partial results take the anchor's inputs (each once).
  SmallVector<Value> partialInputs;
  SmallVector<unsigned> argOf;
  for (OpOperand *in : plan->anchor.getDpsInputOperands()) {
    Value outer =
        kernel.getInputs()[cast<BlockArgument>(in->get()).getArgNumber()];
    auto it = llvm::find(partialInputs, outer);
    argOf.push_back(it - partialInputs.begin());
    if (it == partialInputs.end())
      partialInputs.push_back(outer);
  }
  auto resultType =
      cast<RankedTensorType>(plan->anchor->getResult(0).getType());
  SmallVector<int64_t> shape = {splitK};
  llvm::append_range(shape, resultType.getShape());
  auto partialType = RankedTensorType::get(shape, resultType.getElementType());
  auto partial = KernelOp::create(rewriter, loc, kernel.getSymName(),
                                  TypeRange{partialType}, partialInputs);
  {
    OpBuilder::InsertionGuard bodyGuard(rewriter);
    Block &body = partial.getBodyBlock();
    rewriter.setInsertionPointToStart(&body);
    SmallVector<Value> operands;
    for (unsigned arg : argOf)
      operands.push_back(body.getArgument(arg));
    YieldOp::create(rewriter, loc,
                    buildPartial(rewriter, *plan, splitK, operands));
  }
  partial.setStructureAttr(StructureAttr::get(
      ctx,
      plan->product ? Formulation::gemm_direct : Formulation::reduce_two_stage,
      1));
  if (TuningAttr tuning = kernel.getTuningAttr())
    partial.setTuningAttr(partialTuning(tuning));

  // The sum: the kernel itself with the product (or reduction) replaced by its
  // initial value plus the S slices, an elementwise kernel (16-byte
  // accesses, as any map), so the epilogue is untouched.
  auto sum = cast<KernelOp>(rewriter.clone(*kernel));
  sum.setSymName((kernel.getSymName() + "_sum").str());
  // It may launch while the partial results run (egg-overlap-launches):
  // it waits for them before it reads anything.
  sum->setAttr(EggDialect::getOverlapPreviousAttrName(), UnitAttr::get(ctx));
  sum.setStructureAttr(
      StructureAttr::get(ctx, Formulation::elementwise_flat, 1));
  sum.removeTuningAttr();
  sum.getInputsMutable().append(partial.getResult(0));
  Block &body = sum.getBodyBlock();
  BlockArgument slices = body.addArgument(partialType, loc);
  auto reduced = cast<linalg::LinalgOp>(sum.getAnchorOp());
  {
    OpBuilder::InsertionGuard bodyGuard(rewriter);
    rewriter.setInsertionPoint(reduced);
    unsigned rank = resultType.getRank();
    // Slice s of the workspace, shaped as the result (egg-apply-schedule
    // folds these into the tiles' slices, so each launch takes the whole
    // workspace).
    SmallVector<Value> parts;
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1)};
    for (int64_t d : resultType.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
    for (int64_t s = 0; s < splitK; ++s) {
      SmallVector<OpFoldResult> offsets(rank + 1, rewriter.getIndexAttr(0));
      offsets[0] = rewriter.getIndexAttr(s);
      parts.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, resultType, slices, offsets, sizes, strides));
    }
    // The initial value is read as an input: a fill's value then starts
    // the sum in registers instead of being stored first.
    Value init = reduced.getDpsInitOperand(0)->get();
    Value start;
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      start = fill.getInputs()[0];
    else
      parts.insert(parts.begin(), init);
    Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          resultType.getElementType());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineMap> maps(parts.size() + 1, identity);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // The slices are combined as the body combined its values (an add,
    // a maximum, a minimum): a copy of the combiner per slice.
    Operation *combiner = sliceCombiner(reduced);
    auto combine = linalg::GenericOp::create(
        rewriter, loc, resultType, parts, ValueRange{empty}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          ValueRange in = args.drop_back();
          Value acc = start ? start : in.front();
          for (Value part : start ? in : in.drop_front()) {
            IRMapping operands;
            operands.map(combiner->getOperand(0), acc);
            operands.map(combiner->getOperand(1), part);
            acc = b.clone(*combiner, operands)->getResult(0);
          }
          linalg::YieldOp::create(b, l, acc);
        });
    rewriter.replaceOp(reduced, combine.getResults());
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      Operation *filled = fill.getOutputs()[0].getDefiningOp();
      rewriter.eraseOp(fill);
      if (filled->use_empty())
        rewriter.eraseOp(filled);
    }
  }
  // Drop the inputs only the product or reduction read.
  for (unsigned i = body.getNumArguments(); i-- > 0;) {
    if (!body.getArgument(i).use_empty())
      continue;
    body.eraseArgument(i);
    sum.getInputsMutable().erase(i);
  }
  rewriter.replaceOp(kernel, sum.getResults());
  return SplitKernels{partial, sum};
}

LogicalResult
mlir::egg::withSplitCopy(KernelOp kernel, StructureAttr structure,
                         TuningAttr tuning,
                         function_ref<LogicalResult(SplitKernels)> fn) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  if (auto module = kernel->getParentOfType<ModuleOp>())
    (*scratch)->setAttrs(module->getAttrDictionary());
  // What an enclosing op other than the nearest module holds, too.
  if (TargetAttr target = lookupTarget(kernel))
    (*scratch)->setAttr(EggDialect::getTargetAttrName(), target);
  if (allowsTf32(kernel))
    (*scratch)->setAttr(EggDialect::getAllowTf32AttrName(), UnitAttr::get(ctx));
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(scratch->getBody());
  auto func =
      func::FuncOp::create(b, loc, "split_copy",
                           b.getFunctionType(kernel.getInputs().getTypes(),
                                             kernel.getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping mapping;
  mapping.map(kernel.getInputs(), entry->getArguments());
  auto copy = cast<KernelOp>(b.clone(*kernel, mapping));
  copy.setStructureAttr(structure);
  if (tuning)
    copy.setTuningAttr(tuning);
  else
    copy.removeTuningAttr();
  func::ReturnOp::create(b, loc, copy.getResults());
  IRRewriter rewriter(ctx);
  FailureOr<SplitKernels> split = splitKernel(rewriter, copy);
  if (failed(split))
    return failure();
  return fn(*split);
}

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
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels) {
      if (!kernel.getTuningAttr()) {
        kernel.emitOpError("is split along its reduced loop but has no "
                           "tuning: run the decision stages first");
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
      if (failed(verify(split->partial)) || failed(verify(split->sum)))
        return signalPassFailure();
    }
  }
};
} // namespace
