//===- CrashContextTest.cpp - Crash reports name the running pass ---------===//

#include "egg/Support/CrashContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

namespace {
/// Records what a crash report would name while it runs.
struct ProbePass : PassWrapper<ProbePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProbePass)
  explicit ProbePass(std::string *seen) : seen(seen) {}
  StringRef getArgument() const final { return "egg-test-probe"; }
  void runOnOperation() override { *seen = describeRunningPasses(); }
  std::string *seen;
};
} // namespace

TEST(CrashContext, ReportsNameTheRunningPassAndItsOp) {
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  ctx.loadDialect<func::FuncDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f() { return }", &ctx);
  ASSERT_TRUE(module);
  std::string seen;
  PassManager pm(&ctx);
  addCrashContext(pm);
  pm.addNestedPass<func::FuncOp>(std::make_unique<ProbePass>(&seen));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_NE(seen.find("egg: running pass 'egg-test-probe' on 'func.func' @f"),
            std::string::npos)
      << seen;
  // Outside passes the report names none.
  EXPECT_EQ(describeRunningPasses(), "");
}
