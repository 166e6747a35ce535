//===- SharedGemmWgmma.cpp - Shared-memory GEMM: warpgroup MMA ------------===//

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

Value GemmBuilder::swizzledOffset(OpBuilder &b, const Operand &x, Value mn,
                                  Value k) {
  // The tile is stored as columns of 128-byte rows (64 16-bit elements along
  // the contiguous dimension), each column `rows` rows deep; within 8 rows
  // the 16-byte pieces of row r are permuted by XOR with r % 8 (the pattern
  // wgmma's 128-byte swizzle mode reads, given 1024-byte aligned columns).
  int64_t rowElems = 128 / x.bytes, pieceElems = 16 / x.bytes;
  int64_t rows = x.sharedFastIsMN ? plan.bk : x.tileMN;
  Value along = x.sharedFastIsMN ? mn : k, row = x.sharedFastIsMN ? k : mn;
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  Value column = arith::DivUIOp::create(b, loc, along, c(rowElems));
  Value piece = arith::DivUIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, along, c(rowElems)),
      c(pieceElems));
  Value swizzled = arith::XOrIOp::create(
      b, loc, piece, arith::RemUIOp::create(b, loc, row, c(8)));
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, column, c(rows * rowElems)),
      arith::MulIOp::create(b, loc, row, c(rowElems)));
  offset = arith::AddIOp::create(
      b, loc, offset, arith::MulIOp::create(b, loc, swizzled, c(pieceElems)));
  // The element's place inside its piece: 0 for 16-byte copies, not for
  // TF32's transposed 4-byte ones (without it they wrote a quarter of the
  // tile).
  return arith::AddIOp::create(
      b, loc, offset, arith::RemUIOp::create(b, loc, along, c(pieceElems)));
}

/// `value` (f32, or a vector of f32) rounded to TF32, to nearest with ties
/// away from zero (cvt.rna.tf32.f32): the 13 bits below TF32's 10-bit
/// mantissa are rounded off the magnitude, a carry moving into the exponent.
static Value roundToTf32(OpBuilder &b, Location loc, Value value) {
  Type bitsType = b.getI32Type();
  if (auto vec = dyn_cast<VectorType>(value.getType()))
    bitsType = vec.clone(bitsType);
  Value bits = arith::BitcastOp::create(b, loc, bitsType, value);
  Value half = createScalarOrSplatConstant(b, loc, bitsType, APInt(32, 0x1000));
  Value mask =
      createScalarOrSplatConstant(b, loc, bitsType, APInt(32, 0xFFFFE000));
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, half), mask);
  return arith::BitcastOp::create(b, loc, value.getType(), rounded);
}

/// `value`'s TF32 high part hi = tf32(value) and low part tf32(value - hi)
/// (the subtraction is exact; see splitTile).
static std::pair<Value, Value> splitHighLow(OpBuilder &b, Location loc,
                                            Value value) {
  Value hi = roundToTf32(b, loc, value);
  return {hi, roundToTf32(b, loc, arith::SubFOp::create(b, loc, value, hi))};
}

