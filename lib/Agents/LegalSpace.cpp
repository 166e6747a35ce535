//===- LegalSpace.cpp - What the compiler can build for a kernel ----------===//

#include "egg/Agents/LegalSpace.h"
#include "egg/Agents/SplitK.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

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

/// A contraction with no N loop (a matrix-vector product, batched or not)
/// whose one reduction is its innermost loop, read contiguously by every
/// input that reads it: it is a row reduction of a product, memory-bound,
/// and lanes can share its rows like a row sum's (structure principle 8).
static bool isRowContraction(Operation *op) {
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
  return failed(analyzeGemmLoops(op, why));
}

KernelClass mlir::egg::classifyKernel(KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
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

/// `legal` and the splits of `formulation` `kernel` takes (docs/pipeline.md,
/// "Split-K"): 2, 4 or 8 slices of a product's K, 2 to 64 of a column
/// reduction's rows (a few hundred columns need that many to fill the GPU),
/// unless the module keeps kernels whole.
static SmallVector<StructureAttr> withSplits(KernelOp kernel,
                                             Formulation formulation,
                                             SmallVector<StructureAttr> legal) {
  if (!allowsSplitK(kernel))
    return legal;
  ScopedDiagnosticHandler silence(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
  SmallVector<int64_t> counts = {2, 4, 8};
  if (formulation == Formulation::reduce_two_stage)
    counts.append({16, 32, 64});
  for (int64_t slices : counts)
    if (succeeded(checkSplitK(kernel, formulation, slices,
                              [&]() { return kernel.emitOpError(); })))
      legal.push_back(
          StructureAttr::get(kernel.getContext(), formulation, slices));
  return legal;
}

SmallVector<StructureAttr> mlir::egg::enumerateStructures(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  auto make = [&](Formulation f) { return StructureAttr::get(ctx, f, 1); };
  switch (classifyKernel(kernel)) {
  case KernelClass::Elementwise:
    return {make(Formulation::elementwise_flat)};
  case KernelClass::Contraction:
    // A matrix-vector product reads its matrix once: rows shared by lanes
    // read it coalesced, where one thread per row walks it alone.
    if (isRowContraction(kernel.getAnchorOp()))
      return {make(Formulation::reduce_row_per_warp),
              make(Formulation::reduce_row_per_block),
              make(Formulation::gemm_direct)};
    return withSplits(kernel, Formulation::gemm_split_k,
                      {make(Formulation::gemm_direct)});
  case KernelClass::Convolution: {
    // A convolution whose loops split into GEMM roles (not a depthwise one)
    // can also run as an implicit GEMM.
    std::string why;
    if (succeeded(analyzeGemmLoops(kernel.getAnchorOp(), why)))
      return {make(Formulation::conv_implicit_gemm),
              make(Formulation::conv_direct)};
    return {make(Formulation::conv_direct)};
  }
  case KernelClass::Reduction:
  case KernelClass::Normalization:
  case KernelClass::Softmax:
    break;
  }
  // Row-wise kernels: rows shared by a warp or a block when the reductions
  // run along the innermost loop; one thread per row always works.
  Formulation serial = Formulation::reduce_serial;
  if (classifyKernel(kernel) == KernelClass::Normalization)
    serial = Formulation::norm_two_pass;
  else if (classifyKernel(kernel) == KernelClass::Softmax)
    serial = Formulation::softmax_three_pass;
  if (!cooperativeRowLength(kernel)) {
    if (columnReductionLoop(kernel)) {
      SmallVector<StructureAttr> legal =
          withSplits(kernel, Formulation::reduce_two_stage,
                     {make(Formulation::reduce_two_stage)});
      legal.push_back(make(serial));
      return legal;
    }
    return {make(serial)};
  }
  return {make(Formulation::reduce_row_per_warp),
          make(Formulation::reduce_row_per_block), make(serial)};
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

SmallVector<bool> mlir::egg::tiledLoops(const RootLoops &loops,
                                        ArrayRef<int64_t> extents,
                                        ArrayRef<int64_t> perParallel) {
  auto tileOf = [&](size_t p) {
    return p < perParallel.size() ? perParallel[p] : 0;
  };
  int64_t tiled = 0, whole = 0;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions)) {
    tiled += tileOf(p) != 0;
    whole += tileOf(p) != 0 && tileOf(p) == extents[pos];
  }
  bool dropWhole = tiled > 3 && tiled - whole <= 3;
  SmallVector<bool> result;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
    result.push_back(tileOf(p) != 0 &&
                     !(dropWhole && tileOf(p) == extents[pos]));
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

/// Vector width `v`: an elementwise kernel whose innermost parallel loop has
/// thread tile `v` (others 1), every operand contiguous along that loop or
/// independent of it, and accesses of at most 16 bytes.
static LogicalResult
checkVectorizable(KernelOp kernel, const RootLoops &loops,
                  ArrayRef<int64_t> thread, int64_t v,
                  function_ref<InFlightDiagnostic()> emitError) {
  if (classifyKernel(kernel) != KernelClass::Elementwise)
    return emitError() << "vector accesses are implemented for elementwise "
                          "kernels only";
  if (loops.parallelPositions.empty() ||
      thread.size() != loops.parallelPositions.size() || thread.back() != v ||
      llvm::any_of(thread.drop_back(), [](int64_t t) { return t != 1; }))
    return emitError() << "vector = " << v
                       << " needs a thread tile of 1 on every loop but the "
                          "innermost, which must be "
                       << v;
  unsigned inner = loops.parallelPositions.back();
  // A pad whose innermost dimension is not padded copies whole vectors (or
  // writes whole vectors of padding): its gather is contiguous there.
  if (auto pad = dyn_cast_or_null<tensor::PadOp>(kernel.getRootOp())) {
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (low.empty() || low.back() != 0 || high.back() != 0)
      return emitError() << "vector accesses need a pad that leaves the "
                            "innermost dimension unpadded";
    if (pad.getResultType().getElementTypeBitWidth() * v > 128)
      return emitError() << "vector = " << v << " of "
                         << pad.getResultType().getElementType()
                         << " exceeds 16-byte accesses";
    return success();
  }
  // Maps of four loops or more reach the grid only with whole tiles left
  // untiled; their vector code (with broadcast operands) fails to lower
  // (an unrealized vector<1xf32> cast, seen on examples/group_norm.mlir).
  if (llvm::count_if(loops.parallelPositions,
                     [&](unsigned pos) { return loops.extents[pos] > 1; }) > 3)
    return emitError() << "vector accesses on maps of more than three loops "
                          "are implemented for pads only";
  auto root = dyn_cast_or_null<linalg::LinalgOp>(kernel.getRootOp());
  bool gathers = !root;
  kernel.walk([&](Operation *op) {
    gathers |= isa<tensor::ExtractOp, tensor::PadOp>(op);
  });
  if (gathers)
    return emitError() << "vector accesses do not apply to gathers, or to "
                          "pads with other ops in their kernel";
  for (OpOperand &operand : root->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type)
      continue;
    if (type.getElementTypeBitWidth() * v > 128)
      return emitError() << "vector = " << v << " of " << type.getElementType()
                         << " exceeds 16-byte accesses";
    AffineMap map = root.getMatchingIndexingMap(&operand);
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      if (!map.getResult(r).isFunctionOfDim(inner))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
      if (r + 1 != map.getNumResults() || !dim)
        return emitError() << "operand " << operand.getOperandNumber()
                           << " is not contiguous along the innermost loop: "
                              "vector accesses need it to be";
    }
  }
  return success();
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

/// Rows shared by lanes (docs/pipeline.md, "Rows shared by lanes"): every
/// parallel loop but the row is tiled by blocks; a warp owns one row
/// (`reduce_row_per_warp`: warp tile 1) or a block does (`_per_block`:
/// block tile 1); there is no thread tile; threads are one dimension.
static LogicalResult
checkCooperativeRow(KernelOp kernel, Formulation formulation, TuningAttr tuning,
                    function_ref<InFlightDiagnostic()> emitError) {
  StringRef name = stringifyFormulation(formulation);
  std::optional<int64_t> row = cooperativeRowLength(kernel);
  if (!row)
    return emitError() << name
                       << " needs reductions along the innermost loop, all "
                          "over rows of one static length";
  if (!tuning.getThread().empty())
    return emitError() << name
                       << " has no thread tile: the lanes stride over the row";
  if (!tuning.getReduction().empty() || !tuning.getShared().empty() ||
      !tuning.getRegisters().empty())
    return emitError() << name
                       << " does not take reduction tiles or memory promotion";
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  bool perWarp = formulation == Formulation::reduce_row_per_warp;
  size_t numParallel = loops->parallelPositions.size();
  ArrayRef<int64_t> block = tuning.getBlock(), warp = tuning.getWarp();
  if (block.size() != numParallel)
    return emitError() << name << " needs a block tile entry for each of the "
                       << numParallel << " parallel loops";
  if (perWarp ? warp.size() != numParallel : !warp.empty())
    return emitError() << name
                       << (perWarp ? " needs a warp tile entry per parallel "
                                     "loop"
                                   : " has no warp tile");
  int64_t tiled = 0, rowsPerBlock = 1, rowsPerWarp = 1;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t b = block[p], w = perWarp ? warp[p] : 0;
    if (loops->reducedByProducer[pos]) {
      if (b || w)
        return emitError() << "loop " << pos
                           << " is the row the lanes share: it cannot be "
                              "tiled";
      continue;
    }
    if (b < 1 || loops->extents[pos] % b != 0)
      return emitError() << name << " needs a block tile that divides loop "
                         << pos << " (extent " << loops->extents[pos]
                         << "), got " << b;
    if (perWarp && (w < 1 || w > 32 || !llvm::isPowerOf2_64(w) || b % w))
      return emitError() << "a warp owns 1 to 32 rows: the warp tile of loop "
                         << pos
                         << " must be a power of two dividing the block tile "
                         << b << ", got " << w;
    rowsPerWarp *= perWarp ? w : 1;
    if (!perWarp && b != 1)
      return emitError() << "a block owns one row: the block tile of loop "
                         << pos << " must be 1, got " << b;
    rowsPerBlock *= b;
    ++tiled;
  }
  if (tiled == 0)
    return emitError() << name << " needs a parallel loop to spread rows over";
  if (tiled > 3)
    return emitError() << "block tile tiles " << tiled
                       << " loops but a grid has 3 dimensions";
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 1)
    return emitError() << name << " takes a one-dimensional block of threads";
  if (perWarp && rowsPerWarp > 32)
    return emitError() << "a warp owns at most 32 rows, got " << rowsPerWarp;
  if (perWarp && threads[0] != 32 * rowsPerBlock / rowsPerWarp)
    return emitError() << "threads [" << threads[0] << "] must be a warp per "
                       << rowsPerWarp
                       << " row(s): " << 32 * rowsPerBlock / rowsPerWarp
                       << " for " << rowsPerBlock << " rows per block";
  if (!perWarp && (threads[0] % 32 != 0))
    return emitError() << "threads [" << threads[0] << "] must be whole warps";
  int64_t v = tuning.getVector();
  if (*row % v != 0)
    return emitError() << "vector = " << v << " does not divide the row of "
                       << *row;
  if (v * narrowestElementBits(kernel) > 128)
    return emitError() << "vector = " << v
                       << " exceeds 16-byte accesses of the kernel's "
                          "narrowest operand";
  if (int64_t k = tuning.getRowShared()) {
    int64_t held = heldRowElementBytes(kernel);
    if (held == 0)
      return emitError() << "row_shared = " << k
                         << " needs an input row that two ops or more read "
                            "(held across them); none is";
    int64_t steps = *row / (threads[0] * v);
    if (*row % (threads[0] * v) != 0 || k > steps)
      return emitError() << "row_shared = " << k << " exceeds the " << steps
                         << " whole row steps of each thread (" << *row
                         << " elements, " << threads[0] << " threads x vector "
                         << v << ")";
    // Each held input keeps K steps of V elements per thread.
    int64_t bytes = mulSat(mulSat(k, threads[0]), v * held);
    int64_t limit = kStaticSharedLimit;
    if (TargetAttr target = lookupTarget(kernel))
      limit = std::max<int64_t>(limit, target.getSharedMemoryPerBlock());
    if (bytes > limit)
      return emitError() << "row_shared = " << k << " needs " << bytes
                         << " bytes of shared memory for its held rows; a "
                            "block may have "
                         << limit;
  }
  return success();
}

