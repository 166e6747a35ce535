//===- LowerRecurrences.cpp - Blocks per tile of batch rows ---------------===//
//
// `recurrence_block`: egg-apply-schedule gives each block a tile of the
// recurrence's batch rows; here the block's egg.recurrence (after
// egg-map-to-gpu) becomes every step of those rows. With `cluster = C` the
// C blocks of a thread-block cluster (grid z) split the H units, each its
// H / C; a block's threads cover its units, a thread per unit, and split k
// into S slices where there are S times as many threads as units:
//
//   the finals take the initial states past h (updated in place there);
//   for each step t (T-1 down to 0 when reversed):
//     the block copies its rows' previous h (all units: the initial h, or
//     the sequence at the step before) into shared memory; barrier;
//     thread (slice, unit j) sums h[r][k] * weight[k][g*H + j] over its
//     slice of k for its rows r and gates g (fused multiply-adds; the
//     weights of several k loaded before they are used, so that the loads
//     overlap; consecutive threads read consecutive weights);
//     with S > 1 the slices' sums meet in shared memory (barrier) and are
//     added in slice order per row and unit;
//     the cell runs on each row and unit with the input gates, the hidden
//     gates (sums + bias) and the old states, and stores the new states, h
//     also into the sequence at t;
//     a barrier (of the cluster: its release and acquire publish the
//     sequence at t to every block) ends the step.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-lower-recurrences"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERRECURRENCES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// Steps of k whose weights a thread loads before it uses them.
static int64_t unrollOf(int64_t length) {
  for (int64_t u : {8, 4, 2})
    if (length % u == 0)
      return u;
  return 1;
}

/// A loop `for (i = start; i < end; i += step)` whose body `body(i)` builds
/// at the builder it is given.
static void forEach(OpBuilder &b, Location loc, Value start, int64_t end,
                    int64_t step, function_ref<void(OpBuilder &, Value)> body) {
  scf::ForOp::create(b, loc, start, constIndex(b, loc, end),
                     constIndex(b, loc, step), ValueRange{},
                     [&](OpBuilder &lb, Location, Value i, ValueRange) {
                       body(lb, i);
                       scf::YieldOp::create(lb, loc);
                     });
}

