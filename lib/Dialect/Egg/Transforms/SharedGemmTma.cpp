//===- SharedGemmTma.cpp - Shared-memory GEMM: TMA and barriers -----------===//

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

LogicalResult GemmBuilder::createTensorMap(OpBuilder &b, Operand &x) {
  // The block's view is a unit-stride subview of a buffer defined outside
  // the launch, or of its expand_shape (checkLowerable: 2-D products, or
  // batches that reshape a 2-D buffer); the tensor map covers that whole
  // buffer and the boxes are placed at the view's offsets.
  Value base = x.global;
  if (auto view = base.getDefiningOp<memref::SubViewOp>()) {
    if (!llvm::all_of(view.getMixedStrides(), [](OpFoldResult st) {
          return getConstantIntValue(st) == 1;
        }))
      return gemm.emitOpError("copy = tma: input ")
             << x.which << " is a strided view";
    x.viewOffsets = view.getMixedOffsets();
    base = view.getSource();
  } else {
    x.viewOffsets.assign(cast<MemRefType>(base.getType()).getRank(),
                         b.getIndexAttr(0));
  }
  auto expand = base.getDefiningOp<memref::ExpandShapeOp>();
  if (expand && expand.getSrcType().getRank() == 2 &&
      expand.getResultType().getRank() > 2) {
    if (!expand.getResultType().hasStaticShape())
      return gemm.emitOpError("copy = tma: input ")
             << x.which << " reshapes its buffer to a dynamic shape";
    x.expandGroups = expand.getReassociationIndices();
    x.expandedShape = llvm::to_vector(expand.getResultType().getShape());
    base = expand.getSrc();
  }
  auto type = dyn_cast<MemRefType>(base.getType());
  if (!type || type.getRank() != 2 || !type.getLayout().isIdentity() ||
      launch->isAncestor(base.getParentBlock()->getParentOp()))
    return gemm.emitOpError("copy = tma: input ")
           << x.which
           << " is not a view of a whole 2-D buffer defined outside the "
              "launch";
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch);
  MLIRContext *ctx = b.getContext();
  int64_t rows = x.fastIsMN ? plan.bk : x.tileMN;
  if (multicasts(x))
    rows /= plan.cluster;
  int64_t along = 128 / x.bytes;
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto box = MemRefType::get({rows, along}, type.getElementType(),
                             MemRefLayoutAttrInterface(), space);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), Attribute()),
      base);
  // The launch captures the map; the outlined kernel receives a pointer to
  // it in device memory (egg-lower-tensor-map-args).
  x.tensorMap = nvgpu::TmaCreateDescriptorOp::create(
      b, loc, mapType, unranked,
      ValueRange{constIndex(b, loc, rows), constIndex(b, loc, along)});
  return success();
}

void GemmBuilder::issueTmaCopies(OpBuilder &b, Value kt, Value stage) {
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  int64_t total = 0;
  for (const Operand &x : operands)
    total += x.stageBytes;
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, fullBarriers, c(total), stage,
                                          Value());
  Value kBase = arith::MulIOp::create(b, loc, kt, c(plan.bk));
  for (const Operand &x : operands) {
    AffineMap map =
        gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(x.which));
    // A box is one swizzled column of the stage: [rows, along].
    MemRefType boxType =
        cast<nvgpu::TensorMapDescriptorType>(x.tensorMap.getType()).getTensor();
    int64_t rows = boxType.getDimSize(0), along = boxType.getDimSize(1);
    // A multicast operand (K-major: checkLowerable) copies this block's
    // 1/cluster of each column's rows to every block of the cluster.
    bool multicast = multicasts(x);
    int64_t columnRows = multicast ? x.tileMN : rows;
    int64_t columns = x.tileMN * plan.bk / (columnRows * along);
    Value mask, rowStart = c(0), rowBytes = c(0);
    if (multicast) {
      mask = arith::ConstantIntOp::create(b, loc, (1 << plan.cluster) - 1, 16);
      rowStart = arith::MulIOp::create(b, loc, clusterRank, c(rows));
      rowBytes = arith::MulIOp::create(b, loc, rowStart, c(128));
    }
    Value stageStart = arith::AddIOp::create(
        b, loc, x.tileStart,
        arith::MulIOp::create(b, loc, stage, c(x.stageBytes)));
    for (int64_t col = 0; col < columns; ++col) {
      // The column's first element, in the product's loops, then in the
      // operand's (global) indices.
      SmallVector<Value> loopIdx(gemm.getNumLoops(), c(0));
      Value mn = x.fastIsMN ? c(col * along) : rowStart;
      Value k = x.fastIsMN
                    ? kBase
                    : arith::AddIOp::create(b, loc, kBase, c(col * along))
                          .getResult();
      loopIdx[x.mnLoops.back()] = mn;
      loopIdx[plan.loops.innerK()] = k;
      SmallVector<Value> at = applyMap(b, loc, map, loopIdx);
      SmallVector<Value> coords;
      for (auto [i, offset] : llvm::enumerate(x.viewOffsets))
        coords.push_back(arith::AddIOp::create(
            b, loc, at[i], getValueOrCreateConstantIndexOp(b, loc, offset)));
      // Through an expand_shape, each group's indices number one of the
      // buffer's row-major (a box stays within the group's inner index:
      // checkLowerable).
      if (!x.expandGroups.empty()) {
        SmallVector<Value> linear;
        for (const ReassociationIndices &group : x.expandGroups) {
          Value index = coords[group.front()];
          for (int64_t dim : ArrayRef(group).drop_front())
            index = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, index, c(x.expandedShape[dim])),
                coords[dim]);
          linear.push_back(index);
        }
        coords = std::move(linear);
      }
      std::reverse(coords.begin(), coords.end()); // Innermost first.
      Value dst = memref::ViewOp::create(
          b, loc, boxType, sharedBytes,
          arith::AddIOp::create(b, loc, stageStart,
                                arith::AddIOp::create(b, loc,
                                                      c(col * columnRows * 128),
                                                      rowBytes)),
          ValueRange{});
      nvgpu::TmaAsyncLoadOp::create(b, loc, dst, fullBarriers, x.tensorMap,
                                    coords, stage, mask, Value());
    }
  }
}