/// Whether a projected permutation lists its loops in increasing order.
static bool inLoopOrder(AffineMap map) {
  for (unsigned r = 0; r + 1 < map.getNumResults(); ++r)
    if (map.getDimPosition(r) > map.getDimPosition(r + 1))
      return false;
  return true;
}

/// Whether every result of `map` is a sum of loops with positive constant
/// coefficients (a convolution's input: oh * stride + kh * dilation).
static bool isSumOfLoops(AffineMap map) {
  auto isTerm = [](AffineExpr e) {
    if (isa<AffineDimExpr>(e))
      return true;
    auto mul = dyn_cast<AffineBinaryOpExpr>(e);
    if (!mul || mul.getKind() != AffineExprKind::Mul)
      return false;
    auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
    return isa<AffineDimExpr>(mul.getLHS()) && c && c.getValue() > 0;
  };
  return llvm::all_of(map.getResults(), [&](AffineExpr result) {
    SmallVector<AffineExpr> worklist = {result};
    while (!worklist.empty()) {
      AffineExpr e = worklist.pop_back_val();
      auto add = dyn_cast<AffineBinaryOpExpr>(e);
      if (add && add.getKind() == AffineExprKind::Add) {
        worklist.push_back(add.getLHS());
        worklist.push_back(add.getRHS());
      } else if (!isTerm(e)) {
        return false;
      }
    }
    return true;
  });
}

int64_t GemmLoops::extent(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents) {
  int64_t product = 1;
  for (unsigned d : loops)
    product = mulSat(product, extents[d]);
  return product;
}

std::optional<SmallVector<int64_t>>
mlir::egg::splitRowMajor(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
                         int64_t count, bool partial) {
  if (partial && loops.size() == 1 && count != extents[loops[0]] &&
      count <= 2 * extents[loops[0]])
    return SmallVector<int64_t>{count};
  SmallVector<int64_t> split(loops.size(), 1);
  for (int64_t i = loops.size() - 1; i >= 0 && count > 1; --i) {
    int64_t e = extents[loops[i]];
    if (count >= e) {
      if (count % e != 0)
        return std::nullopt;
      split[i] = e;
      count /= e;
    } else {
      if (e % count != 0)
        return std::nullopt;
      split[i] = count;
      count = 1;
    }
  }
  if (count != 1)
    return std::nullopt;
  return split;
}

std::optional<SmallVector<int64_t>>
mlir::egg::gemmTileList(const GemmLoops &gemm, ArrayRef<int64_t> within,
                        int64_t m, int64_t n, bool partial) {
  std::optional<SmallVector<int64_t>> ms =
      splitRowMajor(gemm.mLoops, within, m, partial);
  std::optional<SmallVector<int64_t>> ns =
      splitRowMajor(gemm.nLoops, within, n, partial);
  if (!ms || !ns)
    return std::nullopt;
  SmallVector<int64_t> tile;
  for (unsigned d = 0; d < within.size(); ++d) {
    if (gemm.isReduction(d))
      continue;
    const auto *inM = llvm::find(gemm.mLoops, d);
    const auto *inN = llvm::find(gemm.nLoops, d);
    if (inM != gemm.mLoops.end())
      tile.push_back((*ms)[inM - gemm.mLoops.begin()]);
    else if (inN != gemm.nLoops.end())
      tile.push_back((*ns)[inN - gemm.nLoops.begin()]);
    else
      tile.push_back(1);
  }
  return tile;
}

std::optional<unsigned> mlir::egg::contiguousLoop(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

std::optional<GemmTiles> mlir::egg::gemmTiles(const GemmLoops &gemm,
                                              ArrayRef<int64_t> extents,
                                              int64_t m, int64_t n, int64_t om,
                                              int64_t on, bool partial) {
  std::optional<SmallVector<int64_t>> block =
      gemmTileList(gemm, extents, m, n, partial);
  if (!block)
    return std::nullopt;
  // The block's extent of each loop, for the split among its owners.
  SmallVector<int64_t> blockExtents(extents.size(), 1);
  unsigned p = 0;
  for (unsigned d = 0; d < extents.size(); ++d)
    if (!gemm.isReduction(d))
      blockExtents[d] = (*block)[p++];
  std::optional<SmallVector<int64_t>> inner =
      gemmTileList(gemm, blockExtents, om, on);
  if (!inner)
    return std::nullopt;
  return GemmTiles{*block, *inner};
}

FailureOr<GemmLoops> mlir::egg::analyzeGemmLoops(Operation *op,
                                                 std::string &why) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  bool contraction = linalgOp && linalg::isaContractionOpInterface(linalgOp);
  bool convolution = linalgOp && linalg::isaConvolutionOpInterface(linalgOp);
  if (!contraction && !convolution) {
    why = "the anchor is neither a contraction nor a convolution";
    return failure();
  }
  if (linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1 ||
      (contraction && linalgOp.getNumReductionLoops() != 1)) {
    why = "the contraction does not have two inputs, one result and one "
          "reduction loop";
    return failure();
  }
  GemmLoops loops;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  AffineMap out = maps[2];
  // A convolution's input (one of the two) reads sums of loops; everything
  // else is read through projected permutations.
  unsigned permutations = llvm::count_if(
      maps, [](AffineMap m) { return m.isProjectedPermutation(); });
  if (permutations < 2 || !out.isProjectedPermutation() ||
      !llvm::all_of(maps, isSumOfLoops) || (contraction && permutations != 3)) {
    why = contraction ? "an operand is not indexed by a projected "
                        "permutation of the loops"
                      : "the convolution's filter or result is not indexed "
                        "by a projected permutation, or its input not by "
                        "sums of loops";
    return failure();
  }
  if (out.getNumResults() == 0) {
    why = "the product has a scalar result";
    return failure();
  }
  // The result's dimensions in loop order, so that tile lists (one entry per
  // parallel loop) address them in order.
  if (!inLoopOrder(out)) {
    why = "the result is not indexed by the parallel loops in order";
    return failure();
  }
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  unsigned innermost = out.getDimPosition(out.getNumResults() - 1);
  SmallVector<unsigned> onlyA, onlyB;
  for (unsigned d = 0; d < linalgOp.getNumLoops(); ++d) {
    bool inA = maps[0].isFunctionOfDim(d), inB = maps[1].isFunctionOfDim(d);
    if (iterators[d] == utils::IteratorType::reduction) {
      if (!inA || !inB) {
        why = "reduction loop " + std::to_string(d) +
              " is not read by both "
              "inputs";
        return failure();
      }
      loops.kLoops.push_back(d);
    } else if (inA && inB) {
      loops.batch.push_back(d);
    } else if (inA) {
      onlyA.push_back(d);
    } else if (inB) {
      onlyB.push_back(d);
    }
  }
  // N holds the result's innermost loop; its input is B.
  bool bHoldsN = llvm::is_contained(onlyB, innermost);
  if (!bHoldsN && !llvm::is_contained(onlyA, innermost)) {
    why = "the result's innermost loop is read by both inputs";
    return failure();
  }
  loops.rhs = bHoldsN ? 1 : 0;
  loops.lhs = 1 - loops.rhs;
  loops.nLoops = bHoldsN ? onlyB : onlyA;
  loops.mLoops = bHoldsN ? onlyA : onlyB;
  if (loops.mLoops.empty() || loops.kLoops.empty()) {
    why = "the product is not a (batched) matrix product: it has no " +
          std::string(loops.mLoops.empty() ? "M" : "K") + " loop";
    return failure();
  }
  return loops;
}

/// Whether the root's parallel loops are `op`'s parallel loops, with the
/// same extents and in order: tile lists (one entry per parallel loop of
/// the root) then address `op`'s loops (the root is `op`, or an epilogue
/// over its result in its order).
static bool rootRunsOverResult(const RootLoops &root, linalg::LinalgOp op) {
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
      op.getNumDpsInits() != 1 || op.getNumLoops() < 2)
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

