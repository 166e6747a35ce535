//===- MapToGPU.cpp - Block/thread loops to gpu.launch --------------------===//
//
// The mapping itself is upstream's (transform.gpu.map_forall_to_blocks and
// map_nested_forall_to_threads); this pass only writes the small transform
// script that applies them to every kernel function with the block size its
// tuning gives, and runs it through the transform interpreter.
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "egg/Target/Limits.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGMAPTOGPU
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// The grid of a kernel whose block loop takes linear dimensions (more than
/// three loops, egg-apply-schedule): all its blocks on x, as upstream's
/// mapping needs them stated. Empty for a 3-D block loop, whose grid the
/// mapping derives itself.
static std::string linearGrid(func::FuncOp func) {
  std::optional<int64_t> blocks;
  func.walk([&](scf::ForallOp forall) {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (!mapping || mapping->empty())
      return;
    auto block = dyn_cast<gpu::GPUBlockMappingAttr>((*mapping)[0]);
    if (!block || !block.isLinearMapping())
      return;
    int64_t n = 1;
    for (OpFoldResult bound : forall.getMixedUpperBound())
      n *= getConstantIntValue(bound).value_or(0);
    blocks = n;
  });
  if (!blocks)
    return "";
  return llvm::formatv(" grid_dims = [{0}, 1, 1]", *blocks).str();
}

namespace {
/// Constant bounds of an index value; kUnbounded stands for no bound.
struct IndexRange {
  int64_t lo, hi;
};
} // namespace

static constexpr int64_t kUnbounded = int64_t(1) << 62;

static IndexRange clampedRange(__int128 lo, __int128 hi) {
  auto clamp = [](__int128 v) {
    return static_cast<int64_t>(
        std::clamp<__int128>(v, -__int128(kUnbounded), __int128(kUnbounded)));
  };
  return {clamp(lo), clamp(hi)};
}

static std::optional<IndexRange> indexRange(Value value, unsigned depth = 0);

/// Interval arithmetic over an affine expression (semi-affine products
/// included, which the upstream bound helpers refuse).
static std::optional<IndexRange>
exprRange(AffineExpr expr, ArrayRef<std::optional<IndexRange>> dims,
          ArrayRef<std::optional<IndexRange>> symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return IndexRange{c.getValue(), c.getValue()};
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[s.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<IndexRange> l = exprRange(binary.getLHS(), dims, symbols);
  std::optional<IndexRange> r = exprRange(binary.getRHS(), dims, symbols);
  if (!l || !r)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return clampedRange(__int128(l->lo) + r->lo, __int128(l->hi) + r->hi);
  case AffineExprKind::Mul: {
    __int128 corners[] = {__int128(l->lo) * r->lo, __int128(l->lo) * r->hi,
                          __int128(l->hi) * r->lo, __int128(l->hi) * r->hi};
    return clampedRange(
        *std::min_element(std::begin(corners), std::end(corners)),
        *std::max_element(std::begin(corners), std::end(corners)));
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    if (r->lo != r->hi || r->lo <= 0)
      return std::nullopt;
    bool ceil = expr.getKind() == AffineExprKind::CeilDiv;
    auto divide = [&](int64_t v) {
      return ceil ? llvm::divideCeilSigned(v, r->lo)
                  : llvm::divideFloorSigned(v, r->lo);
    };
    return IndexRange{divide(l->lo), divide(l->hi)};
  }
  case AffineExprKind::Mod:
    if (r->lo != r->hi || r->lo <= 0)
      return std::nullopt;
    return IndexRange{0, r->lo - 1};
  default:
    return std::nullopt;
  }
}

