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

#include "BlockOps.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

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

namespace {
/// How the rows of one launch are shared.
struct RowPlan {
  int64_t length = 0; // Row length N (innermost loop extent).
  int64_t lanes = 32; // Lanes per row L.
  int64_t vector = 1; // Elements per access V.
  int64_t groups = 1; // Rows per warp G (a warp per row: 32 / L).
  bool perWarp = true;
  bool hold = false; // Rows held in registers across ops (RowValues).
};

/// With rows held in registers, the V values each row step of a lane last
/// loaded from or stored to a buffer, keyed by (buffer, where the operand's
/// map places the row, step): later ops of the launch take them from here
/// instead of reading the row again, so a softmax or a norm reads its input
/// from memory once. Stores still happen.
///
/// With `row_shared` (keepInShared), the steps from some step on of a
/// buffer are held in shared memory instead: each lane stores its V values
/// to its own slot when they are remembered and loads them back where they
/// are looked up, so that they are not live in registers in between (a
/// group norm's 128 KB row then leaves room for a second block per SM). A
/// lane only reads its own slots: no barrier is needed.
class RowValues {
public:
  using Key = std::tuple<Value, AffineMap, int64_t>;

  /// Steps `firstStep` and later of `memref` (one placement of its row:
  /// the first seen) go to `slots`, a [steps - firstStep][lanes][V] view of
  /// workgroup memory; `lane` is the lane's index into it.
  void keepInShared(Value memref, Value slots, int64_t firstStep, Value lane) {
    places[memref] = Place{slots, firstStep, lane, AffineMap()};
  }

  /// The values held at `key`, loaded from shared memory at `b`'s point
  /// where they are held there.
  std::optional<SmallVector<Value>> lookup(OpBuilder &b, Location loc,
                                           const Key &key) const {
    auto it = values.find(key);
    if (it == values.end())
      return std::nullopt;
    if (!it->second.inShared)
      return it->second.elems;
    const Place &place = places.find(std::get<0>(key))->second;
    auto type = cast<MemRefType>(place.slots.getType());
    int64_t v = type.getShape().back();
    auto load = vector::LoadOp::create(
        b, loc, VectorType::get({v}, type.getElementType()), place.slots,
        slotIndices(b, loc, place, std::get<2>(key)));
    load.setAlignment(slotAlignment(type));
    SmallVector<Value> elems;
    for (int64_t e = 0; e < v; ++e)
      elems.push_back(vector::ExtractOp::create(b, loc, load, e));
    return elems;
  }

  /// Holds `elems` at `key`: in shared memory (stored at `b`'s point) where
  /// keepInShared placed the key's step, else as they are.
  void remember(OpBuilder &b, Location loc, const Key &key,
                ArrayRef<Value> elems) {
    auto it = places.find(std::get<0>(key));
    if (it != places.end() && std::get<2>(key) >= it->second.firstStep) {
      Place &place = it->second;
      if (!place.map)
        place.map = std::get<1>(key);
      auto type = cast<MemRefType>(place.slots.getType());
      if (place.map == std::get<1>(key) &&
          int64_t(elems.size()) == type.getShape().back()) {
        Value vec = vector::FromElementsOp::create(
            b, loc,
            VectorType::get({int64_t(elems.size())}, type.getElementType()),
            elems);
        auto store = vector::StoreOp::create(
            b, loc, vec, place.slots,
            slotIndices(b, loc, place, std::get<2>(key)));
        store.setAlignment(slotAlignment(type));
        values[key] = Held{{}, true};
        return;
      }
    }
    values[key] = Held{SmallVector<Value>(elems), false};
  }
  /// Before a row step is stored at `key`: drops what else is held of the
  /// buffer (other views, other placements of the row), which the store may
  /// overlap. The same row's other steps are other elements of this lane.
  void written(const Key &key) {
    drop(std::get<0>(key), [&](const Key &other) {
      return std::get<0>(other) != std::get<0>(key) ||
             std::get<1>(other) != std::get<1>(key);
    });
  }
  /// Before an op other than a row step writes `memref`: drops everything
  /// held of its buffer.
  void forget(Value memref) {
    drop(memref, [](const Key &) { return true; });
  }

private:
  struct Held {
    SmallVector<Value> elems; // Empty when in shared memory.
    bool inShared = false;
  };
  struct Place {
    Value slots;
    int64_t firstStep;
    Value lane;
    AffineMap map; // The placement of the row held there.
  };

