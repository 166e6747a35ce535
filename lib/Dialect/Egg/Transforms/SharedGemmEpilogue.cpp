//===- SharedGemmEpilogue.cpp - Shared-memory GEMM: staged stores ---------===//

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

bool GemmBuilder::stageStores(OpBuilder &b, Value buffer,
                              ArrayRef<Value> values,
                              ArrayRef<unsigned> fromResult,
                              ArrayRef<std::pair<Value, Value>> positions,
                              AffineMap outMap) {
  std::optional<unsigned> dimN = outMap.getResultPosition(
      getAffineDimExpr(plan.loops.innerN(), b.getContext()));
  auto type = cast<MemRefType>(buffer.getType());
  Type element = type.getElementType();
  if (!plan.wgmma || !dimN || fromResult.empty() ||
      fromResult.back() != *dimN || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t v = 16 / bytes;
  // A row of the staged tile ends in one 16-byte piece of padding: the
  // fragments' eight rows per store then fall in distinct banks.
  int64_t rowElems = plan.bn + v;
  int64_t chunks = plan.bm * plan.bn / v;
  // A partial tile bounds the staged rows and columns by one loop each:
  // not a loop of a group of several (a convolution's positions).
  auto inGroup = [](ArrayRef<unsigned> group, unsigned d) {
    return group.size() > 1 && llvm::is_contained(group, d);
  };
  bool groupedBounds =
      llvm::any_of(llvm::seq<unsigned>(0, bounds.size()), [&](unsigned d) {
        return bounds[d] && (inGroup(plan.loops.mLoops, d) ||
                             inGroup(plan.loops.nLoops, d));
      });
  if (groupedBounds || 16 % bytes != 0 ||
      plan.blockExtents[plan.loops.innerN()] % v != 0 ||
      !hasAlignedLayout(buffer, v) || plan.bm * rowElems * bytes > tilesBytes ||
      chunks % plan.numThreads() != 0 ||
      (hasPartialTiles() && plan.numThreads() % (plan.bn / v) != 0))
    return false;
  auto c = [&](int64_t value) { return constIndex(b, loc, value); };
  auto barrier = [&] { computingBarrier(b); };
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value staged = memref::ViewOp::create(
      b, loc,
      MemRefType::get({plan.bm, rowElems}, element, MemRefLayoutAttrInterface(),
                      space),
      sharedBytes, operands[0].tileStart, ValueRange{});
  // Every warpgroup's own products are complete, but others may still read
  // the stages this overwrites.
  barrier();
  auto pair = VectorType::get({2}, element);
  for (size_t e = 0; e + 1 < values.size(); e += 2) {
    auto [m, n] = positions[e];
    Value two =
        vector::FromElementsOp::create(b, loc, pair, values.slice(e, 2));
    vector::StoreOp::create(b, loc, two, staged, ValueRange{m, n})
        .setAlignment(2 * bytes);
  }
  barrier();
  auto piece = VectorType::get({v}, element);
  int64_t perRow = plan.bn / v;
  int64_t rounds = chunks / plan.numThreads();
  // Piece `chunk` of the staged tile: row chunk / perRow, 16-byte column
  // chunk % perRow; its row is read from shared memory and stored.
  auto copy = [&](OpBuilder &cb, Value chunk) {
    Value m = arith::DivUIOp::create(cb, loc, chunk, c(perRow));
    Value n = arith::MulIOp::create(
        cb, loc, arith::RemUIOp::create(cb, loc, chunk, c(perRow)), c(v));
    auto data =
        vector::LoadOp::create(cb, loc, piece, staged, ValueRange{m, n});
    data.setAlignment(16);
    SmallVector<Value> at = applyMap(outMap, productIndices(cb, m, n));
    SmallVector<Value> idx;
    for (unsigned r : fromResult)
      idx.push_back(at[r]);
    vector::StoreOp::create(cb, loc, data, buffer, idx).setAlignment(16);
  };
  if (!hasPartialTiles()) {
    for (int64_t i = 0; i < rounds; ++i)
      copy(b, arith::AddIOp::create(b, loc, tid, c(i * plan.numThreads())));
    return true;
  }
  // A partial tile: a thread's pieces share a column (the threads cover
  // whole rows per round), which is inside the block's N extent or not
  // (the buffer's aligned layout makes N a multiple of the piece), and its
  // rows inside the M extent are the first `count` rounds. Guarding each
  // piece instead made ptxas hold them all at once (4000 x 4096 x 640
  // bf16, 128 x 256 tiles: 255 registers and a spill, against 206).
  Value mBound = bounds[plan.loops.mLoops.front()];
  Value nBound = bounds[plan.loops.nLoops.front()];
  int64_t rowsPerRound = plan.numThreads() / perRow;
  Value m0 = arith::DivUIOp::create(b, loc, tid, c(perRow));
  Value count = c(rounds);
  if (mBound) {
    Value left = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, mBound, m0),
        arith::SubIOp::create(b, loc, mBound, m0), c(0));
    count = arith::MinUIOp::create(
        b, loc, count,
        arith::CeilDivUIOp::create(b, loc, left, c(rowsPerRound)));
  }
  auto rows = [&](OpBuilder &rb) {
    scf::ForOp::create(rb, loc, c(0), count, c(1), ValueRange{},
                       [&](OpBuilder &lb, Location, Value i, ValueRange) {
                         copy(lb, arith::AddIOp::create(
                                      lb, loc, tid,
                                      arith::MulIOp::create(
                                          lb, loc, i, c(plan.numThreads()))));
                         scf::YieldOp::create(lb, loc);
                       });
  };
  if (!nBound) {
    rows(b);
    return true;
  }
  Value n = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, tid, c(perRow)), c(v));
  Value inN =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, nBound);
  scf::IfOp::create(b, loc, inN, [&](OpBuilder &ib, Location) {
    rows(ib);
    scf::YieldOp::create(ib, loc);
  });
  return true;
}
