//===- EggOps.cpp - EGG operations ----------------------------------------===//

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Target/Limits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::egg;

#define GET_OP_CLASSES
#include "egg/Dialect/Egg/IR/EggOps.cpp.inc"

TargetAttr mlir::egg::lookupTarget(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto target =
            cur->getAttrOfType<TargetAttr>(EggDialect::getTargetAttrName()))
      return target;
  return {};
}

bool mlir::egg::allowsTf32(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (cur->hasAttr(EggDialect::getAllowTf32AttrName()))
      return true;
  return false;
}

bool mlir::egg::allowsSplitK(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (cur->hasAttr(EggDialect::getNoSplitKAttrName()))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     TypeRange resultTypes, ValueRange inputs) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

Operation *KernelOp::getAnchorOp() {
  Operation *lastLinalg = nullptr, *lastAnchor = nullptr;
  for (Operation &op : getBodyBlock()) {
    if (!isa<linalg::LinalgDialect>(op.getDialect()))
      continue;
    lastLinalg = &op;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || linalgOp.getNumReductionLoops() > 0)
      lastAnchor = &op; // Reductions and aggregate ops (softmax) anchor.
  }
  return lastAnchor ? lastAnchor : lastLinalg;
}

Operation *KernelOp::getRootOp() {
  // Decided by op kind, not by TilingInterface: linalg's tiling models are
  // registered only by tools that tile, and the verifier must not depend on
  // which tool parses the IR.
  Operation *root = nullptr;
  for (Operation &op : getBodyBlock())
    if (isa<linalg::LinalgDialect>(op.getDialect()) || isa<tensor::PadOp>(op))
      root = &op;
  return root;
}

LogicalResult KernelOp::verify() {
  if (getTuning() && !getRootOp())
    return emitOpError("has a tuning attribute but no tileable op to apply "
                       "it to");
  if (StructureAttr structure = getStructureAttr()) {
    Operation *anchor = getAnchorOp();
    Formulation f = structure.getFormulation();
    bool wantsGemm =
        f == Formulation::gemm_direct || f == Formulation::gemm_split_k;
    bool wantsConv =
        f == Formulation::conv_direct || f == Formulation::conv_implicit_gemm;
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(anchor);
    if (wantsGemm && !(linalgOp && linalg::isaContractionOpInterface(linalgOp)))
      return emitOpError("structure ")
             << stringifyFormulation(f)
             << " needs a contraction (matmul-like) anchor op";
    if (wantsConv && !(linalgOp && linalg::isaConvolutionOpInterface(linalgOp)))
      return emitOpError("structure ")
             << stringifyFormulation(f) << " needs a convolution anchor op";
  }
  TuningAttr tuning = getTuningAttr();
  if (!tuning)
    return success();
  TargetAttr target = lookupTarget(*this);
  int64_t maxThreads =
      target ? target.getMaxThreadsPerBlock() : kMaxThreadsPerBlock;
  if (tuning.getNumThreads() > maxThreads)
    return emitOpError("tuning asks for ")
           << tuning.getNumThreads() << " threads per block but the target "
           << "allows " << maxThreads;

  // Tile lists are per loop: `block`/`thread` of the root's parallel loops,
  // `reduction` of the anchor's reduction loops.
  std::optional<int64_t> parallel;
  if (auto linalgRoot = dyn_cast_or_null<linalg::LinalgOp>(getRootOp()))
    parallel = linalgRoot.getNumParallelLoops();
  else if (auto root = dyn_cast_or_null<TilingInterface>(getRootOp()))
    parallel =
        llvm::count(root.getLoopIteratorTypes(), utils::IteratorType::parallel);
  if (parallel) {
    if ((int64_t)tuning.getBlock().size() > *parallel)
      return emitOpError("block tile has ")
             << tuning.getBlock().size() << " entries but the root op has "
             << *parallel << " parallel loops";
  }
  if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(getAnchorOp())) {
    int64_t reduction = linalgOp.getNumReductionLoops();
    if ((int64_t)tuning.getReduction().size() > reduction)
      return emitOpError("reduction tile has ")
             << tuning.getReduction().size()
             << " entries but the anchor op has " << reduction
             << " reduction loops";
  }
  if (tuning.getShared().empty())
    return success();
  FailureOr<int64_t> bytes = estimateSharedMemoryBytes(
      getAnchorOp(), tuning, [&]() { return emitOpError(); });
  if (failed(bytes))
    return failure();
  if (target && *bytes > target.getSharedMemoryPerBlock())
    return emitOpError("tuning needs ")
           << *bytes << " bytes of shared memory per block but "
           << target.getChip() << " allows "
           << target.getSharedMemoryPerBlock();
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << block.getNumArguments() << " arguments but the kernel has "
           << getInputs().size() << " inputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), getInputs()))) {
    auto [argType, input] = pair;
    if (argType != input.getType())
      return emitOpError("body argument ")
             << i << " has type " << argType << " but input " << i
             << " has type " << input.getType();
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("yields types ")
           << yield.getValues().getTypes()
           << " that differ from the kernel's result types "
           << getResultTypes();
  for (Operation &op : block.without_terminator())
    if (isa<KernelOp>(op))
      return op.emitOpError("cannot be nested in another egg.kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// PaddedViewOp
//===----------------------------------------------------------------------===//

MemRefType PaddedViewOp::inferResultType(MemRefType source,
                                         ArrayRef<int64_t> low,
                                         ArrayRef<int64_t> high) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!source.hasStaticShape() ||
      failed(source.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      low.size() != size_t(source.getRank()) ||
      high.size() != size_t(source.getRank()))
    return {};
  SmallVector<int64_t> shape;
  for (auto [size, lo, hi] : llvm::zip(source.getShape(), low, high))
    shape.push_back(size + lo + hi);
  auto layout = StridedLayoutAttr::get(source.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(shape, source.getElementType(), layout,
                         source.getMemorySpace());
}

void PaddedViewOp::build(OpBuilder &builder, OperationState &state,
                         Value source, ArrayRef<int64_t> low,
                         ArrayRef<int64_t> high) {
  build(builder, state,
        inferResultType(cast<MemRefType>(source.getType()), low, high), source,
        low, high);
}

LogicalResult PaddedViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  if (llvm::any_of(getLow(), [](int64_t v) { return v < 0; }) ||
      llvm::any_of(getHigh(), [](int64_t v) { return v < 0; }))
    return emitOpError("takes non-negative padding");
  MemRefType want = inferResultType(source, getLow(), getHigh());
  if (!want)
    return emitOpError("needs a static source with static strides and ")
           << source.getRank() << " low and high paddings";
  if (getResult().getType() != want)
    return emitOpError("result type must be ")
           << want << " (the padded shape, the source's strides and a "
           << "dynamic offset)";
  return success();
}
