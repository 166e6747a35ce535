//===- EggAttrs.h - EGG decision attributes ---------------------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_IR_EGGATTRS_H
#define EGG_DIALECT_EGG_IR_EGGATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "egg/Dialect/Egg/IR/EggEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "egg/Dialect/Egg/IR/EggAttrs.h.inc"

namespace mlir::egg {
/// Parses "sm_90" / "sm_90a" into (90, true for the `a` variant); fails
/// on anything else.
FailureOr<std::pair<int64_t, bool>> parseChip(StringRef chip);
} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_IR_EGGATTRS_H
