//===- EggAttrs.h - EGG decision attributes ---------------------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_IR_EGGATTRS_H
#define EGG_DIALECT_EGG_IR_EGGATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "egg/Dialect/Egg/IR/EggEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "egg/Dialect/Egg/IR/EggAttrs.h.inc"

#endif // EGG_DIALECT_EGG_IR_EGGATTRS_H
