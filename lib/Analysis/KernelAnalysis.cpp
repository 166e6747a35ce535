//===- KernelAnalysis.cpp - What a kernel is ------------------------------===//

#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Support/Saturating.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::egg;

StringRef mlir::egg::stringifyKernelClass(KernelClass kind) {
  switch (kind) {
  case KernelClass::Elementwise:
    return "elementwise";
  case KernelClass::Contraction:
    return "contraction";
  case KernelClass::Convolution:
    return "convolution";
  case KernelClass::Reduction:
    return "reduction";
  case KernelClass::Normalization:
    return "normalization";
  case KernelClass::Softmax:
    return "softmax";
  case KernelClass::Scan:
    return "scan";
  case KernelClass::Recurrence:
    return "recurrence";
  }
  llvm_unreachable("unknown kernel class");
}

/// A reduction that is neither a contraction nor a convolution.
static bool isPlainReduction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         !linalg::isaContractionOpInterface(linalgOp) &&
         !linalg::isaConvolutionOpInterface(linalgOp);
}

bool mlir::egg::isRowContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp) ||
      linalgOp.getNumReductionLoops() != 1 || linalgOp.getNumDpsInits() != 1)
    return false;
  unsigned last = linalgOp.getNumLoops() - 1;
  if (linalgOp.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation() || map.getNumResults() == 0 ||
        map.getDimPosition(map.getNumResults() - 1) != last)
      return false;
  }
  std::string why;
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(op, why);
  if (failed(gemm))
    return true;
  // A skinny product (a few rows of activations times a weight): each of
  // its few rows reads the other operand whole, which then stays in L2.
  TargetAttr target = lookupTarget(op);
  SmallVector<int64_t> extents = linalgOp.getStaticLoopRanges();
  if (!target || llvm::any_of(extents, ShapedType::isDynamic))
    return false;
  int64_t m = GemmLoops::extent(gemm->mLoops, extents);
  int64_t n = GemmLoops::extent(gemm->nLoops, extents);
  if (std::min(m, n) > kSkinnyProductRows)
    return false;
  OpOperand *reread =
      linalgOp.getDpsInputOperand(m <= n ? gemm->rhs : gemm->lhs);
  auto type = cast<ShapedType>(reread->get().getType());
  int64_t bytes =
      mulSat(type.getNumElements(), (type.getElementTypeBitWidth() + 7) / 8);
  return bytes <= target.getL2Bytes() / 4;
}

KernelClass mlir::egg::classifyKernel(KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  if (isa_and_nonnull<ScanOp>(kernel.getAnchorOp()))
    return KernelClass::Scan;
  if (isa_and_nonnull<RecurrenceOp>(kernel.getAnchorOp()))
    return KernelClass::Recurrence;
  if (llvm::any_of(body,
                   [](Operation &op) { return isa<linalg::SoftmaxOp>(op); }))
    return KernelClass::Softmax;
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (!anchor || anchor.getNumReductionLoops() == 0)
    return KernelClass::Elementwise;
  if (linalg::isaContractionOpInterface(anchor))
    return KernelClass::Contraction;
  if (linalg::isaConvolutionOpInterface(anchor))
    return KernelClass::Convolution;
  int64_t reductions =
      llvm::count_if(body, [](Operation &op) { return isPlainReduction(&op); });
  return reductions > 1 ? KernelClass::Normalization : KernelClass::Reduction;
}

bool mlir::egg::isCooperativeRow(Formulation formulation) {
  return formulation == Formulation::reduce_row_per_warp ||
         formulation == Formulation::reduce_row_per_block;
}

bool mlir::egg::isCooperativeRow(StructureAttr structure) {
  return structure && isCooperativeRow(structure.getFormulation());
}

int64_t mlir::egg::heldRowElementBytes(KernelOp kernel) {
  int64_t bytes = 0;
  for (BlockArgument arg : kernel.getBodyBlock().getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.getElementType().isIntOrFloat())
      continue;
    int64_t readers = 0;
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (Operation *user : arg.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (isa<linalg::SoftmaxOp>(user)) {
        readers += 2;
        continue;
      }
      auto op = dyn_cast<linalg::LinalgOp>(user);
      if (!op || op.getNumLoops() == 0)
        continue;
      unsigned last = op.getNumLoops() - 1;
      if (llvm::any_of(user->getOpOperands(), [&](OpOperand &operand) {
            return operand.get() == arg &&
                   op.getMatchingIndexingMap(&operand).isFunctionOfDim(last);
          }))
        ++readers;
    }
    if (readers > 1)
      bytes += (type.getElementTypeBitWidth() + 7) / 8;
  }
  return bytes;
}

