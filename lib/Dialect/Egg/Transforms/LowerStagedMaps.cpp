//===- LowerStagedMaps.cpp - Maps whose inputs go through shared memory ---===//
//
// A map that reads an input across the loop its results run along (a
// transpose: out[i][j] = in[j][i]) is coalesced on one side only when each
// thread computes its own elements: consecutive threads write consecutive
// j but read elements a whole row apart. Here a block owns a tile of the
// iteration space and
//
//   stage 1: copies its tile of each staged input into a workgroup buffer,
//            consecutive threads on consecutive elements of the input's
//            contiguous dimension (rows padded by `padding` elements, so
//            that the column reads of stage 2 fall in different banks);
//   stage 2: after a barrier, computes the tile's elements with
//            consecutive threads on consecutive elements of the innermost
//            loop (the results' contiguous dimension), reading the staged
//            inputs from the buffers.
//
// In both stages a thread issues the loads of up to 8 elements before it
// uses them, so that several loads per thread are in flight. With `vector`
// = V > 1 a thread's element is a run of V consecutive elements: stage 1
// loads V of the input's contiguous dimension at once, stage 2 computes V
// of the innermost loop and stores them at once (16-byte global accesses
// for 16-bit types); the staged buffer is read and written by element,
// since its padded rows are not aligned for vectors.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERSTAGEDMAPS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
using Loads = SmallVector<Value>;
using LoadFn = function_ref<Loads(OpBuilder &, Location, ArrayRef<Value>)>;
using UseFn =
    function_ref<void(OpBuilder &, Location, ArrayRef<Value>, const Loads &)>;
} // namespace

/// Indices of element `e` of a row-major tile of `shape`.
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value e,
                                      ArrayRef<int64_t> shape) {
  SmallVector<Value> idx(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    Value q = stride == 1 ? e
                          : arith::DivUIOp::create(b, loc, e,
                                                   constIndex(b, loc, stride))
                                .getResult();
    idx[d] =
        d == 0 ? q
               : arith::RemUIOp::create(b, loc, q, constIndex(b, loc, shape[d]))
                     .getResult();
    stride *= shape[d];
  }
  return idx;
}

/// Thread `tid` of `threads` visits runs tid, tid + threads, ... of
/// `vector` elements along the last dimension of a tile of `shape` (threads
/// divide the runs, vector the last dimension, checked by legality): the
/// loads of up to 8 runs first (`load`), then their uses (`use`). Both get
/// the indices of a run's first element.
static void forEachElement(OpBuilder &b, Location loc, Value tid,
                           int64_t threads, ArrayRef<int64_t> shape,
                           int64_t vector, LoadFn load, UseFn use) {
  SmallVector<int64_t> runs = llvm::to_vector(shape);
  runs.back() /= vector;
  int64_t elements = 1;
  for (int64_t s : runs)
    elements *= s;
  int64_t steps = elements / threads, group = 1;
  while (group < 8 && steps % (2 * group) == 0)
    group *= 2;
  scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, steps),
      constIndex(b, loc, group), ValueRange{},
      [&](OpBuilder &lb, Location l, Value s, ValueRange) {
        SmallVector<SmallVector<Value>> indices;
        SmallVector<Loads> loaded;
        for (int64_t u = 0; u < group; ++u) {
          Value step =
              u == 0 ? s
                     : arith::AddIOp::create(lb, l, s, constIndex(lb, l, u))
                           .getResult();
          Value e = arith::AddIOp::create(
              lb, l,
              arith::MulIOp::create(lb, l, step, constIndex(lb, l, threads)),
              tid);
          SmallVector<Value> idx = delinearize(lb, l, e, runs);
          if (vector > 1)
            idx.back() = arith::MulIOp::create(lb, l, idx.back(),
                                               constIndex(lb, l, vector));
          indices.push_back(idx);
          loaded.push_back(load(lb, l, indices.back()));
        }
        for (int64_t u = 0; u < group; ++u)
          use(lb, l, indices[u], loaded[u]);
        scf::YieldOp::create(lb, l);
      });
}

/// `idx` with `e` added to its last index.
static SmallVector<Value> shiftLast(OpBuilder &b, Location loc,
                                    ArrayRef<Value> idx, int64_t e) {
  SmallVector<Value> at = llvm::to_vector(idx);
  if (e != 0)
    at.back() = arith::AddIOp::create(b, loc, at.back(), constIndex(b, loc, e));
  return at;
}

