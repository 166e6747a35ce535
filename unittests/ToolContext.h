//===- ToolContext.h - A context for the unit tests -------------*- C++ -*-===//
//
// The unit tests parse and rewrite EGG IR as the tools do: a context with
// every dialect and external model the tools register, all loaded.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_UNITTESTS_TOOLCONTEXT_H
#define EGG_UNITTESTS_TOOLCONTEXT_H

#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace mlir::egg {

/// A context holding what registerToolExtensions registers, loaded.
inline std::unique_ptr<MLIRContext> makeToolContext() {
  DialectRegistry registry;
  registerToolExtensions(registry);
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

} // namespace mlir::egg

#endif // EGG_UNITTESTS_TOOLCONTEXT_H
