//===- Passes.h - The agent-driven decision passes --------------*- C++ -*-===//

#ifndef EGG_AGENTS_PASSES_H
#define EGG_AGENTS_PASSES_H

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::egg {

#define GEN_PASS_DECL
#include "egg/Agents/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "egg/Agents/Passes.h.inc"

} // namespace mlir::egg

#endif // EGG_AGENTS_PASSES_H