bool mlir::egg::holdsRow(KernelOp kernel, int64_t threads) {
  std::optional<int64_t> row = cooperativeRowLength(kernel);
  int64_t held = heldRowElementBytes(kernel);
  return row && held > 0 &&
         mulSat(*row, held) <= mulSat(kHeldBytesPerLane, threads);
}

std::optional<int64_t> mlir::egg::cooperativeRowLength(KernelOp kernel) {
  KernelClass kind = classifyKernel(kernel);
  if (kind == KernelClass::Contraction) {
    Operation *anchor = kernel.getAnchorOp();
    if (!isRowContraction(anchor))
      return std::nullopt;
    int64_t n = cast<linalg::LinalgOp>(anchor).getStaticLoopRanges().back();
    if (ShapedType::isDynamic(n) || n < 2)
      return std::nullopt;
    return n;
  }
  if (kind != KernelClass::Reduction && kind != KernelClass::Normalization &&
      kind != KernelClass::Softmax)
    return std::nullopt;
  int64_t length = 0;
  for (Operation &op : kernel.getBodyBlock()) {
    int64_t n;
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      auto type = dyn_cast<RankedTensorType>(softmax.getInput().getType());
      if (!type || !type.hasStaticShape() ||
          softmax.getDimension() + 1 != uint64_t(type.getRank()))
        return std::nullopt;
      n = type.getShape().back();
    } else if (isPlainReduction(&op)) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      if (linalgOp.getNumLoops() == 0 ||
          linalgOp.getIteratorTypesArray().back() !=
              utils::IteratorType::reduction)
        return std::nullopt;
      n = linalgOp.getStaticLoopRanges().back();
    } else {
      continue;
    }
    if (ShapedType::isDynamic(n) || (length && n != length))
      return std::nullopt;
    length = n;
  }
  if (length < 2)
    return std::nullopt;
  return length;
}

/// Marks the root loops that a reduction's result is broadcast along:
/// `value` is read by the root (through elementwise steps) with `rootToValue`
/// mapping root loops to its dimensions; where it comes from a plain
/// reduction, root loops absent from that map run along the reduced row.
static void lockReducedRows(Value value, AffineMap rootToValue, KernelOp kernel,
                            SmallVectorImpl<bool> &locked, unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getParentOp() != kernel || depth > 32)
    return;
  if (isPlainReduction(def)) {
    for (unsigned d = 0; d < rootToValue.getNumDims(); ++d)
      if (!rootToValue.isFunctionOfDim(d))
        locked[d] = true;
    return;
  }
  auto producer = dyn_cast<linalg::LinalgOp>(def);
  if (!producer || producer.getNumReductionLoops() > 0)
    return;
  AffineMap out = producer.getIndexingMapMatchingResult(cast<OpResult>(value));
  if (!out.isPermutation())
    return;
  AffineMap rootToLoops = inversePermutation(out).compose(rootToValue);
  for (OpOperand *input : producer.getDpsInputOperands())
    lockReducedRows(input->get(),
                    producer.getMatchingIndexingMap(input).compose(rootToLoops),
                    kernel, locked, depth + 1);
}