  /// A slot's V elements are aligned to their size, at most 16 bytes (the
  /// slots' views start 16-byte aligned).
  static int64_t slotAlignment(MemRefType slots) {
    return std::min<int64_t>(16,
                             slots.getShape().back() *
                                 ((slots.getElementTypeBitWidth() + 7) / 8));
  }

  static SmallVector<Value> slotIndices(OpBuilder &b, Location loc,
                                        const Place &place, int64_t step) {
    return {arith::ConstantIndexOp::create(b, loc, step - place.firstStep),
            place.lane, arith::ConstantIndexOp::create(b, loc, 0)};
  }

  void drop(Value memref, function_ref<bool(const Key &)> stale) {
    Value base = baseBuffer(memref);
    SmallVector<Key> dropped;
    for (auto &[key, held] : values)
      if (baseBuffer(std::get<0>(key)) == base && stale(key))
        dropped.push_back(key);
    for (const Key &key : dropped)
      values.erase(key);
  }

  DenseMap<Key, Held> values;
  DenseMap<Value, Place> places;
};

/// The key of `operand`'s elements at row step `step`: its buffer, and
/// where its map places the row. With one row per warp or block, every other
/// loop has extent 1 and index 0 (planHold), so the map is reduced to one of
/// the row index alone. With several rows per warp, every op has the same
/// loop extents and each lane the same indices along the non-row loops (its
/// own row, forOwnRows), so equal maps access the same elements.
static RowValues::Key heldKey(linalg::GenericOp op, OpOperand &operand,
                              int64_t step, const RowPlan &plan) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (plan.groups == 1 && map.getNumSymbols() == 0 && map.getNumDims() > 0) {
    MLIRContext *ctx = map.getContext();
    SmallVector<AffineExpr> dims(map.getNumDims(),
                                 getAffineConstantExpr(0, ctx));
    dims.back() = getAffineDimExpr(0, ctx);
    map = simplifyAffineMap(map.replaceDimsAndSymbols(dims, {}, 1, 0));
  }
  return {operand.get(), map, step};
}

/// Lane coordinates, computed once at the top of a launch.
struct LaneIds {
  Value lane;       // Position among the L lanes of the row.
  Value laneInWarp; // Position in the warp (shuffles).
  Value warp;       // Warp within the block (block-level combination).
  Value group;      // With several rows per warp: the lane's row of them.
};

/// The combining op of a reduction output: the yield of output `o` is
/// `combiner(out, value)` where `out` (the output's block argument) is used
/// by nothing else.
struct Combiner {
  Operation *op = nullptr;
  gpu::AllReduceOperation kind;
  TypedAttr neutral;
};
} // namespace

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

