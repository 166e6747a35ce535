//===- EggOps.cpp - EGG operations ----------------------------------------===//

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Target/Limits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
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
    if (isa<ScanOp, RecurrenceOp>(op)) {
      lastLinalg = lastAnchor = &op;
      continue;
    }
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
    if (isa<linalg::LinalgDialect>(op.getDialect()) ||
        isa<tensor::PadOp, ScanOp, RecurrenceOp>(op))
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

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  auto input = cast<ShapedType>(getInput().getType());
  auto init = cast<ShapedType>(getInit().getType());
  if (isa<TensorType>(input) != isa<TensorType>(init))
    return emitOpError("takes an input and an init that are both tensors or "
                       "both buffers");
  if (!input.hasRank() || !init.hasRank() || input.getRank() == 0)
    return emitOpError("scans ranked values of rank 1 or more");
  if (input.getShape() != init.getShape() ||
      input.getElementType() != init.getElementType())
    return emitOpError("takes an init of the input's shape and element type, "
                       "got ")
           << init << " for " << input;
  if (isa<TensorType>(init)) {
    if (getResult().size() != 1 || getResult()[0].getType() != init)
      return emitOpError("on tensors returns one value of the init's type");
  } else if (!getResult().empty()) {
    return emitOpError("on buffers returns nothing");
  }
  return success();
}

void ScanOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!hasPureBufferSemantics())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &getInputMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                       SideEffects::DefaultResource::get());
}

SmallVector<utils::IteratorType> ScanOp::getLoopIteratorTypes() {
  int64_t rank = cast<ShapedType>(getInput().getType()).getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  // The scanned dimension carries a value from element to element.
  iterators.back() = utils::IteratorType::reduction;
  return iterators;
}

SmallVector<Range> ScanOp::getIterationDomain(OpBuilder &b) {
  SmallVector<Range> domain;
  Location loc = getLoc();
  auto type = cast<ShapedType>(getInput().getType());
  for (int64_t d = 0; d < type.getRank(); ++d) {
    OpFoldResult size =
        type.isDynamicDim(d)
            ? OpFoldResult(tensor::getMixedSize(b, loc, getInput(), d))
            : OpFoldResult(b.getIndexAttr(type.getDimSize(d)));
    domain.push_back(Range{b.getIndexAttr(0), size, b.getIndexAttr(1)});
  }
  return domain;
}

FailureOr<TilingResult>
ScanOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes) {
  // A tile keeps its rows whole: the scanned dimension is never split.
  auto type = cast<ShapedType>(getInput().getType());
  if (!isConstantIntValue(offsets.back(), 0) ||
      getConstantIntValue(sizes.back()) != type.getShape().back())
    return emitOpError("cannot split the scanned dimension into tiles");
  Location loc = getLoc();
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  Operation *inputSlice, *initSlice;
  if (isa<TensorType>(type)) {
    inputSlice = tensor::ExtractSliceOp::create(b, loc, getInput(), offsets,
                                                sizes, strides);
    initSlice = tensor::ExtractSliceOp::create(b, loc, getInit(), offsets,
                                               sizes, strides);
  } else {
    inputSlice =
        memref::SubViewOp::create(b, loc, getInput(), offsets, sizes, strides);
    initSlice =
        memref::SubViewOp::create(b, loc, getInit(), offsets, sizes, strides);
  }
  Value init = initSlice->getResult(0);
  SmallVector<Type> results;
  if (isa<TensorType>(type))
    results.push_back(init.getType());
  auto tiled = ScanOp::create(b, loc, results, inputSlice->getResult(0), init,
                              getKind(), getReverse(), getExclusive());
  return TilingResult{{tiled},
                      SmallVector<Value>(tiled->getResults()),
                      {inputSlice, initSlice}};
}

LogicalResult ScanOp::getResultTilePosition(
    OpBuilder &, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  return success();
}

//===----------------------------------------------------------------------===//
// RecurrenceOp
//===----------------------------------------------------------------------===//

LogicalResult RecurrenceOp::verify() {
  SmallVector<Value> all = {getInput(), getWeight(), getBias(), getSequence()};
  llvm::append_range(all, getInitial());
  llvm::append_range(all, getFinals());
  bool tensors = isa<TensorType>(getInput().getType());
  for (Value v : all) {
    auto type = cast<ShapedType>(v.getType());
    if (isa<TensorType>(type) != tensors)
      return emitOpError("takes operands that are all tensors or all buffers");
    if (!type.hasStaticShape())
      return emitOpError("takes statically shaped operands, got ") << type;
  }
  auto rankIs = [&](Value v, int64_t rank, StringRef what) -> LogicalResult {
    if (cast<ShapedType>(v.getType()).getRank() == rank)
      return success();
    return emitOpError() << what << " must have rank " << rank << ", got "
                         << v.getType();
  };
  if (failed(rankIs(getInput(), 3, "input")) ||
      failed(rankIs(getWeight(), 2, "weight")) ||
      failed(rankIs(getBias(), 1, "bias")) ||
      failed(rankIs(getSequence(), 3, "sequence")))
    return failure();
  if (getInitial().empty() || getInitial().size() != getFinals().size())
    return emitOpError("takes one or more initial states and as many finals, "
                       "got ")
           << getInitial().size() << " and " << getFinals().size();
  int64_t t = getSteps(), b = getBatch(), h = getUnits();
  ArrayRef<int64_t> w = getShape(getWeight());
  if (h == 0 || w[1] % h != 0 || w[1] == 0)
    return emitOpError("weight must be [H, G*H], got ")
           << getWeight().getType();
  int64_t gh = w[1];
  if (getShape(getInput()) != ArrayRef<int64_t>{t, b, gh})
    return emitOpError("input must be [T, B, G*H] = [")
           << t << ", " << b << ", " << gh << "], got " << getInput().getType();
  if (getShape(getBias()) != ArrayRef<int64_t>{gh})
    return emitOpError("bias must be [G*H] = [")
           << gh << "], got " << getBias().getType();
  if (getShape(getSequence()) != ArrayRef<int64_t>{t, b, h})
    return emitOpError("sequence must be [T, B, H] = [")
           << t << ", " << b << ", " << h << "], got "
           << getSequence().getType();
  for (Value v : llvm::concat<Value>(getInitial(), getFinals()))
    if (getShape(v) != ArrayRef<int64_t>{b, h})
      return emitOpError("states must be [B, H] = [")
             << b << ", " << h << "], got " << v.getType();
  if (tensors) {
    SmallVector<Type> want = {getSequence().getType()};
    llvm::append_range(want, getFinals().getTypes());
    if (TypeRange(getResult().getTypes()) != TypeRange(want))
      return emitOpError("on tensors returns the sequence and the final "
                         "states, of their inits' types");
  } else if (!getResult().empty()) {
    return emitOpError("on buffers returns nothing");
  }
  return success();
}

