//===- LowerColumnReductions.cpp - Reductions over a non-innermost loop ---===//
//
// A column reduction (`reduce_two_stage`: e.g. x.sum(0) of a row-major
// matrix) read one column per thread before: a handful of threads for the
// whole tensor. Here a block owns BN consecutive columns and [TX, R]
// threads (TX * V = BN):
//
//   stage 1: thread (x, y) reduces rows y, y + R, ... of columns
//            [x*V, x*V + V) into V partials in registers; a warp's loads
//            of one row are consecutive 16-byte vectors;
//   stage 2: the partials go to a [R][BN] workgroup buffer, where rows
//            y < s take rows y + s (s halving, a barrier per round) until
//            row 0 holds each column's combined partials; the threads with
//            y = 0 combine them with the fill value and run the
//            elementwise epilogue in registers.
//
// With `cluster = C` (sm_90) the C blocks of a thread-block cluster (grid z)
// share the rows of their columns, block r taking the r-th of C slices;
// after stage 2 a cluster barrier makes every block's row 0 visible, block
// 0's threads with y = 0 combine the C rows over distributed shared memory
// and run the epilogue, and a second cluster barrier keeps the other
// blocks' shared memory alive until then. One kernel, where a split
// (`split_k`) needs a second one to combine the slices' results.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERCOLUMNREDUCTIONS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// The generic address of element `offset` of workgroup buffer `buffer`
/// (this block's copy), for `mapa` to move to another block's.
static Value genericAddress(OpBuilder &b, Location loc, Value buffer,
                            Value offset) {
  MLIRContext *ctx = b.getContext();
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value address = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, offset,
                            arith::ConstantIndexOp::create(b, loc, bytes)));
  Value address64 =
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      address64);
  return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(ctx),
                                       pointer);
}

/// The `element` at generic address `mine` in block `rank` of the cluster,
/// read over distributed shared memory.
static Value loadFromBlock(OpBuilder &b, Location loc, Type element, Value mine,
                           int64_t rank) {
  Value rank32 = arith::ConstantIntOp::create(b, loc, rank, 32);
  Value theirs = NVVM::MapaOp::create(b, loc, mine.getType(), mine, rank32);
  return LLVM::LoadOp::create(b, loc, element, theirs);
}