static FailureOr<Combiner> matchCombiner(linalg::GenericOp op, unsigned o,
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

/// Decides whether the generics of a launch can share rows; fills
/// `distributed` (ops to lower here) or returns a reason.
static LogicalResult planLaunch(ArrayRef<linalg::GenericOp> ops, RowPlan &plan,
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

/// Whether the lanes hold their parts of the rows in registers across the
/// ops of a launch (tuning principle 8: one pass over the data): when some
/// buffer's row is used by two ops or more (a softmax's max, sum and
/// normalisation) and what is held fits kHeldBytesPerLane. The row steps
/// then run in line, which needs every op in one block with no loop around
/// the row (other extents 1; with several rows per warp, every op over the
/// same loop extents, reducing along the row alone, so that each lane's own
/// row is found the same way in each), and no partial step. `multiUse`
/// gets the buffers whose rows are held (used by two ops or more).
static bool planHold(ArrayRef<linalg::GenericOp> distributed,
                     const RowPlan &plan, SmallVectorImpl<Value> &multiUse) {
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

/// Index values of an operand for loop indices `ivs` (one per loop).
static SmallVector<Value> operandIndices(OpBuilder &b, Location loc,
                                         AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return indices;
}

/// Loads operand `operand` of `op` at loop indices `ivs` (the row index
/// being the first of V): V elements along the row, else one broadcast
/// value. Returns V values.
static SmallVector<Value> loadElements(OpBuilder &b, Location loc,
                                       linalg::GenericOp op, OpOperand &operand,
                                       ValueRange ivs, int64_t v) {
  unsigned last = op.getNumLoops() - 1;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  Value memref = operand.get();
  SmallVector<Value> indices = operandIndices(b, loc, map, ivs);
  Type elem = getElementTypeOrSelf(memref.getType());
  if (!map.isFunctionOfDim(last) || v == 1) {
    Value scalar = memref::LoadOp::create(b, loc, memref, indices);
    return SmallVector<Value>(map.isFunctionOfDim(last) ? 1 : v, scalar);
  }
  auto vecType = VectorType::get({v}, elem);
  auto load = vector::LoadOp::create(b, loc, vecType, memref, indices);
  load.setAlignment(v * ((elem.getIntOrFloatBitWidth() + 7) / 8));
  SmallVector<Value> elems;
  for (int64_t e = 0; e < v; ++e)
    elems.push_back(vector::ExtractOp::create(b, loc, load, e));
  return elems;
}

/// Divisors that are values of the row (a softmax's sum: an input whose
/// map does not run along the row, the divisor of an `arith.divf` of at
/// most 32 bits): block argument -> its f32 reciprocal.
using Reciprocals = DenseMap<Value, Value>;

/// Clones the payload of `op` for one iteration: block arguments take
/// `args`, linalg.index takes `ivs`; a division by a block argument of
/// `reciprocals` becomes a product with its reciprocal, in f32 (rounded
/// once to a narrower type, as the division was). Returns the yielded
/// values.
static SmallVector<Value>
clonePayload(OpBuilder &b, linalg::GenericOp op, ValueRange args,
             ValueRange ivs, const Reciprocals *reciprocals = nullptr) {
  IRMapping mapping;
  Block *body = op.getBlock();
  mapping.map(body->getArguments(), args);
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    auto div = dyn_cast<arith::DivFOp>(inner);
    Value reciprocal =
        div && reciprocals ? reciprocals->lookup(div.getRhs()) : Value();
    if (reciprocal) {
      Location loc = div.getLoc();
      Value lhs = mapping.lookupOrDefault(div.getLhs());
      Type type = lhs.getType();
      if (!type.isF32())
        lhs = arith::ExtFOp::create(b, loc, b.getF32Type(), lhs);
      Value product =
          arith::MulFOp::create(b, loc, lhs, reciprocal, div.getFastmathAttr());
      if (!type.isF32())
        product = arith::TruncFOp::create(b, loc, type, product);
      mapping.map(div.getResult(), product);
      continue;
    }
    b.clone(inner, mapping);
  }
  return llvm::map_to_vector(
      body->getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// Loop indices with the row index advanced by `e` elements.
static SmallVector<Value> shiftRow(OpBuilder &b, Location loc, ValueRange ivs,
                                   int64_t e) {
  SmallVector<Value> shifted(ivs);
  if (e > 0)
    shifted.back() = arith::AddIOp::create(
        b, loc, ivs.back(), arith::ConstantIndexOp::create(b, loc, e));
  return shifted;
}

/// loadElements, through `held` for operands read along the row when the
/// step is static (`step` >= 0: rows held in registers).
static SmallVector<Value> loadRowElements(OpBuilder &b, Location loc,
                                          linalg::GenericOp op,
                                          OpOperand &operand, ValueRange ivs,
                                          const RowPlan &plan, RowValues *held,
                                          int64_t step) {
  int64_t v = plan.vector;
  unsigned last = op.getNumLoops() - 1;
  if (!held || step < 0 ||
      !op.getMatchingIndexingMap(&operand).isFunctionOfDim(last))
    return loadElements(b, loc, op, operand, ivs, v);
  RowValues::Key key = heldKey(op, operand, step, plan);
  if (std::optional<SmallVector<Value>> elems = held->lookup(b, loc, key))
    return *elems;
  SmallVector<Value> elems = loadElements(b, loc, op, operand, ivs, v);
  held->remember(b, loc, key, elems);
  return elems;
}

/// Loads of one step of a lane's row loop: per operand, V values (or one).
/// The step is its static index when rows are held in registers, else -1.
using RowLoads = SmallVector<SmallVector<Value>>;
using LoadStep = function_ref<RowLoads(OpBuilder &, Location,
                                       Value /*row index*/, int64_t /*step*/)>;
using UseStep = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value /*row index*/, int64_t /*step*/,
    const RowLoads &, ValueRange /*carried*/)>;

/// Steps of a lane's row loop whose loads are issued together. A warp per
/// row: enough to keep about 128 bytes per lane in flight (`bytesPerStep`
/// is what one step loads), at most 8; a warp per 16 KB row with one
/// 16-byte load in flight per lane waited on DRAM latency (ncu: 93% of
/// stalls on L1TEX). A block per row: one step, since its threads already
/// give each SM many loads in flight, and the registers of grouped loads
/// cost blocks per SM (H200: layer norm + GELU 0.0417 -> 0.0452 ms with
/// 38 instead of 31 registers for 512 threads).
static int64_t stepsInFlight(const RowPlan &plan, int64_t bytesPerStep) {
  int64_t steps = 1;
  while (plan.perWarp && steps < 8 &&
         2 * steps * std::max<int64_t>(bytesPerStep, 1) <= 128)
    steps *= 2;
  return steps;
}

/// The row loop of one lane: steps k in [0, ceil(N / (L*V))), row index
/// (k*L + lane)*V; the last step is guarded when L*V does not divide N.
/// `unroll` steps run per iteration with all their loads (`load`) before
/// their uses (`use`, which gets the row index, the loads and the carried
/// values and returns the new ones). Rows held in registers: no loop, every
/// step in line (planHold checked that there is no partial step).
static SmallVector<Value> buildRowLoop(OpBuilder &b, Location loc,
                                       const RowPlan &plan, const LaneIds &ids,
                                       ValueRange init, int64_t unroll,
                                       LoadStep load, UseStep use) {
  int64_t chunk = plan.lanes * plan.vector;
  int64_t full = plan.length / chunk;
  unroll = std::max<int64_t>(1, std::min(unroll, full));
  auto rowAt = [&](OpBuilder &rb, Location l, Value k) -> Value {
    Value pos = arith::AddIOp::create(
        rb, l,
        arith::MulIOp::create(
            rb, l, k, arith::ConstantIndexOp::create(rb, l, plan.lanes)),
        ids.lane);
    return arith::MulIOp::create(
        rb, l, pos, arith::ConstantIndexOp::create(rb, l, plan.vector));
  };
  if (plan.hold) {
    SmallVector<Value> rows;
    SmallVector<RowLoads> loaded;
    for (int64_t k = 0; k < full; ++k) {
      rows.push_back(rowAt(b, loc, arith::ConstantIndexOp::create(b, loc, k)));
      loaded.push_back(load(b, loc, rows.back(), k));
    }
    SmallVector<Value> carried(init);
    for (int64_t k = 0; k < full; ++k)
      carried = use(b, loc, rows[k], k, loaded[k], carried);
    return carried;
  }
  auto steps = [&](int64_t from, int64_t to, int64_t step,
                   ValueRange carried) -> SmallVector<Value> {
    if (from >= to)
      return SmallVector<Value>(carried);
    auto loop = scf::ForOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, from),
        arith::ConstantIndexOp::create(b, loc, to),
        arith::ConstantIndexOp::create(b, loc, step), carried,
        [&](OpBuilder &lb, Location l, Value k, ValueRange values) {
          SmallVector<Value> rows;
          SmallVector<RowLoads> loaded;
          for (int64_t u = 0; u < step; ++u) {
            Value ku =
                u == 0 ? k
                       : arith::AddIOp::create(
                             lb, l, k, arith::ConstantIndexOp::create(lb, l, u))
                             .getResult();
            rows.push_back(rowAt(lb, l, ku));
            loaded.push_back(load(lb, l, rows.back(), -1));
          }
          SmallVector<Value> next(values);
          for (int64_t u = 0; u < step; ++u)
            next = use(lb, l, rows[u], -1, loaded[u], next);
          scf::YieldOp::create(lb, l, next);
        });
    return SmallVector<Value>(loop.getResults());
  };
  int64_t grouped = full / unroll * unroll;
  SmallVector<Value> carried = steps(0, grouped, unroll, init);
  carried = steps(grouped, full, 1, carried);
  if (plan.length % chunk == 0)
    return carried;
  // The last, partial step: lanes past the row's end keep their values.
  Value row = rowAt(b, loc, arith::ConstantIndexOp::create(b, loc, full));
  Value inside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, row,
      arith::ConstantIndexOp::create(b, loc, plan.length));
  auto guard = scf::IfOp::create(
      b, loc, inside,
      [&](OpBuilder &ib, Location il) {
        scf::YieldOp::create(
            ib, il, use(ib, il, row, -1, load(ib, il, row, -1), carried));
      },
      [&](OpBuilder &ib, Location il) {
        scf::YieldOp::create(ib, il, carried);
      });
  return SmallVector<Value>(guard.getResults());
}

