//===- SharedGemmCopies.cpp - Shared-memory GEMM: copies and borders ------===//

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

void GemmBuilder::copyTile(OpBuilder &b, const Operand &x, Value kt,
                           Value stage) {
  AffineMap map = gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(x.which));
  SmallVector<int64_t> extents = gemm.getStaticLoopRanges();
  Type element = getElementTypeOrSelf(x.global.getType());
  bool contiguous = x.fastIsMN == x.sharedFastIsMN;
  int64_t v = copyWidth(x);
  int64_t bytes = x.bytes;
  int64_t extentK = GemmLoops::extent(plan.loops.kLoops, extents);
  Value kBase = arith::MulIOp::create(b, loc, kt, constIndex(b, loc, plan.bk));
  auto copyPiece = [&](OpBuilder &b, Value mn, Value k) {
    SmallVector<Value> loopIdx(gemm.getNumLoops(), constIndex(b, loc, 0));
    decode(b, x.mnLoops, plan.blockExtents, mn, loopIdx);
    // Past the block's M/N extent (a partial block tile) a piece reads
    // nothing: cp.async reads 0 bytes of it and zero-fills the stage (no
    // branch, so the copies keep their common base address; on 1025 x 1024
    // x 1536 f32, branches took 173 registers against 127); other copies
    // skip it, as its rows (columns) only feed accumulators that are never
    // stored. (The M/N extents are multiples of the vector width along the
    // contiguous dimension, checkLowerable, so a piece is wholly inside or
    // outside.)
    Value inside = inBounds(b, loopIdx, x.mnLoops);
    OpBuilder::InsertionGuard guard(b);
    if (inside && !plan.async) {
      auto skip = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      b.setInsertionPointToStart(skip.thenBlock());
      inside = Value();
    }
    Value kAt = arith::AddIOp::create(b, loc, kBase, k);
    // Past K (a partial last tile), a piece reads nothing and is zero-filled
    // from a valid address (K itself is a multiple of the vector width,
    // checkLowerable, so a piece is wholly inside or outside).
    if (extentK % plan.bk != 0) {
      Value inK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kAt,
                                        constIndex(b, loc, extentK));
      kAt = arith::SelectOp::create(b, loc, inK, kAt, constIndex(b, loc, 0));
      inside = inside ? arith::AndIOp::create(b, loc, inside, inK) : inK;
    }
    auto readElements = [&](int64_t count) -> Value {
      if (!inside)
        return Value();
      return arith::SelectOp::create(b, loc, inside, constIndex(b, loc, count),
                                     constIndex(b, loc, 0));
    };
    decode(b, plan.loops.kLoops, extents, kAt, loopIdx);
    SmallVector<Value> src = applyMap(b, loc, map, loopIdx);
    // Through a padded view: the source's element at the view's position
    // less the low padding, where that lies inside the source (an unsigned
    // comparison also catches positions left of it), else a zero; outside,
    // a valid address (the source's first element) is read.
    Value global = x.global, inSource;
    if (x.border.source) {
      global = x.border.source;
      SmallVector<unsigned> padded;
      for (auto [d, idx] : llvm::enumerate(src)) {
        idx = arith::AddIOp::create(
            b, loc,
            getValueOrCreateConstantIndexOp(b, loc, x.border.offsets[d]), idx);
        if (x.border.low[d] == 0 && x.border.high[d] == 0)
          continue;
        if (x.border.low[d] != 0)
          idx = arith::SubIOp::create(b, loc, idx,
                                      constIndex(b, loc, x.border.low[d]));
        Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx,
                                         constIndex(b, loc, x.border.shape[d]));
        inSource = inSource ? arith::AndIOp::create(b, loc, inSource, in) : in;
        padded.push_back(d);
      }
      // cp.async with a source size of 0 reads nothing: its address may lie
      // outside the source. Synchronous copies load, so they read a valid
      // element (the source's first) and select the zero afterwards.
      if (!plan.async)
        for (unsigned d : padded)
          src[d] = arith::SelectOp::create(b, loc, inSource, src[d],
                                           constIndex(b, loc, 0));
      if (plan.async)
        inside =
            inside ? arith::AndIOp::create(b, loc, inside, inSource) : inSource;
    }
    // Synchronous copies select a zero for what lies in the border.
    auto zeroBorder = [&](Value value) -> Value {
      if (!inSource || plan.async)
        return value;
      Value zero = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(value.getType())));
      return arith::SelectOp::create(b, loc, inSource, value, zero);
    };
    // `offset` elements along the global layout's contiguous dimension.
    auto sharedAt = [&](int64_t offset) -> SmallVector<Value> {
      Value off = constIndex(b, loc, offset);
      Value mnAt = x.fastIsMN ? arith::AddIOp::create(b, loc, mn, off) : mn;
      Value kAt = x.fastIsMN ? k : arith::AddIOp::create(b, loc, k, off);
      // A staged piece: [BK][tileMN] in the low tiles (transposed by the
      // split pass).
      if (x.staged)
        return {stage, arith::AddIOp::create(
                           b, loc,
                           arith::MulIOp::create(b, loc, kAt,
                                                 constIndex(b, loc, x.tileMN)),
                           mnAt)};
      // A 16-byte piece, or one TF32 element stored transposed.
      if (plan.wgmma)
        return {stage, swizzledOffset(b, x, mnAt, kAt)};
      if (x.sharedFastIsMN)
        return {stage, kAt, mnAt};
      return {stage, mnAt, kAt};
    };
    if (plan.async) {
      // One copy of V elements (transposed: V is 1, a 4-byte element,
      // checkLowerable). 16-byte pieces skip L1 (cp.async.cg): the tile is
      // read once.
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, x.staged ? x.low : x.shared, sharedAt(0), global, src,
          b.getIndexAttr(v), readElements(v),
          v * bytes == 16 ? b.getUnitAttr() : UnitAttr());
      return;
    }
    if (v == 1) {
      Value value = zeroBorder(memref::LoadOp::create(b, loc, global, src));
      memref::StoreOp::create(b, loc, value, x.shared, sharedAt(0));
      return;
    }
    auto vecType = VectorType::get({v}, element);
    auto load = vector::LoadOp::create(b, loc, vecType, global, src);
    load.setAlignment(v * bytes);
    Value loaded = zeroBorder(load.getResult());
    if (contiguous) {
      auto store =
          vector::StoreOp::create(b, loc, loaded, x.shared, sharedAt(0));
      store.setAlignment(v * bytes);
      return;
    }
    for (int64_t e = 0; e < v; ++e) {
      Value value = vector::ExtractOp::create(b, loc, loaded, e);
      memref::StoreOp::create(b, loc, value, x.shared, sharedAt(e));
    }
  };
  forEachPiece(b, x, copyPiece);
}