FailureOr<RootLoops>
mlir::egg::analyzeRootLoops(KernelOp kernel,
                            function_ref<InFlightDiagnostic()> emitError) {
  auto root = dyn_cast_or_null<TilingInterface>(kernel.getRootOp());
  if (!root)
    return emitError() << "kernel has no tileable op";
  RootLoops loops;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(root.getOperation())) {
    loops.extents = linalgOp.getStaticLoopRanges();
  } else if (auto recurrence = dyn_cast<RecurrenceOp>(root.getOperation())) {
    loops.extents = {recurrence.getBatch()};
  } else if (root->getNumResults() == 1) {
    auto type = dyn_cast<RankedTensorType>(root->getResult(0).getType());
    if (type)
      loops.extents = llvm::to_vector(type.getShape());
  }
  SmallVector<utils::IteratorType> iterators = root.getLoopIteratorTypes();
  if (loops.extents.size() != iterators.size())
    return emitError() << "cannot read the loop extents of " << root->getName();
  if (llvm::any_of(loops.extents, ShapedType::isDynamic))
    return emitError() << "dynamic shapes are not supported yet (root op "
                       << root->getName() << ")";
  loops.reducedByProducer.assign(iterators.size(), false);
  for (auto [i, it] : llvm::enumerate(iterators)) {
    loops.parallel.push_back(it == utils::IteratorType::parallel);
    if (it == utils::IteratorType::parallel)
      loops.parallelPositions.push_back(i);
  }

  // Rows the kernel's reductions run along must stay whole in one thread.
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(root.getOperation())) {
    loops.reducedByProducer[softmax.getDimension()] = true;
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(root.getOperation());
             linalgOp && linalgOp.getNumReductionLoops() == 0) {
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      lockReducedRows(input->get(), linalgOp.getMatchingIndexingMap(input),
                      kernel, loops.reducedByProducer);
  }
  return loops;
}

std::optional<size_t> mlir::egg::resultContiguousLoop(KernelOp kernel,
                                                      const RootLoops &loops) {
  auto root = dyn_cast_or_null<linalg::LinalgOp>(kernel.getRootOp());
  if (!root || root.getNumDpsInits() == 0 ||
      root.getNumLoops() != loops.extents.size())
    return std::nullopt;
  std::optional<unsigned> fast =
      contiguousLoop(root.getMatchingIndexingMap(root.getDpsInitOperand(0)));
  if (!fast)
    return std::nullopt;
  auto it = llvm::find(loops.parallelPositions, *fast);
  if (it == loops.parallelPositions.end())
    return std::nullopt;
  return size_t(it - loops.parallelPositions.begin());
}

SmallVector<bool> mlir::egg::overlappingWindowLoops(KernelOp kernel,
                                                   const RootLoops &loops) {
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (!anchor || anchor.getNumDpsInputs() == 0 ||
      anchor.getNumReductionLoops() == 0 || !rootRunsOverResult(loops, anchor))
    return {};
  SmallVector<int64_t> ranges = anchor.getStaticLoopRanges();
  SmallVector<utils::IteratorType> kinds = anchor.getIteratorTypesArray();
  SmallVector<unsigned> parallelDims;
  for (auto [d, kind] : llvm::enumerate(kinds))
    if (kind == utils::IteratorType::parallel)
      parallelDims.push_back(d);
  SmallVector<bool> overlapping(loops.parallelPositions.size(), false);
  if (parallelDims.size() != overlapping.size())
    return {};
  // Each result as coefficients of [dims, symbols, floordiv/mod locals,
  // constant]; a result with a floordiv or mod is no sliding window.
  AffineMap map = anchor.getMatchingIndexingMap(anchor.getDpsInputOperand(0));
  std::vector<SmallVector<int64_t, 8>> flattened;
  if (failed(getFlattenedAffineExprs(map, &flattened)))
    return {};
  unsigned linear = map.getNumDims() + map.getNumSymbols();
  for (ArrayRef<int64_t> coefficients : flattened) {
    if (llvm::any_of(coefficients.slice(linear, coefficients.size() - linear - 1),
                     [](int64_t c) { return c != 0; }))
      continue;
    for (auto [p, o] : llvm::enumerate(parallelDims)) {
      int64_t stride = coefficients[o];
      if (stride <= 0)
        continue;
      for (auto [k, kind] : llvm::enumerate(kinds)) {
        int64_t dilation = coefficients[k];
        if (kind == utils::IteratorType::reduction && dilation > 0 &&
            ranges[k] > 1 && !ShapedType::isDynamic(ranges[k]) &&
            stride == dilation)
          overlapping[p] = true;
      }
    }
  }
  return overlapping;
}