/// Bytes one step of a lane loads from the operands `op` reads along the
/// row (V elements each).
static int64_t bytesPerStep(linalg::GenericOp op, int64_t v) {
  unsigned last = op.getNumLoops() - 1;
  int64_t bytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (op.isDpsInit(&operand) &&
        op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    if (!op.getMatchingIndexingMap(&operand).isFunctionOfDim(last))
      continue;
    Type elem = getElementTypeOrSelf(operand.get().getType());
    bytes += v * ((elem.getIntOrFloatBitWidth() + 7) / 8);
  }
  return bytes;
}

/// Combines one partial per lane into the row's result, held by every lane.
static Value combineLanes(OpBuilder &b, Location loc, Value partial,
                          const Combiner &combiner, const RowPlan &plan,
                          const LaneIds &ids, gpu::LaunchOp launch) {
  Type type = partial.getType();
  Type f32 = b.getF32Type();
  bool widen = isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16;
  Value x = widen ? arith::ExtFOp::create(b, loc, f32, partial) : partial;
  // Several rows per warp: each row's L lanes are a cluster of their own.
  std::optional<uint32_t> cluster;
  if (plan.lanes < 32)
    cluster = plan.lanes;
  x = gpu::SubgroupReduceOp::create(b, loc, x, combiner.kind,
                                    /*uniform=*/true, cluster);
  if (!plan.perWarp && plan.lanes > 32) {
    // One partial per warp through workgroup memory, then every warp
    // reduces those partials again. The trailing barrier lets the buffer be
    // rewritten for the next row.
    int64_t warps = plan.lanes / 32;
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto bufType = MemRefType::get({warps}, x.getType(),
                                   MemRefLayoutAttrInterface{}, space);
    Value buffer = launch.addWorkgroupAttribution(bufType, loc);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        ids.laneInWarp, zero);
    scf::IfOp::create(b, loc, first, [&](OpBuilder &ib, Location il) {
      memref::StoreOp::create(ib, il, x, buffer, ids.warp);
      scf::YieldOp::create(ib, il);
    });
    gpu::BarrierOp::create(b, loc);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ids.laneInWarp,
                              arith::ConstantIndexOp::create(b, loc, warps));
    Value slot = arith::SelectOp::create(b, loc, inRange, ids.laneInWarp, zero);
    Value loaded = memref::LoadOp::create(b, loc, buffer, slot);
    Value neutral = arith::ConstantOp::create(b, loc, combiner.neutral);
    if (neutral.getType() != x.getType())
      neutral = arith::ExtFOp::create(b, loc, f32, neutral);
    x = arith::SelectOp::create(b, loc, inRange, loaded, neutral);
    x = gpu::SubgroupReduceOp::create(b, loc, x, combiner.kind,
                                      /*uniform=*/true);
    gpu::BarrierOp::create(b, loc);
  }
  return widen ? arith::TruncFOp::create(b, loc, type, x).getResult() : x;
}

