//===- LowerScans.cpp - A warp per scanned row ----------------------------===//
//
// `scan_warp`: egg-apply-schedule gives each warp one row of the scan (block
// tiles of rows, warp tile 1); here the warp's egg.scan on that row becomes
// lane code that reads and writes each element once:
//
//   for each step of 32 * V elements (V = `vector`), carrying the total of
//   the row so far:
//     lane l loads elements [l*V, l*V + V) of the step (one 16-byte access
//     at most) and scans them in registers;
//     the lanes' totals are scanned across the warp by shuffles (log2(32)
//     rounds of shfl.up);
//     each lane adds the carry and the lanes before it to its elements and
//     stores them; the carry takes the step's total (lane 31's).
//
// `reverse` walks the row from its end: logical element j is physical
// element n-1-j, so a lane's vector is read at n - (l+1)*V and taken from
// its last element down. `exclusive` stores before each element is added
// (a lane's first element gets what the lanes before it carry).
//
// 16-bit rows are combined in f32 and rounded once per element.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-lower-scans"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERSCANS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

static constexpr int64_t kLanes = 32;

/// `a` combined with `b` by the scan's kind.
static Value combine(OpBuilder &b, Location loc, ScanKind kind, Value x,
                     Value y) {
  if (kind == ScanKind::add)
    return arith::AddFOp::create(b, loc, x, y);
  return arith::MulFOp::create(b, loc, x, y);
}

static Value identityOf(OpBuilder &b, Location loc, ScanKind kind,
                        FloatType type) {
  return arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, kind == ScanKind::add ? 0.0 : 1.0));
}

