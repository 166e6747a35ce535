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

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
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
      int64_t bytes = type.hasStaticShape()
                          ? type.getNumElements() *
                                ((type.getElementTypeBitWidth() + 7) / 8)
                          : -1;
      if (bytes < 0 || bytes > maxPrivateBytes) {
        alloc.emitError("a kernel needs a per-thread buffer of type ")
            << type << " (" << (bytes < 0 ? "dynamic size" : "too large")
            << ", limit " << maxPrivateBytes.getValue()
            << " bytes): choose smaller thread tiles";
        return signalPassFailure();
      }
      OpBuilder b(alloc);
      auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), type,
                                             alloc.getAlignmentAttr());
      alloc.replaceAllUsesWith(alloca.getResult());
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