/// Bounds 0..extent step 1 of the loops `dims` of an op with `extents`.
static void appendLoopBounds(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> extents, ArrayRef<unsigned> dims,
                             SmallVectorImpl<Value> &lbs,
                             SmallVectorImpl<Value> &ubs,
                             SmallVectorImpl<Value> &steps) {
  for (unsigned d : dims) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, extents[d]));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
}

/// Runs `body` at the indices of loops `dims` (of extents `extents`) that
/// the lane works on: every index, in a loop nest; with several rows per
/// warp, the one row of the lane's group (the loops' extents multiply to G,
/// checked by planLaunch).
static void
forOwnRows(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
           ArrayRef<unsigned> dims, const RowPlan &plan, const LaneIds &ids,
           function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  if (plan.hold && plan.groups == 1) {
    // Held rows: every extent is 1 (planHold), and no loop may enclose the
    // values later ops reuse.
    body(b, loc,
         SmallVector<Value>(dims.size(),
                            arith::ConstantIndexOp::create(b, loc, 0)));
    return;
  }
  if (plan.groups == 1) {
    SmallVector<Value> lbs, ubs, steps;
    appendLoopBounds(b, loc, extents, dims, lbs, ubs, steps);
    scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
    return;
  }
  SmallVector<Value> ivs(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    Value q = arith::DivUIOp::create(
        b, loc, ids.group, arith::ConstantIndexOp::create(b, loc, stride));
    ivs[i] = arith::RemUIOp::create(
        b, loc, q, arith::ConstantIndexOp::create(b, loc, extents[dims[i]]));
    stride *= extents[dims[i]];
  }
  body(b, loc, ivs);
}