/// Column reductions (`reduce_two_stage`): a block owns BN consecutive
/// columns (the innermost loop; other parallel loops one at a time);
/// threads [TX, R] with TX * vector = BN; thread (x, y) reduces rows y,
/// y + R, ... of its `vector` columns, then the R partials per column are
/// combined through shared memory.
static LogicalResult
checkColumnReduction(KernelOp kernel, TuningAttr tuning,
                     function_ref<InFlightDiagnostic()> emitError) {
  std::optional<unsigned> reduced = columnReductionLoop(kernel);
  if (!reduced)
    return emitError() << "reduce_two_stage needs one reduction loop that is "
                          "not innermost, inputs contiguous along the "
                          "innermost loop and a result in loop order";
  if (!tuning.getThread().empty() || !tuning.getWarp().empty() ||
      !tuning.getReduction().empty() || !tuning.getShared().empty() ||
      !tuning.getRegisters().empty())
    return emitError() << "reduce_two_stage takes block tiles, threads and a "
                          "vector width only";
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  ArrayRef<int64_t> block = tuning.getBlock();
  size_t numParallel = extents.size() - 1;
  if (block.size() != numParallel)
    return emitError() << "reduce_two_stage needs a block tile entry for each "
                          "of the "
                       << numParallel << " parallel loops";
  for (size_t p = 0; p + 1 < numParallel; ++p)
    if (block[p] != 1)
      return emitError() << "reduce_two_stage takes one output row per block: "
                            "block tile 1 on every parallel loop but the "
                            "innermost, got "
                         << block[p];
  int64_t bn = block.back(), last = extents.back();
  int64_t v = tuning.getVector();
  if (bn < 1 || last % bn != 0)
    return emitError() << "block tile " << bn
                       << " does not divide the innermost loop of extent "
                       << last;
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 2 || threads[0] * v != bn)
    return emitError() << "reduce_two_stage takes threads = [block tile / "
                          "vector, rows in flight] = ["
                       << bn / std::max<int64_t>(v, 1) << ", R]";
  if (tuning.getNumThreads() > 1024)
    return emitError() << tuning.getNumThreads()
                       << " threads exceed 1024 per block";
  if (v * widestElementBits(kernel) > 128)
    return emitError() << "vector = " << v << " exceeds 16-byte accesses";
  Type acc = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  int64_t bytes =
      mulSat(tuning.getNumThreads() * v, (acc.getIntOrFloatBitWidth() + 7) / 8);
  if (bytes > kStaticSharedLimit)
    return emitError() << "the partials need " << bytes
                       << " bytes of shared memory; a block may have "
                       << kStaticSharedLimit;
  // A cluster's blocks take equal slices of the rows and the grid's z
  // dimension (the other parallel loops take x and y), on sm_90 or later.
  if (int64_t c = tuning.getCluster(); c != 1) {
    TargetAttr target = lookupTarget(kernel);
    if (!target || target.getSmVersion() < 90)
      return emitError() << "cluster = " << c
                         << " needs thread-block clusters (sm_90 or later)";
    if (numParallel > 2)
      return emitError() << "cluster = " << c << " needs the grid's z "
                         << "dimension: at most two parallel loops, got "
                         << numParallel;
    if (extents[*reduced] % c != 0)
      return emitError() << "cluster = " << c << " does not divide the "
                         << extents[*reduced] << " rows into equal slices";
  }
  return success();
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

bool mlir::egg::isStagedMap(StructureAttr structure, TuningAttr tuning) {
  return structure && tuning &&
         structure.getFormulation() == Formulation::elementwise_flat &&
         !tuning.getShared().empty();
}

/// Maps staged through shared memory: a kernel of one elementwise op whose
/// `shared` inputs it reads transposed; block tiles only (whole tiles, at
/// most three tiled loops), threads a whole number of warps dividing the
/// block's elements and each staged tile (in runs of `vector`, which must
/// divide the tiles along the results' innermost loop and the staged
/// inputs' contiguous dimensions), and staged tiles (rows padded by
/// `padding` elements) within static shared memory.
static LogicalResult
checkStagedMap(KernelOp kernel, TuningAttr tuning,
               function_ref<InFlightDiagnostic()> emitError) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  int64_t ops = 0;
  kernel.getBody().walk([&](TilingInterface) { ++ops; });
  if (!op || ops != 1)
    return emitError() << "inputs are staged through shared memory for "
                          "kernels of one op only";
  if (!tuning.getThread().empty() || !tuning.getWarp().empty() ||
      !tuning.getReduction().empty() || !tuning.getRegisters().empty())
    return emitError() << "a map staged through shared memory takes block "
                          "tiles, threads, shared inputs and padding only";
  int64_t v = tuning.getVector();
  if (v < 1 || !llvm::isPowerOf2_64(v))
    return emitError() << "vector = " << v << " is not a power of two";
  if (tuning.getCopy() != CopyEngine::sync || tuning.getPipeline() != 1 ||
      tuning.getSwizzle() != Swizzle::none)
    return emitError() << "a map staged through shared memory copies with "
                          "plain loads and stores (copy = sync, pipeline = "
                          "1, no swizzle)";
  if (tuning.getPadding() < 0 || tuning.getPadding() > 64)
    return emitError() << "padding " << tuning.getPadding()
                       << " is outside [0, 64]";
  SmallVector<int64_t> transposed = transposedInputs(kernel);
  for (int64_t k : tuning.getShared())
    if (!llvm::is_contained(transposed, k))
      return emitError() << "shared operand " << k
                         << " is not an input the map reads across its "
                            "results' innermost loop (staged inputs: ["
                         << ArrayRef<int64_t>(transposed) << "])";
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  ArrayRef<int64_t> block = tuning.getBlock();
  SmallVector<int64_t> tile = loops->extents;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t b = p < block.size() ? block[p] : 0;
    if (b && loops->extents[pos] % b != 0)
      return emitError() << "block tile " << b << " does not divide loop "
                         << pos << " of extent " << loops->extents[pos]
                         << " (the generic lowering needs whole tiles)";
    if (b)
      tile[pos] = b;
  }
  int64_t blockLoops =
      llvm::count(tiledLoops(*loops, loops->extents, block), true);
  if (blockLoops == 0 || blockLoops > 3)
    return emitError() << "block tile tiles " << blockLoops
                       << " loops; a grid has 1 to 3 dimensions";
  int64_t threads = tuning.getNumThreads();
  if (threads > 1024 || threads % 32 != 0)
    return emitError() << threads
                       << " threads: a staged map takes whole warps, at most "
                          "1024 threads";
  // Vectors run along the results' innermost loop (stage 2) and along each
  // staged input's contiguous dimension (stage 1): both tiles must hold
  // whole vectors, and the results must be contiguous along that loop.
  unsigned inner = op.getNumLoops() - 1;
  if (v > 1) {
    for (OpOperand &operand : op->getOpOperands())
      if (auto type = dyn_cast<ShapedType>(operand.get().getType());
          type && type.getElementTypeBitWidth() * v > 128)
        return emitError() << "vector = " << v << " of "
                           << type.getElementType()
                           << " exceeds 16-byte accesses";
    if (tile[inner] % v != 0)
      return emitError() << "vector = " << v
                         << " does not divide the block tile " << tile[inner]
                         << " of the innermost loop";
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      if (map.getNumResults() == 0 ||
          map.getResult(map.getNumResults() - 1) !=
              getAffineDimExpr(inner, op.getContext()))
        return emitError() << "vector accesses need the results to be "
                              "contiguous along the innermost loop";
    }
  }
  // "N elements", or "N vectors of V" where accesses are vectors.
  auto pieces = [&](int64_t count) {
    return v == 1
               ? std::to_string(count) + " elements"
               : std::to_string(count / v) + " vectors of " + std::to_string(v);
  };
  int64_t elements = 1;
  for (int64_t t : tile)
    elements = mulSat(elements, t);
  if ((elements / v) % threads != 0)
    return emitError() << threads << " threads do not divide the block's "
                       << pieces(elements);
  int64_t bytes = 0;
  for (int64_t k : tuning.getShared()) {
    OpOperand &input = op->getOpOperand(k);
    AffineMap map = op.getMatchingIndexingMap(&input);
    int64_t count = 1, rows = 1;
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      int64_t extent = tile[map.getDimPosition(r)];
      count = mulSat(count, extent);
      if (r + 1 < map.getNumResults())
        rows = mulSat(rows, extent);
    }
    int64_t contiguous = tile[map.getDimPosition(map.getNumResults() - 1)];
    if (contiguous % v != 0)
      return emitError() << "vector = " << v << " does not divide input " << k
                         << "'s tile " << contiguous
                         << " along its contiguous dimension";
    if ((count / v) % threads != 0)
      return emitError() << threads << " threads do not divide the "
                         << pieces(count) << " of input " << k << "'s tile";
    Type element = getElementTypeOrSelf(input.get().getType());
    bytes += mulSat(count + mulSat(rows, tuning.getPadding()),
                    (element.getIntOrFloatBitWidth() + 7) / 8);
  }
  if (bytes > kStaticSharedLimit)
    return emitError() << "the staged tiles need " << bytes
                       << " bytes of shared memory; a block may have "
                       << kStaticSharedLimit;
  return success();
}

bool mlir::egg::lowersBlockOpsWhole(StructureAttr structure,
                                    TuningAttr tuning) {
  return isSharedGemm(tuning) || isStagedMap(structure, tuning) ||
         (structure &&
          structure.getFormulation() == Formulation::reduce_two_stage);
}

bool mlir::egg::isSharedGemm(TuningAttr tuning) {
  return tuning && !tuning.getShared().empty();
}

bool mlir::egg::isMmaGemm(TuningAttr tuning) {
  return isSharedGemm(tuning) && !tuning.getWarp().empty();
}

bool mlir::egg::isWgmmaGemm(TuningAttr tuning) {
  return isMmaGemm(tuning) && tuning.getThreads().size() == 3 &&
         tuning.getThreads()[0] == 128;
}

GemmRegisterBudget mlir::egg::gemmRegisterBudget(int64_t computing,
                                                 bool producer) {
  // The producer's loop fits 56 registers, and linear + GELU's computing
  // threads spilled less with the 224 that leaves two warpgroups than with
  // the 232 that 40 would (ptxas, 48 -> 32 bytes).
  constexpr int64_t kRegistersPerSM = 65536, kProducerRegisters = 56;
  auto roundDown = [](int64_t v) { return v / 8 * 8; };
  int64_t threads = computing + (producer ? 128 : 0);
  GemmRegisterBudget budget;
  budget.launchCap = std::min<int64_t>(
      255, roundDown(kRegistersPerSM / std::max<int64_t>(threads, 1)));
  budget.computing = budget.launchCap;
  if (!producer || computing <= 0)
    return budget;
  int64_t owned = budget.launchCap * threads;
  int64_t share = std::min<int64_t>(
      232, roundDown((owned - 128 * kProducerRegisters) / computing));
  if (share > budget.launchCap) {
    budget.computing = share;
    budget.producerRegisters = kProducerRegisters;
    budget.split = true;
  }
  return budget;
}

