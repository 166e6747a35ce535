//===- MinBlocksPerSM.cpp - Blocks per SM a kernel was sized for ----------===//
//
// ptxas chooses a kernel's registers per thread from `.maxntid` alone
// unless the kernel says how many of its blocks should share an SM
// (`.minnctapersm`, from `nvvm.minctasm` on the function). A lowering that
// frees registers for a second block (rows held partly in shared memory)
// marks its launch; MLIR 22's kernel outlining keeps no attribute of the
// launch, so the mark sits on an op of the body, and is moved to the
// outlined gpu.func here.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGMINBLOCKSPERSM
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
struct MinBlocksPerSMPass
    : public egg::impl::EggMinBlocksPerSMBase<MinBlocksPerSMPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp func) {
      int32_t blocks = 0;
      func.walk([&](Operation *op) {
        if (auto mark = op->getAttrOfType<IntegerAttr>(
                egg::EggDialect::getMinBlocksPerSMAttrName())) {
          blocks = std::max<int32_t>(blocks, int32_t(mark.getInt()));
          op->removeAttr(egg::EggDialect::getMinBlocksPerSMAttrName());
        }
      });
      if (blocks > 1 && func.isKernel() && !func->hasAttr("nvvm.minctasm"))
        func->setAttr(
            "nvvm.minctasm",
            IntegerAttr::get(IntegerType::get(&getContext(), 32), blocks));
    });
  }
};
} // namespace