static LogicalResult lowerRecurrence(RecurrenceOp op, gpu::LaunchOp launch,
                                     TuningAttr tuning) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("reaches egg-lower-recurrences on tensors: run it "
                          "after bufferization");
  // The blocks of a step share the sequence and states: a buffer the
  // launch allocates would be each thread's own.
  for (Value init : op.getDpsInits())
    if (isTemporary(baseBuffer(init), launch))
      return op.emitOpError("writes its sequence or states to a buffer the "
                            "launch allocates: each must be a buffer of the "
                            "function (a result of the recurrence's kernel)");
  Location loc = op.getLoc();
  int64_t steps = op.getSteps(), rows = op.getBatch(), units = op.getUnits(),
          gates = op.getGates(), states = op.getStates();
  int64_t threads = tuning.getThreads()[0], cluster = tuning.getCluster();
  RecurrenceSplit split = splitRecurrence(units, threads, cluster);
  int64_t own = split.unitsPerBlock, slices = split.kSlices;
  int64_t sliceLength = units / slices, unroll = unrollOf(sliceLength);
  if (cluster > 1 && failed(addClusters(launch, cluster)))
    return failure();
  OpBuilder b(op);
  auto cst = [&](OpBuilder &ob, int64_t v) { return constIndex(ob, loc, v); };
  Type f32 = b.getF32Type();
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto sharedBuffer = [&](ArrayRef<int64_t> shape) {
    return launch.addWorkgroupAttribution(
        MemRefType::get(shape, f32, MemRefLayoutAttrInterface(), workgroup),
        loc);
  };
  Value hidden = sharedBuffer({rows, units});
  Value partials =
      slices > 1 ? sharedBuffer({slices, rows * gates, own}) : Value();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The block's units: [rank * own, (rank + 1) * own).
  Value first =
      cluster > 1
          ? arith::MulIOp::create(b, loc, launch.getBlockIds().z, cst(b, own))
                .getResult()
          : cst(b, 0);
  ValueRange initial = op.getInitial(), finals = op.getFinals();
  // Element e of the block's [rows, own] states: its row and unit.
  auto rowUnit = [&](OpBuilder &ob, Value e) {
    Value r = arith::DivUIOp::create(ob, loc, e, cst(ob, own));
    Value u = arith::RemUIOp::create(ob, loc, e, cst(ob, own));
    return std::make_pair(r,
                          arith::AddIOp::create(ob, loc, first, u).getResult());
  };
  auto barrier = [&](OpBuilder &ob) {
    if (cluster > 1)
      clusterBarrier(ob, loc);
    else
      gpu::BarrierOp::create(ob, loc);
  };

  // The finals hold the states past h from the start.
  if (states > 1) {
    forEach(b, loc, tid, rows * own, threads, [&](OpBuilder &lb, Value e) {
      auto [r, j] = rowUnit(lb, e);
      for (int64_t s = 1; s < states; ++s) {
        Value v = memref::LoadOp::create(lb, loc, initial[s], ValueRange{r, j});
        memref::StoreOp::create(lb, loc, v, finals[s], ValueRange{r, j});
      }
    });
  }

  Block &cell = op.getCellBlock();
  // The cell of row `r`, unit `j` from its hidden gates' sums (bias not
  // added), at step `t`: the new states stored.
  auto runCell = [&](OpBuilder &cb, Value t, Value r, Value j,
                     ArrayRef<Value> sums) {
    IRMapping map;
    for (int64_t g = 0; g < gates; ++g) {
      Value column = arith::AddIOp::create(cb, loc, j, cst(cb, g * units));
      Value bias = memref::LoadOp::create(cb, loc, op.getBias(), column);
      map.map(cell.getArgument(g),
              memref::LoadOp::create(cb, loc, op.getInput(),
                                     ValueRange{t, r, column}));
      map.map(cell.getArgument(gates + g),
              arith::AddFOp::create(cb, loc, sums[g], bias));
    }
    map.map(cell.getArgument(2 * gates),
            memref::LoadOp::create(cb, loc, hidden, ValueRange{r, j}));
    for (int64_t s = 1; s < states; ++s)
      map.map(cell.getArgument(2 * gates + s),
              memref::LoadOp::create(cb, loc, finals[s], ValueRange{r, j}));
    for (Operation &inner : cell.without_terminator())
      cb.clone(inner, map);
    auto yield = cast<YieldOp>(cell.getTerminator());
    for (int64_t s = 0; s < states; ++s) {
      Value v = map.lookupOrDefault(yield.getValues()[s]);
      memref::StoreOp::create(cb, loc, v, finals[s], ValueRange{r, j});
      if (s == 0)
        memref::StoreOp::create(cb, loc, v, op.getSequence(),
                                ValueRange{t, r, j});
    }
  };
  // Unit j's sums over k in [k0, k0 + length) for every row and gate.
  auto dot = [&](OpBuilder &ub, Value j, Value k0) {
    SmallVector<Value> columns;
    for (int64_t g = 0; g < gates; ++g)
      columns.push_back(arith::AddIOp::create(ub, loc, j, cst(ub, g * units)));
    Value zero = arith::ConstantOp::create(ub, loc, ub.getF32FloatAttr(0));
    SmallVector<Value> init(rows * gates, zero);
    Value end = arith::AddIOp::create(ub, loc, k0, cst(ub, sliceLength));
    auto loop = scf::ForOp::create(
        ub, loc, k0, end, cst(ub, unroll), init,
        [&](OpBuilder &kb, Location, Value kb0, ValueRange carried) {
          SmallVector<Value> w, x, acc(carried);
          for (int64_t u = 0; u < unroll; ++u) {
            Value k = arith::AddIOp::create(kb, loc, kb0, cst(kb, u));
            for (int64_t g = 0; g < gates; ++g)
              w.push_back(memref::LoadOp::create(kb, loc, op.getWeight(),
                                                 ValueRange{k, columns[g]}));
            for (int64_t r = 0; r < rows; ++r)
              x.push_back(memref::LoadOp::create(kb, loc, hidden,
                                                 ValueRange{cst(kb, r), k}));
          }
          for (int64_t u = 0; u < unroll; ++u)
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t g = 0; g < gates; ++g) {
                Value &a = acc[r * gates + g];
                a = math::FmaOp::create(kb, loc, x[u * rows + r],
                                        w[u * gates + g], a);
              }
          scf::YieldOp::create(kb, loc, acc);
        });
    return SmallVector<Value>(loop.getResults());
  };

  auto stepLoop = [&](OpBuilder &sb, Value step) {
    Value t = op.getReverse()
                  ? arith::SubIOp::create(sb, loc, cst(sb, steps - 1), step)
                        .getResult()
                  : step;
    Value previous =
        op.getReverse()
            ? arith::AddIOp::create(sb, loc, t, cst(sb, 1)).getResult()
            : arith::SubIOp::create(sb, loc, t, cst(sb, 1)).getResult();
    Value atStart = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::eq,
                                          step, cst(sb, 0));
    // h of the step before (every block's units): the initial h, else the
    // sequence at the previous step, which the barrier ending it published.
    forEach(sb, loc, tid, rows * units, threads, [&](OpBuilder &lb, Value e) {
      Value r = arith::DivUIOp::create(lb, loc, e, cst(lb, units));
      Value k = arith::RemUIOp::create(lb, loc, e, cst(lb, units));
      auto h = scf::IfOp::create(
          lb, loc, atStart,
          [&](OpBuilder &tb, Location) {
            scf::YieldOp::create(
                tb, loc,
                memref::LoadOp::create(tb, loc, initial[0], ValueRange{r, k})
                    .getResult());
          },
          [&](OpBuilder &eb, Location) {
            scf::YieldOp::create(
                eb, loc,
                memref::LoadOp::create(eb, loc, op.getSequence(),
                                       ValueRange{previous, r, k})
                    .getResult());
          });
      memref::StoreOp::create(lb, loc, h.getResult(0), hidden,
                              ValueRange{r, k});
    });
    gpu::BarrierOp::create(sb, loc);
    if (slices == 1) {
      // A thread per unit (units past the threads loop), all of k.
      forEach(sb, loc, tid, own, threads, [&](OpBuilder &ub, Value u) {
        Value j = arith::AddIOp::create(ub, loc, first, u);
        SmallVector<Value> sums = dot(ub, j, cst(ub, 0));
        for (int64_t r = 0; r < rows; ++r)
          runCell(ub, t, cst(ub, r), j,
                  ArrayRef<Value>(sums).slice(r * gates, gates));
      });
    } else {
      // Thread (slice, u) sums its slice of k; the slices' sums meet in
      // shared memory, added in slice order for each row and unit.
      Value u = arith::RemUIOp::create(sb, loc, tid, cst(sb, own));
      Value slice = arith::DivUIOp::create(sb, loc, tid, cst(sb, own));
      Value j = arith::AddIOp::create(sb, loc, first, u);
      Value k0 = arith::MulIOp::create(sb, loc, slice, cst(sb, sliceLength));
      SmallVector<Value> sums = dot(sb, j, k0);
      for (int64_t i = 0; i < rows * gates; ++i)
        memref::StoreOp::create(sb, loc, sums[i], partials,
                                ValueRange{slice, cst(sb, i), u});
      gpu::BarrierOp::create(sb, loc);
      forEach(sb, loc, tid, rows * own, threads, [&](OpBuilder &lb, Value e) {
        Value r = arith::DivUIOp::create(lb, loc, e, cst(lb, own));
        Value v = arith::RemUIOp::create(lb, loc, e, cst(lb, own));
        SmallVector<Value> total;
        for (int64_t g = 0; g < gates; ++g) {
          Value at = arith::AddIOp::create(
              lb, loc, arith::MulIOp::create(lb, loc, r, cst(lb, gates)),
              cst(lb, g));
          Value sum;
          for (int64_t s = 0; s < slices; ++s) {
            Value part = memref::LoadOp::create(lb, loc, partials,
                                                ValueRange{cst(lb, s), at, v});
            sum = s ? arith::AddFOp::create(lb, loc, sum, part).getResult()
                    : part;
          }
          total.push_back(sum);
        }
        runCell(lb, t, r, arith::AddIOp::create(lb, loc, first, v), total);
      });
    }
    barrier(sb);
  };
  forEach(b, loc, cst(b, 0), steps, 1, stepLoop);
  LLVM_DEBUG(llvm::dbgs() << "recurrence of " << steps << " steps, " << rows
                          << " rows, " << units << " units x " << gates
                          << " gates: " << cluster << " blocks of " << own
                          << " units, " << slices << " slices of k, " << threads
                          << " threads, k unrolled " << unroll << "\n");
  op.erase();
  return success();
}

namespace {
struct LowerRecurrencesPass
    : public egg::impl::EggLowerRecurrencesBase<LowerRecurrencesPass> {
  void runOnOperation() override {
    auto applies = [](StructureAttr structure, TuningAttr tuning) {
      return structure && tuning &&
             structure.getFormulation() == Formulation::recurrence_block;
    };
    auto lower = [](gpu::LaunchOp launch, TuningAttr tuning) -> LogicalResult {
      SmallVector<RecurrenceOp> found;
      launch.walk([&](RecurrenceOp op) { found.push_back(op); });
      if (found.size() != 1)
        return launch.emitOpError("a recurrence_block kernel holds one "
                                  "egg.recurrence, got ")
               << found.size();
      return lowerRecurrence(found.front(), launch, tuning);
    };
    if (failed(lowerKernelLaunches(getOperation(), applies, lower)))
      return signalPassFailure();
    WalkResult left = getOperation().walk([](RecurrenceOp op) {
      op.emitOpError("is left after egg-lower-recurrences: only "
                     "recurrence_block kernels lower recurrences");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