SmallVector<bool> mlir::egg::tiledLoops(const RootLoops &loops,
                                        ArrayRef<int64_t> extents,
                                        ArrayRef<int64_t> perParallel) {
  auto tileOf = [&](size_t p) {
    return p < perParallel.size() ? perParallel[p] : 0;
  };
  int64_t tiled = 0, whole = 0, beyond = 0;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions)) {
    tiled += tileOf(p) != 0;
    whole += tileOf(p) != 0 && tileOf(p) == extents[pos];
    beyond += tileOf(p) > extents[pos];
  }
  // Where dropping whole tiles is not enough, a tile beyond its loop's
  // extent (a partial GEMM tile of 32 on 16 output channels) is one tile
  // too: left untiled, the block sees the same op.
  bool dropWhole = tiled > 3 && tiled - whole <= 3;
  bool dropBeyond = tiled > 3 && !dropWhole && tiled - whole - beyond <= 3;
  auto dropped = [&](size_t p, unsigned pos) {
    return ((dropWhole || dropBeyond) && tileOf(p) == extents[pos]) ||
           (dropBeyond && tileOf(p) > extents[pos]);
  };
  SmallVector<bool> result;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
    result.push_back(tileOf(p) != 0 && !dropped(p, pos));
  // A block tile spanning every loop (a small convolution of one image)
  // keeps its first whole loop tiled: a kernel needs one block loop.
  if (tiled > 0 && llvm::none_of(result, [](bool t) { return t; }))
    for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
      if (tileOf(p) != 0 && tileOf(p) == extents[pos]) {
        result[p] = true;
        break;
      }
  return result;
}

SmallVector<int64_t> mlir::egg::impliedThreads(const RootLoops &loops,
                                               ArrayRef<int64_t> block,
                                               ArrayRef<int64_t> thread) {
  SmallVector<int64_t> outer = loops.extents;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
    if (p < block.size() && block[p] > 0)
      outer[pos] = block[p];
  SmallVector<bool> tiled = tiledLoops(loops, outer, thread);
  SmallVector<int64_t> trips;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
    if (tiled[p])
      trips.push_back((outer[pos] + thread[p] - 1) / thread[p]);
  std::reverse(trips.begin(), trips.end()); // Innermost loop on x.
  if (trips.empty())
    trips.push_back(1);
  return trips;
}

int64_t mlir::egg::narrowestElementBits(KernelOp kernel) {
  int64_t bits = 0;
  auto see = [&](Type t) {
    if (auto shaped = dyn_cast<ShapedType>(t))
      bits = bits ? std::min<int64_t>(bits, shaped.getElementTypeBitWidth())
                  : shaped.getElementTypeBitWidth();
  };
  for (Type t : kernel.getInputs().getTypes())
    see(t);
  for (Type t : kernel.getResultTypes())
    see(t);
  return std::max<int64_t>(8, bits ? bits : 32);
}

int64_t mlir::egg::widestElementBits(KernelOp kernel) {
  int64_t bits = 8;
  auto see = [&](Type t) {
    if (auto shaped = dyn_cast<ShapedType>(t))
      bits = std::max<int64_t>(bits, shaped.getElementTypeBitWidth());
  };
  for (Type t : kernel.getInputs().getTypes())
    see(t);
  kernel.getBodyBlock().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      see(t);
  });
  return bits;
}

bool mlir::egg::inLoopOrder(AffineMap map) {
  for (unsigned r = 0; r + 1 < map.getNumResults(); ++r)
    if (map.getDimPosition(r) > map.getDimPosition(r + 1))
      return false;
  return true;
}

bool mlir::egg::rootRunsOverResult(const RootLoops &root, linalg::LinalgOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (root.parallelPositions.size() != op.getNumParallelLoops())
    return false;
  unsigned p = 0;
  for (unsigned d = 0; d < extents.size(); ++d)
    if (iterators[d] == utils::IteratorType::parallel &&
        root.extents[root.parallelPositions[p++]] != extents[d])
      return false;
  return true;
}

