//===- Passes.h - EGG passes ------------------------------------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_PASSES_H
#define EGG_DIALECT_EGG_TRANSFORMS_PASSES_H

#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::egg {

#define GEN_PASS_DECL
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_PASSES_H
