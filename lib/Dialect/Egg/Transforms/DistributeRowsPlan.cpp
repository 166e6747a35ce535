//===- DistributeRowsPlan.cpp - Rows shared by lanes: the plan ------------===//

#include "BlockOps.h"
#include "DistributeRows.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
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

using namespace mlir;
using namespace mlir::egg;

namespace mlir::egg::rows {

static std::optional<gpu::AllReduceOperation> reductionKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `type` can cross lanes: 32-bit values shuffle directly, 16-bit
/// floats are widened exactly to f32 first.
static bool shufflable(Type type) {
  if (isa<FloatType>(type))
    return type.getIntOrFloatBitWidth() == 16 ||
           type.getIntOrFloatBitWidth() == 32;
  return type.isInteger(32);
}

FailureOr<Combiner> matchCombiner(linalg::GenericOp op, unsigned o,
                                  std::string &why) {
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(o));
  Operation *c = combinerOp(op, o);
  if (!c || !c->getResult(0).hasOneUse()) {
    why = "a reduction whose output is not combined by one binary op";
    return failure();
  }
  std::optional<gpu::AllReduceOperation> kind = reductionKind(c);
  std::optional<TypedAttr> neutral = arith::getNeutralElement(c);
  if (!kind || !neutral || !shufflable(out.getType())) {
    why = "a reduction combined by " + c->getName().getStringRef().str() +
          ", which has no shuffle reduction";
    return failure();
  }
  return Combiner{c, *kind, *neutral};
}

/// Whether an operand map reads the row along its last dimension only:
/// `d_last` appears, if at all, as the whole last result.
static bool rowIsLast(AffineMap map, unsigned last) {
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    if (!map.getResult(r).isFunctionOfDim(last))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
    if (r + 1 != map.getNumResults() || !dim || dim.getPosition() != last)
      return false;
  }
  return true;
}

/// V-wide accesses need a unit innermost stride and every other stride a
/// multiple of V (rows then start on V-element boundaries).
static bool vectorizableLayout(Value memref, int64_t v) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  for (int64_t s : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % v != 0)
      return false;
  return ShapedType::isDynamic(offset) || offset % v == 0;
}

