//===- DistributeRowsLoops.cpp - Rows shared by lanes: row loops ----------===//

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

SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ValueRange ivs) {
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

SmallVector<Value> clonePayload(OpBuilder &b, linalg::GenericOp op,
                                ValueRange args, ValueRange ivs,
                                const Reciprocals *reciprocals) {
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

SmallVector<Value> shiftRow(OpBuilder &b, Location loc, ValueRange ivs,
                            int64_t e) {
  SmallVector<Value> shifted(ivs);
  if (e > 0)
    shifted.back() = arith::AddIOp::create(
        b, loc, ivs.back(), arith::ConstantIndexOp::create(b, loc, e));
  return shifted;
}

SmallVector<Value> loadRowElements(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, OpOperand &operand,
                                   ValueRange ivs, const RowPlan &plan,
                                   RowValues *held, int64_t step) {
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

int64_t stepsInFlight(const RowPlan &plan, int64_t bytesPerStep) {
  int64_t steps = 1;
  while (plan.perWarp && steps < 8 &&
         2 * steps * std::max<int64_t>(bytesPerStep, 1) <= 128)
    steps *= 2;
  return steps;
}

SmallVector<Value> buildRowLoop(OpBuilder &b, Location loc, const RowPlan &plan,
                                const LaneIds &ids, ValueRange init,
                                int64_t unroll, LoadStep load, UseStep use) {
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

int64_t bytesPerStep(linalg::GenericOp op, int64_t v) {
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

Value combineLanes(OpBuilder &b, Location loc, Value partial,
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

void appendLoopBounds(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                      ArrayRef<unsigned> dims, SmallVectorImpl<Value> &lbs,
                      SmallVectorImpl<Value> &ubs,
                      SmallVectorImpl<Value> &steps) {
  for (unsigned d : dims) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, extents[d]));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
}

void forOwnRows(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                ArrayRef<unsigned> dims, const RowPlan &plan,
                const LaneIds &ids,
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

void lowerAtOwnRow(OpBuilder &b, linalg::GenericOp op, const RowPlan &plan,
                   const LaneIds &ids) {
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

void lowerAlongRow(OpBuilder &b, linalg::GenericOp op, const RowPlan &plan,
                   const LaneIds &ids, RowValues *held) {
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

bool widens(const Combiner &c) {
  Type type = c.op->getResult(0).getType();
  return isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16 &&
         (c.kind == gpu::AllReduceOperation::ADD ||
          c.kind == gpu::AllReduceOperation::MUL);
}

Value exactIdentity(OpBuilder &b, Location loc, const Combiner &c) {
  if (c.kind != gpu::AllReduceOperation::ADD)
    return arith::ConstantOp::create(b, loc, c.neutral);
  Type type = c.op->getResult(0).getType();
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, -0.0));
}

Value combineWide(OpBuilder &b, Location loc, const Combiner &c, Value partial,
                  Value value) {
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  auto fastmath = c.op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
  if (c.kind == gpu::AllReduceOperation::ADD)
    return arith::AddFOp::create(b, loc, partial, wide, fastmath);
  return arith::MulFOp::create(b, loc, partial, wide, fastmath);
}

} // namespace mlir::egg::rows