/// With several rows per warp, an op with no loop along the row (a fill of
/// the rows' accumulators, a mean from a sum) runs at the lane's own row
/// only: other rows' values are held by other lanes.
static void lowerAtOwnRow(OpBuilder &b, linalg::GenericOp op,
                          const RowPlan &plan, const LaneIds &ids) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  forOwnRows(
      b, op.getLoc(), extents,
      llvm::to_vector(llvm::seq<unsigned>(0, extents.size())), plan, ids,
      [&](OpBuilder &nb, Location l, ValueRange ivs) {
        SmallVector<Value> args;
        for (OpOperand &operand : op->getOpOperands()) {
          Value value = operand.get();
          if (!isa<MemRefType>(value.getType())) {
            args.push_back(value);
            continue;
          }
          args.push_back(memref::LoadOp::create(
              nb, l, value,
              operandIndices(nb, l, op.getMatchingIndexingMap(&operand), ivs)));
        }
        SmallVector<Value> yielded = clonePayload(nb, op, args, ivs);
        for (auto [o, value] : llvm::enumerate(yielded)) {
          OpOperand *init = op.getDpsInitOperand(o);
          memref::StoreOp::create(
              nb, l, value, init->get(),
              operandIndices(nb, l, op.getMatchingIndexingMap(init), ivs));
        }
      });
}

