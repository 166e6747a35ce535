//===- SharedGemmFma.cpp - Shared-memory GEMM: FMA tiles ------------------===//

#include "SharedGemm.h"

#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <functional>

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::gemm;

SmallVector<Value> GemmBuilder::loadFragment(OpBuilder &b, const Operand &x,
                                             Value stage, Value kk,
                                             int64_t count, Value base,
                                             int64_t align) {
  Type element = getElementTypeOrSelf(x.shared.getType());
  int64_t bytes = x.bytes;
  int64_t w = commonPow2(
      {count, x.tileMN + plan.padding, align ? align : count}, 16 / bytes);
  SmallVector<Value> values;
  for (int64_t q = 0; q < count; q += w) {
    Value at = arith::AddIOp::create(b, loc, base, constIndex(b, loc, q));
    if (w == 1) {
      values.push_back(
          memref::LoadOp::create(b, loc, x.shared, ValueRange{stage, kk, at}));
      continue;
    }
    auto load = vector::LoadOp::create(b, loc, VectorType::get({w}, element),
                                       x.shared, ValueRange{stage, kk, at});
    load.setAlignment(w * bytes);
    for (int64_t e = 0; e < w; ++e)
      values.push_back(vector::ExtractOp::create(b, loc, load.getResult(), e));
  }
  return values;
}

SmallVector<Value> GemmBuilder::loadFmaFragments(OpBuilder &b, Value stage,
                                                 Value kk) {
  // A thread's values along M (N), a load per run (fmaRuns).
  SmallVector<Value> values;
  for (bool alongM : {true, false}) {
    auto [starts, run] = fmaRuns(b, alongM);
    for (Value start : starts)
      llvm::append_range(values, loadFragment(b, operands[alongM ? 0 : 1],
                                              stage, kk, run, start,
                                              alongM ? 0 : plan.runStrideN));
  }
  return values;
}

SmallVector<Value> GemmBuilder::fmaStep(OpBuilder &b, ArrayRef<Value> fragments,
                                        ValueRange accs) {
  ArrayRef<Value> a = fragments.take_front(plan.tm),
                  bv = fragments.drop_front(plan.tm);
  Block *body = gemm.getBody();
  Value yielded = body->getTerminator()->getOperand(0);
  SmallVector<Value> next(accs.size());
  // Serpentine order (odd rows right to left, as CUTLASS's SIMT MMA): each
  // FMA shares an operand with the one before it, which ptxas then serves
  // from the operand reuse cache. FMAs that read three registers of one
  // bank stall in dispatch (ncu); this order halves the FMAs reading three
  // registers (H200: 2-3% faster on most f32 products, docs/benchmarks.md).
  for (int64_t i = 0; i < plan.tm; ++i) {
    for (int64_t step = 0; step < plan.tn; ++step) {
      int64_t j = i % 2 ? plan.tn - 1 - step : step;
      IRMapping map;
      map.map(body->getArgument(plan.loops.lhs), a[i]);
      map.map(body->getArgument(plan.loops.rhs), bv[j]);
      map.map(body->getArgument(2), accs[i * plan.tn + j]);
      for (Operation &op : body->without_terminator()) {
        Operation *copy = b.clone(op, map);
        // Multiply-add may become one FMA (as nvcc and cuBLAS do):
        // `.rn` PTX arithmetic would forbid ptxas to fuse them.
        if (auto fm = dyn_cast<arith::ArithFastMathInterface>(copy)) {
          arith::FastMathFlags flags = arith::FastMathFlags::contract;
          if (arith::FastMathFlagsAttr old = fm.getFastMathFlagsAttr())
            flags = flags | old.getValue();
          copy->setAttr(
              fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(copy->getContext(), flags));
        }
      }
      next[i * plan.tn + j] = map.lookupOrDefault(yielded);
    }
  }
  return next;
}

SmallVector<Value> GemmBuilder::compute(OpBuilder &b, Value stage,
                                        ValueRange accs) {
  // Unrolled by `factor` steps of kk: the loads of one step overlap the
  // FMAs of the previous.
  int64_t factor = fmaUnroll(plan);
  auto inner = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, plan.bk),
      constIndex(b, loc, factor), accs,
      [&](OpBuilder &nb, Location, Value kk0, ValueRange iter) {
        SmallVector<Value> values(iter);
        for (int64_t u = 0; u < factor; ++u) {
          Value kk =
              arith::AddIOp::create(nb, loc, kk0, constIndex(nb, loc, u));
          values = fmaStep(nb, loadFmaFragments(nb, stage, kk), values);
        }
        scf::YieldOp::create(nb, loc, values);
      });
  return SmallVector<Value>(inner.getResults());
}

SmallVector<Value> GemmBuilder::buildPrefetchedLoop(OpBuilder &b,
                                                    ValueRange initial,
                                                    int64_t ahead) {
  Value numStages = constIndex(b, loc, plan.stages);
  auto stageOf = [&](OpBuilder &nb, Value kt) -> Value {
    return arith::RemUIOp::create(nb, loc, kt, numStages);
  };
  // Tile kt has landed for every thread (at most ahead-1 groups pending,
  // then the barrier), and tile kt+ahead goes into the stage tile kt-1
  // used, which every thread has read into registers by now.
  auto land = [&](OpBuilder &nb, Value kt) {
    NVVM::CpAsyncWaitGroupOp::create(nb, loc, ahead - 1);
    gpu::BarrierOp::create(nb, loc);
    Value tile = arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, ahead));
    Value inRange = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult,
                                          tile, constIndex(nb, loc, numK));
    scf::IfOp::create(nb, loc, inRange, [&](OpBuilder &ib, Location) {
      for (const Operand &x : operands)
        copyTile(ib, x, tile, stageOf(ib, tile));
      scf::YieldOp::create(ib, loc);
    });
    NVVM::CpAsyncCommitGroupOp::create(nb, loc);
  };
  Value zero = constIndex(b, loc, 0);
  land(b, zero);
  SmallVector<Value> init(initial);
  size_t numAccs = init.size();
  llvm::append_range(init, loadFmaFragments(b, zero, zero));
  // The fragments of step kk+1 (of the next tile after the last step) are
  // loaded before step kk's FMAs: the barrier before the next tile no
  // longer leaves every warp of the block waiting on shared memory at
  // once. After the last tile the loads read a stage's stale values,
  // which nothing uses.
  auto loop = scf::ForOp::create(
      b, loc, zero, constIndex(b, loc, numK), constIndex(b, loc, 1), init,
      [&](OpBuilder &nb, Location, Value kt, ValueRange iter) {
        Value stage = stageOf(nb, kt);
        SmallVector<Value> accs(iter.take_front(numAccs));
        SmallVector<Value> current(iter.drop_front(numAccs));
        for (int64_t kk = 0; kk < plan.bk; ++kk) {
          SmallVector<Value> next;
          if (kk + 1 < plan.bk) {
            next = loadFmaFragments(nb, stage, constIndex(nb, loc, kk + 1));
          } else {
            Value following =
                arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, 1));
            land(nb, following);
            next = loadFmaFragments(nb, stageOf(nb, following),
                                    constIndex(nb, loc, 0));
          }
          accs = fmaStep(nb, current, accs);
          current = std::move(next);
        }
        llvm::append_range(accs, current);
        scf::YieldOp::create(nb, loc, accs);
      });
  return SmallVector<Value>(loop.getResults().take_front(numAccs));
}