int64_t mlir::egg::gemmAccumulatorsPerThread(TuningAttr tuning) {
  auto product = [](ArrayRef<int64_t> tile) {
    int64_t n = 1;
    for (int64_t t : tile)
      n = mulSat(n, std::max<int64_t>(t, 1));
    return n;
  };
  if (isWgmmaGemm(tuning))
    return product(tuning.getWarp()) / 128;
  if (isMmaGemm(tuning))
    return product(tuning.getWarp()) / 32;
  return product(tuning.getThread());
}

int64_t mlir::egg::sharedGemmBytes(int64_t bm, int64_t bn, int64_t bk,
                                   int64_t padding, int64_t stages, Type lhs,
                                   Type rhs, bool lhsKFast, bool rhsKFast) {
  auto tile = [&](int64_t mn, bool kFast, Type type) {
    int64_t elements =
        kFast ? mulSat(mn, bk + padding) : mulSat(bk, mn + padding);
    return mulSat(elements, (type.getIntOrFloatBitWidth() + 7) / 8);
  };
  // Each operand's stages start 16-byte aligned (the lowering's layout).
  auto stagesOf = [&](int64_t bytes) {
    return (mulSat(stages, bytes) + 15) / 16 * 16;
  };
  return stagesOf(tile(bm, lhsKFast, lhs)) + stagesOf(tile(bn, rhsKFast, rhs));
}

/// Tensor cores (mma.sync m16n8k16) take f16 or bf16 matrices and
/// accumulate in f32: the product's body must be exactly that
/// multiply-accumulate (inputs widened with extf), nothing else. Warpgroup
/// MMA also takes f32 matrices, read as TF32 (10-bit mantissas), where
/// the module allows it (`egg.allow_tf32`): never silently.
static LogicalResult
checkMmaProduct(linalg::LinalgOp op, bool wgmma,
                function_ref<InFlightDiagnostic()> emitError) {
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (a == b && a.isF32() && c.isF32() && wgmma) {
    if (!allowsTf32(op))
      return emitError() << "f32 products reach tensor cores only as TF32 "
                            "(10-bit mantissas), which the user must allow: "
                            "egg.allow_tf32 on the module (pipeline option "
                            "allow-tf32)";
  } else if (a != b || !(a.isF16() || a.isBF16()) || !c.isF32()) {
    return emitError() << "tensor cores (a warp tile) take f16 or bf16 "
                          "matrices of one type accumulated in f32"
                       << (wgmma ? " (or f32 as TF32, where allowed)" : "")
                       << ", not " << a << " x " << b << " -> " << c;
  }
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(inner))
      return emitError() << "tensor cores compute a plain multiply-add; the "
                            "product's body has '"
                         << inner.getName() << "'";
  return success();
}

/// The 2-D tensor whose tensor map TMA reads operand `operand` of a product
/// through. A 2-D operand is its own. A batched one qualifies where it is a
/// tensor.expand_shape of a 2-D tensor that pairs each batch loop with the
/// loop inside it (a split product's partial products read A as [M, S,
/// K/S] and B as [S, K/S, N]): the lowering then numbers that pair's
/// positions as the source's, which is exact as long as no box runs from
/// one batch into the next, i.e. the tiles of the inner loops (`tileOf`)
/// divide them.
static FailureOr<ShapedType>
tmaSource(const GemmLoops &gemm, OpOperand *operand, ArrayRef<int64_t> extents,
          ArrayRef<int64_t> tileOf,
          function_ref<InFlightDiagnostic()> emitError) {
  auto type = cast<ShapedType>(operand->get().getType());
  auto refuse = [&]() {
    return emitError() << "copy = tma: input " << operand->getOperandNumber()
                       << " is neither 2-D nor the reshape of a 2-D tensor "
                          "that pairs each batch loop with the loop inside "
                          "it, whose tile divides it";
  };
  AffineMap map = cast<linalg::LinalgOp>(operand->getOwner())
                      .getMatchingIndexingMap(operand);
  auto loopAt = [&](int64_t dim) -> std::optional<unsigned> {
    if (auto d = dyn_cast<AffineDimExpr>(map.getResult(dim)))
      return d.getPosition();
    return std::nullopt;
  };
  SmallVector<ReassociationIndices> groups;
  ShapedType source = type;
  auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (expand && expand.getSrcType().getRank() == 2 && type.getRank() > 2) {
    groups = expand.getReassociationIndices();
    source = expand.getSrcType();
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      groups.push_back({d});
  }
  if (source.getRank() != 2)
    return refuse();
  auto isBatch = [&](unsigned d) { return llvm::is_contained(gemm.batch, d); };
  for (const ReassociationIndices &group : groups) {
    SmallVector<std::optional<unsigned>> loops;
    for (int64_t dim : group)
      loops.push_back(loopAt(dim));
    if (llvm::any_of(loops, [](auto l) { return !l; }))
      return refuse();
    if (group.size() == 1 && !isBatch(*loops[0]))
      continue;
    if (group.size() != 2 || !isBatch(*loops[0]) || isBatch(*loops[1]) ||
        extents[*loops[1]] % tileOf[*loops[1]] != 0)
      return refuse();
  }
  return source;
}

