//===- BlockOps.cpp - Block-level ops of a launch, lowered by hand --------===//

#include "BlockOps.h"
#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::egg;

namespace {
/// A buffer whose values live in registers: one value per accumulator, and
/// for each of the buffer's dimensions the result dimension it follows.
struct RegisterBuffer {
  SmallVector<Value> values;
  SmallVector<unsigned> fromResult;
};
} // namespace

Value mlir::egg::baseBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// A block-local buffer the epilogue may keep in registers.
Value mlir::egg::constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Operation *mlir::egg::combinerOp(linalg::GenericOp op, unsigned o) {
  Block *body = op.getBody();
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(o));
  Operation *c = body->getTerminator()->getOperand(o).getDefiningOp();
  if (!c || c->getBlock() != body || c->getNumOperands() != 2 ||
      c->getNumResults() != 1 || !out.hasOneUse() ||
      *out.getUsers().begin() != c)
    return nullptr;
  return c;
}

bool mlir::egg::isTemporary(Value buffer, gpu::LaunchOp launch) {
  Operation *def = baseBuffer(buffer).getDefiningOp();
  return def && isa<memref::AllocOp, memref::AllocaOp>(def) &&
         launch->isAncestor(def);
}

/// Indices into an operand read through `map` at loop indices `loopIdx`.
SmallVector<Value> mlir::egg::applyMap(AffineMap map, ArrayRef<Value> loopIdx) {
  SmallVector<Value> idx;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    idx.push_back(loopIdx[map.getDimPosition(r)]);
  return idx;
}

SmallVector<Value> mlir::egg::applyMap(OpBuilder &b, Location loc,
                                       AffineMap map, ArrayRef<Value> loopIdx) {
  SmallVector<Value> idx;
  for (AffineExpr result : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(result)) {
      idx.push_back(loopIdx[dim.getPosition()]);
      continue;
    }
    idx.push_back(
        affine::expandAffineExpr(b, loc, result, loopIdx, ValueRange{}));
  }
  return idx;
}

/// The value the product's accumulator starts from when `init` fills it:
/// the scalar a linalg.fill (or its generic form) writes.
static FailureOr<Value> filledValue(linalg::LinalgOp init) {
  if (auto fill = dyn_cast<linalg::FillOp>(init.getOperation()))
    return fill.value();
  auto generic = dyn_cast<linalg::GenericOp>(init.getOperation());
  if (!generic || generic.getNumReductionLoops() != 0)
    return failure();
  Value yielded = generic.getBody()->getTerminator()->getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(yielded)) {
    if (arg.getOwner() != generic.getBody() ||
        arg.getArgNumber() >= generic.getNumDpsInputs())
      return failure();
    Value input = generic.getDpsInputOperand(arg.getArgNumber())->get();
    return isa<ShapedType>(input.getType()) ? FailureOr<Value>(failure())
                                            : FailureOr<Value>(input);
  }
  if (generic.getBody()->getParent()->isAncestor(yielded.getParentRegion()))
    return failure();
  return yielded;
}

FailureOr<SmallVector<linalg::LinalgOp>>
mlir::egg::collectBlockOps(gpu::LaunchOp launch) {
  Block &body = launch.getBody().front();
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : body)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
  WalkResult nested = launch.getBody().walk([&](linalg::LinalgOp op) {
    return op->getBlock() == &body ? WalkResult::advance()
                                   : WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return launch.emitOpError("holds linalg ops inside loops: its lowering "
                              "expects the block's ops whole");
  return ops;
}

FailureOr<std::optional<Value>> mlir::egg::accumulatorStart(
    gpu::LaunchOp launch, ArrayRef<linalg::LinalgOp> before,
    linalg::LinalgOp producer, linalg::LinalgOp &init, unsigned result) {
  Value acc = producer.getDpsInitOperand(result)->get();
  init = nullptr;
  for (linalg::LinalgOp op : before) {
    if (op.getNumDpsInits() == 1 &&
        baseBuffer(op.getDpsInitOperand(0)->get()) == baseBuffer(acc) && !init)
      init = op;
    else
      return op.emitOpError("precedes the block's reduction but is not its "
                            "accumulator's fill");
  }
  if (init) {
    FailureOr<Value> filled = filledValue(init);
    if (failed(filled))
      return init.emitOpError("initialises the accumulator with something "
                              "other than a scalar fill");
    return std::optional<Value>(*filled);
  }
  if (isTemporary(acc, launch))
    return producer.emitOpError("accumulates into a temporary nobody filled");
  return std::optional<Value>();
}

/// Whether an index is provably a multiple of `g`: such a constant, or an
/// affine.apply whose expression is (block offsets: `d0 * 128`).
static bool isMultipleIndex(OpFoldResult ofr, int64_t g) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return *c % g == 0;
  auto apply =
      dyn_cast_or_null<affine::AffineApplyOp>(cast<Value>(ofr).getDefiningOp());
  return apply && apply.getAffineMap().getResult(0).isMultipleOf(g);
}

