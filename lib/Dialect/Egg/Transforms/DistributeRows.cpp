//===- DistributeRows.cpp - Share rows among the lanes of a warp/block ----===//
//
// For kernels whose structure shares each row among lanes
// (`reduce_row_per_warp`: the 32 lanes of a warp; `reduce_row_per_block`: all
// threads of a block), the linalg ops of each gpu.launch are lowered to loops
// here rather than by convert-linalg-to-loops: along the row (the op's
// innermost loop), lane l visits positions l*V, (l+L)*V, ... with V-wide
// accesses. A reduction along the row keeps one partial per lane, combined by
// gpu.subgroup_reduce (and, across the warps of a block, through a small
// workgroup buffer), so every lane ends with the whole result.
//
// Consistency: a lane only ever reads the row elements it wrote itself, or
// values every lane holds (reduction results, ops run redundantly). When a
// launch does not satisfy that, nothing in it is distributed (every lane runs
// the whole row: correct, slower) and a warning says why.
//
//===----------------------------------------------------------------------===//

#include "DistributeRows.h"
#include "BlockOps.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Target/Limits.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGDISTRIBUTEROWS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace mlir::egg::rows {

/// Lowers a generic that reduces along the row: each lane folds its part of
/// the row into neutral-initialised partials, the lanes combine them, and
/// the result is combined into the output.
static void lowerReducingRow(OpBuilder &b, linalg::GenericOp op,
                             const RowPlan &plan, const LaneIds &ids,
                             gpu::LaunchOp launch, RowValues *held) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = extents.size(), last = numLoops - 1;
  SmallVector<Combiner> combiners;
  std::string unused;
  for (unsigned o = 0; o < op.getNumDpsInits(); ++o)
    combiners.push_back(*matchCombiner(op, o, unused));
  SmallVector<unsigned> parallelDims, reductionDims;
  for (unsigned d = 0; d < last; ++d)
    (iterators[d] == utils::IteratorType::parallel ? parallelDims
                                                   : reductionDims)
        .push_back(d);
  int64_t v = plan.vector;
  forOwnRows(
      b, loc, extents, parallelDims, plan, ids,
      [&](OpBuilder &nb, Location l, ValueRange pivs) {
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        SmallVector<Value> ivs(numLoops, zero);
        for (auto [d, iv] : llvm::zip(parallelDims, pivs))
          ivs[d] = iv;
        SmallVector<Value> partials =
            llvm::map_to_vector(combiners, [&](const Combiner &c) -> Value {
              if (!widens(c))
                return arith::ConstantOp::create(nb, l, c.neutral);
              return arith::ConstantOp::create(
                  nb, l,
                  nb.getF32FloatAttr(
                      cast<FloatAttr>(c.neutral).getValueAsDouble()));
            });
        auto fold = [&](OpBuilder &rb, Location rl, ValueRange rivs,
                        ValueRange accs) -> scf::ValueVector {
          for (auto [d, iv] : llvm::zip(reductionDims, rivs))
            ivs[d] = iv;
          auto here = [&](Value row) {
            SmallVector<Value> idx(ivs);
            idx.back() = row;
            return idx;
          };
          return buildRowLoop(
              rb, rl, plan, ids, accs, stepsInFlight(plan, bytesPerStep(op, v)),
              [&](OpBuilder &eb, Location el, Value row, int64_t step) {
                SmallVector<Value> idx = here(row);
                RowLoads args;
                for (OpOperand *input : op.getDpsInputOperands())
                  args.push_back(loadRowElements(eb, el, op, *input, idx, plan,
                                                 held, step));
                return args;
              },
              [&](OpBuilder &eb, Location el, Value row, int64_t,
                  const RowLoads &args,
                  ValueRange carried) -> SmallVector<Value> {
                SmallVector<Value> idx = here(row);
                SmallVector<Value> current(carried);
                for (int64_t e = 0; e < v; ++e) {
                  SmallVector<Value> elementArgs;
                  for (auto &values : args)
                    elementArgs.push_back(values[values.size() == 1 ? 0 : e]);
                  // A widened output's payload combines the element with
                  // an exact identity (x + -0 = x, x * 1 = x, which LLVM
                  // folds away), and the f32 partial takes the result.
                  for (auto [o, c] : llvm::enumerate(combiners))
                    elementArgs.push_back(widens(c) ? exactIdentity(eb, el, c)
                                                    : current[o]);
                  SmallVector<Value> yielded = clonePayload(
                      eb, op, elementArgs, shiftRow(eb, el, idx, e));
                  for (auto [o, c] : llvm::enumerate(combiners))
                    current[o] = widens(c) ? combineWide(eb, el, c, current[o],
                                                         yielded[o])
                                           : yielded[o];
                }
                return current;
              });
        };
        SmallVector<Value> folded;
        if (plan.hold) {
          // Extents of 1 (planHold): no loop may enclose the held values.
          folded = fold(nb, l, SmallVector<Value>(reductionDims.size(), zero),
                        partials);
        } else {
          SmallVector<Value> rlbs, rubs, rsteps;
          appendLoopBounds(nb, l, extents, reductionDims, rlbs, rubs, rsteps);
          scf::LoopNest nest =
              scf::buildLoopNest(nb, l, rlbs, rubs, rsteps, partials, fold);
          folded = nest.loops.empty()
                       ? SmallVector<Value>(nest.results)
                       : SmallVector<Value>(nest.loops.front()->getResults());
        }
        if (folded.empty())
          folded = partials;
        // Outputs are indexed by the parallel loops only.
        for (unsigned d : reductionDims)
          ivs[d] = zero;
        ivs.back() = zero;
        // Every lane combines the row's result into the output and stores
        // it. With a block per row, the old values are read before
        // combineLanes' barriers: past them, another warp may already have
        // stored its (equal) result into a shared output, and reading that
        // would combine the result twice.
        bool readFirst = !plan.perWarp && plan.lanes > 32;
        SmallVector<SmallVector<Value>> outIndices;
        for (OpOperand &init : op.getDpsInitsMutable())
          outIndices.push_back(
              operandIndices(nb, l, op.getMatchingIndexingMap(&init), ivs));
        auto loadOld = [&](unsigned o) -> Value {
          return memref::LoadOp::create(nb, l, op.getDpsInitOperand(o)->get(),
                                        outIndices[o]);
        };
        SmallVector<Value> olds;
        if (readFirst)
          for (unsigned o = 0; o < combiners.size(); ++o)
            olds.push_back(loadOld(o));
        for (auto [o, c] : llvm::enumerate(combiners)) {
          Value total = combineLanes(nb, l, folded[o], c, plan, ids, launch);
          if (widens(c))
            total = arith::TruncFOp::create(nb, l, c.op->getResult(0).getType(),
                                            total);
          OpOperand *init = op.getDpsInitOperand(o);
          Value old = readFirst ? olds[o] : loadOld(o);
          // The combiner with the output's old value in its place.
          BlockArgument out = op.getMatchingBlockArgument(init);
          IRMapping mapping;
          for (Value operand : c.op->getOperands())
            mapping.map(operand, operand == out ? old : total);
          Value result = nb.clone(*c.op, mapping)->getResult(0);
          memref::StoreOp::create(nb, l, result, init->get(), outIndices[o]);
          // Held row elements of the output's buffer may have changed.
          if (held)
            held->forget(init->get());
        }
      });
}

} // namespace mlir::egg::rows