/// Constant bounds of an index computed from constants, GPU ids and affine
/// ops: a partial tile's clipped size is bounded by its tile.
static std::optional<IndexRange> indexRange(Value value, unsigned depth) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return IndexRange{*c, *c};
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return std::nullopt;
  if (isa<gpu::ThreadIdOp>(op))
    return IndexRange{0, kMaxThreadsPerBlock - 1};
  if (isa<gpu::BlockIdOp>(op))
    return IndexRange{0, kMaxGridDims[0] - 1};
  AffineMap map;
  ValueRange operands;
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op))
    std::tie(map, operands) =
        std::make_pair(apply.getMap(), apply.getOperands());
  else if (auto min = dyn_cast<affine::AffineMinOp>(op))
    std::tie(map, operands) = std::make_pair(min.getMap(), min.getOperands());
  else if (auto max = dyn_cast<affine::AffineMaxOp>(op))
    std::tie(map, operands) = std::make_pair(max.getMap(), max.getOperands());
  else
    return std::nullopt;
  SmallVector<std::optional<IndexRange>> ranges = llvm::map_to_vector(
      operands, [&](Value v) { return indexRange(v, depth + 1); });
  ArrayRef<std::optional<IndexRange>> all = ranges;
  std::optional<IndexRange> result;
  bool isMin = isa<affine::AffineMinOp>(op);
  for (AffineExpr expr : map.getResults()) {
    std::optional<IndexRange> r =
        exprRange(expr, all.take_front(map.getNumDims()),
                  all.drop_front(map.getNumDims()));
    // An unknown result of a min (max) leaves its upper (lower) bound to
    // the others.
    if (!r)
      r = IndexRange{-kUnbounded, kUnbounded};
    if (!result)
      result = r;
    else if (isMin)
      result =
          IndexRange{std::min(result->lo, r->lo), std::min(result->hi, r->hi)};
    else
      result =
          IndexRange{std::max(result->lo, r->lo), std::max(result->hi, r->hi)};
  }
  return result;
}