std::optional<unsigned> mlir::egg::columnReductionLoop(KernelOp kernel) {
  if (classifyKernel(kernel) != KernelClass::Reduction)
    return std::nullopt;
  auto op = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (!op || !isPlainReduction(op) || op.getNumReductionLoops() != 1 ||
      op.getNumLoops() < 2)
    return std::nullopt;
  // A value and its index leave the kernel as reduced (no epilogue).
  if (op.getNumDpsInits() != 1 &&
      !(op.getNumDpsInits() == 2 && matchIndexedReduction(op) &&
        kernel.getRootOp() == op.getOperation() &&
        op.getMatchingIndexingMap(op.getDpsInitOperand(0)) ==
            op.getMatchingIndexingMap(op.getDpsInitOperand(1))))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned last = op.getNumLoops() - 1;
  if (iterators[last] != utils::IteratorType::parallel)
    return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return std::nullopt;
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(in->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!map.isProjectedPermutation() ||
        (map.isFunctionOfDim(last) &&
         map.getDimPosition(map.getNumResults() - 1) != last))
      return std::nullopt;
  }
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation() ||
      out.getNumResults() != op.getNumParallelLoops())
    return std::nullopt;
  if (!inLoopOrder(out))
    return std::nullopt;
  // The root (an epilogue, or the reduction itself) runs over the result.
  auto quiet = [&]() { return kernel.emitOpError(); };
  ScopedDiagnosticHandler silence(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<RootLoops> root = analyzeRootLoops(kernel, quiet);
  if (failed(root) || !rootRunsOverResult(*root, op))
    return std::nullopt;
  // The one reduction loop (checked above).
  return unsigned(llvm::find(iterators, utils::IteratorType::reduction) -
                  iterators.begin());
}

std::optional<IndexedReduction>
mlir::egg::matchIndexedReduction(linalg::LinalgOp op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInits() != 2 ||
      generic.getNumReductionLoops() != 1)
    return std::nullopt;
  Block *body = generic.getBody();
  Value best = generic.getMatchingBlockArgument(generic.getDpsInitOperand(0));
  Value at = generic.getMatchingBlockArgument(generic.getDpsInitOperand(1));
  Operation *yield = body->getTerminator();
  auto value = yield->getOperand(0).getDefiningOp<arith::SelectOp>();
  auto index = yield->getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!value || !index || value.getCondition() != index.getCondition() ||
      value.getFalseValue() != best || index.getFalseValue() != at)
    return std::nullopt;
  auto cmp = value.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getRhs() != best || cmp.getLhs() != value.getTrueValue())
    return std::nullopt;
  // x: an input's element.
  auto x = dyn_cast<BlockArgument>(cmp.getLhs());
  if (!x || x.getOwner() != body ||
      x.getArgNumber() >= generic.getNumDpsInputs())
    return std::nullopt;
  // i: the reduced loop's index through casts only.
  Value i = index.getTrueValue();
  while (Operation *def = i.getDefiningOp()) {
    if (auto loopIndex = dyn_cast<linalg::IndexOp>(def)) {
      if (generic.getIteratorTypesArray()[loopIndex.getDim()] !=
          utils::IteratorType::reduction)
        return std::nullopt;
      break;
    }
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::UIToFPOp,
             arith::SIToFPOp>(def))
      return std::nullopt;
    i = def->getOperand(0);
  }
  if (!i.getDefiningOp<linalg::IndexOp>())
    return std::nullopt;
  // The accumulators feed nothing else.
  auto onlyUses = [](Value v, ArrayRef<Operation *> users) {
    return llvm::all_of(v.getUsers(), [&](Operation *u) {
      return llvm::is_contained(users, u);
    });
  };
  if (!onlyUses(best, {cmp, value}) || !onlyUses(at, {index}))
    return std::nullopt;
  arith::CmpFPredicate predicate = cmp.getPredicate();
  if (predicate != arith::CmpFPredicate::OGT &&
      predicate != arith::CmpFPredicate::OLT)
    return std::nullopt;
  return IndexedReduction{predicate};
}

SmallVector<int64_t> mlir::egg::transposedInputs(KernelOp kernel) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (!op || op.getNumLoops() == 0 || op.getNumReductionLoops() != 0)
    return {};
  unsigned inner = op.getNumLoops() - 1;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (contiguousLoop(op.getMatchingIndexingMap(&init)) != inner)
      return {};
  SmallVector<int64_t> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> fast = contiguousLoop(map);
    if (type && type.getRank() >= 2 && map.isProjectedPermutation() && fast &&
        *fast != inner && type.getShape().back() > 1)
      inputs.push_back(input->getOperandNumber());
  }
  return inputs;
}

SmallVector<unsigned> mlir::egg::stagedTileLoops(KernelOp kernel,
                                                 ArrayRef<int64_t> staged) {
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<unsigned> loops = {op.getNumLoops() - 1};
  for (int64_t k : staged) {
    std::optional<unsigned> fast =
        contiguousLoop(op.getMatchingIndexingMap(&op->getOpOperand(k)));
    if (fast && !llvm::is_contained(loops, *fast))
      loops.push_back(*fast);
  }
  return loops;
}