/// Lowers a generic whose innermost loop is the row, parallel along it:
/// each lane computes (and owns) its elements of the row.
static void lowerAlongRow(OpBuilder &b, linalg::GenericOp op,
                          const RowPlan &plan, const LaneIds &ids,
                          RowValues *held) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t v = plan.vector;
  forOwnRows(
      b, loc, extents,
      llvm::to_vector(llvm::seq<unsigned>(0, extents.size() - 1)), plan, ids,
      [&](OpBuilder &nb, Location l, ValueRange outer) {
        auto ivsAt = [&](Value row) {
          SmallVector<Value> ivs(outer);
          ivs.push_back(row);
          return ivs;
        };
        buildRowLoop(
            nb, l, plan, ids, {}, stepsInFlight(plan, bytesPerStep(op, v)),
            [&](OpBuilder &rb, Location rl, Value row, int64_t step) {
              SmallVector<Value> ivs = ivsAt(row);
              RowLoads args;
              for (OpOperand &operand : op->getOpOperands()) {
                bool needed =
                    !op.isDpsInit(&operand) ||
                    !op.getMatchingBlockArgument(&operand).use_empty();
                args.push_back(needed ? loadRowElements(rb, rl, op, operand,
                                                        ivs, plan, held, step)
                                      : SmallVector<Value>(v, Value()));
              }
              return args;
            },
            [&](OpBuilder &rb, Location rl, Value row, int64_t step,
                const RowLoads &args, ValueRange) -> SmallVector<Value> {
              SmallVector<Value> ivs = ivsAt(row);
              SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
              // One reciprocal per step for each divisor that is a value of
              // the row, instead of a division per element (a full-precision
              // f32 division is a dozen instructions: softmax_f16's 32 per
              // thread were about half of its instructions).
              Reciprocals reciprocals;
              unsigned rowDim = extents.size() - 1;
              for (OpOperand *input : op.getDpsInputOperands()) {
                BlockArgument arg = op.getMatchingBlockArgument(input);
                auto type = dyn_cast<FloatType>(arg.getType());
                if (op.getMatchingIndexingMap(input).isFunctionOfDim(rowDim) ||
                    !type || type.getWidth() > 32 ||
                    llvm::none_of(arg.getUsers(), [&](Operation *user) {
                      auto div = dyn_cast<arith::DivFOp>(user);
                      return div && div.getRhs() == arg;
                    }))
                  continue;
                Value divisor = args[input->getOperandNumber()][0];
                if (!type.isF32())
                  divisor =
                      arith::ExtFOp::create(rb, rl, rb.getF32Type(), divisor);
                reciprocals[arg] = arith::DivFOp::create(
                    rb, rl,
                    arith::ConstantOp::create(rb, rl, rb.getF32FloatAttr(1.0f)),
                    divisor);
              }
              for (int64_t e = 0; e < v; ++e) {
                SmallVector<Value> elementArgs;
                for (auto &values : args)
                  elementArgs.push_back(values[values.size() == 1 ? 0 : e]);
                // Unused output arguments still need a value of their type.
                for (auto [i, arg] : llvm::enumerate(elementArgs))
                  if (!arg)
                    arg = arith::ConstantOp::create(
                        rb, rl,
                        rb.getZeroAttr(
                            op.getBlock()->getArgument(i).getType()));
                SmallVector<Value> yielded =
                    clonePayload(rb, op, elementArgs, shiftRow(rb, rl, ivs, e),
                                 &reciprocals);
                for (auto [o, value] : llvm::enumerate(yielded))
                  results[o].push_back(value);
              }
              for (auto [o, values] : llvm::enumerate(results)) {
                OpOperand *init = op.getDpsInitOperand(o);
                SmallVector<Value> indices = operandIndices(
                    rb, rl, op.getMatchingIndexingMap(init), ivs);
                if (held && step >= 0) {
                  RowValues::Key key = heldKey(op, *init, step, plan);
                  held->written(key);
                  held->remember(rb, rl, key, values);
                }
                if (v == 1) {
                  memref::StoreOp::create(rb, rl, values[0], init->get(),
                                          indices);
                  continue;
                }
                auto vecType = VectorType::get({v}, values[0].getType());
                Value vec =
                    vector::FromElementsOp::create(rb, rl, vecType, values);
                auto store =
                    vector::StoreOp::create(rb, rl, vec, init->get(), indices);
                store.setAlignment(
                    v *
                    ((values[0].getType().getIntOrFloatBitWidth() + 7) / 8));
              }
              return {};
            });
      });
}

/// Whether a lane's partial of this output is kept in f32: sums and
/// products of 16-bit floats (softmax's exp-sum of f16 rows), which would
/// otherwise round at every element of a long row. The result is rounded
/// once, after the lanes are combined (in f32 already).
static bool widens(const Combiner &c) {
  Type type = c.op->getResult(0).getType();
  return isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16 &&
         (c.kind == gpu::AllReduceOperation::ADD ||
          c.kind == gpu::AllReduceOperation::MUL);
}

/// -0 for a sum (getNeutralElement gives +0, which is no identity for -0
/// and so cannot be folded), 1 for a product.
static Value exactIdentity(OpBuilder &b, Location loc, const Combiner &c) {
  if (c.kind != gpu::AllReduceOperation::ADD)
    return arith::ConstantOp::create(b, loc, c.neutral);
  Type type = c.op->getResult(0).getType();
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, -0.0));
}

/// `partial (+ or *) extf(value)` in f32, with the combiner's fast-math
/// flags.
static Value combineWide(OpBuilder &b, Location loc, const Combiner &c,
                         Value partial, Value value) {
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  auto fastmath = c.op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
  if (c.kind == gpu::AllReduceOperation::ADD)
    return arith::AddFOp::create(b, loc, partial, wide, fastmath);
  return arith::MulFOp::create(b, loc, partial, wide, fastmath);
}

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
    // Blocks per SM: by threads (2048 per SM on every target egg knows)
    // and by shared memory (the target's per-block limit, plus the 1 KB the
    // driver reserves per block, stands for the SM's); at most two, the
    // second block being the point: more would cap ptxas's registers (32
    // per thread for four blocks of 512) below what such kernels need.
    int64_t perSM = std::min<int64_t>(2, 2048 / plan.lanes);
    if (target)
      perSM = std::min(perSM, (target.getSharedMemoryPerBlock() + 1024) /
                                  (total + 2048));
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