/// GEMM through shared memory (docs/pipeline.md): a block computes a
/// [BM, BN] tile of the result, stepping K by BK; A and B tiles are copied to
/// shared memory by all threads and each thread accumulates a [TM, TN] tile
/// in registers.
static LogicalResult
checkSharedGemm(KernelOp kernel, TuningAttr tuning,
                function_ref<InFlightDiagnostic()> emitError) {
  std::string why;
  Operation *anchor = kernel.getAnchorOp();
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
  KernelClass kind = classifyKernel(kernel);
  if (kind != KernelClass::Contraction && kind != KernelClass::Convolution)
    why = std::string("not a ") + stringifyKernelClass(kind).str() +
          " kernel, not a contraction or convolution";
  if (failed(gemm) || !why.empty())
    return emitError() << "shared-memory promotion is implemented for "
                          "matrix products and implicit-GEMM convolutions "
                          "only: "
                       << why;
  // A convolution goes through the GEMM lowering as its stage-1 structure
  // says (conv_implicit_gemm), and only then.
  StructureAttr structure = kernel.getStructureAttr();
  if (kind == KernelClass::Convolution &&
      (!structure ||
       structure.getFormulation() != Formulation::conv_implicit_gemm))
    return emitError() << "a convolution takes shared-memory promotion as an "
                          "implicit GEMM: its structure must be "
                          "conv_implicit_gemm";
  auto op = cast<linalg::LinalgOp>(anchor);
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return emitError() << "dynamic shapes are not supported yet";
  FailureOr<RootLoops> root = analyzeRootLoops(kernel, emitError);
  if (failed(root))
    return failure();
  if (!rootRunsOverResult(*root, op))
    return emitError() << "the ops after the matrix product do not run over "
                          "its result in its order";
  SmallVector<unsigned> parallel;
  for (unsigned d = 0; d < extents.size(); ++d)
    if (!gemm->isReduction(d))
      parallel.push_back(d);

  auto sameAs = [](ArrayRef<int64_t> list, ArrayRef<int64_t> want) {
    return list.size() == want.size() && llvm::equal(list, want);
  };
  unsigned numInputs = 2;
  if (!sameAs(tuning.getShared(), {0, 1}))
    return emitError() << "shared = [0, 1] (both inputs) is the promotion "
                          "the GEMM lowering implements";
  if (!tuning.getRegisters().empty() &&
      !sameAs(tuning.getRegisters(), {int64_t(numInputs)}))
    return emitError() << "registers may only name the result (operand "
                       << numInputs << "): it is accumulated in registers";
  // Tensor cores: a warp tile per warp instead of a thread tile.
  bool mma = isMmaGemm(tuning);
  // Warpgroup MMA (Hopper): tiles in the 128-byte swizzled layout that
  // wgmma's matrix descriptors describe; other GEMMs pad their rows.
  bool wgmma = isWgmmaGemm(tuning);
  if (mma && failed(checkMmaProduct(op, wgmma, emitError)))
    return failure();
  if (wgmma) {
    TargetAttr target = lookupTarget(kernel);
    // wgmma is sm_90a's alone (later `a` targets have other MMAs).
    if (!target || target.getSmVersion() != 90 ||
        !target.hasArchSpecificFeatures())
      return emitError() << "warpgroup MMA (threads = [128, N, M]) needs an "
                            "sm_90a target, not "
                         << (target ? target.getChip() : StringRef("none"));
    if (tuning.getSwizzle() != Swizzle::xor128)
      return emitError() << "warpgroup MMA reads its tiles through the "
                            "128-byte swizzle: it needs swizzle = xor128";
  } else if (tuning.getSwizzle() != Swizzle::none) {
    return emitError() << "swizzled shared memory is implemented for "
                          "warpgroup MMA only (threads = [128, N, M]): use "
                          "padding";
  }
  ArrayRef<int64_t> block = tuning.getBlock();
  ArrayRef<int64_t> inner = mma ? tuning.getWarp() : tuning.getThread();
  StringRef level = mma ? "warp" : "thread";
  if (mma && !tuning.getThread().empty())
    return emitError() << "the tensor-core GEMM takes a warp tile and no "
                          "thread tile: mma.sync fixes each thread's share";
  if (block.size() != parallel.size() || inner.size() != parallel.size())
    return emitError() << "the shared-memory GEMM needs block and " << level
                       << " tiles for each of the " << parallel.size()
                       << " parallel loops";
  // Per loop: block tiles that divide the loops, inner tiles that divide
  // the block tiles; batch loops take 1. A block tile that does not divide
  // an M or N group of one loop leaves a partial last tile, whose copies,
  // loads and stores past the loop's end are skipped (docs/pipeline.md,
  // "Partial tiles"); a convolution's groups keep whole tiles.
  SmallVector<int64_t> blockOf(extents.size(), 1);
  int64_t gridLoops = 0;
  for (auto [p, d] : llvm::enumerate(parallel)) {
    bool inM = llvm::is_contained(gemm->mLoops, d);
    bool inN = llvm::is_contained(gemm->nLoops, d);
    if (!inM && !inN) {
      if (block[p] != 1 || inner[p] != 1)
        return emitError() << "batch loop " << d << " takes block and " << level
                           << " tiles of 1";
      gridLoops += extents[d] > 1;
      continue;
    }
    int64_t b = block[p], t = inner[p];
    ArrayRef<unsigned> group = inM ? gemm->mLoops : gemm->nLoops;
    if (b < 1 || b > 2 * extents[d])
      return emitError() << "block tile " << b << " of loop " << d
                         << " is not between 1 and twice its extent "
                         << extents[d]
                         << " (a partial tile at least half inside the loop)";
    if (extents[d] % b != 0 && group.size() != 1)
      return emitError() << "block tile " << b << " does not divide loop " << d
                         << " of extent " << extents[d] << ": a partial tile "
                         << "is implemented for an M or N of one loop only";
    if (t < 1 || b % t != 0)
      return emitError() << level << " tile " << t
                         << " does not divide the block tile " << b
                         << " of loop " << d;
    blockOf[d] = b;
    gridLoops += b < extents[d];
  }
  if (gridLoops > 3)
    return emitError() << "the block tile leaves " << gridLoops
                       << " loops to the grid, which has 3 dimensions";
  // A group of several loops (a convolution's) numbers its positions
  // row-major: a block's (and an owner's) positions must be one contiguous
  // range of that numbering, i.e. whole inner loops and a part of one.
  auto groupTiles = [&](ArrayRef<unsigned> loops, ArrayRef<int64_t> list,
                        int64_t &total) -> SmallVector<int64_t> {
    SmallVector<int64_t> tiles;
    total = 1;
    for (unsigned d : loops) {
      tiles.push_back(list[llvm::find(parallel, d) - parallel.begin()]);
      total *= tiles.back();
    }
    return tiles;
  };
  int64_t bm, bn, tm, tn;
  for (bool isM : {true, false}) {
    ArrayRef<unsigned> loops = isM ? gemm->mLoops : gemm->nLoops;
    int64_t &b = isM ? bm : bn, &t = isM ? tm : tn;
    SmallVector<int64_t> blocks = groupTiles(loops, block, b);
    SmallVector<int64_t> inners = groupTiles(loops, inner, t);
    std::optional<SmallVector<int64_t>> wantBlock =
        splitRowMajor(loops, extents, b, /*partial=*/true);
    std::optional<SmallVector<int64_t>> wantInner =
        splitRowMajor(loops, blockOf, t);
    if (!wantBlock || *wantBlock != blocks || !wantInner ||
        *wantInner != inners)
      return emitError() << "the " << (isM ? "M" : "N") << " loops ("
                         << ArrayRef<unsigned>(loops) << ") take block tiles ["
                         << ArrayRef<int64_t>(blocks) << "] and " << level
                         << " tiles [" << ArrayRef<int64_t>(inners) << "]"
                         << ": each must cover whole inner loops and part of "
                            "one (a contiguous row-major range)";
  }
  // wgmma: 64 rows of A per instruction, N a multiple of 8 up to 256.
  if (wgmma && tm % 64 != 0)
    return emitError() << "warp tile " << tm << " along M is not a multiple "
                       << "of 64 (wgmma's M)";
  if (wgmma && (tn % 8 != 0 || tn > 256))
    return emitError() << "warp tile " << tn << " along N is not a multiple "
                       << "of 8 up to 256 (wgmma's N)";
  // ldmatrix loads 16x16 pieces of A and two 8-wide pieces of B at once.
  if (mma && !wgmma && (tm % 16 != 0 || tn % 16 != 0))
    return emitError() << "warp tile " << (tm % 16 ? tm : tn) << " along "
                       << (tm % 16 ? "M" : "N")
                       << " is not a multiple of 16 (the mma.sync "
                          "fragments)";
  int64_t group = wgmma ? 128 : mma ? 32 : 1;
  SmallVector<int64_t> wantThreads;
  if (mma)
    wantThreads = {group, bn / tn, bm / tm};
  else
    wantThreads = {bn / tn, bm / tm};
  if (!sameAs(tuning.getThreads(), wantThreads))
    return emitError() << "threads must be [" << ArrayRef<int64_t>(wantThreads)
                       << "]: "
                       << (wgmma ? "a warpgroup's threads, then warpgroups "
                                   "along N and M"
                           : mma ? "a warp's lanes, then warps along N and M"
                                 : "block tile over thread tile along N, then "
                                   "M");
  int64_t numThreads = group * (bn / tn) * (bm / tm);
  if (numThreads < 32 || numThreads > 1024)
    return emitError() << numThreads
                       << " threads per block: the GEMM needs 32 to 1024";
  if (!mma && tm * tn > 128)
    return emitError() << "a thread tile of " << tm << "x" << tn
                       << " accumulators exceeds the 128 registers allowed";
  // A warp's m16n8 fragments hold 4 accumulators per thread each.
  // A warpgroup's m64nN result holds N / 2 per thread.
  int64_t accumulators =
      wgmma ? (tm / 64) * (tn / 2) : (tm / 16) * (tn / 8) * 4;
  if (mma && accumulators > 128)
    return emitError() << "a warp tile of " << tm << "x" << tn << " needs "
                       << accumulators
                       << " accumulators per thread; at most 128 are allowed";
  if (tuning.getReduction().size() != 1)
    return emitError() << "the shared-memory GEMM needs a reduction tile "
                          "(the K step)";
  int64_t bk = tuning.getReduction()[0];
  int64_t extentK = GemmLoops::extent(gemm->kLoops, extents);
  if (bk < 1)
    return emitError() << "reduction tile " << bk << " is not positive";
  // A partial last K tile is zero-filled by its copies (cp.async with a
  // source size of 0 past K), which adds nothing to the multiply-add body
  // of a contraction or convolution (the kernel classes taken above).
  // (TMA fills boxes past the tensor's end with zeros too.)
  if (extentK % bk != 0 && tuning.getCopy() == CopyEngine::sync)
    return emitError() << "reduction tile " << bk
                       << " does not divide the K loop of extent " << extentK
                       << ": a partial last K tile needs copy = cp_async or "
                          "tma, whose copies zero-fill past K";
  // Fragments a K step ahead (egg-lower-shared-gemm): the wait and barrier
  // of the next K tile come inside the loop body, which is the whole K
  // tile unrolled.
  if (tuning.getFragmentsAhead() != 0) {
    if (tuning.getPipeline() < 2)
      return emitError() << "fragments_ahead = 1 needs pipeline >= 2: the "
                            "next K tile must be in flight";
    if (mulSat(mulSat(tm, tn), bk) > kFragmentsAheadFmas)
      return emitError() << "fragments_ahead = 1 unrolls the K tile: " << tm
                         << "x" << tn << " values over a K step of " << bk
                         << " are more than " << kFragmentsAheadFmas
                         << " multiply-adds";
  }
  Type lhs = getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get());
  Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(gemm->rhs)->get());
  // An instruction's K: 16 16-bit elements, or 8 TF32 (32 bytes either way).
  int64_t instrK = wgmma ? 256 / lhs.getIntOrFloatBitWidth() : 16;
  if (mma && bk % instrK != 0)
    return emitError() << "reduction tile " << bk << " is not a multiple of "
                       << instrK << " (the tensor-core instruction's K)";

  // Copies: every thread moves the same number of `vector`-wide pieces of
  // each tile, along the operand's contiguous dimension.
  int64_t v = tuning.getVector();
  for (unsigned which : {gemm->lhs, gemm->rhs}) {
    OpOperand *operand = op.getDpsInputOperand(which);
    auto type = cast<ShapedType>(operand->get().getType());
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    AffineMap map = op.getMatchingIndexingMap(operand);
    std::optional<unsigned> fastLoop = contiguousLoop(map);
    unsigned mn = which == gemm->lhs ? gemm->innerM() : gemm->innerN();
    int64_t tileMN = which == gemm->lhs ? bm : bn;
    // The fast index is neither: an NCHW input read along ow * s + kw,
    // copied one element at a time into FMA tiles.
    if (!fastLoop || (*fastLoop != mn && *fastLoop != gemm->innerK())) {
      if (mma || v != 1)
        return emitError() << "input " << which
                           << " is not contiguous along its matrix "
                              "dimensions: only FMA tiles with vector = 1 "
                              "read it";
    }
    unsigned fast = fastLoop.value_or(~0u);
    int64_t along = fast == mn ? tileMN : bk;
    // A vector stays within the innermost loop of its group (block tile
    // along M/N, whole loop along K).
    int64_t run = fast == mn ? blockOf[mn] : extents[gemm->innerK()];
    // Pieces need not be a multiple of the threads: the last round of
    // copies is guarded (a 200-row tile of 8-element pieces over 256).
    if (v * bytes > 16 || along % v != 0 || type.getShape().back() % v != 0 ||
        run % v != 0 || (tileMN * bk) % v)
      return emitError() << "vector = " << v << " does not fit the copies of "
                         << "input " << which << ": " << tileMN << "x" << bk
                         << " elements, at most 16 bytes per access";
    // Swizzled tiles: 16-byte pieces, rows of 128 bytes (64 16-bit
    // elements) along the contiguous dimension.
    // wgmma transposes 16-bit tiles only: TF32 tiles are stored K-major,
    // an M/N-contiguous operand copied one element at a time.
    bool sharedMN = gemmTileAlongMN(mma, wgmma, bytes, fast == mn);
    if (wgmma && bytes == 4 && fast == mn &&
        tuning.getCopy() == CopyEngine::tma)
      return emitError() << "input " << which << " is contiguous along M/N: "
                         << "TF32 tiles are stored K-major, which TMA copies "
                            "cannot transpose (use cp_async)";
    if (wgmma && v * bytes != 16)
      return emitError() << "vector = " << v << " does not fit the swizzled "
                         << "tiles of input " << which
                         << ": warpgroup MMA copies 16-byte pieces";
    if (wgmma && (sharedMN ? tileMN : bk) % (128 / bytes) != 0)
      return emitError() << "input " << which << " is stored contiguous along "
                         << (sharedMN ? "M/N" : "K") << ": its tile extent "
                         << (sharedMN ? tileMN : bk)
                         << " must be a multiple of " << 128 / bytes
                         << " (128-byte swizzled rows)";
    if (wgmma && sharedMN && (which == gemm->lhs ? tm : tn) % (128 / bytes))
      return emitError() << "input " << which << " is contiguous along M/N: "
                         << "the warp tile must be a multiple of "
                         << 128 / bytes << " (128-byte swizzled rows)";
    // A zero pad fused into the kernel (egg.padded_view): a piece of
    // several elements along a padded contiguous dimension could straddle
    // the border.
    if (auto pad = operand->get().getDefiningOp<tensor::PadOp>()) {
      bool transposed = (fast == mn) != sharedMN;
      int64_t pieceElems =
          transposed && tuning.getCopy() != CopyEngine::sync ? 1 : v;
      int64_t last = pad.getSourceType().getRank() - 1;
      if (pieceElems > 1 &&
          (pad.getStaticLow()[last] != 0 || pad.getStaticHigh()[last] != 0))
        return emitError() << "input " << which << " is padded along its "
                           << "contiguous dimension in the kernel: its "
                              "copies need vector = 1";
    }
    if (tuning.getCopy() == CopyEngine::cp_async) {
      bool transposed = (fast == mn) != sharedMN;
      int64_t chunk = transposed ? bytes : v * bytes;
      if (chunk != 4 && chunk != 8 && chunk != 16)
        return emitError() << "copy = cp_async moves 4, 8 or 16 bytes at a "
                              "time: input "
                           << which << " gives pieces of " << chunk
                           << " bytes ("
                           << (fast == mn ? "vector width"
                                          : "stored transposed, one element")
                           << ")";
    }
  }
  int64_t stages = tuning.getPipeline();
  // TMA (docs/pipeline.md, "TMA copies"): a producer warpgroup copies each
  // stage's swizzled columns as boxes of a tensor map of the whole operand,
  // and the computing warpgroups wait on the stage's mbarrier.
  if (tuning.getCopy() == CopyEngine::tma) {
    if (!wgmma)
      return emitError() << "copy = tma fills the swizzled tiles of "
                            "warpgroup MMA (threads = [128, N, M]) only";
    if (gemm->mLoops.size() != 1 || gemm->nLoops.size() != 1 ||
        gemm->kLoops.size() != 1)
      return emitError() << "copy = tma is implemented for matrix products "
                            "of one M, N and K loop";
    if (stages < 2)
      return emitError() << "copy = tma needs pipeline >= 2 (stages with "
                            "an mbarrier each)";
    if (numThreads + 128 > 1024)
      return emitError() << "copy = tma adds a producer warpgroup to the "
                         << numThreads << " computing threads: at most 896";
    // A cluster of two blocks along N shares the A tile: each block copies
    // half of its rows and multicasts them to both (docs/pipeline.md,
    // "TMA multicast").
    if (int64_t c = tuning.getCluster(); c != 1) {
      OpOperand *lhsOperand = op.getDpsInputOperand(gemm->lhs);
      int64_t tilesN = llvm::divideCeil(extents[gemm->innerN()], bn);
      if (c != 2)
        return emitError() << "cluster = " << c
                           << ": TMA products take clusters of 2 only";
      // Measured on the H200 (session 29): 128 x 64 tiles correct (four
      // shapes), 128 x 128 tiles not (nor 128 x 256 before the session's
      // fixes). The A tile's halves are then whole 8-row swizzle atoms.
      if (bm != 128 || bn != 64)
        return emitError() << "cluster = 2 is limited to 128 x 64 tiles, the "
                              "only ones that computed correctly on the GPU "
                              "(got "
                           << bm << " x " << bn
                           << "; docs/pipeline.md, \"TMA multicast\")";
      if (!gemm->batch.empty())
        return emitError() << "cluster = 2 is implemented for products "
                              "without batch loops";
      if (contiguousLoop(op.getMatchingIndexingMap(lhsOperand)) !=
          gemm->innerK())
        return emitError() << "cluster = 2 multicasts halves of A's rows: "
                              "A must be contiguous along K";
      if (tilesN % 2 != 0)
        return emitError() << "cluster = 2 pairs the " << tilesN
                           << " tiles along N: their number must be even";
    }
    // A box must not run past a tile's end into the next batch (where the
    // operand is a batch's reshape, below): the tiles divide their loops.
    SmallVector<int64_t> tileOf(blockOf);
    tileOf[gemm->innerK()] = bk;
    for (unsigned which : {gemm->lhs, gemm->rhs}) {
      OpOperand *operand = op.getDpsInputOperand(which);
      FailureOr<ShapedType> source =
          tmaSource(*gemm, operand, extents, tileOf, emitError);
      if (failed(source))
        return failure();
      ShapedType type = *source;
      int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
      unsigned mn = which == gemm->lhs ? gemm->innerM() : gemm->innerN();
      bool fastIsMN = contiguousLoop(op.getMatchingIndexingMap(operand)) == mn;
      int64_t rows = fastIsMN ? bk : (which == gemm->lhs ? bm : bn);
      if (type.getRank() != 2 || rows > 256 ||
          (type.getShape().back() * bytes) % 16 != 0)
        return emitError()
               << "copy = tma: input " << which
               << " needs a 2-D tensor whose rows are a multiple of 16 bytes "
                  "and boxes of at most 256 rows (here "
               << rows << ")";
    }
  }
  if (stages > 1 && tuning.getCopy() == CopyEngine::sync)
    return emitError() << "pipeline = " << stages
                       << " needs copy = cp_async or tma";
  // Deeper pipelines were timed with TMA's mbarriers only (session 28).
  if (stages > 4 && tuning.getCopy() != CopyEngine::tma)
    return emitError() << "pipeline = " << stages
                       << " exceeds 4 stages: deeper pipelines need copy = tma";
  if (tuning.getPadding() < 0 || tuning.getPadding() > 64)
    return emitError() << "padding " << tuning.getPadding()
                       << " is outside [0, 64]";
  if (mma && tuning.getPadding() % 8 != 0)
    return emitError() << "padding " << tuning.getPadding()
                       << " is not a multiple of 8 elements: ldmatrix reads "
                          "rows at 16-byte boundaries";
  auto kFast = [&](unsigned which) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(which));
    return mma && contiguousLoop(map) == gemm->innerK();
  };
  int64_t bytes = sharedGemmBytes(bm, bn, bk, tuning.getPadding(), stages, lhs,
                                  rhs, kFast(gemm->lhs), kFast(gemm->rhs));
  // The lowering aligns the swizzled tiles at run time.
  if (wgmma)
    bytes += kWgmmaSwizzleAtom;
  // Beyond 48 KB the tiles live in the block's dynamic shared memory, up to
  // the target's limit (deep pipelines).
  int64_t limit = kStaticSharedLimit;
  if (TargetAttr target = lookupTarget(kernel))
    limit = std::max<int64_t>(limit, target.getSharedMemoryPerBlock());
  if (bytes > limit)
    return emitError() << "the tiles need " << bytes
                       << " bytes of shared memory; a block may have " << limit;
  return success();
}

