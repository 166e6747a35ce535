//===- EggDialect.h - EGG dialect -------------------------------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_IR_EGGDIALECT_H
#define EGG_DIALECT_EGG_IR_EGGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "egg/Dialect/Egg/IR/EggOpsDialect.h.inc"

#endif // EGG_DIALECT_EGG_IR_EGGDIALECT_H