// Recognised: a static offset, or a rank-preserving unit-step subview of
// such a buffer at an innermost offset that is a multiple of `g` (outer
// offsets are scaled by the strides).
bool mlir::egg::hasAlignedLayout(Value buffer, int64_t g) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 ||
      !llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t s) {
        return !ShapedType::isDynamic(s) && s % g == 0;
      }))
    return false;
  if (!ShapedType::isDynamic(offset))
    return offset % g == 0;
  auto subview = buffer.getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSourceType().getRank() != type.getRank() ||
      !llvm::all_of(subview.getMixedStrides(),
                    [](OpFoldResult s) { return getConstantIntValue(s) == 1; }))
    return false;
  return isMultipleIndex(subview.getMixedOffsets().back(), g) &&
         hasAlignedLayout(subview.getSource(), g);
}

LogicalResult mlir::egg::applyEpilogueInRegisters(
    OpBuilder &b, gpu::LaunchOp launch, Value result,
    ArrayRef<SmallVector<Value>> accIndices, ArrayRef<Value> values,
    ArrayRef<linalg::LinalgOp> epilogue, ArrayRef<Operation *> producers,
    std::optional<GroupedStores> grouped, StoreHook storeHook,
    ArrayRef<Value> inside, ArrayRef<SmallVector<Value>> loadIndices) {
  Location loc = launch.getLoc();
  int64_t count = values.size();
  // Each buffer held in registers maps its dimensions to the result's.
  DenseMap<Value, RegisterBuffer> registers;
  // A group of elements goes out as one aligned vector store when the
  // buffer's innermost dimension is the grouped one and the group's first
  // element is provably aligned (hasAlignedLayout); whole bytes only (i1
  // groups would pack into one byte).
  auto storesGroups = [&](Value buffer, ArrayRef<unsigned> fromResult) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    return grouped && count % grouped->width == 0 && !fromResult.empty() &&
           fromResult.back() == grouped->dim && element.isIntOrFloat() &&
           element.getIntOrFloatBitWidth() % 8 == 0 &&
           hasAlignedLayout(buffer, grouped->width);
  };
  auto storeAll = [&](OpBuilder &sb, Value buffer, ArrayRef<Value> values,
                      ArrayRef<unsigned> fromResult) {
    if (storeHook && storeHook(sb, buffer, values, fromResult))
      return;
    // (An aligned layout makes the grouped extent a multiple of the group,
    // so with partial tiles a group is wholly inside or outside.)
    int64_t width = storesGroups(buffer, fromResult) ? grouped->width : 1;
    for (int64_t e = 0; e < count; e += width) {
      SmallVector<Value> idx;
      for (unsigned r : fromResult)
        idx.push_back(accIndices[e][r]);
      auto store = [&](OpBuilder &sb) {
        if (width == 1) {
          memref::StoreOp::create(sb, loc, values[e], buffer, idx);
          return;
        }
        Type element = values[e].getType();
        Value group = vector::FromElementsOp::create(
            sb, loc, VectorType::get({width}, element), values.slice(e, width));
        auto store = vector::StoreOp::create(sb, loc, group, buffer, idx);
        store.setAlignment(width * ((element.getIntOrFloatBitWidth() + 7) / 8));
      };
      if (inside.empty() || !inside[e]) {
        store(sb);
        continue;
      }
      scf::IfOp::create(sb, loc, inside[e], [&](OpBuilder &ib, Location) {
        store(ib);
        scf::YieldOp::create(ib, loc);
      });
    }
  };
  SmallVector<unsigned> identity = llvm::to_vector(
      llvm::seq<unsigned>(0, cast<MemRefType>(result.getType()).getRank()));
  registers[baseBuffer(result)] = {llvm::to_vector(values), identity};
  if (!isTemporary(result, launch))
    storeAll(b, result, values, identity);

  SmallVector<Operation *> erase(producers);
  for (linalg::LinalgOp op : epilogue) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    // (An input may also read a unit dimension at 0: a per-channel bias
    // of shape C x 1 x 1.)
    if (!generic || generic.getNumReductionLoops() != 0 ||
        generic.getNumDpsInits() != 1 ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) {
                        return m.isProjectedPermutation(
                            /*allowZeroInResults=*/true);
                      }) ||
        !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isProjectedPermutation())
      return op.emitOpError("follows the block's reduction but is not an "
                            "elementwise generic");
    // Its loops, in result dimensions, from an input held in registers.
    std::optional<SmallVector<unsigned>> loopFrom;
    for (OpOperand *in : generic.getDpsInputOperands()) {
      auto it = registers.find(baseBuffer(in->get()));
      AffineMap map = generic.getMatchingIndexingMap(in);
      if (it == registers.end() || !map.isPermutation())
        continue;
      SmallVector<unsigned> from(generic.getNumLoops());
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        from[map.getDimPosition(r)] = it->second.fromResult[r];
      loopFrom = from;
      break;
    }
    if (!loopFrom)
      return op.emitOpError("reads the block's reduction result other than "
                            "element by element");
    Block *ebody = generic.getBody();
    Value out = generic.getDpsInitOperand(0)->get();
    AffineMap outMapE =
        generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
    SmallVector<unsigned> outFrom;
    for (unsigned r = 0; r < outMapE.getNumResults(); ++r)
      outFrom.push_back((*loopFrom)[outMapE.getDimPosition(r)]);
    SmallVector<Value> results;
    for (int64_t e = 0; e < count; ++e) {
      SmallVector<Value> loopIdx, loadIdx;
      for (unsigned d = 0; d < generic.getNumLoops(); ++d) {
        loopIdx.push_back(accIndices[e][(*loopFrom)[d]]);
        loadIdx.push_back((
            loadIndices.empty() ? accIndices : loadIndices)[e][(*loopFrom)[d]]);
      }
      IRMapping map;
      for (OpOperand &operand : generic->getOpOperands()) {
        BlockArgument arg = generic.getMatchingBlockArgument(&operand);
        if (arg.use_empty())
          continue;
        Value v = operand.get();
        if (!isa<ShapedType>(v.getType())) {
          map.map(arg, v);
          continue;
        }
        AffineMap m = generic.getMatchingIndexingMap(&operand);
        auto it = registers.find(baseBuffer(v));
        if (it != registers.end()) {
          // Held in registers: the element this accumulator maps to, when
          // the operand reads it at the same result position.
          bool same = m.getNumResults() == it->second.fromResult.size();
          for (unsigned r = 0; same && r < m.getNumResults(); ++r)
            same = isa<AffineDimExpr>(m.getResult(r)) &&
                   (*loopFrom)[m.getDimPosition(r)] == it->second.fromResult[r];
          if (!same)
            return op.emitOpError("reads a register-held result at another "
                                  "thread's element");
          map.map(arg, it->second.values[e]);
          continue;
        }
        if (isTemporary(v, launch))
          return op.emitOpError("reads a block temporary not computed in "
                                "registers");
        map.map(arg, memref::LoadOp::create(b, loc, v, applyMap(m, loadIdx))
                         .getResult());
      }
      for (Operation &bop : ebody->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(bop)) {
          map.map(index.getResult(), loopIdx[index.getDim()]);
          continue;
        }
        b.clone(bop, map);
      }
      results.push_back(
          map.lookupOrDefault(ebody->getTerminator()->getOperand(0)));
    }
    if (!isTemporary(out, launch))
      storeAll(b, out, results, outFrom);
    registers[baseBuffer(out)] = {results, outFrom};
    erase.push_back(generic);
  }

  for (Operation *op : llvm::reverse(erase))
    op->erase();
  // Temporaries now unused (their views and deallocations go with them).
  SmallVector<Operation *> allocs;
  launch.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      allocs.push_back(op);
  });
  for (Operation *alloc : allocs) {
    SmallVector<Operation *> users;
    std::function<bool(Value)> collect = [&](Value v) {
      for (Operation *user : v.getUsers()) {
        if (isa<memref::DeallocOp>(user)) {
          users.push_back(user);
        } else if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
          if (!collect(user->getResult(0)))
            return false;
          users.push_back(user);
        } else {
          return false;
        }
      }
      return true;
    };
    if (!collect(alloc->getResult(0)))
      return alloc->emitOpError("is still used after its block's ops were "
                                "lowered to thread code");
    for (Operation *user : users)
      user->erase();
    alloc->erase();
  }
  return success();
}

