//===- ApplySchedule.cpp - Materialise the decisions ----------------------===//
//
// Every decided egg.kernel becomes a private function (its body) called where
// the kernel was; the body is tiled on tensors as the tuning says, with the
// upstream tile-and-fuse driver: the root op into an scf.forall over blocks,
// then over threads, producers fused into both. Bufferization and the mapping
// to gpu.launch follow in the pipeline (docs/pipeline.md).
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGAPPLYSCHEDULE
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
/// What the loops of one tiling level are mapped to.
enum class Level { Blocks, Warps, Threads };
} // namespace

/// Mapping attributes for `numLoops` tiled loops of `level`, the innermost
/// on x (consecutive threads touch consecutive elements). More than three
/// block loops take linear dimensions, the innermost first: one block index
/// on x that egg-map-to-gpu's grid covers and the mapping delinearizes.
static SmallVector<Attribute> mappingFor(MLIRContext *ctx, unsigned numLoops,
                                         Level level) {
  SmallVector<Attribute> mapping;
  bool linear = level == Level::Blocks && numLoops > 3;
  for (unsigned i = 0; i < numLoops; ++i) {
    auto dim = static_cast<gpu::MappingId>(
        (linear ? static_cast<unsigned>(gpu::MappingId::LinearDim0) : 0) +
        numLoops - 1 - i);
    switch (level) {
    case Level::Blocks:
      mapping.push_back(gpu::GPUBlockMappingAttr::get(ctx, dim));
      break;
    case Level::Warps:
      mapping.push_back(gpu::GPUWarpMappingAttr::get(ctx, dim));
      break;
    case Level::Threads:
      mapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, dim));
      break;
    }
  }
  return mapping;
}

/// How one level tiles the loops of `root`, for a per-parallel-loop tile
/// list over loops of extent `extents`: the number of tiles per loop (0 =
/// not tiled), or, where a tile does not divide its loop (a shared-memory
/// GEMM's partial last tile, which checkLowerable allows), the tile sizes.
struct LevelTiling {
  SmallVector<OpFoldResult> perLoop;
  bool bySize = false;
  unsigned numTiled = 0;
};

/// Tiling by tile count rather than tile size gives normalized loops (0 to
/// count, step 1), which the GPU mapping requires; tiling by size (partial
/// tiles) normalizes its loop afterwards (tileAndFuse).
static LevelTiling tilingFor(OpBuilder &b, const RootLoops &loops,
                             ArrayRef<int64_t> extents,
                             ArrayRef<int64_t> perParallel) {
  LevelTiling tiling;
  tiling.perLoop.assign(loops.extents.size(), b.getIndexAttr(0));
  // More than three tiled loops (a convolution's n, oh, ow, f) fit the
  // grid when the tiles that span their whole loop are left untiled.
  SmallVector<bool> tiled = tiledLoops(loops, extents, perParallel);
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions))
    tiling.bySize |= tiled[p] && extents[pos] % perParallel[p] != 0;
  for (auto [p, pos] : llvm::enumerate(loops.parallelPositions)) {
    if (!tiled[p])
      continue;
    tiling.perLoop[pos] = b.getIndexAttr(
        tiling.bySize ? perParallel[p] : extents[pos] / perParallel[p]);
    ++tiling.numTiled;
  }
  return tiling;
}

/// Tiles `root` into an scf.forall mapped to blocks or threads and fuses its
/// producers into it. Values used outside the loop nest are yielded.
static FailureOr<Operation *> tileAndFuse(RewriterBase &rewriter,
                                          TilingInterface root,
                                          const LevelTiling &tiling,
                                          Level level) {
  if (tiling.numTiled == 0)
    return root.getOperation();
  scf::SCFTileAndFuseOptions options;
  if (tiling.bySize)
    options.tilingOptions.setTileSizes(tiling.perLoop);
  else
    options.tilingOptions.setNumThreads(tiling.perLoop);
  options.tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
      .setMapping(mappingFor(rewriter.getContext(), tiling.numTiled, level));
  Region *scope = root->getParentRegion();
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // A producer whose value also leaves the kernel is yielded too.
        bool usedElsewhere =
            llvm::any_of(producer.getUsers(), [&](Operation *u) {
              return u->getParentRegion() == scope && isa<func::ReturnOp>(u);
            });
        return scf::SCFTileAndFuseOptions::ControlFnResult{usedElsewhere};
      });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
  if (failed(result))
    return root->emitOpError("could not be tiled and fused");
  Operation *loop = result->loops.front().getOperation();
  for (auto [original, replacement] : result->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      return !loop->isAncestor(use.getOwner());
    });
  // Steps of a tile size: back to 0 to count, step 1 (the body moves into
  // the new loop, so the tiled op stays valid).
  if (tiling.bySize &&
      failed(mlir::normalizeForallOp(rewriter, cast<scf::ForallOp>(loop))))
    return root->emitOpError("could not normalize its loop of partial tiles");
  return result->tiledAndFusedOps.front();
}