LogicalResult planLaunch(ArrayRef<linalg::GenericOp> ops, RowPlan &plan,
                         SmallVectorImpl<linalg::GenericOp> &distributed,
                         std::string &why) {
  for (linalg::GenericOp op : ops)
    if (op.getNumLoops() > 0)
      plan.length = std::max(plan.length, op.getStaticLoopRanges().back());
  if (plan.length < 2) {
    why = "no op runs along a row";
    return failure();
  }
  // Buffers whose row elements are spread over the lanes.
  DenseSet<Value> owned;
  for (linalg::GenericOp op : ops) {
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    if (llvm::any_of(extents, ShapedType::isDynamic)) {
      why = "an op with dynamic loops";
      return failure();
    }
    bool shared = !extents.empty() && extents.back() == plan.length;
    unsigned last = extents.size() - 1;
    bool alongRow = shared && op.getIteratorTypesArray().back() ==
                                  utils::IteratorType::parallel;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      bool usesRow = shared && map.isFunctionOfDim(last);
      if (usesRow && !rowIsLast(map, last)) {
        why = "an operand indexed by the row other than along its last "
              "dimension";
        return failure();
      }
      if (!usesRow && owned.contains(baseBuffer(operand.get()))) {
        why = "an op reading a row that the lanes hold in parts as a whole";
        return failure();
      }
      if (shared && plan.vector > 1 && usesRow &&
          !vectorizableLayout(operand.get(), plan.vector))
        plan.vector = 1;
      if (alongRow && op.isDpsInit(&operand) && !usesRow) {
        why = "an output that does not follow the row";
        return failure();
      }
    }
    if (!shared)
      continue;
    if (!alongRow)
      for (unsigned o = 0; o < op.getNumDpsInits(); ++o)
        if (failed(matchCombiner(op, o, why)))
          return failure();
    if (alongRow)
      for (OpOperand &init : op.getDpsInitsMutable())
        owned.insert(baseBuffer(init.get()));
    distributed.push_back(op);
  }
  if (plan.length % plan.vector != 0)
    plan.vector = 1;
  // Anything else that touches a row held in parts would see other lanes'
  // elements missing.
  if (!owned.empty()) {
    Operation *launch = ops.front()->getParentOfType<gpu::LaunchOp>();
    WalkResult walk = launch->walk([&](Operation *user) {
      // Generics were checked above, views are followed to their base.
      if (isa<ViewLikeOpInterface, linalg::GenericOp>(user) || user == launch)
        return WalkResult::advance();
      for (Value v : user->getOperands())
        if (isa<MemRefType>(v.getType()) && owned.contains(baseBuffer(v)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted()) {
      why = "a non-linalg op reading a row that the lanes hold in parts";
      return failure();
    }
  }
  // Several rows per warp: every op runs over exactly the warp's G rows,
  // one per group of lanes.
  if (plan.groups > 1) {
    for (linalg::GenericOp op : ops) {
      SmallVector<int64_t> extents = op.getStaticLoopRanges();
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      bool alongRow = llvm::is_contained(distributed, op);
      int64_t rows = 1;
      for (size_t d = 0; d < extents.size(); ++d) {
        if (alongRow && d + 1 == extents.size())
          continue;
        if (iterators[d] == utils::IteratorType::parallel)
          rows *= extents[d];
        else if (!alongRow)
          rows = 0;
      }
      if (rows != plan.groups) {
        why = "an op that does not run over the warp's " +
              std::to_string(plan.groups) + " rows, one per group of lanes";
        return failure();
      }
    }
  }
  return success();
}

bool planHold(ArrayRef<linalg::GenericOp> distributed, const RowPlan &plan,
              SmallVectorImpl<Value> &multiUse) {
  int64_t chunk = plan.lanes * plan.vector;
  if (distributed.empty() || plan.length % chunk != 0)
    return false;
  Block *block = distributed.front()->getBlock();
  SmallVector<int64_t> shape =
      linalg::GenericOp(distributed.front()).getStaticLoopRanges();
  // Ops using each buffer along the row.
  llvm::MapVector<Value, int64_t> users;
  for (linalg::GenericOp op : distributed) {
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    if (op->getBlock() != block)
      return false;
    if (plan.groups == 1 && llvm::any_of(ArrayRef(extents).drop_back(),
                                         [](int64_t e) { return e != 1; }))
      return false;
    if (plan.groups > 1 &&
        (extents != shape ||
         llvm::any_of(
             llvm::drop_end(llvm::enumerate(op.getIteratorTypesArray())),
             [&](auto it) {
               return it.value() == utils::IteratorType::reduction &&
                      extents[it.index()] != 1;
             })))
      return false;
    unsigned last = extents.size() - 1;
    DenseSet<Value> seen;
    for (OpOperand &operand : op->getOpOperands())
      if (op.getMatchingIndexingMap(&operand).isFunctionOfDim(last) &&
          seen.insert(operand.get()).second)
        ++users[operand.get()];
  }
  // Writes other than the generics' (whose outputs RowValues tracks) could
  // change held elements unseen.
  for (Operation &other : *block) {
    if (isa<linalg::GenericOp>(other) ||
        other.hasTrait<OpTrait::IsTerminator>() || isMemoryEffectFree(&other))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(&other);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return false;
  }
  int64_t bytes = 0;
  for (auto [memref, count] : users) {
    Type elem = getElementTypeOrSelf(memref.getType());
    if (!elem.isIntOrFloat())
      return false;
    if (count > 1) {
      bytes += plan.length / plan.lanes * elem.getIntOrFloatBitWidth() / 8;
      multiUse.push_back(memref);
    }
  }
  return bytes > 0 && bytes <= kHeldBytesPerLane;
}

} // namespace mlir::egg::rows