LogicalResult RecurrenceOp::verifyRegions() {
  Block &cell = getCellBlock();
  int64_t args = 2 * getGates() + getStates();
  Type f32 = Float32Type::get(getContext());
  if ((int64_t)cell.getNumArguments() != args ||
      llvm::any_of(cell.getArgumentTypes(), [&](Type t) { return t != f32; }))
    return emitOpError("cell takes ")
           << args << " f32 arguments (" << getGates() << " input gates, "
           << getGates() << " hidden gates, " << getStates() << " states), got "
           << cell.getNumArguments();
  auto yield = dyn_cast<YieldOp>(cell.getTerminator());
  if (!yield || (int64_t)yield.getValues().size() != getStates() ||
      llvm::any_of(yield.getValues().getTypes(),
                   [&](Type t) { return t != f32; }))
    return emitOpError("cell yields the ")
           << getStates() << " new states as f32";
  for (Operation &op : cell.without_terminator())
    if (op.getNumRegions() || !llvm::all_of(op.getResultTypes(), [](Type t) {
          return t.isIntOrIndexOrFloat();
        }))
      return op.emitOpError("cannot be in a recurrence's cell: it holds "
                            "scalar ops alone");
  return success();
}

void RecurrenceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!hasPureBufferSemantics())
    return;
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    bool written = isDpsInit(&operand);
    effects.emplace_back(written ? static_cast<MemoryEffects::Effect *>(
                                       MemoryEffects::Write::get())
                                 : MemoryEffects::Read::get(),
                         &operand, SideEffects::DefaultResource::get());
  }
}

SmallVector<utils::IteratorType> RecurrenceOp::getLoopIteratorTypes() {
  return {utils::IteratorType::parallel}; // The batch rows.
}

SmallVector<Range> RecurrenceOp::getIterationDomain(OpBuilder &b) {
  return {
      Range{b.getIndexAttr(0), b.getIndexAttr(getBatch()), b.getIndexAttr(1)}};
}

FailureOr<TilingResult>
RecurrenceOp::getTiledImplementation(OpBuilder &b,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  bool tensors = isa<TensorType>(getInput().getType());
  SmallVector<Operation *> slices;
  // `v` sliced to rows [offset, offset + size) of its batch dimension `dim`.
  auto slice = [&](Value v, int64_t dim) -> Value {
    ArrayRef<int64_t> shape = getShape(v);
    SmallVector<OpFoldResult> off(shape.size(), b.getIndexAttr(0)), size,
        stride(shape.size(), b.getIndexAttr(1));
    for (int64_t s : shape)
      size.push_back(b.getIndexAttr(s));
    off[dim] = offsets[0];
    size[dim] = sizes[0];
    Operation *op = tensors ? (Operation *)tensor::ExtractSliceOp::create(
                                  b, loc, v, off, size, stride)
                            : (Operation *)memref::SubViewOp::create(
                                  b, loc, v, off, size, stride);
    slices.push_back(op);
    return op->getResult(0);
  };
  Value input = slice(getInput(), 1);
  SmallVector<Value> initial, finals;
  for (Value v : getInitial())
    initial.push_back(slice(v, 0));
  Value sequence = slice(getSequence(), 1);
  for (Value v : getFinals())
    finals.push_back(slice(v, 0));
  SmallVector<Type> results;
  if (tensors) {
    results.push_back(sequence.getType());
    llvm::append_range(results, ValueRange(finals).getTypes());
  }
  auto tiled =
      RecurrenceOp::create(b, loc, results, input, getWeight(), getBias(),
                           initial, sequence, finals, getReverse());
  IRMapping map;
  getCell().cloneInto(&tiled.getCell(), map);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult RecurrenceOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  // The sequence is [T, B, H], the final states [B, H].
  ArrayRef<int64_t> shape = getShape(getDpsInits()[resultNumber]);
  int64_t dim = resultNumber == 0 ? 1 : 0;
  resultOffsets.assign(shape.size(), b.getIndexAttr(0));
  resultSizes.clear();
  for (int64_t s : shape)
    resultSizes.push_back(b.getIndexAttr(s));
  resultOffsets[dim] = offsets[0];
  resultSizes[dim] = sizes[0];
  return success();
}
