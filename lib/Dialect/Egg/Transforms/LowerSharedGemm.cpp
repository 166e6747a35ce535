//===- LowerSharedGemm.cpp - Block-cooperative GEMM through shared memory -===//
//
// For kernels whose tuning promotes the product's operands to shared memory,
// each gpu.launch holds the block's ops whole (egg-apply-schedule tiles them
// at block level only): an accumulator fill, the matrix product (a generic
// with one reduction loop) and the elementwise epilogue over its result.
// They are rewritten here into the classic tiled GEMM (docs/pipeline.md,
// "GEMM through shared memory"):
//
//   for kt in K / BK:                 (stages > 1: cp.async, tiles in flight)
//     all threads copy A[BM, BK] and B[BK, BN] into workgroup buffers, laid
//     out [BK][BM + pad] and [BK][BN + pad] whatever the global layout, so
//     that a thread reads its TM (TN) consecutive values with vector loads;
//     barrier; every thread updates its TM x TN accumulators; barrier
//   epilogue: each accumulator goes through the epilogue ops in registers
//   and is stored once.
//
// The accumulators are scalars carried by the loops, so they stay in
// registers. The product's body is cloned per accumulator, so any
// multiply-accumulate (with f16/bf16 inputs widened to f32) works.
//
// With a warp tile (f16/bf16 products, "Tensor cores" in docs/pipeline.md)
// each warp owns a [WM, WN] piece of the block tile and computes it with
// mma.sync m16n8k16: fragments come from shared memory through ldmatrix
// (transposing when the tile is stored M/N-contiguous), and the tiles keep
// the global layout so that every copy is a contiguous cp.async. A thread
// holds 4 f32 accumulators per m16n8 fragment.
//
//===----------------------------------------------------------------------===//

#include "SharedGemm.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <functional>

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERSHAREDGEMM
#define GEN_PASS_DEF_EGGALIGNWORKGROUPMEMORY
#define GEN_PASS_DEF_EGGEXTERNDYNAMICSHAREDMEMORY
#define GEN_PASS_DEF_EGGLOWERTENSORMAPARGS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::gemm;