using namespace mlir::egg::rows;

namespace {
struct DistributeRowsPass
    : public egg::impl::EggDistributeRowsBase<DistributeRowsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      auto structure = func->getAttrOfType<StructureAttr>(
          EggDialect::getStructureAttrName());
      auto tuning =
          func->getAttrOfType<TuningAttr>(EggDialect::getTuningAttrName());
      if (!isCooperativeRow(structure) || !tuning)
        continue;
      SmallVector<gpu::LaunchOp> launches;
      func.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
      for (gpu::LaunchOp launch : launches) {
        RowPlan plan;
        plan.perWarp =
            structure.getFormulation() == Formulation::reduce_row_per_warp;
        if (plan.perWarp)
          for (int64_t w : tuning.getWarp())
            plan.groups *= std::max<int64_t>(w, 1);
        plan.lanes = plan.perWarp ? 32 / plan.groups : tuning.getNumThreads();
        plan.vector = tuning.getVector();
        if (failed(distribute(launch, plan, tuning.getRowShared())))
          return signalPassFailure();
      }
    }
  }

  /// `row_shared`: the last `rowShared` row steps of each held buffer in
  /// slots of the block's dynamic shared memory ([K][lanes][V] per buffer),
  /// and the kernel marked to ask ptxas for two blocks per SM where its
  /// threads and shared memory allow them (`.minnctapersm`,
  /// egg-min-blocks-per-sm): the registers the slots free are what lets
  /// the second block fit.
  static LogicalResult keepInShared(OpBuilder &b, gpu::LaunchOp launch,
                                    const RowPlan &plan, const LaneIds &ids,
                                    ArrayRef<Value> multiUse, int64_t rowShared,
                                    RowValues &held) {
    Location loc = launch.getLoc();
    int64_t steps = plan.length / (plan.lanes * plan.vector);
    if (plan.perWarp || rowShared > steps)
      return launch.emitOpError("row_shared = ")
             << rowShared << " needs a block per row with at least as many row "
             << "steps per thread; it has " << steps;
    if (launch.getDynamicSharedMemorySize())
      return launch.emitOpError(
          "already has dynamic shared memory: row_shared cannot add its own");
    SmallVector<std::pair<Value, MemRefType>> slots;
    auto space = gpu::AddressSpaceAttr::get(launch.getContext(),
                                            gpu::AddressSpace::Workgroup);
    int64_t total = 0;
    SmallVector<int64_t> offsets;
    for (Value memref : multiUse) {
      Type elem = getElementTypeOrSelf(memref.getType());
      auto type = MemRefType::get({rowShared, plan.lanes, plan.vector}, elem,
                                  MemRefLayoutAttrInterface(), space);
      offsets.push_back(total);
      total += llvm::alignTo(
          type.getNumElements() * ((elem.getIntOrFloatBitWidth() + 7) / 8), 16);
      slots.push_back({memref, type});
    }
    // The legal space bounds one held buffer's slots; several held
    // buffers (a residual and its input) add up, and a target may have
    // less shared memory than the 128 KB that kHeldBytesPerLane comes to
    // for 1024 threads.
    TargetAttr target = lookupTarget(launch);
    if (target && total > target.getSharedMemoryPerBlock())
      return launch.emitOpError("row_shared = ")
             << rowShared << " needs " << total
             << " bytes of shared memory for its held rows; a block may have "
             << target.getSharedMemoryPerBlock();
    OpBuilder::InsertionGuard guard(b);
    Value bytes = addDynamicSharedMemory(b, loc, launch, total);
    // Blocks per SM: by threads (kMaxThreadsPerSM) and by shared memory
    // (the target's per-block limit, plus the driver's reserve per block,
    // stands for the SM's); at most two, the
    // second block being the point: more would cap ptxas's registers (32
    // per thread for four blocks of 512) below what such kernels need.
    int64_t perSM = std::min<int64_t>(2, kMaxThreadsPerSM / plan.lanes);
    if (target)
      perSM = std::min(perSM, (target.getSharedMemoryPerBlock() +
                               kReservedSharedMemoryPerBlock) /
                                  (total + 2 * kReservedSharedMemoryPerBlock));
    if (perSM > 1)
      bytes.getDefiningOp()->setAttr(EggDialect::getMinBlocksPerSMAttrName(),
                                     b.getI32IntegerAttr(perSM));
    for (auto [slot, offset] : llvm::zip(slots, offsets)) {
      Value view = memref::ViewOp::create(
          b, loc, slot.second, bytes,
          arith::ConstantIndexOp::create(b, loc, offset), ValueRange());
      held.keepInShared(slot.first, view, steps - rowShared, ids.lane);
    }
    return success();
  }

  /// Whether `memref` is a thread's own: a private allocation, or a view
  /// whose place is computed from the thread's id.
  static bool isPerThread(Value memref, gpu::LaunchOp launch) {
    gpu::KernelDim3 threads = launch.getThreadIds();
    SmallVector<Value> todo{memref};
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!todo.empty()) {
      Value v = todo.pop_back_val();
      if (v == threads.x || v == threads.y || v == threads.z)
        return true;
      Operation *def = v.getDefiningOp();
      if (!def || !seen.insert(def).second)
        continue;
      if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, memref::AllocaOp>(def))
        return true;
      llvm::append_range(todo, def->getOperands());
    }
    return false;
  }

  LogicalResult distribute(gpu::LaunchOp launch, RowPlan plan,
                           int64_t rowShared) {
    IRRewriter rewriter(launch.getContext());
    SmallVector<linalg::LinalgOp> named;
    launch.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op)))
        return op->emitOpError("could not be generalized for row sharing");
    }
    SmallVector<linalg::GenericOp> ops;
    launch.walk([&](linalg::GenericOp op) { ops.push_back(op); });
    if (ops.empty())
      return success();
    SmallVector<linalg::GenericOp> distributed;
    std::string why;
    if (failed(planLaunch(ops, plan, distributed, why))) {
      // Lanes then run the ops as they are: a reduction into memory that
      // is neither the thread's own nor at a thread's own place would have
      // every thread add into the same elements.
      for (linalg::GenericOp op : ops)
        if (llvm::is_contained(op.getIteratorTypesArray(),
                               utils::IteratorType::reduction) &&
            llvm::none_of(op.getDpsInits(), [&](Value init) {
              return isPerThread(init, launch);
            }))
          return op.emitOpError("reduces into memory that every thread of "
                                "the block shares, and rows are not shared "
                                "among lanes (")
                 << why << ")";
      launch.emitWarning("rows are not shared among lanes (")
          << why << "): every lane computes whole rows";
      return success();
    }

    // Lane coordinates at the top of the launch body.
    OpBuilder b(launch.getContext());
    b.setInsertionPointToStart(&launch.getBody().front());
    Location loc = launch.getLoc();
    LaneIds ids;
    if (plan.perWarp) {
      ids.laneInWarp = gpu::LaneIdOp::create(b, loc, IntegerAttr());
      ids.lane = ids.laneInWarp;
      ids.warp = arith::ConstantIndexOp::create(b, loc, 0);
      if (plan.groups > 1) {
        Value lanes = arith::ConstantIndexOp::create(b, loc, plan.lanes);
        ids.lane = arith::RemUIOp::create(b, loc, ids.laneInWarp, lanes);
        ids.group = arith::DivUIOp::create(b, loc, ids.laneInWarp, lanes);
      }
    } else {
      Value warpSize = arith::ConstantIndexOp::create(b, loc, 32);
      ids.lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      ids.laneInWarp = arith::RemUIOp::create(b, loc, ids.lane, warpSize);
      ids.warp = arith::DivUIOp::create(b, loc, ids.lane, warpSize);
    }
    SmallVector<Value> multiUse;
    plan.hold = planHold(distributed, plan, multiUse);
    RowValues rowValues;
    RowValues *held = plan.hold ? &rowValues : nullptr;
    if (rowShared > 0) {
      if (!held)
        launch.emitWarning("row_shared = ")
            << rowShared
            << " has no effect: the rows of this launch are not held across "
               "its ops";
      else if (failed(keepInShared(b, launch, plan, ids, multiUse, rowShared,
                                   rowValues)))
        return failure();
    }
    for (linalg::GenericOp op : ops) {
      b.setInsertionPoint(op);
      if (!llvm::is_contained(distributed, op)) {
        if (held)
          for (Value init : op.getDpsInits())
            held->forget(init);
        if (plan.groups == 1)
          continue;
        lowerAtOwnRow(b, op, plan, ids);
      } else if (op.getIteratorTypesArray().back() ==
                 utils::IteratorType::parallel) {
        lowerAlongRow(b, op, plan, ids, held);
      } else {
        lowerReducingRow(b, op, plan, ids, launch, held);
      }
      op.erase();
    }

    // Subgroup reductions become butterfly shuffles of 32-bit values.
    RewritePatternSet patterns(launch.getContext());
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                    /*subgroupSize=*/32,
                                                    /*shuffleBitwidth=*/32);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
    if (failed(applyPatternsGreedily(launch, std::move(patterns))))
      return launch.emitError("could not lower the lane reductions");
    return success();
  }
};
} // namespace