/// Rewrites a static tensor.pad as an elementwise gather: each output element
/// reads its source element (index clamped into range) and selects the
/// padding value outside the source. Tiling then treats it like any map,
/// with no per-tile branches or padded temporaries.
static LogicalResult padAsGather(RewriterBase &rewriter, tensor::PadOp pad) {
  auto resultType = pad.getResultType();
  auto sourceType = pad.getSourceType();
  Value padValue = pad.getConstantPaddingValue();
  if (!resultType.hasStaticShape() || !sourceType.hasStaticShape() ||
      !pad.getLow().empty() || !pad.getHigh().empty() || !padValue)
    return pad.emitOpError("only static padding with a constant value is "
                           "supported");
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  int64_t rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value source = pad.getSource();
  ArrayRef<int64_t> low = pad.getStaticLow();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultType, ValueRange{}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange) {
        Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
        SmallVector<Value> indices;
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(b, l, d);
          // An unpadded dimension reads its index as is: the gather stays
          // contiguous there, so it can take vector accesses.
          if (low[d] == 0 &&
              sourceType.getDimSize(d) == resultType.getDimSize(d)) {
            indices.push_back(i);
            continue;
          }
          Value src = arith::SubIOp::create(
              b, l, i, arith::ConstantIndexOp::create(b, l, low[d]));
          Value last = arith::ConstantIndexOp::create(
              b, l, sourceType.getDimSize(d) - 1);
          Value geZero =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, src, zero);
          Value leLast =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, src, last);
          inside = arith::AndIOp::create(
              b, l, inside, arith::AndIOp::create(b, l, geZero, leLast));
          Value clamped = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, src, zero), last);
          indices.push_back(clamped);
        }
        Value loaded = tensor::ExtractOp::create(b, l, source, indices);
        Value result = arith::SelectOp::create(b, l, inside, loaded, padValue);
        linalg::YieldOp::create(b, l, result);
      });
  rewriter.replaceOp(pad, generic.getResults());
  return success();
}

/// A zero pad of an implicit GEMM's image, whose copies go through shared
/// memory: the copies read the pad's source and zero-fill the border, so
/// the pad becomes a view of its source with a border that no memory holds
/// (egg.padded_view, read only by egg-lower-shared-gemm). Returns false
/// (nothing changed) where the pad does not qualify.
static bool padAsBorderedView(RewriterBase &rewriter, tensor::PadOp pad,
                              linalg::LinalgOp product) {
  Value padValue = pad.getConstantPaddingValue();
  RankedTensorType sourceType = pad.getSourceType();
  if (!isa<BlockArgument>(pad.getSource()) || !sourceType.hasStaticShape() ||
      !pad.getLow().empty() || !pad.getHigh().empty() || !padValue ||
      !matchPattern(padValue, m_PosZeroFloat()) || !pad.getResult().hasOneUse())
    return false;
  // Read by the product's copies, as one of its inputs.
  OpOperand &use = *pad.getResult().getUses().begin();
  if (use.getOwner() != product.getOperation() || !product.isDpsInput(&use))
    return false;
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  auto bufferType =
      MemRefType::get(sourceType.getShape(), sourceType.getElementType());
  Value buffer = bufferization::ToBufferOp::create(
      rewriter, loc, bufferType, pad.getSource(), /*read_only=*/true);
  Value view = PaddedViewOp::create(rewriter, loc, buffer, pad.getStaticLow(),
                                    pad.getStaticHigh());
  Value tensor = bufferization::ToTensorOp::create(
      rewriter, loc, pad.getResultType(), view, rewriter.getUnitAttr());
  rewriter.replaceOp(pad, tensor);
  return true;
}