void GemmBuilder::splitTile(OpBuilder &b, const Operand &x, Value stage) {
  // x = hi + lo + r with hi = tf32(x) and lo = tf32(x - hi) (the
  // subtraction is exact): |r| <= 2^-22 |x|, and the product's dropped
  // lo x lo term is as small, so three TF32 products carry an error of the
  // order of f32's own (2^-24) where one TF32 product's is 2^-11.
  int64_t v = copyWidth(x);
  bool contiguous = x.fastIsMN == x.sharedFastIsMN;
  auto splitAt = [&](OpBuilder &b, ArrayRef<Value> at, Type type) {
    Value value;
    if (auto vec = dyn_cast<VectorType>(type))
      value = vector::LoadOp::create(b, loc, vec, x.shared, at);
    else
      value = memref::LoadOp::create(b, loc, x.shared, at);
    auto [hi, lo] = splitHighLow(b, loc, value);
    if (isa<VectorType>(type)) {
      vector::StoreOp::create(b, loc, hi, x.shared, at);
      vector::StoreOp::create(b, loc, lo, x.low, at);
      return;
    }
    memref::StoreOp::create(b, loc, hi, x.shared, at);
    memref::StoreOp::create(b, loc, lo, x.low, at);
  };
  Type element = getElementTypeOrSelf(x.shared.getType());
  forEachPiece(b, x, [&](OpBuilder &b, Value mn, Value k) {
    // A 16-byte piece lies whole in one swizzled piece of the tile; a piece
    // copied transposed is one element.
    if (contiguous && v > 1) {
      Value at[] = {stage, swizzledOffset(b, x, mn, k)};
      splitAt(b, at, VectorType::get({v}, element));
      return;
    }
    for (int64_t e = 0; e < v; ++e) {
      Value off = constIndex(b, loc, e);
      Value mnAt = x.fastIsMN ? arith::AddIOp::create(b, loc, mn, off) : mn;
      Value kAt = x.fastIsMN ? k : arith::AddIOp::create(b, loc, k, off);
      Value at[] = {stage, swizzledOffset(b, x, mnAt, kAt)};
      splitAt(b, at, element);
    }
  });
}

void GemmBuilder::forEachStagedColumn(
    OpBuilder &b, const Operand &x,
    function_ref<void(OpBuilder &, Value, Value, int64_t, Value)> body) {
  // Column c is M/N position c % tileMN and K rows 4 (c / tileMN) ...: a
  // warp's lanes read consecutive words of a staging row (no bank
  // conflict) and write 16-byte pieces of eight consecutive K-major rows,
  // which the swizzle spreads over all banks.
  int64_t v = copyWidth(x);
  int64_t columns = x.tileMN * plan.bk / v;
  int64_t nt = plan.numThreads();
  for (int64_t round = 0; round * nt < columns; ++round) {
    Value column =
        arith::AddIOp::create(b, loc, tid, constIndex(b, loc, round * nt));
    Value mn =
        arith::RemUIOp::create(b, loc, column, constIndex(b, loc, x.tileMN));
    Value k = arith::MulIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc, column, constIndex(b, loc, x.tileMN)),
        constIndex(b, loc, v));
    Value has;
    if ((round + 1) * nt > columns)
      has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                                  constIndex(b, loc, columns));
    body(b, mn, k, round, has);
  }
}

SmallVector<Value> GemmBuilder::readStaged(OpBuilder &b, const Operand &x,
                                           Value stage) {
  int64_t v = copyWidth(x);
  auto type = VectorType::get({v}, getElementTypeOrSelf(x.low.getType()));
  SmallVector<Value> columns;
  forEachStagedColumn(
      b, x, [&](OpBuilder &b, Value mn, Value k, int64_t, Value has) {
        auto load = [&](OpBuilder &b) -> Value {
          SmallVector<Value> values;
          for (int64_t e = 0; e < v; ++e) {
            Value row = arith::AddIOp::create(b, loc, k, constIndex(b, loc, e));
            Value at = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, row,
                                      constIndex(b, loc, x.tileMN)),
                mn);
            values.push_back(
                memref::LoadOp::create(b, loc, x.low, ValueRange{stage, at}));
          }
          return vector::FromElementsOp::create(b, loc, type, values);
        };
        if (!has) {
          columns.push_back(load(b));
          return;
        }
        auto guarded = scf::IfOp::create(
            b, loc, has,
            [&](OpBuilder &ib, Location) {
              scf::YieldOp::create(ib, loc, load(ib));
            },
            [&](OpBuilder &ib, Location) {
              Value zero = arith::ConstantOp::create(
                  ib, loc, cast<TypedAttr>(ib.getZeroAttr(type)));
              scf::YieldOp::create(ib, loc, zero);
            });
        columns.push_back(guarded.getResult(0));
      });
  return columns;
}