LogicalResult
mlir::egg::checkLowerable(KernelOp kernel, TuningAttr tuning,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto unsupported = [&](StringRef knob) {
    return emitError() << "the generic lowering does not implement " << knob
                       << " yet";
  };
  StructureAttr structure = kernel.getStructureAttr();
  bool clusterColumns =
      structure &&
      structure.getFormulation() == Formulation::reduce_two_stage &&
      !structure.isSplit();
  bool clusterProduct =
      structure && structure.getFormulation() == Formulation::gemm_direct &&
      tuning.getCopy() == CopyEngine::tma;
  if (tuning.getRowShared() != 0 &&
      !(structure &&
        structure.getFormulation() == Formulation::reduce_row_per_block))
    return emitError() << "row_shared = " << tuning.getRowShared()
                       << " is for rows held by a block "
                          "(reduce_row_per_block) only";
  if (tuning.getFragmentsAhead() != 0 &&
      !(isSharedGemm(tuning) && !isMmaGemm(tuning)))
    return emitError() << "fragments_ahead = " << tuning.getFragmentsAhead()
                       << " is for FMA products through shared memory (a "
                          "`thread` tile and shared = [0, 1]) only";
  if (tuning.getCluster() != 1 && !clusterColumns && !clusterProduct)
    return emitError() << "cluster = " << tuning.getCluster()
                       << " is implemented for column reductions "
                          "(reduce_two_stage without split_k) and TMA "
                          "products (gemm_direct, copy = tma) only";
  // A split kernel is checked as its partial results (the sum over the
  // slices is tuned by the expert when egg-split-k builds it).
  if (structure && structure.isSplit())
    return withSplitCopy(kernel, [&](SplitKernels split) {
      return checkLowerable(split.partial, partialTuning(tuning), [&]() {
        return emitError() << "in its partial results (loop 0 is the "
                              "slice, the kernel's loops follow): ";
      });
    });
  if (isCooperativeRow(structure))
    return checkCooperativeRow(kernel, structure.getFormulation(), tuning,
                               emitError);
  if (isStagedMap(structure, tuning))
    return checkStagedMap(kernel, tuning, emitError);
  if (isSharedGemm(tuning))
    return checkSharedGemm(kernel, tuning, emitError);
  if (structure &&
      structure.getFormulation() == Formulation::conv_implicit_gemm)
    return emitError() << "conv_implicit_gemm runs through the GEMM "
                          "lowering: its tuning must promote both inputs to "
                          "shared memory (shared = [0, 1])";
  if (structure && structure.getFormulation() == Formulation::reduce_two_stage)
    return checkColumnReduction(kernel, tuning, emitError);
  if (!tuning.getWarp().empty())
    return unsupported("warp tiles");
  if (!tuning.getReduction().empty())
    return unsupported("reduction tiles");
  if (!tuning.getShared().empty() || !tuning.getRegisters().empty())
    return unsupported("memory promotion");

  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  ArrayRef<int64_t> block = tuning.getBlock(), thread = tuning.getThread();
  SmallVector<int64_t> blockExtents = loops->extents;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t extent = loops->extents[pos];
    int64_t b = p < block.size() ? block[p] : 0;
    int64_t t = p < thread.size() ? thread[p] : 0;
    if ((b || t) && loops->reducedByProducer[pos])
      return emitError() << "loop " << pos
                         << " is a row that the kernel's reductions run "
                            "along: it cannot be tiled";
    if (b && extent % b != 0)
      return emitError() << "block tile " << b << " does not divide loop "
                         << pos << " of extent " << extent
                         << " (the generic lowering needs whole tiles)";
    int64_t outer = b ? b : extent;
    if (t && outer % t != 0)
      return emitError() << "thread tile " << t << " does not divide " << outer
                         << " in loop " << pos;
    blockExtents[pos] = outer;
  }
  // Tiles spanning their whole loop are left untiled when more than three
  // loops are tiled: a 4-D map (a channels-last pad) then still fits the
  // grid and the block.
  int64_t blockLoops =
      llvm::count(tiledLoops(*loops, loops->extents, block), true);
  int64_t threadLoops =
      llvm::count(tiledLoops(*loops, blockExtents, thread), true);
  if (blockLoops > 3)
    return emitError() << "block tile tiles " << blockLoops
                       << " loops but a grid has 3 dimensions";
  if (threadLoops > 3)
    return emitError() << "thread tile tiles " << threadLoops
                       << " loops but a block has 3 dimensions";
  if (int64_t v = tuning.getVector(); v > 1) {
    if (failed(checkVectorizable(kernel, *loops, thread, v, emitError)))
      return failure();
  }
  SmallVector<int64_t> implied = impliedThreads(*loops, block, thread);
  SmallVector<int64_t> given = llvm::to_vector(tuning.getThreads());
  while (given.size() < implied.size())
    given.push_back(1);
  while (implied.size() < given.size())
    implied.push_back(1);
  if (given != implied)
    return emitError() << "threads [" << tuning.getThreads()
                       << "] do not match the [" << ArrayRef<int64_t>(implied)
                       << "] threads that the block and thread tiles imply";
  return success();
}

