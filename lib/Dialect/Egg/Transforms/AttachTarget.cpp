//===- AttachTarget.cpp - Attach a hardware profile -----------------------===//

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Target/Profiles.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGATTACHTARGET
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
struct AttachTargetPass
    : public egg::impl::EggAttachTargetBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (allowTf32)
      module->setAttr(EggDialect::getAllowTf32AttrName(),
                      UnitAttr::get(&getContext()));
    if (!splitK)
      module->setAttr(EggDialect::getNoSplitKAttrName(),
                      UnitAttr::get(&getContext()));
    if (!overrideExisting && lookupTarget(module))
      return;
    TargetAttr target = getBuiltinTarget(&getContext(), chip);
    if (!target) {
      module.emitError() << "unknown chip '" << chip << "'; known chips: "
                         << llvm::join(getBuiltinTargetChips(), ", ");
      return signalPassFailure();
    }
    module->setAttr(EggDialect::getTargetAttrName(), target);
  }
};
} // namespace