/// Reads the plan from a kernel function's tuning and the product's loops.
static FailureOr<Plan> readPlan(TuningAttr tuning, linalg::GenericOp gemm) {
  std::string why;
  FailureOr<GemmLoops> loops = analyzeGemmLoops(gemm, why);
  if (failed(loops))
    return gemm.emitOpError("cannot take the shared-memory GEMM lowering: ")
           << why;
  Plan plan;
  plan.loops = *loops;
  plan.mma = isMmaGemm(tuning);
  plan.wgmma = isWgmmaGemm(tuning);
  plan.splitTf32 = tuning.getTf32Terms() == 3;
  ArrayRef<int64_t> inner = plan.mma ? tuning.getWarp() : tuning.getThread();
  // Tile lists are per parallel loop, in loop order (checkLowerable); a
  // group's tile is the product over its loops.
  plan.bm = plan.bn = plan.tm = plan.tn = 1;
  plan.blockExtents.assign(gemm.getNumLoops(), 1);
  SmallVector<int64_t> innerOf(gemm.getNumLoops(), 1);
  unsigned p = 0;
  for (unsigned d = 0; d < gemm.getNumLoops(); ++d) {
    if (loops->isReduction(d))
      continue;
    plan.blockExtents[d] = tuning.getBlock()[p];
    innerOf[d] = inner[p];
    if (llvm::is_contained(loops->mLoops, d)) {
      plan.bm *= tuning.getBlock()[p];
      plan.tm *= inner[p];
    } else if (llvm::is_contained(loops->nLoops, d)) {
      plan.bn *= tuning.getBlock()[p];
      plan.tn *= inner[p];
    }
    ++p;
  }
  plan.bk = tuning.getReduction()[0];
  plan.stages = tuning.getPipeline();
  plan.padding = tuning.getPadding();
  plan.vector = tuning.getVector();
  plan.async = tuning.getCopy() == CopyEngine::cp_async;
  plan.tma = tuning.getCopy() == CopyEngine::tma;
  plan.cluster = tuning.getCluster();
  plan.fragmentsAhead = tuning.getFragmentsAhead() != 0;
  if (!plan.mma) {
    auto bytesOf = [&](unsigned which) {
      return (getElementTypeOrSelf(gemm.getDpsInputOperand(which)->get())
                  .getIntOrFloatBitWidth() +
              7) /
             8;
    };
    plan.splitM =
        plan.tm % 2 == 0 && (plan.tm / 2) * bytesOf(plan.loops.lhs) >= 16;
    SmallVector<int64_t> blocksN, innersN;
    for (unsigned d : plan.loops.nLoops) {
      blocksN.push_back(plan.blockExtents[d]);
      innersN.push_back(innerOf[d]);
    }
    if (std::optional<RowRuns> rows = rowRuns(blocksN, innersN)) {
      plan.runsN = rows->rows;
      plan.runStrideN = rows->stride;
    }
    plan.splitN = plan.runsN == 1 && plan.tn % 2 == 0 &&
                  (plan.tn / 2) * bytesOf(plan.loops.rhs) >= 16;
  }
  // Partial M/N tiles (dynamic loop ranges within the block) guard their
  // copies, loads and stores per loop; K and batch loops must be static.
  SmallVector<int64_t> ranges = gemm.getStaticLoopRanges();
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (ShapedType::isDynamic(ranges[d]) && !plan.loops.isMN(d))
      return gemm.emitOpError("has a dynamic range on loop ")
             << d << ", which is neither an M nor an N loop";
  int64_t extentK = GemmLoops::extent(plan.loops.kLoops, ranges);
  if (plan.splitTf32 && (!plan.wgmma || plan.tma))
    return gemm.emitOpError("tf32_terms = 3 needs warpgroup MMA over "
                            "cp_async or sync copies");
  if (plan.tma && (!plan.wgmma || plan.stages < 2))
    return gemm.emitOpError("copy = tma needs warpgroup MMA and two stages "
                            "or more");
  if (plan.fragmentsAhead && (plan.mma || plan.stages < 2 || !plan.async))
    return gemm.emitOpError("fragments_ahead = 1 needs FMA thread tiles over "
                            "cp.async copies in two stages or more");
  if (plan.cluster != 1) {
    // checkLowerable's conditions the copies rely on (A's rows are halved).
    AffineMap lhsMap =
        gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(plan.loops.lhs));
    if (!plan.tma || plan.cluster != 2 || !plan.loops.batch.empty() ||
        contiguousLoop(lhsMap) != plan.loops.innerK())
      return gemm.emitOpError("cluster = ")
             << plan.cluster
             << " needs copy = tma, clusters of 2, no batch loops and A "
                "contiguous along K";
  }
  if (plan.bk < 1 || (extentK % plan.bk != 0 && !plan.async && !plan.tma))
    return gemm.emitOpError("a partial last K tile (K step ")
           << plan.bk << ", K " << extentK
           << ") needs cp.async copies to zero-fill it";
  return plan;
}

