//===- StripCompileTimes.cpp - Reproducible gpu.binary objects ------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGSTRIPCOMPILETIMES
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
struct StripCompileTimesPass
    : public egg::impl::EggStripCompileTimesBase<StripCompileTimesPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        // Keep every property except timings (such as LLVMIRToISATimeInMs).
        SmallVector<NamedAttribute> kept;
        if (DictionaryAttr props = object.getProperties())
          for (NamedAttribute prop : props)
            if (!prop.getName().getValue().contains("Time"))
              kept.push_back(prop);
        DictionaryAttr props =
            kept.empty() ? DictionaryAttr()
                         : DictionaryAttr::get(binary.getContext(), kept);
        objects.push_back(gpu::ObjectAttr::get(
            binary.getContext(), object.getTarget(), object.getFormat(),
            object.getObject(), props, object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};
} // namespace