/// Candidate tile sizes for a loop of `extent`: powers of two that divide
/// it (whole tiles, as the generic lowering needs) up to 4096, the whole
/// loop when it is not larger, and `keep` (the anchor's choice).
static SmallVector<int64_t> tileChoices(int64_t extent, int64_t keep) {
  SmallVector<int64_t> choices;
  for (int64_t d = 1; d <= std::min<int64_t>(extent, 4096); d *= 2)
    if (extent % d == 0)
      choices.push_back(d);
  if (extent <= 4096)
    choices.push_back(extent);
  if (keep > 0)
    choices.push_back(keep);
  llvm::sort(choices);
  choices.erase(llvm::unique(choices), choices.end());
  return choices;
}

/// The anchor and the `found` points (with their distance to it), closest
/// first, at most `limit`. Points are distinct by construction; the anchor
/// is the only one at distance 0, so it comes first.
static SmallVector<TuningAttr>
closestFirst(SmallVectorImpl<std::pair<double, TuningAttr>> &found,
             TuningAttr anchor, size_t limit) {
  if (llvm::none_of(found, [&](auto &f) { return f.second == anchor; }))
    found.push_back({0.0, anchor});
  std::stable_sort(found.begin(), found.end(),
                   [](auto &x, auto &y) { return x.first < y.first; });
  SmallVector<TuningAttr> result;
  for (auto &entry : ArrayRef(found).take_front(std::min(limit, found.size())))
    result.push_back(entry.second);
  return result;
}

/// Rows shared by lanes: rows per block (a warp each) or threads per block
/// (one row each), and vector widths up to the anchor's.
static SmallVector<TuningAttr> enumerateRowTunings(KernelOp kernel,
                                                   const RootLoops &loops,
                                                   TuningAttr anchor,
                                                   size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  bool perWarp = kernel.getStructureAttr().getFormulation() ==
                 Formulation::reduce_row_per_warp;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  // The innermost loop tiled by blocks is the one that varies.
  std::optional<size_t> inner;
  for (size_t p = block.size(); p-- > 0 && !inner;)
    if (block[p] > 0)
      inner = p;
  SmallVector<std::pair<double, TuningAttr>> found;
  auto tryPoint = [&](int64_t threads, ArrayRef<int64_t> b,
                      ArrayRef<int64_t> warp, int64_t v,
                      int64_t rowShared = 0) {
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>{threads}, b, warp, ArrayRef<int64_t>{},
        ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
        int64_t(0), Swizzle::none, v, CopyEngine::sync, int64_t(1),
        /*cluster=*/int64_t(1), rowShared,
        /*fragmentsAhead=*/int64_t(0));
    if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
      found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2) {
    if (!perWarp) {
      for (int64_t n = 32; n <= 1024; n *= 2) {
        tryPoint(n, block, anchor.getWarp(), v);
        // Held row steps in shared memory (row_shared): every count for
        // the block sizes of 256 threads and more whose rows are held (at
        // most kHeldBytesPerLane per lane): theirs are the held rows that
        // limit blocks per SM.
        if (n >= 256 && holdsRow(kernel, n))
          for (int64_t k = 1; k <= 16; ++k)
            tryPoint(n, block, anchor.getWarp(), v, k);
      }
      continue;
    }
    if (!inner)
      break;
    // n warps per block, g rows per warp (short rows share a warp).
    int64_t otherRows = 1;
    for (size_t p = 0; p < block.size(); ++p)
      if (p != *inner && block[p] > 0)
        otherRows *= block[p];
    for (int64_t n = 1; n <= 32 && 32 * n * otherRows <= 1024; n *= 2) {
      for (int64_t g = 1; g <= 32; g *= 2) {
        SmallVector<int64_t> b = block;
        SmallVector<int64_t> warp = llvm::to_vector(anchor.getWarp());
        b[*inner] = n * g;
        warp[*inner] = g;
        tryPoint(32 * n * otherRows, b, warp, v);
      }
    }
  }
  return closestFirst(found, anchor, limit);
}

/// Column reductions: threads along the columns (TX), rows in flight (R)
/// and vector widths up to the anchor's.
static SmallVector<TuningAttr>
enumerateColumnTunings(KernelOp kernel, TuningAttr anchor, size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2) {
    for (int64_t tx = 2; tx <= 64; tx *= 2) {
      for (int64_t rows = 1; tx * rows <= 1024; rows *= 2) {
        if (tx * rows < 32)
          continue;
        block.back() = tx * v;
        // Rows shared by a cluster's blocks too (sm_90; farther from an
        // anchor without one, tuningDistance): none has beaten the tilings
        // without one yet (session 27, H200).
        for (int64_t cluster : {1, 2, 4}) {
          TuningAttr tuning = TuningAttr::getChecked(
              function_ref<InFlightDiagnostic()>(emitError),
              kernel.getContext(), ArrayRef<int64_t>{tx, rows},
              ArrayRef<int64_t>(block), ArrayRef<int64_t>{},
              ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
              ArrayRef<int64_t>{}, int64_t(0), Swizzle::none, v,
              CopyEngine::sync, int64_t(1), cluster,
              /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
          if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
            continue;
          found.push_back({tuningDistance(tuning, anchor), tuning});
        }
      }
    }
  }
  return closestFirst(found, anchor, limit);
}

