//===- FuzzSupport.h - What the libFuzzer targets share ---------*- C++ -*-===//
//
// One MLIRContext with every dialect EGG's tools accept, kept for the whole
// campaign, and the parsed kernel module a target works on (with the
// built-in sm_90a profile attached). Header-only: each target is one
// translation unit built by fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_FUZZ_FUZZSUPPORT_H
#define EGG_FUZZ_FUZZSUPPORT_H

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Target/Profiles.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

namespace egg_fuzz {

inline mlir::MLIRContext *getContext() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    mlir::egg::registerToolExtensions(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return ctx;
}

/// `text` parsed and verified, with the sm_90a profile attached; traps when
/// it does not parse (the harness's own input is broken, not the target).
inline mlir::OwningOpRef<mlir::ModuleOp> parseKernels(const char *text) {
  mlir::MLIRContext *ctx = getContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, ctx);
  if (!module || mlir::failed(mlir::verify(*module)))
    __builtin_trap();
  module->getOperation()->setAttr(mlir::egg::EggDialect::getTargetAttrName(),
                                  mlir::egg::getBuiltinTarget(ctx, "sm_90a"));
  return module;
}

} // namespace egg_fuzz

#endif // EGG_FUZZ_FUZZSUPPORT_H