void GemmBuilder::forEachPiece(
    OpBuilder &b, const Operand &x,
    function_ref<void(OpBuilder &, Value, Value)> body) {
  int64_t v = copyWidth(x);
  int64_t along = (x.fastIsMN ? x.tileMN : plan.bk) / v;
  int64_t pieces = x.tileMN * plan.bk / v;
  int64_t nt = plan.numThreads();
  // Single elements of a layout not contiguous along K into a K-major
  // TF32 tile (`blocked`): piece p is row 8 * h + p % 8 and column
  // 4 * g + (p / 8) % 4 for (h, g) = (p / 32) % (tileMN / 8),
  // (p / 32) / (tileMN / 8). A warp's 32 elements then fall in 32 distinct
  // banks of the swizzled tile (a 16-byte piece per row, permuted by
  // row % 8), and its global reads are four 32-byte runs along M/N; lanes
  // along one K column hit 8 banks. Otherwise pieces run along the global
  // layout's contiguous dimension.
  assert((!x.blocked || (x.tileMN % 8 == 0 && plan.bk % 4 == 0)) &&
         "TF32 tile shape");
  auto visit = [&](OpBuilder &b, Value piece) {
    auto c = [&](int64_t value) { return constIndex(b, loc, value); };
    auto rem = [&](Value v, int64_t d) {
      return arith::RemUIOp::create(b, loc, v, c(d)).getResult();
    };
    auto div = [&](Value v, int64_t d) {
      return arith::DivUIOp::create(b, loc, v, c(d)).getResult();
    };
    if (x.blocked) {
      Value block = div(piece, 32);
      Value mn = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, rem(block, x.tileMN / 8), c(8)),
          rem(piece, 8));
      Value k = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, div(block, x.tileMN / 8), c(4)),
          rem(div(piece, 8), 4));
      body(b, mn, k);
      return;
    }
    Value fast = arith::MulIOp::create(b, loc, rem(piece, along), c(v));
    Value slow = div(piece, along);
    body(b, x.fastIsMN ? fast : slow, x.fastIsMN ? slow : fast);
  };
  // A thread's pieces: tid + c * nt; a last round that not every thread
  // has (pieces not a multiple of the threads) is guarded.
  for (int64_t c = 0; c * nt < pieces; ++c) {
    Value piece =
        arith::AddIOp::create(b, loc, tid, constIndex(b, loc, c * nt));
    if ((c + 1) * nt <= pieces) {
      visit(b, piece);
      continue;
    }
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, piece,
                                      constIndex(b, loc, pieces));
    scf::IfOp::create(b, loc, has, [&](OpBuilder &ib, Location) {
      visit(ib, piece);
      scf::YieldOp::create(ib, loc);
    });
  }
}

LogicalResult GemmBuilder::findBorder(Operand &x) {
  auto stripCasts = [](Value v) {
    while (auto cast = v.getDefiningOp<memref::CastOp>())
      v = cast.getSource();
    return v;
  };
  Value v = stripCasts(x.global);
  auto view = v.getDefiningOp<memref::SubViewOp>();
  if (view)
    v = stripCasts(view.getSource());
  auto padded = v.getDefiningOp<PaddedViewOp>();
  if (!padded)
    return success();
  auto sourceType = cast<MemRefType>(padded.getSource().getType());
  if (view && (!view.hasUnitStride() ||
               view.getType().getRank() != sourceType.getRank()))
    return gemm.emitOpError("reads a padded view through a strided or "
                            "rank-reducing slice, which its copies cannot "
                            "bound");
  if (plan.tma)
    return gemm.emitOpError("reads a padded view: TMA copies take whole "
                            "tensors (use cp_async)");
  // A piece of several elements along a padded contiguous dimension could
  // straddle the border (checkLowerable).
  int64_t v1 = copyWidth(x);
  int64_t last = sourceType.getRank() - 1;
  if (v1 > 1 && (padded.getLow()[last] != 0 || padded.getHigh()[last] != 0))
    return gemm.emitOpError("input ")
           << x.which << " is padded along its contiguous dimension: its "
           << "copies need vector = 1, not " << v1;
  x.border.source = padded.getSource();
  x.border.low = llvm::to_vector(padded.getLow());
  x.border.high = llvm::to_vector(padded.getHigh());
  x.border.shape = llvm::to_vector(sourceType.getShape());
  if (view)
    x.border.offsets = view.getMixedOffsets();
  else
    x.border.offsets.assign(sourceType.getRank(),
                            OpBuilder(gemm).getIndexAttr(0));
  return success();
}
