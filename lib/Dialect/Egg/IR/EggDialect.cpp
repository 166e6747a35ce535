//===- EggDialect.cpp - EGG dialect ---------------------------------------===//

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::egg;

#include "egg/Dialect/Egg/IR/EggOpsDialect.cpp.inc"

void EggDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "egg/Dialect/Egg/IR/EggOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult EggDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTargetAttrName()
             << "' must be an #egg.target attribute, got " << attr.getValue();
    return success();
  }
  // The decisions, carried onto the function a kernel is outlined into.
  if (attr.getName() == getStructureAttrName()) {
    if (!isa<StructureAttr>(attr.getValue()))
      return op->emitError() << "'" << getStructureAttrName()
                             << "' must be an #egg.structure attribute";
    return success();
  }
  if (attr.getName() == getTuningAttrName()) {
    if (!isa<TuningAttr>(attr.getValue()))
      return op->emitError() << "'" << getTuningAttrName()
                             << "' must be an #egg.tuning attribute";
    return success();
  }
  if (attr.getName() == getRationaleAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !llvm::all_of(dict, [](NamedAttribute entry) {
          return isa<StringAttr>(entry.getValue());
        }))
      return op->emitError() << "'" << getRationaleAttrName()
                             << "' must be a dictionary of strings";
    return success();
  }
  if (attr.getName() == getDecidedByAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !llvm::all_of(dict, [](NamedAttribute entry) {
          auto who = dyn_cast<DictionaryAttr>(entry.getValue());
          return who && isa_and_nonnull<StringAttr>(who.get("agent"));
        }))
      return op->emitError() << "'" << getDecidedByAttrName()
                             << "' must be a dictionary of dictionaries "
                                "that each name an agent";
    return success();
  }
  if (attr.getName() == getAllowTf32AttrName() ||
      attr.getName() == getNoSplitKAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<ModuleOp>(op))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute of a module";
    return success();
  }
  if (attr.getName() == getWaitsForPreviousAttrName()) {
    // By name: the dialect does not depend on the GPU dialect.
    if (!isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "gpu.launch_func")
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute of a "
                                "gpu.launch_func";
    return success();
  }
  if (attr.getName() == getLaunchNameAttrName()) {
    if (!isa<StringAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "gpu.launch_func")
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a string attribute of a "
                                "gpu.launch_func";
    return success();
  }
  if (attr.getName() == getOverlapPreviousAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        (!isa<KernelOp>(op) && op->getName().getStringRef() != "func.func"))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute of an egg.kernel "
                                "or the function it is outlined into";
    return success();
  }
  if (attr.getName() == getMinBlocksPerSMAttrName()) {
    auto blocks = dyn_cast<IntegerAttr>(attr.getValue());
    if (!blocks || !blocks.getType().isInteger(32) || blocks.getInt() < 1)
      return op->emitError()
             << "'" << attr.getName().getValue() << "' must be a positive i32";
    return success();
  }
  return op->emitError() << "unknown egg attribute '"
                         << attr.getName().getValue() << "'";
}