void GemmBuilder::arriveOnPeer(OpBuilder &b, Value stage) {
  MLIRContext *ctx = b.getContext();
  Value mine = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                            emptyBarriers, stage);
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      mine);
  // Clusters of two: the peer is the other rank.
  Value peer = arith::XOrIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, b.getI32Type(), clusterRank),
      arith::ConstantIntOp::create(b, loc, 1, 32));
  Value theirs = NVVM::MapaOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
      pointer, peer);
  // The default `.release.cta` semantics (as CUTLASS's cluster barriers):
  // this block's products that read the stage completed (the wgmma wait)
  // before the arrival. `.release.cluster` made every K step of 1024 x
  // 1024 x 8192 3.1x slower on the H200 (docs/pipeline.md, "TMA
  // multicast").
  NVVM::MBarrierArriveOp::create(b, loc, Type(), theirs, Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

Value GemmBuilder::fillParity(OpBuilder &b, Value kt, int64_t flip) {
  Value fill =
      arith::DivUIOp::create(b, loc, kt, constIndex(b, loc, plan.stages));
  if (flip)
    fill = arith::AddIOp::create(b, loc, fill, constIndex(b, loc, flip));
  return arith::TruncIOp::create(
      b, loc, b.getI1Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), fill));
}

std::optional<std::pair<int64_t, int64_t>> GemmBuilder::registerSplit() const {
  // Asking for more than the block owns would wait forever
  // (gemmRegisterBudget).
  GemmRegisterBudget budget =
      gemmRegisterBudget(plan.numThreads(), /*producer=*/plan.tma);
  if (!budget.split)
    return std::nullopt;
  return std::make_pair(budget.producerRegisters, budget.computing);
}

void GemmBuilder::buildProducer(OpBuilder &b) {
  // The producer warpgroup gives registers back (all its threads at once),
  // then its first thread copies; the others have nothing to do.
  Value inProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warpTid(b),
                            constIndex(b, loc, plan.numThreads()));
  scf::IfOp::create(b, loc, inProducer, [&](OpBuilder &pb, Location) {
    if (auto split = registerSplit())
      NVVM::SetMaxRegisterOp::create(pb, loc, split->first,
                                     NVVM::SetMaxRegisterAction::decrease);
    Value isFirst = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tx,
                                          constIndex(pb, loc, 0));
    scf::IfOp::create(pb, loc, isFirst, [&](OpBuilder &ib, Location) {
      scf::ForOp::create(ib, loc, constIndex(ib, loc, 0),
                         constIndex(ib, loc, numK), constIndex(ib, loc, 1),
                         ValueRange{},
                         [&](OpBuilder &nb, Location, Value kt, ValueRange) {
                           // Fill f of a stage waits for the consumers to free
                           // fill f - 1: phase f - 1 of its "empty" mbarrier,
                           // whose parity (f + 1) % 2 reads as complete before
                           // the first phase (f = 0) ends.
                           Value stage = arith::RemUIOp::create(
                               nb, loc, kt, constIndex(nb, loc, plan.stages));
                           nvgpu::MBarrierTryWaitParityOp::create(
                               nb, loc, emptyBarriers, fillParity(nb, kt, 1),
                               constIndex(nb, loc, 10000000), stage);
                           issueTmaCopies(nb, kt, stage);
                           scf::YieldOp::create(nb, loc);
                         });
      scf::YieldOp::create(ib, loc);
    });
    scf::YieldOp::create(pb, loc);
  });
}