void GemmBuilder::writeStaged(OpBuilder &b, const Operand &x, Value stage,
                              ArrayRef<Value> columns) {
  forEachStagedColumn(
      b, x, [&](OpBuilder &b, Value mn, Value k, int64_t round, Value has) {
        auto store = [&](OpBuilder &b) {
          auto [hi, lo] = splitHighLow(b, loc, columns[round]);
          // 16-byte stores: a piece of 4 K values is 16-byte aligned.
          Value at[] = {stage, swizzledOffset(b, x, mn, k)};
          vector::StoreOp::create(b, loc, hi, x.shared, at)
              .setAlignment(4 * x.bytes);
          vector::StoreOp::create(b, loc, lo, x.low, at)
              .setAlignment(4 * x.bytes);
        };
        if (!has) {
          store(b);
          return;
        }
        scf::IfOp::create(b, loc, has, [&](OpBuilder &ib, Location) {
          store(ib);
          scf::YieldOp::create(ib, loc);
        });
      });
}

Value GemmBuilder::buildDescriptor(OpBuilder &b, const Operand &x,
                                   Value address) {
  // PTX ISA, "Matrix Descriptor Format": start address >> 4 in bits 0-13,
  // leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45,
  // swizzle mode in 62-63 (1: 128 bytes). K-major swizzled tiles step by
  // 8 rows (1024 bytes) along M/N and ignore the leading offset; M/N-major
  // ones step by 8 rows along K, and by a column (BK rows) every 64
  // elements of M/N.
  int64_t leading = x.sharedFastIsMN ? plan.bk * 128 : 16;
  int64_t stride = 8 * 128;
  uint64_t fixed = (uint64_t(leading >> 4) << 16) |
                   (uint64_t(stride >> 4) << 32) | (uint64_t(1) << 62);
  // The warpgroup's piece: rows of a K-major tile, columns of an M/N-major
  // one (its warp tile is a multiple of 64, checkLowerable).
  Value mn0 =
      x.which == plan.loops.lhs
          ? arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.tm))
          : arith::MulIOp::create(b, loc, ty, constIndex(b, loc, plan.tn));
  Value piece = arith::MulIOp::create(
      b, loc, mn0,
      constIndex(b, loc, x.sharedFastIsMN ? plan.bk * x.bytes : 128));
  Value start = arith::AddIOp::create(b, loc, address, piece);
  Type i64 = b.getI64Type();
  Value start64 = arith::IndexCastUIOp::create(b, loc, i64, start);
  Value field = arith::ShRUIOp::create(
      b, loc, start64, arith::ConstantIntOp::create(b, loc, 4, 64));
  return arith::OrIOp::create(
      b, loc, field,
      arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(fixed), 64));
}