namespace {
struct MapToGPUPass : public egg::impl::EggMapToGPUBase<MapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string script;
    llvm::raw_string_ostream os(script);
    os << "module attributes {transform.with_named_sequence} {\n"
          "transform.named_sequence @__transform_main(%root: "
          "!transform.any_op {transform.readonly}) {\n";
    unsigned n = 0;
    SmallVector<Location> kernelLocs;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto tuning =
          func->getAttrOfType<TuningAttr>(EggDialect::getTuningAttrName());
      if (!tuning)
        continue;
      SmallVector<int64_t> dims = llvm::to_vector(tuning.getThreads());
      dims.resize(3, 1);
      os << llvm::formatv(
          "%f{0} = transform.structured.match ops{{[\"func.func\"]} "
          "attributes {{sym_name = \"{1}\"} in %root : (!transform.any_op) -> "
          "!transform.any_op\n"
          "%l{0} = transform.gpu.map_forall_to_blocks %f{0} "
          "generate_gpu_launch{5} : (!transform.any_op) -> "
          "!transform.any_op\n"
          "%t{0} = transform.gpu.map_nested_forall_to_threads %l{0} "
          "block_dims = [{2}, {3}, {4}] sync_after_distribute = false : "
          "(!transform.any_op) -> !transform.any_op\n",
          n++, func.getSymName(), dims[0], dims[1], dims[2], linearGrid(func));
      kernelLocs.push_back(func.getLoc());
    }
    os << "transform.yield\n}\n}\n";
    if (n == 0)
      return;

    OwningOpRef<ModuleOp> transforms =
        parseSourceString<ModuleOp>(script, &getContext());
    if (!transforms) {
      module.emitError("egg-map-to-gpu built an invalid transform script:\n")
          << script;
      return signalPassFailure();
    }
    Operation *entry = nullptr;
    transforms->walk([&](transform::NamedSequenceOp seq) { entry = seq; });
    // The script's diagnostics belong to the kernels it maps (the user's
    // input), not to the script's own text: its three ops per kernel take
    // that kernel's location.
    unsigned i = 0;
    for (Operation &op :
         cast<transform::NamedSequenceOp>(entry).getBody().front())
      if (!isa<transform::YieldOp>(op) && i / 3 < kernelLocs.size())
        op.setLoc(kernelLocs[i++ / 3]);
    if (failed(transform::applyTransformNamedSequence(
            module, entry, *transforms, transform::TransformOptions())))
      return signalPassFailure();

    // Copies inside kernels (bufferized pads, per-thread temporaries) become
    // loops: memref.copy would lower to a call of the host-only memrefCopy.
    SmallVector<memref::CopyOp> copies;
    module.walk([&](gpu::LaunchOp launch) {
      launch.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }

    // Vector transfers of the per-thread tiles: drop unit dimensions, then
    // lower to vector.load/store. Their addresses are multiples of the
    // vector width (whole tiles, checkLowerable) from 256-byte aligned
    // allocations, so they carry that alignment: the PTX then uses 16-byte
    // ld/st.v4 instead of scalar accesses.
    RewritePatternSet vectorPatterns(&getContext());
    vector::populateCastAwayVectorLeadingOneDimPatterns(vectorPatterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(
        vectorPatterns);
    vector::populateVectorTransferLoweringPatterns(vectorPatterns,
                                                   /*maxTransferRank=*/1);
    FrozenRewritePatternSet frozen(std::move(vectorPatterns));
    for (auto func : module.getOps<func::FuncOp>()) {
      auto tuning =
          func->getAttrOfType<TuningAttr>(EggDialect::getTuningAttrName());
      if (!tuning || tuning.getVector() == 1)
        continue;
      if (failed(applyPatternsGreedily(func, frozen))) {
        func.emitError("could not lower the vector transfers");
        return signalPassFailure();
      }
      auto align = [&](auto op, MemRefType type) {
        int64_t bytes =
            tuning.getVector() * ((type.getElementTypeBitWidth() + 7) / 8);
        if (op.getVectorType().getNumElements() == tuning.getVector())
          op.setAlignment(bytes);
      };
      func.walk([&](vector::LoadOp op) { align(op, op.getMemRefType()); });
      func.walk([&](vector::StoreOp op) { align(op, op.getMemRefType()); });
    }

    // Allocations inside a kernel are per-thread temporaries: the stack, or
    // a clear error (a device-side malloc would leak on every launch).
    // Block ops kept whole keep their block-sized result temporaries: the
    // lowerings after this pass replace them by registers.
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](gpu::LaunchOp launch) {
      auto func = launch->getParentOfType<func::FuncOp>();
      if (lowersBlockOpsWhole(
              func->getAttrOfType<StructureAttr>(
                  EggDialect::getStructureAttrName()),
              func->getAttrOfType<TuningAttr>(EggDialect::getTuningAttrName())))
        return;
      launch.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      // A thread's tile of a partial block tile has a clipped, dynamic size
      // with a constant bound (the thread tile): the buffer takes the
      // bound, and its users a view of the clipped size.
      SmallVector<int64_t> bounded = llvm::to_vector(type.getShape());
      bool bound = true;
      for (auto [dim, size] : llvm::enumerate(alloc.getMixedSizes())) {
        auto dynamic = dyn_cast<Value>(size);
        if (!dynamic)
          continue;
        std::optional<IndexRange> range = indexRange(dynamic);
        bound &= range && range->hi < kUnbounded && range->hi >= 0;
        if (range)
          bounded[dim] = std::max<int64_t>(range->hi, 0);
      }
      MemRefType staticType = type.clone(bounded);
      int64_t bytes = bound ? staticType.getNumElements() *
                                  ((type.getElementTypeBitWidth() + 7) / 8)
                            : -1;
      if (bytes < 0 || bytes > maxPrivateBytes) {
        alloc.emitError("a kernel needs a per-thread buffer of type ")
            << type << " (" << (bytes < 0 ? "unbounded size" : "too large")
            << ", limit " << maxPrivateBytes.getValue()
            << " bytes): choose smaller thread tiles";
        return signalPassFailure();
      }
      OpBuilder b(alloc);
      Location loc = alloc.getLoc();
      Value buffer = memref::AllocaOp::create(b, loc, staticType,
                                              alloc.getAlignmentAttr());
      if (!type.hasStaticShape()) {
        SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
            strides(type.getRank(), b.getIndexAttr(1)),
            sizes = alloc.getMixedSizes();
        Value view =
            memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
        buffer = memref::CastOp::create(b, loc, type, view);
      }
      alloc.replaceAllUsesWith(buffer);
      alloc.erase();
    }
    // Their deallocations (if any) go with them.
    module.walk([&](gpu::LaunchOp launch) {
      launch.walk([&](memref::DeallocOp dealloc) {
        if (dealloc.getMemref().getDefiningOp<memref::AllocaOp>())
          dealloc.erase();
      });
    });
  }
};
} // namespace