static LogicalResult lowerLaunch(gpu::LaunchOp launch, TuningAttr tuning) {
  int64_t cluster = tuning.getCluster();
  FailureOr<SmallVector<linalg::LinalgOp>> blockOps = collectBlockOps(launch);
  if (failed(blockOps))
    return failure();
  SmallVector<linalg::LinalgOp> &ops = *blockOps;
  auto redIt = llvm::find_if(
      ops, [](linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; });
  if (redIt == ops.end())
    return launch.emitOpError("has no reduction to lower");
  auto red = dyn_cast<linalg::GenericOp>(redIt->getOperation());
  // A reduction with index (argmax) carries a value and its row: two
  // partials per column, combined by value and then by the smaller row.
  std::optional<IndexedReduction> indexed =
      red ? matchIndexedReduction(red) : std::nullopt;
  if (!red || red.getNumReductionLoops() != 1 ||
      (red.getNumDpsInits() != 1 && !indexed))
    return redIt->emitOpError("is not a generic with one reduction loop and "
                              "one result (or a value and its index)");
  unsigned numResults = red.getNumDpsInits();
  // The combiner's neutral element seeds the partials; an indexed
  // reduction starts from its accumulators' fills.
  Operation *combiner = indexed ? nullptr : combinerOp(red, 0);
  std::optional<TypedAttr> neutralAttr =
      combiner ? arith::getNeutralElement(combiner) : std::nullopt;
  if (!neutralAttr && !indexed)
    return red.emitOpError("is not combined by one binary op with a neutral "
                           "element: it cannot be reduced in two stages");
  SmallVector<linalg::LinalgOp> inits;
  SmallVector<std::optional<Value>> starts;
  for (unsigned r = 0; r < numResults; ++r) {
    Value base = baseBuffer(red.getDpsInitOperand(r)->get());
    SmallVector<linalg::LinalgOp> before;
    for (linalg::LinalgOp op : ArrayRef(ops.begin(), redIt))
      if (numResults == 1 ||
          (op.getNumDpsInits() == 1 &&
           baseBuffer(op.getDpsInitOperand(0)->get()) == base))
        before.push_back(op);
    linalg::LinalgOp init;
    FailureOr<std::optional<Value>> start =
        accumulatorStart(launch, before, red, init, r);
    if (failed(start))
      return failure();
    if (indexed && !*start)
      return red.emitOpError("reduces a value and its index into "
                             "accumulators that no fill starts");
    if (init)
      inits.push_back(init);
    starts.push_back(*start);
  }
  SmallVector<int64_t> extents = red.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = red.getIteratorTypesArray();
  unsigned last = red.getNumLoops() - 1, reduced = 0;
  for (unsigned d = 0; d <= last; ++d)
    if (iterators[d] == utils::IteratorType::reduction)
      reduced = d;
  int64_t v = tuning.getVector(), tx = tuning.getThreads()[0],
          rows = tuning.getThreads()[1];
  Location loc = red.getLoc();
  Value acc = red.getDpsInitOperand(0)->get();
  Type accType = getElementTypeOrSelf(acc.getType());
  SmallVector<Value> accs;
  for (unsigned r = 0; r < numResults; ++r)
    accs.push_back(red.getDpsInitOperand(r)->get());

  Block &body = launch.getBody().front();
  OpBuilder b(&body, body.begin());
  Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value col = arith::MulIOp::create(b, loc, x, constIndex(b, loc, v));

  // Stage 1, at the reduction's position: V partials per thread.
  b.setInsertionPoint(red);
  // Partials: V per result, result-major.
  SmallVector<Value> seeds;
  if (indexed) {
    for (unsigned r = 0; r < numResults; ++r)
      seeds.append(v, *starts[r]);
  } else {
    Value neutral = arith::ConstantOp::create(b, loc, *neutralAttr).getResult();
    seeds.assign(v, neutral);
  }
  // Per input, the V values of row i (one load of V, or one for all).
  auto loadRow = [&](OpBuilder &nb, Value i) {
    SmallVector<Value> loopIdx(red.getNumLoops(), constIndex(nb, loc, 0));
    loopIdx[reduced] = i;
    loopIdx[last] = col;
    SmallVector<SmallVector<Value>> inputs;
    for (OpOperand *in : red.getDpsInputOperands()) {
      Value value = in->get();
      if (!isa<ShapedType>(value.getType())) {
        inputs.push_back(SmallVector<Value>(v, value));
        continue;
      }
      AffineMap map = red.getMatchingIndexingMap(in);
      SmallVector<Value> idx = applyMap(map, loopIdx);
      Type element = getElementTypeOrSelf(value.getType());
      if (v == 1 || !map.isFunctionOfDim(last)) {
        Value scalar = memref::LoadOp::create(nb, loc, value, idx);
        inputs.push_back(SmallVector<Value>(v, scalar));
        continue;
      }
      auto load = vector::LoadOp::create(nb, loc, VectorType::get({v}, element),
                                         value, idx);
      load.setAlignment(v * ((element.getIntOrFloatBitWidth() + 7) / 8));
      SmallVector<Value> lanes;
      for (int64_t e = 0; e < v; ++e)
        lanes.push_back(
            vector::ExtractOp::create(nb, loc, load.getResult(), e));
      inputs.push_back(lanes);
    }
    return inputs;
  };
  // The reduction's body per column, folding one row into the partials.
  // (The reduced loop's index, which an indexed reduction reads, is the
  // row `i`.)
  auto fold = [&](OpBuilder &nb, ArrayRef<SmallVector<Value>> inputs,
                  ValueRange partials, Value i) {
    Block *rbody = red.getBody();
    SmallVector<Value> next(partials.size());
    for (int64_t e = 0; e < v; ++e) {
      IRMapping map;
      for (auto [k, in] : llvm::enumerate(red.getDpsInputOperands()))
        map.map(red.getMatchingBlockArgument(in), inputs[k][e]);
      for (unsigned r = 0; r < numResults; ++r)
        map.map(red.getMatchingBlockArgument(red.getDpsInitOperand(r)),
                partials[r * v + e]);
      for (Operation &op : rbody->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          map.map(index.getResult(), i);
          continue;
        }
        nb.clone(op, map);
      }
      for (unsigned r = 0; r < numResults; ++r)
        next[r * v + e] =
            map.lookupOrDefault(rbody->getTerminator()->getOperand(r));
    }
    return next;
  };
  // Rows y + R t for t < extent / R, U rows per step with their loads
  // issued before the folds (U independent loads in flight per thread, up
  // to 16 rows and about 128 bytes, as for rows shared by lanes: H200,
  // 8192 x 4096 bf16 mean, 8-byte rows, 8 rows 0.0207 ms, 16 rows 0.0204;
  // f32 16-byte rows the same at 8 or 16); then, where R does not divide
  // the extent, one more row for the first extent % R threads.
  // With a cluster, block r of it reads rows [r E / C, (r + 1) E / C).
  if (extents[reduced] % cluster != 0)
    return red.emitOpError("cluster = ")
           << cluster << " does not divide its " << extents[reduced]
           << " rows into equal slices";
  if (cluster > 1 && failed(addClusters(launch, cluster)))
    return failure();
  int64_t extent = extents[reduced] / cluster, full = extent / rows;
  Value sliceStart = constIndex(b, loc, 0);
  if (cluster > 1)
    sliceStart = arith::MulIOp::create(b, loc, launch.getBlockIds().z,
                                       constIndex(b, loc, extent));
  int64_t rowBytes = 0;
  for (OpOperand *in : red.getDpsInputOperands())
    if (auto shaped = dyn_cast<ShapedType>(in->get().getType());
        shaped && shaped.getElementType().isIntOrFloat())
      rowBytes +=
          (red.getMatchingIndexingMap(in).isFunctionOfDim(last) ? v : 1) *
          ((shaped.getElementTypeBitWidth() + 7) / 8);
  int64_t unroll = 1;
  while (unroll < 16 && full % (unroll * 2) == 0 &&
         unroll * 2 * std::max<int64_t>(rowBytes, 1) <= 128)
    unroll *= 2;
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, full),
      constIndex(b, loc, unroll), seeds,
      [&](OpBuilder &nb, Location, Value t, ValueRange partials) {
        SmallVector<SmallVector<SmallVector<Value>>> rowsIn;
        SmallVector<Value> rowIds;
        for (int64_t u = 0; u < unroll; ++u) {
          Value i = arith::AddIOp::create(
              nb, loc,
              arith::MulIOp::create(
                  nb, loc,
                  arith::AddIOp::create(nb, loc, t, constIndex(nb, loc, u)),
                  constIndex(nb, loc, rows)),
              y);
          Value row = arith::AddIOp::create(nb, loc, sliceStart, i);
          rowsIn.push_back(loadRow(nb, row));
          rowIds.push_back(row);
        }
        SmallVector<Value> next(partials);
        for (auto [in, row] : llvm::zip(rowsIn, rowIds))
          next = fold(nb, in, next, row);
        scf::YieldOp::create(nb, loc, next);
      });
  SmallVector<Value> partials(loop.getResults());
  if (int64_t rest = extent % rows) {
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y,
                                      constIndex(b, loc, rest));
    auto tail = scf::IfOp::create(
        b, loc, has,
        [&](OpBuilder &nb, Location) {
          Value i = arith::AddIOp::create(
              nb, loc,
              arith::AddIOp::create(nb, loc, sliceStart,
                                    constIndex(nb, loc, full * rows)),
              y);
          scf::YieldOp::create(nb, loc, fold(nb, loadRow(nb, i), partials, i));
        },
        [&](OpBuilder &nb, Location) {
          scf::YieldOp::create(nb, loc, partials);
        });
    partials = SmallVector<Value>(tail.getResults());
  }

  // Stage 2: partials through shared memory, combined pairwise in rounds
  // (row y takes row y + s, s halving) so that row 0 ends with all R; a
  // serial walk over the R rows by row 0's threads alone took longer than
  // the rounds' barriers.
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Value> buffers;
  for (Value a : accs)
    buffers.push_back(launch.addWorkgroupAttribution(
        MemRefType::get({rows, tx * v}, getElementTypeOrSelf(a.getType()),
                        MemRefLayoutAttrInterface(), space),
        loc));
  Value buffer = buffers.front();
  // Row r, the thread's column e of the buffer.
  auto bufferAt = [&](OpBuilder &nb, Value r, int64_t e) {
    return SmallVector<Value>{
        r, arith::AddIOp::create(nb, loc, col, constIndex(nb, loc, e))};
  };
  // Two partials combined: the reduction's combiner; for a value and its
  // index, the better value, or on a tie the smaller index (the first row,
  // as a strict predicate keeps when walking the rows in order).
  auto combineAll = [&](OpBuilder &nb, ArrayRef<Value> lhs,
                        ArrayRef<Value> rhs) -> SmallVector<Value> {
    if (!indexed) {
      Operation *c = nb.clone(*combiner);
      c->setOperands({lhs[0], rhs[0]});
      return {c->getResult(0)};
    }
    Value better =
        arith::CmpFOp::create(nb, loc, indexed->predicate, rhs[0], lhs[0]);
    Value tie = arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OEQ,
                                      rhs[0], lhs[0]);
    Value earlier =
        isa<FloatType>(rhs[1].getType())
            ? arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OLT, rhs[1],
                                    lhs[1])
                  .getResult()
            : arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt, rhs[1],
                                    lhs[1])
                  .getResult();
    Value take = arith::OrIOp::create(
        nb, loc, better, arith::AndIOp::create(nb, loc, tie, earlier));
    return {arith::SelectOp::create(nb, loc, take, rhs[0], lhs[0]),
            arith::SelectOp::create(nb, loc, take, rhs[1], lhs[1])};
  };
  // Column e's partials of buffer row `r`.
  auto loadAll = [&](OpBuilder &nb, Value r, int64_t e) {
    SmallVector<Value> values;
    for (Value buf : buffers)
      values.push_back(
          memref::LoadOp::create(nb, loc, buf, bufferAt(nb, r, e)));
    return values;
  };
  for (int64_t e = 0; e < v; ++e)
    for (unsigned r = 0; r < numResults; ++r)
      memref::StoreOp::create(b, loc, partials[r * v + e], buffers[r],
                              bufferAt(b, y, e));
  gpu::BarrierOp::create(b, loc);
  for (int64_t count = rows; count > 1;) {
    int64_t half = int64_t(llvm::PowerOf2Ceil(count)) / 2;
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y,
                                         constIndex(b, loc, count - half));
    auto round = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
    OpBuilder rb = round.getThenBodyBuilder();
    Value other = arith::AddIOp::create(rb, loc, y, constIndex(rb, loc, half));
    for (int64_t e = 0; e < v; ++e) {
      SmallVector<Value> mine = loadAll(rb, y, e);
      SmallVector<Value> theirs = loadAll(rb, other, e);
      SmallVector<Value> combined = combineAll(rb, mine, theirs);
      for (unsigned r = 0; r < numResults; ++r)
        memref::StoreOp::create(rb, loc, combined[r], buffers[r],
                                bufferAt(rb, y, e));
    }
    count = half;
    // Row 0's threads read their own last writes: no barrier after the
    // last round.
    if (count > 1)
      gpu::BarrierOp::create(b, loc);
  }

  // Result indices of each of the thread's columns.
  AffineMap outMap = red.getMatchingIndexingMap(red.getDpsInitOperand(0));
  SmallVector<SmallVector<Value>> indices;
  for (int64_t e = 0; e < v; ++e) {
    SmallVector<Value> loopIdx(red.getNumLoops(), constIndex(b, loc, 0));
    loopIdx[last] = arith::AddIOp::create(b, loc, col, constIndex(b, loc, e));
    indices.push_back(applyMap(outMap, loopIdx));
  }
  b.setInsertionPoint(body.getTerminator());
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                      constIndex(b, loc, 0));
  // A cluster: every block's row 0 complete (the barrier's arrive releases
  // it, its wait acquires the others'; all threads reach it, hence the
  // aligned form); block 0 combines them.
  if (cluster > 1) {
    clusterBarrier(b, loc);
    first = arith::AndIOp::create(
        b, loc, first,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              launch.getBlockIds().z, constIndex(b, loc, 0)));
  }
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  // Per result, the thread's V totals.
  SmallVector<SmallVector<Value>> totals(numResults);
  for (int64_t e = 0; e < v; ++e) {
    SmallVector<Value> initial;
    for (unsigned r = 0; r < numResults; ++r)
      initial.push_back(
          starts[r] ? *starts[r]
                    : memref::LoadOp::create(tb, loc, accs[r], indices[e])
                          .getResult());
    SmallVector<Value> part = loadAll(tb, constIndex(tb, loc, 0), e);
    if (cluster > 1) {
      // Row 0 of the buffer starts at element 0: the column is the offset.
      Value mine = genericAddress(
          tb, loc, buffer,
          arith::AddIOp::create(tb, loc, col, constIndex(tb, loc, e)));
      for (int64_t r = 1; r < cluster; ++r)
        part = combineAll(tb, part, {loadFromBlock(tb, loc, accType, mine, r)});
    }
    SmallVector<Value> total = combineAll(tb, initial, part);
    for (unsigned r = 0; r < numResults; ++r)
      totals[r].push_back(total[r]);
  }
  // The other blocks' shared memory stays until block 0 has read it.
  if (cluster > 1) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(ifOp);
    clusterBarrier(b, loc);
  }
  // An index result goes out as computed (an indexed reduction takes no
  // epilogue: checkColumnReduction); the first result runs the epilogue.
  for (unsigned r = 1; r < numResults; ++r)
    if (!isTemporary(accs[r], launch))
      for (int64_t e = 0; e < v; ++e)
        memref::StoreOp::create(tb, loc, totals[r][e], accs[r], indices[e]);
  SmallVector<Operation *> producers(inits.begin(), inits.end());
  producers.push_back(red);
  return applyEpilogueInRegisters(tb, launch, acc, indices, totals[0],
                                  ArrayRef(std::next(redIt), ops.end()),
                                  producers);
}

namespace {
struct LowerColumnReductionsPass
    : public egg::impl::EggLowerColumnReductionsBase<
          LowerColumnReductionsPass> {
  void runOnOperation() override {
    auto applies = [](StructureAttr structure, TuningAttr tuning) {
      return structure && tuning &&
             structure.getFormulation() == Formulation::reduce_two_stage;
    };
    if (failed(lowerKernelLaunches(getOperation(), applies, lowerLaunch)))
      signalPassFailure();
  }
};
} // namespace