static LogicalResult lowerLaunch(gpu::LaunchOp launch, TuningAttr tuning) {
  Block &body = launch.getBody().front();
  FailureOr<SmallVector<linalg::LinalgOp>> blockOps = collectBlockOps(launch);
  if (failed(blockOps))
    return failure();
  SmallVector<linalg::LinalgOp> &ops = *blockOps;
  auto gemmIt = llvm::find_if(
      ops, [](linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; });
  if (gemmIt == ops.end())
    return launch.emitOpError("has no matrix product to lower");
  auto gemm = dyn_cast<linalg::GenericOp>(gemmIt->getOperation());
  if (!gemm)
    return gemmIt->emitOpError("is not in generic form");
  FailureOr<Plan> plan = readPlan(tuning, gemm);
  if (failed(plan))
    return failure();
  Value acc = gemm.getDpsInitOperand(0)->get();

  linalg::LinalgOp init;
  FailureOr<std::optional<Value>> initValue =
      accumulatorStart(launch, ArrayRef(ops.begin(), gemmIt), gemm, init);
  if (failed(initValue))
    return failure();

  GemmBuilder builder(launch, gemm, *plan);
  OpBuilder b(&body, body.begin());
  builder.buildThreadIds(b);
  b.setInsertionPoint(gemm);
  builder.buildBounds(b);
  Location loc = gemm.getLoc();
  // TMA: the producer warpgroup's part comes first; all that follows is the
  // computing threads' (wrapped below).
  Operation *producerEnd = nullptr;
  if (plan->tma) {
    if (failed(builder.prepare(b)))
      return failure();
    producerEnd = gemm->getPrevNode();
  }
  AffineMap outMap = gemm.getMatchingIndexingMap(gemm.getDpsInitOperand(0));
  // Where each accumulator sits in the result. With partial tiles, one past
  // the block's extent stores nothing (accInside: its guard) and loads at
  // indices clamped into the tile (accLoadIndices: plain loads, which
  // accumulators of one column share); the epilogue locates them again
  // after the K loop, so that none of this lives across it (linear 3000 x
  // 1000 x 1024 f32 + ReLU: 156 registers with guarded loads located
  // before the loop, 124 so).
  SmallVector<SmallVector<Value>> accIndices, accLoadIndices;
  SmallVector<Value> accInside;
  SmallVector<std::pair<Value, Value>> positions;
  auto locate = [&] {
    accIndices.clear();
    accLoadIndices.clear();
    accInside.clear();
    positions = builder.accumulatorPositions(b);
    for (auto [m, n] : positions) {
      SmallVector<Value> loopIdx = builder.productIndices(b, m, n);
      accIndices.push_back(applyMap(outMap, loopIdx));
      accInside.push_back(builder.inBounds(b, loopIdx));
      if (accInside.back())
        builder.clampToBounds(b, loopIdx);
      accLoadIndices.push_back(applyMap(outMap, loopIdx));
    }
  };
  // (Before the loop only for the accumulators' first loads, where the
  // product does not start from a fill.)
  if (!builder.hasPartialTiles() || !*initValue)
    locate();
  SmallVector<Value> initial;
  int64_t numAccumulators = builder.numAccumulators();
  for (int64_t e = 0; e < numAccumulators; ++e)
    initial.push_back(
        *initValue ? **initValue
                   : memref::LoadOp::create(b, loc, acc, accLoadIndices[e])
                         .getResult());
  if (!plan->tma && failed(builder.prepare(b)))
    return failure();
  SmallVector<Value> finals = builder.buildMainLoop(b, initial);

  // The epilogue: before the launch's end, where every operand it reads
  // is defined.
  b.setInsertionPoint(body.getTerminator());
  if (builder.hasPartialTiles())
    locate();
  SmallVector<Operation *> producers;
  if (init)
    producers.push_back(init);
  producers.push_back(gemm);
  // Tensor-core accumulators come in pairs of adjacent columns (N); FMA
  // tiles in runs of TN (or TN / 2) adjacent columns, stored four at a time
  // where a run of four stays within the innermost N loop.
  std::optional<GroupedStores> grouped;
  std::optional<unsigned> dimN = outMap.getResultPosition(
      getAffineDimExpr(plan->loops.innerN(), gemm.getContext()));
  int64_t run = plan->splitN ? plan->tn / 2 : plan->tn / plan->runsN;
  if (dimN && plan->mma)
    grouped = GroupedStores{*dimN, 2};
  else if (dimN && run % 4 == 0 &&
           plan->blockExtents[plan->loops.innerN()] % 4 == 0)
    grouped = GroupedStores{*dimN, 4};
  // A buffer stored twice (an epilogue writing in place) may be staged once
  // and not the next time: the staged pieces and the threads' own elements
  // then differ in owner, so a barrier orders the first stores before the
  // second (staged stores start with one).
  DenseMap<Value, bool> lastStaged;
  auto stage = [&](OpBuilder &sb, Value buffer, ArrayRef<Value> values,
                   ArrayRef<unsigned> fromResult) {
    bool staged =
        builder.stageStores(sb, buffer, values, fromResult, positions, outMap);
    bool &last = lastStaged[baseBuffer(buffer)];
    if (last && !staged)
      builder.computingBarrier(sb);
    last = staged;
    return staged;
  };
  if (failed(applyEpilogueInRegisters(b, launch, acc, accIndices, finals,
                                      ArrayRef(std::next(gemmIt), ops.end()),
                                      producers, grouped, stage, accInside,
                                      accLoadIndices)))
    return failure();
  if (!plan->tma)
    return success();

  // TMA: a 1-D block of the computing warpgroups and the producer's
  // (buildThreadIds), and everything after the producer's loop for the
  // computing threads only. Neither side meets a block barrier again.
  b.setInsertionPoint(launch);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  launch.getBlockSizeXMutable().assign(
      arith::ConstantIndexOp::create(b, loc, plan->launchThreads()));
  launch.getBlockSizeYMutable().assign(one);
  launch.getBlockSizeZMutable().assign(one);
  b.setInsertionPointAfter(producerEnd);
  auto computes = scf::IfOp::create(b, loc, builder.isConsumer(b),
                                    /*withElseRegion=*/false);
  Block *then = computes.thenBlock();
  then->getOperations().splice(
      then->getTerminator()->getIterator(), body.getOperations(),
      std::next(computes->getIterator()), body.getTerminator()->getIterator());
  // The producer's threads never reach a block barrier from here on: one
  // there would hang the block. Nothing builds one today; this guards
  // later changes to the epilogue.
  WalkResult blockBarrier = then->walk([](gpu::BarrierOp barrier) {
    barrier.emitOpError("would wait for the TMA producer's threads, which "
                        "skip the computing threads' code");
    return WalkResult::interrupt();
  });
  if (blockBarrier.wasInterrupted())
    return failure();
  if (auto split = builder.registerSplit()) {
    b.setInsertionPointToStart(then);
    NVVM::SetMaxRegisterOp::create(b, loc, split->second,
                                   NVVM::SetMaxRegisterAction::increase);
  }
  if (plan->cluster > 1) {
    // Blocks x and x + 1 (N tiles side by side, the same M rows) share A's
    // tile. Neither may exit while the other can still copy into it or
    // arrive on its barriers: all threads of both meet at a cluster barrier
    // before the end.
    if (failed(addClusterSize(launch, plan->cluster, 1, 1)))
      return failure();
    OpBuilder eb(body.getTerminator());
    clusterBarrier(eb, loc);
  }
  return success();
}

