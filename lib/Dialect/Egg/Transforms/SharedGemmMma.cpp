//===- SharedGemmMma.cpp - Shared-memory GEMM: mma.sync -------------------===//

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

/// Four 8x8 matrices of `x` through one ldmatrix: for A the 16x16 piece at
/// (mn0, k0) in the order of mma's A fragment; for B the 16 (N) x 16 (K)
/// piece as two B fragments (N 0-7, then 8-15). Lane l points at row l % 8
/// of matrix l / 8.
Value GemmBuilder::loadMatrices(OpBuilder &b, const Operand &x, Value stage,
                                Value mn0, Value k0, bool isA) {
  // A: matrices (mn, k) = (0,0), (8,0), (0,8), (8,8); B: (0,0), (0,8),
  // (8,0), (8,8).
  Value mn = arith::AddIOp::create(b, loc, mn0,
                                   isA ? lane.lowOffset : lane.highOffset);
  Value k =
      arith::AddIOp::create(b, loc, k0, isA ? lane.highOffset : lane.lowOffset);
  SmallVector<Value> at;
  if (x.sharedFastIsMN)
    at = {stage, arith::AddIOp::create(b, loc, k, lane.row), mn};
  else
    at = {stage, arith::AddIOp::create(b, loc, mn, lane.row), k};
  Type element = getElementTypeOrSelf(x.shared.getType());
  return nvgpu::LdMatrixOp::create(b, loc, VectorType::get({4, 2}, element),
                                   x.shared, at,
                                   /*transpose=*/x.sharedFastIsMN,
                                   /*numTiles=*/4);
}

SmallVector<Value> GemmBuilder::computeMma(OpBuilder &b, Value stage,
                                           ValueRange accs) {
  Type element = getElementTypeOrSelf(operands[0].shared.getType());
  bool bf16 = element.isBF16();
  // mma.sync takes f16 pairs as vector<2xf16> and bf16 pairs as i32.
  auto registers = [&](Value matrices, int64_t first, int64_t count) {
    SmallVector<Value> regs;
    for (int64_t r = first; r < first + count; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, matrices, r);
      if (bf16) {
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), pair);
        pair = vector::ExtractOp::create(b, loc, word, 0);
      }
      regs.push_back(pair);
    }
    return regs;
  };
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  Type result = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  NVVM::MMATypes type = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value mBase = arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.tm));
  Value nBase = arith::MulIOp::create(b, loc, ty, constIndex(b, loc, plan.tn));
  int64_t fragsM = plan.tm / 16, fragsN = plan.tn / 8;
  SmallVector<Value> values(accs);
  for (int64_t ks = 0; ks < plan.bk; ks += 16) {
    Value k0 = constIndex(b, loc, ks);
    SmallVector<SmallVector<Value>> a, bv;
    for (int64_t mi = 0; mi < fragsM; ++mi) {
      Value m0 =
          arith::AddIOp::create(b, loc, mBase, constIndex(b, loc, mi * 16));
      a.push_back(
          registers(loadMatrices(b, operands[0], stage, m0, k0, true), 0, 4));
    }
    for (int64_t np = 0; np < fragsN / 2; ++np) {
      Value n0 =
          arith::AddIOp::create(b, loc, nBase, constIndex(b, loc, np * 16));
      Value matrices = loadMatrices(b, operands[1], stage, n0, k0, false);
      bv.push_back(registers(matrices, 0, 2));
      bv.push_back(registers(matrices, 2, 2));
    }
    for (int64_t mi = 0; mi < fragsM; ++mi) {
      for (int64_t ni = 0; ni < fragsN; ++ni) {
        int64_t first = (mi * fragsN + ni) * 4;
        auto mma = NVVM::MmaOp::create(
            b, loc, result, a[mi], bv[ni],
            ArrayRef<Value>(values).slice(first, 4), {16, 8, 16}, std::nullopt,
            std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          values[first + r] =
              LLVM::ExtractValueOp::create(b, loc, mma, r).getResult();
      }
    }
  }
  return values;
}