SmallVector<Value> GemmBuilder::computeWgmma(OpBuilder &b, Value stage,
                                             ValueRange accs, bool drain) {
  MLIRContext *ctx = b.getContext();
  const Operand &lhs = operands[0], &rhs = operands[1];
  Type element = getElementTypeOrSelf(lhs.shared.getType());
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value stage64 = arith::IndexCastUIOp::create(b, loc, i64, stage);
  // The descriptor of `x` at this stage, `offset` bytes into its tile.
  // (`low`: of its tiles of low parts, with splitTf32.)
  auto descriptorAt = [&](const Operand &x, int64_t offset,
                          bool low = false) -> Value {
    Value stageField = arith::MulIOp::create(
        b, loc, stage64,
        arith::ConstantIntOp::create(b, loc, x.stageBytes >> 4, 64));
    Value field = arith::AddIOp::create(
        b, loc, stageField,
        arith::ConstantIntOp::create(b, loc, offset >> 4, 64));
    return arith::AddIOp::create(b, loc, low ? x.lowDescriptor : x.descriptor,
                                 field);
  };
  // Bytes from the start of the warpgroup's piece to (mn, ks).
  auto offsetOf = [&](const Operand &x, int64_t mn, int64_t ks) -> int64_t {
    int64_t rowElems = 128 / x.bytes;
    if (x.sharedFastIsMN)
      return mn * plan.bk * x.bytes + ks * 128;
    return (ks / rowElems) * x.tileMN * 128 + mn * 128 +
           (ks % rowElems) * x.bytes;
  };
  int64_t perInstr = plan.tn / 2;
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perInstr, f32));
  // f32 tiles are read as TF32 (the module allows it, or they were split:
  // checkLowerable).
  NVVM::WGMMATypes type = element.isBF16()  ? NVVM::WGMMATypes::bf16
                          : element.isF32() ? NVVM::WGMMATypes::tf32
                                            : NVVM::WGMMATypes::f16;
  // Each instruction consumes 32 bytes of K: 16 16-bit elements or 8 TF32.
  int64_t instrK = 32 / lhs.bytes;
  // A is "row" (K-major) unless stored M-contiguous; B is "col" (K-major)
  // unless stored N-contiguous: wgmma transposes 16-bit tiles as it reads
  // (TF32 tiles are stored K-major).
  auto layoutA =
      lhs.sharedFastIsMN ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto layoutB =
      rhs.sharedFastIsMN ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  // Split products: tensor cores truncate as they accumulate, an error
  // biased toward zero that grows with K along a long sum of one sign
  // (docs/pipeline.md, "Split TF32 products"). Each K
  // tile's sum starts from zero instead (scale-d = 0) and is added to the
  // accumulators with rounding f32 adds: the tiles' sums take both signs,
  // so their truncations cancel rather than add up.
  bool perTile = plan.splitTf32;
  SmallVector<Value> values(accs);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < plan.bk; ks += instrK) {
    Value descB = descriptorAt(rhs, offsetOf(rhs, 0, ks));
    Value lowB;
    if (plan.splitTf32)
      lowB = descriptorAt(rhs, offsetOf(rhs, 0, ks), /*low=*/true);
    for (int64_t mi = 0; mi < plan.tm / 64; ++mi) {
      Value descA = descriptorAt(lhs, offsetOf(lhs, mi * 64, ks));
      Value packed = LLVM::PoisonOp::create(b, loc, structType);
      bool fromZero = perTile && ks == 0;
      if (!fromZero)
        for (int64_t e = 0; e < perInstr; ++e)
          packed = LLVM::InsertValueOp::create(b, loc, packed,
                                               values[mi * perInstr + e], e);
      // The products of low parts first, then the high parts' (their sum
      // is the largest term).
      SmallVector<std::pair<Value, Value>, 3> terms;
      if (plan.splitTf32) {
        Value lowA =
            descriptorAt(lhs, offsetOf(lhs, mi * 64, ks), /*low=*/true);
        terms = {{lowA, descB}, {descA, lowB}};
      }
      terms.push_back({descA, descB});
      for (auto [t, term] : llvm::enumerate(terms)) {
        auto [termA, termB] = term;
        auto scaleOut = fromZero && t == 0 ? NVVM::WGMMAScaleOut::zero
                                           : NVVM::WGMMAScaleOut::one;
        packed = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, structType, packed, termA, termB,
            NVVM::MMAShapeAttr::get(ctx, 64, plan.tn, instrK),
            NVVM::WGMMATypesAttr::get(ctx, type),
            NVVM::WGMMATypesAttr::get(ctx, type),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, scaleOut),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, layoutA),
            NVVM::MMALayoutAttr::get(ctx, layoutB), NVVM::MMAIntOverflowAttr());
      }
      for (int64_t e = 0; e < perInstr; ++e)
        values[mi * perInstr + e] =
            LLVM::ExtractValueOp::create(b, loc, packed, e).getResult();
    }
  }
  // A stage is refilled once the products that read it complete: with
  // cp.async, after a barrier that every warpgroup passes once it waited
  // for them (with four or more stages the latest group stays in flight
  // across it and the refill skips a stage, buildMainLoop); with TMA, after
  // the next K step's wait frees it.
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, wgmmaInFlight() && !drain ? 1 : 0);
  if (perTile)
    for (auto [acc, tileSum] : llvm::zip(accs, values))
      tileSum = arith::AddFOp::create(b, loc, acc, tileSum);
  return values;
}
