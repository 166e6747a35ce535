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
// uses them, so that several loads per thread are in flight.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Agents/LegalSpace.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Thread `tid` of `threads` visits elements tid, tid + threads, ... of a
/// tile of `shape` (threads divide its size, checked by legality): the
/// loads of up to 8 of them first (`load`), then their uses (`use`).
static void forEachElement(OpBuilder &b, Location loc, Value tid,
                           int64_t threads, ArrayRef<int64_t> shape,
                           LoadFn load, UseFn use) {
  int64_t elements = 1;
  for (int64_t s : shape)
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
          indices.push_back(delinearize(lb, l, e, shape));
          loaded.push_back(load(lb, l, indices.back()));
        }
        for (int64_t u = 0; u < group; ++u)
          use(lb, l, indices[u], loaded[u]);
        scf::YieldOp::create(lb, l);
      });
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
        b, loc, tid, threads, type.getShape(),
        [&](OpBuilder &nb, Location l, ArrayRef<Value> idx) -> Loads {
          return {memref::LoadOp::create(nb, l, source, idx)};
        },
        [&](OpBuilder &nb, Location l, ArrayRef<Value> idx,
            const Loads &values) {
          memref::StoreOp::create(nb, l, values[0], buffer, idx);
        });
  }
  gpu::BarrierOp::create(b, loc);

  // Stage 2: the map over the block's tile, innermost loop fastest.
  Block *payload = op.getBody();
  forEachElement(
      b, loc, tid, threads, op.getStaticLoopRanges(),
      [&](OpBuilder &nb, Location l, ArrayRef<Value> idx) -> Loads {
        Loads args;
        for (OpOperand &operand : op->getOpOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(&operand);
          Value value = operand.get();
          if (!isa<MemRefType>(value.getType()) ||
              (op.isDpsInit(&operand) && arg.use_empty())) {
            args.push_back(op.isDpsInit(&operand) ? Value() : value);
            continue;
          }
          SmallVector<Value> at =
              applyMap(nb, l, op.getMatchingIndexingMap(&operand), idx);
          auto staged = buffers.find(operand.getOperandNumber());
          args.push_back(memref::LoadOp::create(
              nb, l, staged != buffers.end() ? staged->second : value, at));
        }
        return args;
      },
      [&](OpBuilder &nb, Location l, ArrayRef<Value> idx, const Loads &args) {
        IRMapping mapping;
        for (auto [arg, value] : llvm::zip(payload->getArguments(), args))
          if (value)
            mapping.map(arg, value);
        for (Operation &inner : payload->without_terminator()) {
          if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
            mapping.map(index.getResult(), idx[index.getDim()]);
            continue;
          }
          nb.clone(inner, mapping);
        }
        for (auto [o, yielded] :
             llvm::enumerate(payload->getTerminator()->getOperands())) {
          OpOperand *init = op.getDpsInitOperand(o);
          memref::StoreOp::create(
              nb, l, mapping.lookupOrDefault(yielded), init->get(),
              applyMap(nb, l, op.getMatchingIndexingMap(init), idx));
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