/// Generalizes named ops and fuses elementwise chains into their consumers,
/// so that one loop nest computes a chain without intermediates.
static LogicalResult prepareBody(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  linalg::populateLinalgNamedOpsGeneralizationPatterns(patterns);
  // A map whose value is also a result of the kernel stays whole: fused
  // into its consumer it would be computed twice, once in a loop nest of
  // its own that feeds nothing (tile-and-fuse yields it from the root's
  // loops instead).
  linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *use) {
    return llvm::none_of(use->get().getUsers(), [](Operation *user) {
      return isa<func::ReturnOp>(user);
    });
  });
  return applyPatternsGreedily(func, std::move(patterns));
}

/// Whether `op` only writes values that do not depend on what its output
/// held (a fill, or its generic form): all loops parallel, its output's
/// element unused by the body.
static bool overwritesItsOutput(linalg::LinalgOp op) {
  return op.getNumDpsInits() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
}

/// A thread's reduction accumulates into a fresh tile rather than into its
/// slice of the kernel's output: an initialization (a fill) of `forall`'s
/// shared output that only a reduction's init reads writes a new tensor
/// instead. The accumulator then bufferizes to a private buffer (registers)
/// written out once, where a slice of global memory would be stored and
/// reloaded on every reduction step (its loads may alias the inputs').
static void accumulateInPrivateTiles(RewriterBase &rewriter,
                                     scf::ForallOp forall) {
  SmallVector<linalg::LinalgOp> inits;
  forall.getBody()->walk([&](linalg::LinalgOp init) {
    if (!overwritesItsOutput(init) || !init->hasOneUse())
      return;
    auto slice = init.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
    auto shared = slice ? dyn_cast<BlockArgument>(slice.getSource()) : nullptr;
    if (!shared || !llvm::is_contained(forall.getRegionIterArgs(), shared) ||
        !slice->hasOneUse())
      return;
    auto reduction = dyn_cast<linalg::LinalgOp>(*init->user_begin());
    if (!reduction || reduction.getNumReductionLoops() == 0 ||
        !llvm::is_contained(reduction.getDpsInits(), init->getResult(0)))
      return;
    inits.push_back(init);
  });
  for (linalg::LinalgOp init : inits) {
    auto slice = init.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
    rewriter.setInsertionPoint(slice);
    // Not tensor.empty: empty-tensor elimination would put it back into
    // the output slice that the tile is inserted into.
    Value fresh = bufferization::AllocTensorOp::create(
        rewriter, slice.getLoc(), slice.getResultType(), slice.getSizes());
    rewriter.modifyOpInPlace(init,
                             [&] { init.getDpsInitsMutable()[0].set(fresh); });
    rewriter.eraseOp(slice);
  }
}