/// Maps staged through shared memory: tiles of 16-128 along the results'
/// innermost loop and the staged inputs' contiguous loops (other tiles as
/// the anchor's), 64-512 threads, padding 0 or the anchor's, the anchor's
/// vector width or scalar accesses; then the same
/// map unstaged (the generic lowering's tiles around the anchor's block).
static SmallVector<TuningAttr> enumerateStagedTunings(KernelOp kernel,
                                                      TargetAttr target,
                                                      const RootLoops &loops,
                                                      TuningAttr anchor,
                                                      size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  // Parallel-loop indices (into the tile lists) that the search varies.
  SmallVector<size_t> varied;
  for (unsigned pos : stagedTileLoops(kernel, anchor.getShared()))
    varied.push_back(llvm::find(loops.parallelPositions, pos) -
                     loops.parallelPositions.begin());
  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  SmallVector<size_t> index(varied.size(), 0);
  const int64_t sizes[] = {16, 32, 64, 128};
  while (true) {
    for (auto [i, p] : llvm::enumerate(varied))
      block[p] = sizes[index[i]];
    SmallVector<int64_t, 2> vectors = {anchor.getVector()};
    if (anchor.getVector() != 1)
      vectors.push_back(1);
    for (int64_t threads = 64; threads <= 512; threads *= 2) {
      for (int64_t padding : {int64_t(0), anchor.getPadding()}) {
        for (int64_t vector : vectors) {
          TuningAttr tuning = TuningAttr::getChecked(
              function_ref<InFlightDiagnostic()>(emitError),
              kernel.getContext(), ArrayRef<int64_t>{threads},
              ArrayRef<int64_t>(block), ArrayRef<int64_t>{},
              ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, anchor.getShared(),
              ArrayRef<int64_t>{}, padding, Swizzle::none, vector,
              CopyEngine::sync, int64_t(1), /*cluster=*/int64_t(1),
              /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
          if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
            found.push_back({tuningDistance(tuning, anchor), tuning});
        }
      }
    }
    size_t i = 0;
    for (; i < index.size(); ++i) {
      if (++index[i] < std::size(sizes))
        break;
      index[i] = 0;
    }
    if (i == index.size())
      break;
  }
  SmallVector<TuningAttr> result =
      closestFirst(found, anchor, limit - std::min(limit, limit / 4));
  // Unstaged: the anchor's block tiles, a thread per element of the
  // innermost loop (its neighbourhood varies the thread tiles).
  SmallVector<int64_t> none = llvm::to_vector(anchor.getBlock());
  none[varied.front()] = 1;
  SmallVector<int64_t> threads = impliedThreads(loops, anchor.getBlock(), none);
  while (threads.size() > 1 && threads.back() == 1)
    threads.pop_back();
  TuningAttr plain = TuningAttr::getChecked(
      function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
      ArrayRef<int64_t>(threads), anchor.getBlock(), ArrayRef<int64_t>{},
      ArrayRef<int64_t>(none), ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
      ArrayRef<int64_t>{}, int64_t(0), Swizzle::none, int64_t(1),
      CopyEngine::sync, int64_t(1), /*cluster=*/int64_t(1),
      /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
  if (plain && succeeded(checkLowerable(kernel, plain, emitError)))
    llvm::append_range(result,
                       enumerateTunings(kernel, target, plain, limit / 4));
  return result;
}

/// Tensor-core GEMMs: for mma.sync, block tiles of 32-256 along M and N,
/// warp tiles of the block over 1, 2 or 4 warps per dimension (at most 8
/// warps), K steps of 16 and 32 with 2-4 stages, the anchor's copy engine,
/// padding and vector width; for wgmma (sm_90a), block tiles of 64-256 over
/// one or two warpgroups per dimension, K steps of 128 bytes with 2-4
/// stages (TMA also 6 and 8).
static SmallVector<TuningAttr>
enumerateMmaTunings(KernelOp kernel, TuningAttr anchor, size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  std::string why;
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(kernel.getAnchorOp(), why);
  if (failed(gemm))
    return {};
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<std::pair<double, TuningAttr>> found;
  // One candidate: a BM x BN block tile over `perM` x `perN` owners (warps,
  // or warpgroups with group = 128), kept when legal.
  auto consider = [&](int64_t group, int64_t bm, int64_t bn, int64_t perM,
                      int64_t perN, int64_t bk, int64_t padding,
                      Swizzle swizzle, int64_t vector, CopyEngine copy,
                      int64_t stages) {
    std::optional<GemmTiles> tiles = gemmTiles(
        *gemm, extents, bm, bn, bm / perM, bn / perN, /*partial=*/true);
    if (!tiles)
      return;
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>{group, perN, perM}, ArrayRef<int64_t>(tiles->block),
        ArrayRef<int64_t>(tiles->inner), ArrayRef<int64_t>{},
        ArrayRef<int64_t>{bk}, anchor.getShared(), anchor.getRegisters(),
        padding, swizzle, vector, copy, stages, /*cluster=*/int64_t(1),
        /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
    if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
      found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  // mma.sync pads its rows (a wgmma anchor has swizzled, unpadded tiles).
  int64_t mmaPadding = isWgmmaGemm(anchor) ? 8 : anchor.getPadding();
  for (int64_t bm = 32; bm <= 256; bm *= 2)
    for (int64_t bn = 32; bn <= 256; bn *= 2)
      for (int64_t warpsM = 1; warpsM <= 4; warpsM *= 2)
        for (int64_t warpsN = 1; warpsN <= 4 && warpsM * warpsN <= 8;
             warpsN *= 2)
          for (int64_t bk : {16, 32})
            for (int64_t stages = 2; stages <= 4; ++stages)
              consider(32, bm, bn, warpsM, warpsN, bk, mmaPadding,
                       Swizzle::none, anchor.getVector(), anchor.getCopy(),
                       stages);
  // Warpgroup MMA (sm_90a; checkLowerable refuses it elsewhere): one or
  // two warpgroups along M and N, K steps of one 128-byte swizzled row,
  // 16-byte swizzled copies by cp.async or (plain 2-D products) TMA.
  int64_t bytes = getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get())
                      .getIntOrFloatBitWidth() /
                  8;
  for (CopyEngine copy : {CopyEngine::cp_async, CopyEngine::tma})
    for (int64_t bm = 64; bm <= 256; bm *= 2)
      for (int64_t bn = 64; bn <= 256; bn *= 2)
        for (int64_t groupsM = 1; groupsM <= 2; ++groupsM)
          for (int64_t groupsN = 1; groupsN <= 2; ++groupsN)
            for (int64_t stages : {2, 3, 4, 6, 8})
              if (stages <= 4 || copy == CopyEngine::tma)
                consider(128, bm, bn, groupsM, groupsN, 128 / bytes, 0,
                         Swizzle::xor128, 16 / bytes, copy, stages);
  return closestFirst(found, anchor, limit);
}

SmallVector<TuningAttr> mlir::egg::enumerateTunings(KernelOp kernel,
                                                    TargetAttr target,
                                                    TuningAttr anchor,
                                                    size_t limit) {
  SmallVector<TuningAttr> result;
  if (!anchor)
    return result;
  // Enumeration probes many illegal points: keep their diagnostics quiet.
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  auto emitError = [&]() { return kernel.emitOpError(); };
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return result;
  size_t numParallel = loops->parallelPositions.size();
  if (isCooperativeRow(kernel.getStructureAttr()))
    return enumerateRowTunings(kernel, *loops, anchor, limit);
  if (isMmaGemm(anchor))
    return enumerateMmaTunings(kernel, anchor, limit);
  if (isStagedMap(kernel.getStructureAttr(), anchor))
    return enumerateStagedTunings(kernel, target, *loops, anchor, limit);
  if (kernel.getStructureAttr() && kernel.getStructureAttr().getFormulation() ==
                                       Formulation::reduce_two_stage)
    return enumerateColumnTunings(kernel, anchor, limit);
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  SmallVector<int64_t> thread = llvm::to_vector(anchor.getThread());
  block.resize(numParallel, 0);
  thread.resize(numParallel, 0);
  int64_t parallelIterations = 1;
  for (unsigned pos : loops->parallelPositions)
    parallelIterations = mulSat(parallelIterations, loops->extents[pos]);

  // Vary the two innermost loops the anchor tiles; others keep its tiles.
  SmallVector<size_t> varied;
  for (size_t p = numParallel; p-- > 0 && varied.size() < 2;)
    if (block[p] || thread[p])
      varied.push_back(p);

  SmallVector<int64_t> vectors;
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2)
    vectors.push_back(v);
  if (!llvm::is_contained(vectors, anchor.getVector()))
    vectors.push_back(anchor.getVector());

  // (block, thread) pairs per varied loop.
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> pairs;
  for (size_t p : varied) {
    int64_t extent = loops->extents[loops->parallelPositions[p]];
    SmallVector<std::pair<int64_t, int64_t>> here;
    for (int64_t b : tileChoices(extent, block[p]))
      for (int64_t t : {1, 2, 4, 8})
        if (b % t == 0)
          here.push_back({b, t});
    pairs.push_back(std::move(here));
  }

  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<size_t> index(varied.size(), 0);
  auto tryPoint = [&](int64_t vector) {
    SmallVector<int64_t> b = block, t = thread;
    for (auto [i, p] : llvm::enumerate(varied)) {
      b[p] = pairs[i][index[i]].first;
      t[p] = pairs[i][index[i]].second;
    }
    SmallVector<int64_t> threads = impliedThreads(*loops, b, t);
    int64_t total = 1;
    for (int64_t n : threads)
      total = mulSat(total, n);
    // At least a warp when the problem has that much parallelism.
    if (total > target.getMaxThreadsPerBlock() ||
        total < std::min<int64_t>(32, parallelIterations))
      return;
    while (threads.size() > 1 && threads.back() == 1)
      threads.pop_back();
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>(threads), ArrayRef<int64_t>(b), anchor.getWarp(),
        ArrayRef<int64_t>(t), anchor.getReduction(), anchor.getShared(),
        anchor.getRegisters(), anchor.getPadding(), anchor.getSwizzle(), vector,
        anchor.getCopy(), anchor.getPipeline(), /*cluster=*/int64_t(1),
        /*rowShared=*/int64_t(0), anchor.getFragmentsAhead());
    if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
      return;
    found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  for (int64_t vector : vectors) {
    std::fill(index.begin(), index.end(), 0);
    while (true) {
      tryPoint(vector);
      size_t i = 0;
      for (; i < index.size(); ++i) {
        if (++index[i] < pairs[i].size())
          break;
        index[i] = 0;
      }
      if (i == index.size())
        break;
    }
  }
  // Shared-memory FMA tiles: the anchor's tiles with other K steps and
  // pipeline depths (the expert keeps within 48 KB; deeper pipelines take
  // dynamic shared memory).
  std::string notGemm;
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(kernel.getAnchorOp(), notGemm);
  // (K is a loop of the anchor, the product; the root may be its epilogue.)
  int64_t extentK =
      succeeded(gemm)
          ? GemmLoops::extent(gemm->kLoops,
                              cast<linalg::LinalgOp>(kernel.getAnchorOp())
                                  .getStaticLoopRanges())
          : 0;
  // With or without the fragments of the next K step loaded ahead.
  if (isSharedGemm(anchor) && anchor.getCopy() == CopyEngine::cp_async)
    for (int64_t bk : {8, 16, 32})
      for (int64_t stages = 2; stages <= 4 && bk <= extentK; ++stages)
        for (int64_t ahead : {0, 1}) {
          TuningAttr tuning = TuningAttr::getChecked(
              function_ref<InFlightDiagnostic()>(emitError),
              kernel.getContext(), anchor.getThreads(), anchor.getBlock(),
              anchor.getWarp(), anchor.getThread(), ArrayRef<int64_t>{bk},
              anchor.getShared(), anchor.getRegisters(), anchor.getPadding(),
              anchor.getSwizzle(), anchor.getVector(), anchor.getCopy(), stages,
              /*cluster=*/int64_t(1), /*rowShared=*/int64_t(0),
              /*fragmentsAhead=*/ahead);
          if (tuning && tuning != anchor &&
              succeeded(checkLowerable(kernel, tuning, emitError)))
            found.push_back({tuningDistance(tuning, anchor), tuning});
        }
  return closestFirst(found, anchor, limit);
}

double mlir::egg::tuningDistance(TuningAttr a, TuningAttr b) {
  auto steps = [](int64_t x, int64_t y) -> double {
    if (x == y)
      return 0;
    if (x <= 0 || y <= 0)
      return 4; // Tiled against untiled: a large change.
    return std::abs(std::log2(double(x)) - std::log2(double(y)));
  };
  auto lists = [&](ArrayRef<int64_t> x, ArrayRef<int64_t> y) {
    double d = 0;
    for (size_t i = 0; i < std::max(x.size(), y.size()); ++i)
      d += steps(i < x.size() ? x[i] : 0, i < y.size() ? y[i] : 0);
    return d;
  };
  // Without thread tiles (rows shared by lanes) the block size is free.
  double threads = a.getThread().empty() && b.getThread().empty()
                       ? steps(a.getNumThreads(), b.getNumThreads())
                       : 0;
  return lists(a.getBlock(), b.getBlock()) +
         lists(a.getThread(), b.getThread()) + lists(a.getWarp(), b.getWarp()) +
         lists(a.getReduction(), b.getReduction()) +
         // Stages count one per stage: a third stage is as large a change
         // as halving a tile (log steps would put it first in every
         // neighbourhood).
         double(std::abs(a.getPipeline() - b.getPipeline())) +
         steps(a.getVector(), b.getVector()) + threads +
         steps(a.getCluster(), b.getCluster()) +
         // Row steps in shared memory: half a step each, so that the
         // neighbours of a tuning try a few of them before other changes.
         0.5 * double(std::abs(a.getRowShared() - b.getRowShared())) +
         // Fragments ahead or not: half a step, as a copy engine.
         0.5 * double(std::abs(a.getFragmentsAhead() - b.getFragmentsAhead())) +
         (a.getCopy() != b.getCopy() ? 0.5 : 0);
}