LogicalResult mlir::egg::lowerKernelLaunches(
    ModuleOp module, function_ref<bool(StructureAttr, TuningAttr)> applies,
    function_ref<LogicalResult(gpu::LaunchOp, TuningAttr)> lower) {
  for (auto func : module.getOps<func::FuncOp>()) {
    auto structure =
        func->getAttrOfType<StructureAttr>(EggDialect::getStructureAttrName());
    auto tuning =
        func->getAttrOfType<TuningAttr>(EggDialect::getTuningAttrName());
    if (!applies(structure, tuning))
      continue;
    SmallVector<gpu::LaunchOp> launches;
    func.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(lower(launch, tuning)))
        return failure();
  }
  return success();
}

LogicalResult mlir::egg::addClusterSize(gpu::LaunchOp launch, int64_t x,
                                        int64_t y, int64_t z) {
  if (launch.hasClusterSize() || launch.getNumWorkgroupAttributions() != 0 ||
      launch.getNumPrivateAttributions() != 0)
    return launch.emitOpError("cannot take clusters of ")
           << x << "x" << y << "x" << z
           << " blocks: it has clusters or attributions already";
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  // One constant per distinct size.
  llvm::SmallDenseMap<int64_t, Value> sizes;
  auto size = [&](int64_t v) {
    Value &c = sizes[v];
    if (!c)
      c = constIndex(b, loc, v);
    return c;
  };
  launch.getClusterSizeXMutable().assign(size(x));
  launch.getClusterSizeYMutable().assign(size(y));
  launch.getClusterSizeZMutable().assign(size(z));
  // The body's cluster ids and sizes follow the 12 launch arguments.
  Block &body = launch.getBody().front();
  for (unsigned i = 0; i < 6; ++i)
    body.insertArgument(12 + i, b.getIndexType(), loc);
  return success();
}

LogicalResult mlir::egg::addClusters(gpu::LaunchOp launch, int64_t size) {
  if (launch.hasClusterSize() || launch.getNumWorkgroupAttributions() != 0 ||
      launch.getNumPrivateAttributions() != 0 ||
      getConstantIntValue(launch.getGridSizeZ()) != 1)
    return launch.emitOpError("cluster = ")
           << size << " needs a launch whose grid leaves z to the cluster";
  if (failed(addClusterSize(launch, 1, 1, size)))
    return failure();
  launch.getGridSizeZMutable().assign(launch.getClusterSizeZ());
  return success();
}

Value mlir::egg::addDynamicSharedMemory(OpBuilder &b, Location loc,
                                        gpu::LaunchOp launch, int64_t bytes) {
  b.setInsertionPoint(launch);
  launch.getDynamicSharedMemorySizeMutable().assign(
      arith::ConstantIntOp::create(b, loc, bytes, 32));
  b.setInsertionPointToStart(&launch.getBody().front());
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), space));
}

void mlir::egg::clusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}