static LogicalResult applyToKernel(KernelOp kernel, SymbolTable &symbols) {
  StructureAttr structure = kernel.getStructureAttr();
  TuningAttr tuning = kernel.getTuningAttr();
  if (!structure || !tuning)
    return kernel.emitOpError("has no ")
           << (structure ? "tuning" : "structure")
           << ": run the decision stages (egg-algorithm-structure, "
              "egg-hardware-tuning) first";
  if (structure.isSplit())
    return kernel.emitOpError("is split along its reduced loop: run "
                              "egg-split-k first (it builds the partial "
                              "results and their sum)");
  auto emitError = [&]() { return kernel.emitOpError(); };
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops) || failed(checkLowerable(kernel, tuning, emitError)))
    return failure();

  Operation *kernelAnchor = kernel.getAnchorOp();
  // Outline the body into a function; the kernel becomes a call.
  IRRewriter rewriter(kernel.getContext());
  auto parentFunc = kernel->getParentOfType<func::FuncOp>();
  rewriter.setInsertionPoint(parentFunc);
  auto func = func::FuncOp::create(
      rewriter, kernel.getLoc(), kernel.getSymName(),
      rewriter.getFunctionType(kernel.getInputs().getTypes(),
                               kernel.getResultTypes()));
  func.setPrivate();
  func->setAttr(EggDialect::getStructureAttrName(), structure);
  func->setAttr(EggDialect::getTuningAttrName(), tuning);
  if (kernel->hasAttr(EggDialect::getOverlapPreviousAttrName()))
    func->setAttr(EggDialect::getOverlapPreviousAttrName(),
                  rewriter.getUnitAttr());
  symbols.insert(func);
  func.getBody().takeBody(kernel.getBody());
  auto yield = cast<YieldOp>(func.getBody().front().getTerminator());
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<func::ReturnOp>(yield, yield.getValues());
  rewriter.setInsertionPoint(kernel);
  auto call =
      func::CallOp::create(rewriter, kernel.getLoc(), func, kernel.getInputs());
  rewriter.replaceOp(kernel, call.getResults());

  Block &body = func.getBody().front();
  // Pads fused into a convolution (egg-form-kernels): a border the implicit
  // GEMM's copies zero-fill, else a gather that the convolution's loops
  // fuse (elementwise fusion below), as for a pad kernel of its own.
  auto product = dyn_cast_or_null<linalg::LinalgOp>(kernelAnchor);
  bool copiesFillBorders =
      product &&
      structure.getFormulation() == Formulation::conv_implicit_gemm &&
      isSharedGemm(tuning);
  SmallVector<tensor::PadOp> pads(body.getOps<tensor::PadOp>());
  for (tensor::PadOp pad : pads) {
    if (copiesFillBorders && padAsBorderedView(rewriter, pad, product))
      continue;
    // A gather fused into the product's body would hide its input from
    // the copies through shared memory.
    if (copiesFillBorders &&
        llvm::is_contained(pad.getResult().getUsers(), product.getOperation()))
      return pad.emitOpError(
          "feeds an implicit GEMM through shared memory, whose copies take a "
          "pad only as a static zero border of a kernel input that the "
          "product alone reads (egg.padded_view)");
    if (failed(padAsGather(rewriter, pad)))
      return failure();
  }
  if (failed(prepareBody(func)))
    return func.emitError("could not prepare kernel body for tiling");

  // The root: the last tileable op; everything else must feed it.
  TilingInterface root;
  for (Operation &op : body)
    if (auto t = dyn_cast<TilingInterface>(op))
      root = t;
  if (!root)
    return func.emitError("kernel has no tileable op");
  SetVector<Operation *> slice;
  BackwardSliceOptions sliceOptions;
  sliceOptions.inclusive = true;
  (void)getBackwardSlice(root.getOperation(), &slice, sliceOptions);
  for (Operation &op : body.without_terminator())
    if (isa<TilingInterface>(op) && !slice.contains(&op))
      return op.emitOpError("does not feed the kernel's last op: the generic "
                            "lowering can only tile one loop nest per kernel");

  // Blocks, then threads. Loop extents are unchanged by the body rewrites
  // above (fusion keeps the root's iteration space).
  LevelTiling blockTiling =
      tilingFor(rewriter, *loops, loops->extents, tuning.getBlock());
  if (blockTiling.numTiled == 0)
    return func.emitError("the block tile tiles no loop: a kernel needs at "
                          "least one block loop");
  rewriter.setInsertionPoint(root);
  FailureOr<Operation *> blockRoot =
      tileAndFuse(rewriter, root, blockTiling, Level::Blocks);
  if (failed(blockRoot))
    return failure();
  // Inside a block, each loop spans its block tile (or all of it if untiled).
  SmallVector<int64_t> blockExtents = loops->extents;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions))
    if (p < tuning.getBlock().size() && tuning.getBlock()[p] != 0)
      blockExtents[pos] = tuning.getBlock()[p];
  // Rows shared by lanes: a warp per row (warp-mapped loop; its lanes are
  // distributed after bufferization by egg-distribute-rows), or a block per
  // row (no second level at all).
  bool cooperative = isCooperativeRow(structure);
  // A scan's warp owns one row too (egg-lower-scans builds its lanes).
  bool perWarp =
      structure.getFormulation() == Formulation::reduce_row_per_warp ||
      structure.getFormulation() == Formulation::scan_warp;
  // A GEMM through shared memory or a column reduction keeps the block's
  // ops whole: their threads are laid out after the mapping
  // (egg-lower-shared-gemm, egg-lower-column-reductions).
  bool wholeBlockOps = lowersBlockOpsWhole(structure, tuning);
  if ((!cooperative || perWarp) && !wholeBlockOps) {
    LevelTiling threadTiling =
        tilingFor(rewriter, *loops, blockExtents,
                  perWarp ? tuning.getWarp() : tuning.getThread());
    rewriter.setInsertionPoint(*blockRoot);
    FailureOr<Operation *> threadRoot =
        tileAndFuse(rewriter, cast<TilingInterface>(*blockRoot), threadTiling,
                    perWarp ? Level::Warps : Level::Threads);
    if (failed(threadRoot))
      return failure();
    auto threadLoop = (*threadRoot)->getParentOfType<scf::ForallOp>();
    if (!perWarp && threadTiling.numTiled != 0 && threadLoop &&
        threadLoop != (*blockRoot)->getParentOfType<scf::ForallOp>())
      accumulateInPrivateTiles(rewriter, threadLoop);
  }

  // Aggregate ops (softmax) become their loop nests inside each thread.
  SmallVector<linalg::AggregatedOpInterface> aggregates;
  func.walk(
      [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
  for (linalg::AggregatedOpInterface op : aggregates) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
    if (failed(values))
      return op->emitOpError("could not be decomposed");
    rewriter.replaceOp(op, *values);
  }

  // Shared rows: fuse the decomposed elementwise steps (softmax's exp) into
  // the reductions and maps that read them, so that no row-sized temporary
  // is left; each lane then streams its part of the row.
  if (cooperative && !aggregates.empty()) {
    RewritePatternSet fusion(func.getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        fusion, [](OpOperand *) { return true; });
    if (failed(applyPatternsGreedily(func, std::move(fusion))))
      return func.emitError("could not fuse the decomposed row steps");
  }

  // Vector accesses: each thread's tile (V contiguous elements on the
  // innermost loop, checked by checkLowerable) becomes vector code; after
  // bufferization its transfers become V-wide loads and stores. Shared rows
  // take their vector width in egg-distribute-rows instead, a GEMM through
  // shared memory for its copies in egg-lower-shared-gemm.
  if (tuning.getVector() > 1 && !cooperative && !wholeBlockOps) {
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) { tiles.push_back(op); });
    for (linalg::LinalgOp op : tiles) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{},
                            /*inputScalableVecDims=*/{},
                            /*vectorizeNDExtract=*/true);
      if (failed(vectorized))
        return op->emitOpError("could not be vectorized with vector = ")
               << tuning.getVector();
      rewriter.replaceOp(op, vectorized->replacements);
    }
  }

  // A slice of an empty tensor is a smaller empty tensor: per-thread
  // temporaries then bufferize to small private buffers rather than to
  // copies of the whole kernel-level tensor.
  RewritePatternSet patterns(func.getContext());
  tensor::populateFoldTensorEmptyPatterns(patterns);
  // A vectorized gather (a pad) computes its indices from vector.step: as
  // constants, canonicalization folds the uniform ones back to scalars.
  vector::populateVectorStepLoweringPatterns(patterns);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return func.emitError("could not simplify the tiled kernel");

  // A slice of a kernel input taken in the kernel's body (the workspace
  // slices of a split product's sum) stays outside the loops: a view at an
  // offset, which a launch cannot take. Fold it into the tiles' slices.
  SmallVector<Operation *> nested;
  func.walk([&](tensor::ExtractSliceOp slice) {
    auto outer = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    if (outer && outer->getParentOp() == func.getOperation() &&
        slice->getParentOp() != func.getOperation())
      nested.push_back(slice);
  });
  if (!nested.empty()) {
    RewritePatternSet merge(func.getContext());
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(merge);
    if (failed(applyOpPatternsGreedily(nested, std::move(merge))))
      return func.emitError("could not fold the slices of its inputs");
    func.walk([&](tensor::ExtractSliceOp slice) {
      if (slice->getParentOp() == func.getOperation() && slice->use_empty())
        rewriter.eraseOp(slice);
    });
  }
  return success();
}

namespace {
struct ApplySchedulePass
    : public egg::impl::EggApplyScheduleBase<ApplySchedulePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    DenseSet<Operation *> hosts;
    for (KernelOp kernel : kernels) {
      hosts.insert(kernel->getParentOfType<func::FuncOp>());
      if (failed(applyToKernel(kernel, symbols)))
        return signalPassFailure();
    }
    // The caller's inputs are read-only: bufferization copies rather than
    // writes into them.
    for (Operation *op : hosts) {
      auto host = cast<func::FuncOp>(op);
      for (unsigned i = 0; i < host.getNumArguments(); ++i)
        if (isa<TensorType>(host.getArgument(i).getType()))
          host.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(&getContext(), false));
    }
  }
};
} // namespace