static LogicalResult lowerScan(ScanOp scan, int64_t v) {
  auto inType = dyn_cast<MemRefType>(scan.getInput().getType());
  auto outType = dyn_cast<MemRefType>(scan.getInit().getType());
  if (!inType || !outType || !inType.hasStaticShape())
    return scan.emitOpError("reaches egg-lower-scans without static buffers: "
                            "run it after bufferization");
  ArrayRef<int64_t> shape = inType.getShape();
  if (llvm::any_of(shape.drop_back(), [](int64_t d) { return d != 1; }))
    return scan.emitOpError("scan_warp gives a warp one row, got a tile of ")
           << inType << " (warp tile 1 on every row loop)";
  int64_t n = shape.back();
  if (n % v != 0)
    return scan.emitOpError("vector = ")
           << v << " does not divide the row of " << n;
  Location loc = scan.getLoc();
  OpBuilder b(scan);
  auto element = cast<FloatType>(inType.getElementType());
  FloatType acc = element.getWidth() < 32 ? b.getF32Type() : element;
  ScanKind kind = scan.getKind();
  auto cst = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, loc, x).getResult();
  };
  auto widen = [&](OpBuilder &ob, Value x) {
    return acc == element ? x : arith::ExtFOp::create(ob, loc, acc, x);
  };

  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value laneStart = arith::MulIOp::create(b, loc, lane, cst(v));
  int64_t step = kLanes * v;
  int64_t steps = (n + step - 1) / step;
  bool partial = n % step != 0;
  SmallVector<Value> indices(shape.size() - 1, cst(0));
  auto vectorType = VectorType::get({v}, element);
  int64_t alignment = v * element.getWidth() / 8;
  Value accIdentity = identityOf(b, loc, kind, acc);
  bool reverse = scan.getReverse(), exclusive = scan.getExclusive();
  // Element i of a lane's logical run sits at position slot(i) of its vector.
  auto slot = [&](int64_t i) { return reverse ? v - 1 - i : i; };

  scf::ForOp::create(
      b, loc, cst(0), cst(steps), cst(1), ValueRange{accIdentity},
      [&](OpBuilder &lb, Location, Value k, ValueRange carried) {
        Value carry = carried.front();
        Value base = arith::AddIOp::create(
            lb, loc, arith::MulIOp::create(lb, loc, k, cst(step)), laneStart);
        SmallVector<Value> at = indices;
        at.push_back(
            reverse
                ? arith::SubIOp::create(lb, loc, cst(n - v), base).getResult()
                : base);
        // A row whose length is not a whole number of steps: lanes past
        // its end read the identity and store nothing (V divides the row).
        Value inside;
        if (partial)
          inside = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                         base, cst(n));
        auto load = [&](OpBuilder &ob) -> Value {
          auto op =
              vector::LoadOp::create(ob, loc, vectorType, scan.getInput(), at);
          op.setAlignment(alignment);
          return op;
        };
        Value loaded;
        if (partial) {
          auto guarded = scf::IfOp::create(
              lb, loc, inside,
              [&](OpBuilder &tb, Location) {
                scf::YieldOp::create(tb, loc, load(tb));
              },
              [&](OpBuilder &eb, Location) {
                Value fill = identityOf(eb, loc, kind, element);
                scf::YieldOp::create(
                    eb, loc,
                    vector::BroadcastOp::create(eb, loc, vectorType, fill)
                        .getResult());
              });
          loaded = guarded.getResult(0);
        } else {
          loaded = load(lb);
        }
        // The lane's elements, scanned in registers.
        SmallVector<Value> sums;
        for (int64_t i = 0; i < v; ++i) {
          Value x = widen(lb, vector::ExtractOp::create(lb, loc, loaded,
                                                        ArrayRef{slot(i)}));
          sums.push_back(i ? combine(lb, loc, kind, sums.back(), x) : x);
        }
        // The lanes' totals, scanned across the warp: after the round of
        // offset d, lane l holds lanes max(0, l - 2d + 1) to l combined.
        Value width =
            arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), kLanes);
        Value total = sums.back();
        for (int64_t d = 1; d < kLanes; d *= 2) {
          Value offset =
              arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), d);
          auto up = gpu::ShuffleOp::create(lb, loc, total, offset, width,
                                           gpu::ShuffleMode::UP);
          total = arith::SelectOp::create(
              lb, loc, up.getValid(),
              combine(lb, loc, kind, up.getShuffleResult(), total), total);
        }
        // What the lanes before this one add, and the step's total.
        Value one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
        auto before = gpu::ShuffleOp::create(lb, loc, total, one, width,
                                             gpu::ShuffleMode::UP);
        Value prefix = arith::SelectOp::create(
            lb, loc, before.getValid(),
            combine(lb, loc, kind, carry, before.getShuffleResult()), carry);
        Value last =
            arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), kLanes - 1);
        auto stepTotal = gpu::ShuffleOp::create(lb, loc, total, last, width,
                                                gpu::ShuffleMode::IDX);
        SmallVector<Value> results(v);
        for (int64_t i = 0; i < v; ++i) {
          Value r = !exclusive ? combine(lb, loc, kind, prefix, sums[i])
                    : i == 0   ? prefix
                               : combine(lb, loc, kind, prefix, sums[i - 1]);
          results[slot(i)] =
              acc == element
                  ? r
                  : arith::TruncFOp::create(lb, loc, element, r).getResult();
        }
        Value out =
            vector::FromElementsOp::create(lb, loc, vectorType, results);
        auto store = [&](OpBuilder &ob) {
          auto op = vector::StoreOp::create(ob, loc, out, scan.getInit(), at);
          op.setAlignment(alignment);
        };
        if (partial) {
          auto guarded = scf::IfOp::create(lb, loc, inside,
                                           /*withElseRegion=*/false);
          OpBuilder tb = guarded.getThenBodyBuilder();
          store(tb);
        } else {
          store(lb);
        }
        scf::YieldOp::create(
            lb, loc,
            combine(lb, loc, kind, carry, stepTotal.getShuffleResult()));
      });
  LLVM_DEBUG(llvm::dbgs() << "scan of " << n << " elements: " << steps
                          << " steps of " << step << "\n");
  scan.erase();
  return success();
}

namespace {
struct LowerScansPass : public egg::impl::EggLowerScansBase<LowerScansPass> {
  void runOnOperation() override {
    auto applies = [](StructureAttr structure, TuningAttr tuning) {
      return structure && tuning &&
             structure.getFormulation() == Formulation::scan_warp;
    };
    auto lower = [](gpu::LaunchOp launch, TuningAttr tuning) -> LogicalResult {
      SmallVector<ScanOp> scans;
      launch.walk([&](ScanOp scan) { scans.push_back(scan); });
      if (scans.size() != 1)
        return launch.emitOpError("a scan_warp kernel holds one scan, got ")
               << scans.size();
      return lowerScan(scans.front(), tuning.getVector());
    };
    if (failed(lowerKernelLaunches(getOperation(), applies, lower)))
      return signalPassFailure();
    // A scan left outside a scan_warp kernel would reach the GPU lowering.
    WalkResult left = getOperation().walk([](ScanOp scan) {
      scan.emitOpError("is left after egg-lower-scans: only scan_warp "
                       "kernels lower scans");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
