//===- DistributeRows.h - Rows shared by lanes ------------------*- C++ -*-===//
//
// egg-distribute-rows, in three files: DistributeRowsPlan.cpp decides how a
// launch's rows are shared (lanes, vector, rows held), DistributeRowsLoops.cpp
// builds a lane's loops along its rows and combines lanes' partials, and
// DistributeRows.cpp lowers each op of the launch and holds the pass.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_DISTRIBUTEROWS_H
#define EGG_DIALECT_EGG_TRANSFORMS_DISTRIBUTEROWS_H

#include "BlockOps.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::egg::rows {

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

/// Divisors that are values of the row (a softmax's sum: an input whose
/// map does not run along the row, the divisor of an `arith.divf` of at
/// most 32 bits): block argument -> its f32 reciprocal.
using Reciprocals = DenseMap<Value, Value>;

/// Loads of one step of a lane's row loop: per operand, V values (or one).
/// The step is its static index when rows are held in registers, else -1.
using RowLoads = SmallVector<SmallVector<Value>>;

using LoadStep = function_ref<RowLoads(OpBuilder &, Location,
                                       Value /*row index*/, int64_t /*step*/)>;

using UseStep = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value /*row index*/, int64_t /*step*/,
    const RowLoads &, ValueRange /*carried*/)>;

FailureOr<Combiner> matchCombiner(linalg::GenericOp op, unsigned o,
                                  std::string &why);

/// Decides whether the generics of a launch can share rows; fills
/// `distributed` (ops to lower here) or returns a reason.
LogicalResult planLaunch(ArrayRef<linalg::GenericOp> ops, RowPlan &plan,
                         SmallVectorImpl<linalg::GenericOp> &distributed,
                         std::string &why);

/// Whether the lanes hold their parts of the rows in registers across the
/// ops of a launch (tuning principle 8: one pass over the data): when some
/// buffer's row is used by two ops or more (a softmax's max, sum and
/// normalisation) and what is held fits kHeldBytesPerLane. The row steps
/// then run in line, which needs every op in one block with no loop around
/// the row (other extents 1; with several rows per warp, every op over the
/// same loop extents, reducing along the row alone, so that each lane's own
/// row is found the same way in each), and no partial step. `multiUse`
/// gets the buffers whose rows are held (used by two ops or more).
bool planHold(ArrayRef<linalg::GenericOp> distributed, const RowPlan &plan,
              SmallVectorImpl<Value> &multiUse);

/// Index values of an operand for loop indices `ivs` (one per loop).
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ValueRange ivs);

/// Clones the payload of `op` for one iteration: block arguments take
/// `args`, linalg.index takes `ivs`; a division by a block argument of
/// `reciprocals` becomes a product with its reciprocal, in f32 (rounded
/// once to a narrower type, as the division was). Returns the yielded
/// values.
SmallVector<Value> clonePayload(OpBuilder &b, linalg::GenericOp op,
                                ValueRange args, ValueRange ivs,
                                const Reciprocals *reciprocals = nullptr);

/// Loop indices with the row index advanced by `e` elements.
SmallVector<Value> shiftRow(OpBuilder &b, Location loc, ValueRange ivs,
                            int64_t e);

/// loadElements, through `held` for operands read along the row when the
/// step is static (`step` >= 0: rows held in registers).
SmallVector<Value> loadRowElements(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, OpOperand &operand,
                                   ValueRange ivs, const RowPlan &plan,
                                   RowValues *held, int64_t step);

/// Steps of a lane's row loop whose loads are issued together. A warp per
/// row: enough to keep about 128 bytes per lane in flight (`bytesPerStep`
/// is what one step loads), at most 8; a warp per 16 KB row with one
/// 16-byte load in flight per lane waited on DRAM latency (ncu: 93% of
/// stalls on L1TEX). A block per row: one step, since its threads already
/// give each SM many loads in flight, and the registers of grouped loads
/// cost blocks per SM (H200: layer norm + GELU 0.0417 -> 0.0452 ms with
/// 38 instead of 31 registers for 512 threads).
int64_t stepsInFlight(const RowPlan &plan, int64_t bytesPerStep);

/// The row loop of one lane: steps k in [0, ceil(N / (L*V))), row index
/// (k*L + lane)*V; the last step is guarded when L*V does not divide N.
/// `unroll` steps run per iteration with all their loads (`load`) before
/// their uses (`use`, which gets the row index, the loads and the carried
/// values and returns the new ones). Rows held in registers: no loop, every
/// step in line (planHold checked that there is no partial step).
SmallVector<Value> buildRowLoop(OpBuilder &b, Location loc, const RowPlan &plan,
                                const LaneIds &ids, ValueRange init,
                                int64_t unroll, LoadStep load, UseStep use);

/// Bytes one step of a lane loads from the operands `op` reads along the
/// row (V elements each).
int64_t bytesPerStep(linalg::GenericOp op, int64_t v);

/// Combines one partial per lane into the row's result, held by every lane.
Value combineLanes(OpBuilder &b, Location loc, Value partial,
                   const Combiner &combiner, const RowPlan &plan,
                   const LaneIds &ids, gpu::LaunchOp launch);

/// Bounds 0..extent step 1 of the loops `dims` of an op with `extents`.
void appendLoopBounds(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                      ArrayRef<unsigned> dims, SmallVectorImpl<Value> &lbs,
                      SmallVectorImpl<Value> &ubs,
                      SmallVectorImpl<Value> &steps);

/// Runs `body` at the indices of loops `dims` (of extents `extents`) that
/// the lane works on: every index, in a loop nest; with several rows per
/// warp, the one row of the lane's group (the loops' extents multiply to G,
/// checked by planLaunch).
void forOwnRows(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                ArrayRef<unsigned> dims, const RowPlan &plan,
                const LaneIds &ids,
                function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// With several rows per warp, an op with no loop along the row (a fill of
/// the rows' accumulators, a mean from a sum) runs at the lane's own row
/// only: other rows' values are held by other lanes.
void lowerAtOwnRow(OpBuilder &b, linalg::GenericOp op, const RowPlan &plan,
                   const LaneIds &ids);

/// Lowers a generic whose innermost loop is the row, parallel along it:
/// each lane computes (and owns) its elements of the row.
void lowerAlongRow(OpBuilder &b, linalg::GenericOp op, const RowPlan &plan,
                   const LaneIds &ids, RowValues *held);

/// Whether a lane's partial of this output is kept in f32: sums and
/// products of 16-bit floats (softmax's exp-sum of f16 rows), which would
/// otherwise round at every element of a long row. The result is rounded
/// once, after the lanes are combined (in f32 already).
bool widens(const Combiner &c);

/// -0 for a sum (getNeutralElement gives +0, which is no identity for -0
/// and so cannot be folded), 1 for a product.
Value exactIdentity(OpBuilder &b, Location loc, const Combiner &c);

/// `partial (+ or *) extf(value)` in f32, with the combiner's fast-math
/// flags.
Value combineWide(OpBuilder &b, Location loc, const Combiner &c, Value partial,
                  Value value);

} // namespace mlir::egg::rows

#endif // EGG_DIALECT_EGG_TRANSFORMS_DISTRIBUTEROWS_H
