//===- ClusterKernels.cpp - Compile-time cluster sizes of kernels ---------===//
//
// A kernel is launched in thread-block clusters where the lowering asked
// for them (`gpu.launch ... clusters`). The runtimes launch kernels without
// a cluster attribute, which forms clusters only for kernels whose size is
// fixed at compile time (PTX `.reqnctapercluster`, from `nvvm.cluster_dim`,
// from the gpu.func's `known_cluster_size`); MLIR 22's kernel outlining
// leaves that attribute unset, so it is set here from the launches.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGCLUSTERKERNELS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
struct ClusterKernelsPass
    : public egg::impl::EggClusterKernelsBase<ClusterKernelsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    WalkResult result = getOperation().walk([&](gpu::LaunchFuncOp launch) {
      if (!launch.hasClusterSize())
        return WalkResult::advance();
      SmallVector<int32_t, 3> size;
      for (Value v : {launch.getClusterSizeX(), launch.getClusterSizeY(),
                      launch.getClusterSizeZ()}) {
        std::optional<int64_t> c = getConstantIntValue(v);
        if (!c) {
          launch.emitOpError("has a cluster size that is not a constant: its "
                             "kernel cannot fix it at compile time");
          return WalkResult::interrupt();
        }
        size.push_back(int32_t(*c));
      }
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return WalkResult::advance();
      auto known = DenseI32ArrayAttr::get(&getContext(), size);
      if (auto set = kernel.getKnownClusterSizeAttr(); set && set != known) {
        launch.emitOpError("launches kernel @")
            << kernel.getName() << " in clusters of another size than before";
        return WalkResult::interrupt();
      }
      kernel.setKnownClusterSizeAttr(known);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
