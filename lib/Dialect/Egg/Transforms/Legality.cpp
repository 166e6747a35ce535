//===- Legality.cpp - What the lowerings build ----------------------------===//
//
// enumerateStructures and checkLowerable: the generic lowering's tile
// lists here, the other lowerings' checks beside their passes.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "LegalityChecks.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::egg;

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
  case KernelClass::Scan:
    return {make(Formulation::scan_warp)};
  case KernelClass::Recurrence:
    return {make(Formulation::recurrence_block)};
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
    // A column reduction maps each parallel loop to a grid dimension.
    auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
    if (columnReductionLoop(kernel) && anchor &&
        anchor.getNumParallelLoops() <= 3) {
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
  // Every operand the fused loop nest reads: the root's, and the kernel
  // inputs its elementwise producers read (they fuse into the root's body
  // with the same loops).
  auto checkOperand = [&](linalg::LinalgOp op,
                          OpOperand &operand) -> LogicalResult {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type)
      return success();
    if (type.getElementTypeBitWidth() * v > 128)
      return emitError() << "vector = " << v << " of " << type.getElementType()
                         << " exceeds 16-byte accesses";
    AffineMap map = op.getMatchingIndexingMap(&operand);
    // An input the innermost loop does not index is one element per
    // thread (thread tiles are 1 elsewhere): a 0-d vector that the LLVM
    // lowering leaves as an unrealized cast (x / sum(x), diag(a) @ b).
    if (op.isDpsInput(&operand) && map.getNumResults() > 0 &&
        !llvm::any_of(map.getResults(),
                      [&](AffineExpr e) { return e.isFunctionOfDim(inner); }))
      return emitError() << "operand " << operand.getOperandNumber()
                         << " is one element per thread (the innermost "
                            "loop does not index it): vector accesses need "
                            "it read along that loop";
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      // A fixed index into a dimension of several elements (a select) has
      // no vector form in linalg's vectorizer; a unit one is a broadcast.
      if (isa<AffineConstantExpr>(map.getResult(r)) && type.getDimSize(r) != 1)
        return emitError() << "operand " << operand.getOperandNumber()
                           << " is read at a fixed index of dimension " << r
                           << ": vector accesses need every dimension "
                              "indexed by a loop";
      if (!map.getResult(r).isFunctionOfDim(inner))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
      if (r + 1 != map.getNumResults() || !dim)
        return emitError() << "operand " << operand.getOperandNumber()
                           << " is not contiguous along the innermost loop: "
                              "vector accesses need it to be";
    }
    return success();
  };
  for (OpOperand &operand : root->getOpOperands())
    if (failed(checkOperand(root, operand)))
      return failure();
  WalkResult producers = kernel.walk([&](linalg::LinalgOp op) {
    if (op == root || op.getNumLoops() != root.getNumLoops() ||
        op.getNumParallelLoops() != op.getNumLoops())
      return WalkResult::advance();
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<BlockArgument>(input->get()) && failed(checkOperand(op, *input)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(producers.wasInterrupted());
}

LogicalResult
mlir::egg::checkLowerable(KernelOp kernel, StructureAttr structure,
                          TuningAttr tuning,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto unsupported = [&](StringRef knob) {
    return emitError() << "the generic lowering does not implement " << knob
                       << " yet";
  };
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
  bool clusterRecurrence =
      structure && structure.getFormulation() == Formulation::recurrence_block;
  if (tuning.getCluster() != 1 && !clusterColumns && !clusterProduct &&
      !clusterRecurrence)
    return emitError() << "cluster = " << tuning.getCluster()
                       << " is implemented for column reductions "
                          "(reduce_two_stage without split_k), TMA "
                          "products (gemm_direct, copy = tma) and "
                          "recurrences (recurrence_block) only";
  // A split kernel is checked as its partial results (the sum over the
  // slices is tuned by the expert after egg-split-k builds it).
  if (structure && structure.isSplit())
    return withSplitCopy(kernel, structure, tuning, [&](SplitKernels split) {
      return checkLowerable(split.partial, partialTuning(tuning), [&]() {
        return emitError() << "in its partial results (loop 0 is the "
                              "slice, the kernel's loops follow): ";
      });
    });
  if (isCooperativeRow(structure))
    return checkCooperativeRow(kernel, structure.getFormulation(), tuning,
                               emitError);
  if (structure && structure.getFormulation() == Formulation::scan_warp)
    return checkScan(kernel, tuning, emitError);
  if (classifyKernel(kernel) == KernelClass::Scan)
    return emitError() << "a scan kernel takes the scan_warp structure";
  if (structure && structure.getFormulation() == Formulation::recurrence_block)
    return checkRecurrence(kernel, tuning, emitError);
  if (classifyKernel(kernel) == KernelClass::Recurrence)
    return emitError() << "a recurrence kernel takes the recurrence_block "
                          "structure";
  if (isStagedMap(structure, tuning))
    return checkStagedMap(kernel, tuning, emitError);
  if (isSharedGemm(tuning))
    return checkSharedGemm(kernel, structure, tuning, emitError);
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
  std::optional<unsigned> partialLoop;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t extent = loops->extents[pos];
    int64_t b = p < block.size() ? block[p] : 0;
    int64_t t = p < thread.size() ? thread[p] : 0;
    if ((b || t) && loops->reducedByProducer[pos])
      return emitError() << "loop " << pos
                         << " is a row that the kernel's reductions run "
                            "along: it cannot be tiled";
    // A partial last block tile: its threads past the loop's end skip
    // their tile (docs/pipeline.md, "Partial tiles"); each thread's tile
    // then has a clipped, dynamic size, which vector accesses cannot take.
    if (b && extent % b != 0) {
      partialLoop = pos;
      if (tuning.getVector() > 1)
        return emitError() << "block tile " << b << " does not divide loop "
                           << pos << " of extent " << extent
                           << ": a partial last tile takes scalar accesses "
                              "(vector = 1)";
    }
    int64_t outer = b ? b : extent;
    if (t && outer % t != 0)
      return emitError() << "thread tile " << t << " does not divide " << outer
                         << " in loop " << pos;
    blockExtents[pos] = outer;
  }
  // Tiles spanning their whole loop are left untiled when more than three
  // loops are tiled: a 4-D map (a channels-last pad) then still fits the
  // grid and the block. Up to three block loops take the grid's x, y and z,
  // innermost first; more take one linear block index on x, delinearized
  // in the kernel (kMaxLinearGridLoops at most).
  SmallVector<bool> blockTiled = tiledLoops(*loops, loops->extents, block);
  int64_t blockLoops = llvm::count(blockTiled, true);
  if (blockLoops > kMaxLinearGridLoops)
    return emitError() << "block tile tiles " << blockLoops
                       << " loops but a linear grid index spreads at most "
                       << kMaxLinearGridLoops;
  if (partialLoop && blockLoops > 3)
    return emitError() << "block tile leaves a partial last tile in loop "
                       << *partialLoop
                       << " but tiles more loops than the grid's three";
  int64_t linearBlocks = 1;
  for (size_t p = blockTiled.size(), dim = 0; p-- > 0;) {
    if (!blockTiled[p])
      continue;
    int64_t blocks =
        llvm::divideCeil(loops->extents[loops->parallelPositions[p]], block[p]);
    linearBlocks = mulSat(linearBlocks, blocks);
    if (blockLoops > 3)
      continue;
    if (blocks > kMaxGridDims[dim])
      return emitError() << "loop " << loops->parallelPositions[p] << " takes "
                         << blocks << " blocks but grid dimension " << dim
                         << " holds at most " << kMaxGridDims[dim]
                         << ": choose a larger block tile";
    ++dim;
  }
  if (blockLoops > 3 && linearBlocks > kMaxGridDims[0])
    return emitError() << "the block tile makes " << linearBlocks
                       << " blocks but a linear grid holds at most "
                       << kMaxGridDims[0] << ": choose larger block tiles";
  int64_t threadLoops =
      llvm::count(tiledLoops(*loops, blockExtents, thread), true);
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

std::string mlir::egg::describeLoweringRules(KernelOp kernel,
                                             StructureAttr structure) {
  if (isCooperativeRow(structure))
    return describeCooperativeRowRules();
  if (structure && structure.getFormulation() == Formulation::reduce_two_stage)
    return describeColumnReductionRules();
  if (structure && structure.getFormulation() == Formulation::scan_warp)
    return describeScanRules();
  if (structure && structure.getFormulation() == Formulation::recurrence_block)
    return describeRecurrenceRules();
  std::string why, gemm;
  if (succeeded(analyzeGemmLoops(kernel.getAnchorOp(), why)))
    gemm = describeSharedGemmRules();
  if (!gemm.empty())
    gemm += allowsTf32(kernel)
                ? " This module allows TF32 (egg.allow_tf32)."
                : " This module does not allow TF32: f32 products stay "
                  "off tensor cores.";
  SmallVector<int64_t> transposed = transposedInputs(kernel);
  if (!transposed.empty())
    gemm += describeStagedMapRules(transposed);
  return "Rules of the generic lowering: `block` and `thread` have one "
         "entry per parallel loop of the root op, tiles divide the "
         "extents, at most 3 tiled loops per level, `threads` (x "
         "innermost) equals the block/thread tile ratios, no warp or "
         "reduction tiles, `vector` > 1 only for elementwise kernels with "
         "the innermost thread tile equal to it and 16 bytes at most." +
         gemm;
}

/// 0, the powers of two up to `largest` (at most 2^16) and `extents`.
static SmallVector<int64_t> tileValues(ArrayRef<int64_t> extents) {
  SmallVector<int64_t> values = {0};
  int64_t largest = extents.empty() ? 1 : *llvm::max_element(extents);
  for (int64_t v = 1; v <= std::min<int64_t>(largest, 1 << 16); v *= 2)
    values.push_back(v);
  values.append(extents.begin(), extents.end());
  llvm::sort(values);
  values.erase(llvm::unique(values), values.end());
  return values;
}

TuningKnobs mlir::egg::describeTuningKnobs(KernelOp kernel,
                                           StructureAttr structure) {
  TuningKnobs knobs;
  ScopedDiagnosticHandler silence(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<RootLoops> loops =
      analyzeRootLoops(kernel, [&]() { return kernel.emitOpError(); });
  if (failed(loops))
    return knobs;
  SmallVector<int64_t> parallel;
  for (auto [extent, isParallel] : llvm::zip(loops->extents, loops->parallel))
    if (isParallel)
      parallel.push_back(extent);
  bool split = structure && structure.isSplit();
  knobs.parallelLoops = parallel.size();
  knobs.tiles = tileValues(parallel);
  Formulation formulation =
      structure ? structure.getFormulation() : Formulation::elementwise_flat;
  if (isCooperativeRow(structure)) {
    // egg-distribute-rows: a warp or a block per row, vectors along it.
    knobs.warp = formulation == Formulation::reduce_row_per_warp;
    knobs.rowShared = formulation == Formulation::reduce_row_per_block;
    knobs.vectors = {1, 2, 4, 8};
    return knobs;
  }
  if (formulation == Formulation::reduce_two_stage) {
    // egg-lower-column-reductions: columns in vectors, clusters unsplit.
    knobs.vectors = {1, 2, 4, 8};
    knobs.cluster = !split;
    return knobs;
  }
  std::string why;
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (anchor && succeeded(analyzeGemmLoops(anchor, why))) {
    // egg-lower-shared-gemm (or the generic lowering's plain tiles); K
    // steps tile the anchor's reduction loops (the root may be an
    // epilogue without any).
    SmallVector<int64_t> reduction;
    for (auto [extent, type] : llvm::zip(anchor.getStaticLoopRanges(),
                                         anchor.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction)
        reduction.push_back(extent);
    knobs.reductionLoops = reduction.size();
    knobs.reductionTiles = tileValues(reduction);
    knobs.operands = anchor.getNumDpsInputs();
    knobs.warp = knobs.thread = knobs.padding = knobs.swizzle = true;
    knobs.copy = knobs.pipeline = knobs.fragmentsAhead = knobs.mma = true;
    knobs.tf32Terms =
        getElementTypeOrSelf(anchor.getDpsInputOperand(0)->get()).isF32();
    knobs.cluster = formulation == Formulation::gemm_direct;
    knobs.vectors = {1, 2, 4, 8};
    return knobs;
  }
  knobs.thread = true;
  if (classifyKernel(kernel) == KernelClass::Elementwise)
    knobs.vectors = {1, 2, 4, 8, 16};
  // Maps staged through shared memory promote their transposed inputs.
  if (!transposedInputs(kernel).empty() && anchor) {
    knobs.operands = anchor.getNumDpsInputs();
    knobs.padding = true;
  }
  return knobs;
}