namespace {
struct LowerSharedGemmPass
    : public egg::impl::EggLowerSharedGemmBase<LowerSharedGemmPass> {
  void runOnOperation() override {
    auto applies = [](StructureAttr structure, TuningAttr tuning) {
      return isSharedGemm(tuning) && !isStagedMap(structure, tuning);
    };
    if (failed(lowerKernelLaunches(getOperation(), applies, lowerLaunch)))
      return signalPassFailure();
    // Padded views are read by the copies built above alone: the block
    // views left behind are dead; any other reader could not be lowered.
    SmallVector<PaddedViewOp> views;
    getOperation().walk([&](PaddedViewOp view) { views.push_back(view); });
    for (PaddedViewOp view : views) {
      SmallVector<Operation *> dead;
      std::function<bool(Value)> unused = [&](Value v) {
        for (Operation *user : v.getUsers()) {
          if (!isa<memref::SubViewOp, memref::CastOp>(user) ||
              !unused(user->getResult(0)))
            return false;
          dead.push_back(user);
        }
        return true;
      };
      if (!unused(view.getResult())) {
        view.emitOpError("is read by an op other than an implicit GEMM's "
                         "copies (egg-lower-shared-gemm): nothing else can "
                         "read its border");
        return signalPassFailure();
      }
      for (Operation *op : dead) // Users before what they read.
        op->erase();
      view.erase();
    }
  }
};

struct LowerTensorMapArgsPass
    : public egg::impl::EggLowerTensorMapArgsBase<LowerTensorMapArgsPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      Block &entry = func.getBody().front();
      auto pointer = LLVM::LLVMPointerType::get(&getContext());
      SmallVector<Type> inputs(func.getArgumentTypes());
      OpBuilder b(&entry, entry.begin());
      for (BlockArgument arg : entry.getArguments()) {
        Type mapType = arg.getType();
        if (!isa<nvgpu::TensorMapDescriptorType>(mapType))
          continue;
        arg.setType(pointer);
        inputs[arg.getArgNumber()] = pointer;
        // Uses still typed as maps read them through a cast, which cancels
        // against the NVGPU conversion's cast back to a pointer.
        auto back = UnrealizedConversionCastOp::create(b, func.getLoc(),
                                                       mapType, Value(arg));
        arg.replaceAllUsesExcept(back.getResult(0), back);
      }
      func.setType(
          FunctionType::get(&getContext(), inputs, func.getResultTypes()));
    });
  }
};

struct ExternDynamicSharedMemoryPass
    : public egg::impl::EggExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    auto shared = static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
    getOperation().walk([&](LLVM::GlobalOp global) {
      // The conversion's global for gpu.dynamic_shared_memory, and nothing
      // else: internal, zero-sized, no initializer, its reserved name.
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != shared || !array ||
          array.getNumElements() != 0 ||
          global.getLinkage() != LLVM::Linkage::Internal ||
          global.getValueOrNull() || !global.getInitializerRegion().empty() ||
          !global.getSymName().starts_with("__dynamic_shmem__"))
        return;
      global.setLinkage(LLVM::Linkage::External);
    });
  }
};

struct AlignWorkgroupMemoryPass
    : public egg::impl::EggAlignWorkgroupMemoryBase<AlignWorkgroupMemoryPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
        if (!func.getWorkgroupAttributionAttr(i, name))
          func.setWorkgroupAttributionAttr(i, name, b.getI64IntegerAttr(16));
    });
  }
};
} // namespace