/// Bytes of a vector access (its runs start at multiples of its length, in
/// 256-byte aligned buffers whose rows hold whole runs: checked by
/// legality).
static int64_t alignmentOf(VectorType type) {
  return type.getNumElements() *
         ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// Whether the last dimension of `memref` has unit stride.
static bool unitInnerStride(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// Whether the run of elements along loop `inner` from an index is that
/// many consecutive elements of `memref` under `map`: the loop indexes its
/// last dimension only, of unit stride. (A map such as (i, j) -> (j, j)
/// moves two indices along the run.)
static bool contiguousRun(AffineMap map, unsigned inner, Value memref) {
  unsigned last = map.getNumResults();
  return last > 0 &&
         map.getResult(last - 1) == getAffineDimExpr(inner, map.getContext()) &&
         !map.dropResult(last - 1).isFunctionOfDim(inner) &&
         unitInnerStride(memref);
}

/// One vector load of the run at `idx` of `source`, as its elements.
static Loads loadRun(OpBuilder &b, Location loc, Value source,
                     ArrayRef<Value> idx, int64_t v) {
  auto type = VectorType::get({v}, getElementTypeOrSelf(source.getType()));
  auto load = vector::LoadOp::create(b, loc, type, source, idx);
  load.setAlignment(alignmentOf(type));
  Loads elements;
  for (int64_t e = 0; e < v; ++e)
    elements.push_back(vector::ExtractOp::create(b, loc, load, e));
  return elements;
}

static LogicalResult lowerLaunch(gpu::LaunchOp launch, TuningAttr tuning) {
  FailureOr<SmallVector<linalg::LinalgOp>> blockOps = collectBlockOps(launch);
  if (failed(blockOps))
    return failure();
  if (blockOps->size() != 1)
    return launch.emitOpError("stages the inputs of one map per block, found ")
           << blockOps->size() << " block ops";
  auto op = dyn_cast<linalg::GenericOp>(blockOps->front().getOperation());
  if (!op || op.getNumReductionLoops() != 0 || !op.hasPureBufferSemantics())
    return blockOps->front()->emitOpError(
        "is not an elementwise generic on buffers: its inputs cannot be "
        "staged");
  Location loc = op.getLoc();
  int64_t threads = tuning.getNumThreads();
  int64_t v = tuning.getVector();
  Block &body = launch.getBody().front();
  OpBuilder b(&body, body.begin());
  Value tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  ArrayRef<int64_t> dims = tuning.getThreads();
  int64_t sx = dims[0], sy = dims.size() > 1 ? dims[1] : 1;
  Value tid = arith::AddIOp::create(
      b, loc, tx,
      arith::MulIOp::create(
          b, loc, constIndex(b, loc, sx),
          arith::AddIOp::create(
              b, loc, ty,
              arith::MulIOp::create(b, loc, constIndex(b, loc, sy), tz))));

  // Stage 1: each staged input's tile into its workgroup buffer.
  b.setInsertionPoint(op);
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  DenseMap<unsigned, Value> buffers;
  for (int64_t k : tuning.getShared()) {
    if (k >= op.getNumDpsInputs())
      return op.emitOpError("has no input ") << k << " to stage";
    Value source = op.getDpsInputOperand(k)->get();
    auto type = dyn_cast<MemRefType>(source.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 2)
      return op.emitOpError("input ")
             << k << " is not a statically shaped buffer of rank 2 or more";
    SmallVector<int64_t> padded = llvm::to_vector(type.getShape());
    padded.back() += tuning.getPadding();
    Value buffer = launch.addWorkgroupAttribution(
        MemRefType::get(padded, type.getElementType(),
                        MemRefLayoutAttrInterface(), space),
        loc);
    buffers[k] = buffer;
    forEachElement(
        b, loc, tid, threads, type.getShape(), v,
        [&](OpBuilder &nb, Location l, ArrayRef<Value> idx) -> Loads {
          if (v == 1)
            return {memref::LoadOp::create(nb, l, source, idx)};
          if (unitInnerStride(source))
            return loadRun(nb, l, source, idx, v);
          Loads elements;
          for (int64_t e = 0; e < v; ++e)
            elements.push_back(memref::LoadOp::create(
                nb, l, source, shiftLast(nb, l, idx, e)));
          return elements;
        },
        [&](OpBuilder &nb, Location l, ArrayRef<Value> idx,
            const Loads &values) {
          for (int64_t e = 0; e < v; ++e)
            memref::StoreOp::create(nb, l, values[e], buffer,
                                    shiftLast(nb, l, idx, e));
        });
  }
  gpu::BarrierOp::create(b, loc);

  // Stage 2: the map over the block's tile, innermost loop fastest. A run's
  // operands: per operand `v` values (args[operand * v + e]).
  Block *payload = op.getBody();
  unsigned innerLoop = op.getNumLoops() - 1;
  forEachElement(
      b, loc, tid, threads, op.getStaticLoopRanges(), v,
      [&](OpBuilder &nb, Location l, ArrayRef<Value> idx) -> Loads {
        Loads args;
        for (OpOperand &operand : op->getOpOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(&operand);
          Value value = operand.get();
          if (!isa<MemRefType>(value.getType()) ||
              (op.isDpsInit(&operand) && arg.use_empty())) {
            args.append(v, op.isDpsInit(&operand) ? Value() : value);
            continue;
          }
          AffineMap map = op.getMatchingIndexingMap(&operand);
          auto staged = buffers.find(operand.getOperandNumber());
          Value source = staged != buffers.end() ? staged->second : value;
          // Contiguous along the innermost loop: one vector load. Not
          // depending on it: one load for the run. Otherwise (the staged
          // buffer, read across its rows): a load per element.
          if (v > 1 && staged == buffers.end() &&
              contiguousRun(map, innerLoop, source)) {
            args.append(loadRun(nb, l, source, applyMap(nb, l, map, idx), v));
            continue;
          }
          if (!map.isFunctionOfDim(innerLoop)) {
            args.append(v, memref::LoadOp::create(nb, l, source,
                                                  applyMap(nb, l, map, idx)));
            continue;
          }
          for (int64_t e = 0; e < v; ++e)
            args.push_back(memref::LoadOp::create(
                nb, l, source, applyMap(nb, l, map, shiftLast(nb, l, idx, e))));
        }
        return args;
      },
      [&](OpBuilder &nb, Location l, ArrayRef<Value> idx, const Loads &args) {
        unsigned numArgs = payload->getNumArguments();
        SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
        for (int64_t e = 0; e < v; ++e) {
          SmallVector<Value> at = shiftLast(nb, l, idx, e);
          IRMapping mapping;
          for (unsigned a = 0; a < numArgs; ++a)
            if (Value value = args[a * v + e])
              mapping.map(payload->getArgument(a), value);
          for (Operation &inner : payload->without_terminator()) {
            if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
              mapping.map(index.getResult(), at[index.getDim()]);
              continue;
            }
            nb.clone(inner, mapping);
          }
          for (auto [o, yielded] :
               llvm::enumerate(payload->getTerminator()->getOperands()))
            results[o].push_back(mapping.lookupOrDefault(yielded));
        }
        for (auto [o, values] : llvm::enumerate(results)) {
          OpOperand *init = op.getDpsInitOperand(o);
          AffineMap map = op.getMatchingIndexingMap(init);
          if (v == 1 || !contiguousRun(map, innerLoop, init->get())) {
            for (auto [e, value] : llvm::enumerate(values))
              memref::StoreOp::create(
                  nb, l, value, init->get(),
                  applyMap(nb, l, map, shiftLast(nb, l, idx, e)));
            continue;
          }
          auto type = VectorType::get({v}, values[0].getType());
          Value run = vector::FromElementsOp::create(nb, l, type, values);
          vector::StoreOp::create(nb, l, run, init->get(),
                                  applyMap(nb, l, map, idx))
              .setAlignment(alignmentOf(type));
        }
      });
  op.erase();
  return success();
}

namespace {
struct LowerStagedMapsPass
    : public egg::impl::EggLowerStagedMapsBase<LowerStagedMapsPass> {
  void runOnOperation() override {
    if (failed(lowerKernelLaunches(getOperation(), isStagedMap, lowerLaunch)))
      signalPassFailure();
  }
};
} // namespace
