//===- TuningAnswerTest.cpp - Stage 2's answer schema ---------------------===//

#include "egg/Agents/TuningAnswer.h"
#include "ToolContext.h"
#include "egg/Agents/Passes.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;
namespace json = llvm::json;

namespace {
/// Whether `value` is one the schema `property` allows.
bool allows(const json::Object &property, const json::Value &value) {
  if (const json::Array *values = property.getArray("enum"))
    return llvm::is_contained(*values, value);
  const json::Array *list = value.getAsArray();
  const json::Object *items = property.getObject("items");
  if (!list || !items)
    return false;
  if (list->size() < size_t(*property.getInteger("minItems")) ||
      list->size() > size_t(*property.getInteger("maxItems")))
    return false;
  return llvm::all_of(*list,
                      [&](const json::Value &v) { return allows(*items, v); });
}
} // namespace

/// Every tuning the expert gives the examples' kernels is an answer its
/// schema allows, and reads back as the same attribute: the model can
/// always write the expert's proposal, and nothing is lost in the form.
TEST(TuningAnswer, TheExpertsTuningsFitTheirSchemaAndReadBack) {
  std::unique_ptr<MLIRContext> owned = makeToolContext();
  MLIRContext &ctx = *owned;
  ctx.printOpOnDiagnostic(false);
  std::error_code ec;
  int kernels = 0;
  for (llvm::sys::fs::directory_iterator it(EGG_EXAMPLES_DIR, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".mlir")
      continue;
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(it->path(), &ctx);
    ASSERT_TRUE(module) << it->path();
    PassManager pm(&ctx);
    pm.addPass(createEggAttachTarget());
    pm.addNestedPass<func::FuncOp>(createEggFormKernels());
    pm.addPass(createEggAlgorithmStructure());
    pm.addPass(createEggHardwareTuning());
    if (failed(pm.run(*module)))
      continue; // Examples of refused input are tested elsewhere.
    module->walk([&](KernelOp kernel) {
      ++kernels;
      TuningAttr proposal = kernel.getTuningAttr();
      std::string printed;
      llvm::raw_string_ostream os(printed);
      os << proposal;
      TuningKnobs knobs =
          describeTuningKnobs(kernel, kernel.getStructureAttr());
      json::Object schema = tuningSchema(knobs, proposal);
      json::Object answer = tuningToJson(proposal, knobs);
      const json::Object *properties = schema.getObject("properties");
      ASSERT_TRUE(properties);
      EXPECT_EQ(properties->size(), answer.size()) << it->path();
      for (const auto &[name, value] : answer) {
        const json::Object *property = properties->getObject(name);
        ASSERT_TRUE(property) << it->path() << ": " << name.str();
        EXPECT_TRUE(allows(*property, value))
            << it->path() << ": " << name.str() << " of " << printed;
      }
      std::string reason;
      TuningAttr back = tuningFromJson(answer, &ctx, reason);
      std::string readBack;
      llvm::raw_string_ostream bs(readBack);
      if (back)
        bs << back;
      EXPECT_TRUE(back == proposal) << it->path() << ": " << printed
                                    << " read back as " << readBack << reason;
    });
  }
  EXPECT_FALSE(ec);
  EXPECT_GT(kernels, 30);
}

TEST(TuningAnswer, BadKnobsAreNamedInTheReason) {
  DialectRegistry registry;
  registerToolDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::string reason;
  json::Object unknown{{"threads", json::Array{128}}, {"speed", 3}};
  EXPECT_FALSE(tuningFromJson(unknown, &ctx, reason));
  EXPECT_EQ(reason, "unknown knob \"speed\"");
  json::Object wrongType{{"threads", 128}};
  EXPECT_FALSE(tuningFromJson(wrongType, &ctx, reason));
  EXPECT_EQ(reason, "\"threads\" must be a list of integers");
  json::Object badCopy{{"threads", json::Array{128}},
                       {"block", json::Array{128}},
                       {"copy", "dma"}};
  EXPECT_FALSE(tuningFromJson(badCopy, &ctx, reason));
  EXPECT_EQ(reason, "\"copy\" must be \"sync\", \"cp_async\" or \"tma\"");
  json::Object badMma{{"threads", json::Array{128}},
                      {"block", json::Array{128}},
                      {"mma", "tensor"}};
  EXPECT_FALSE(tuningFromJson(badMma, &ctx, reason));
  EXPECT_EQ(reason, "\"mma\" must be \"fma\", \"mma_sync\" or \"wgmma\"");
  // The attribute's verifier has the last word.
  json::Object badVector{{"threads", json::Array{128}},
                         {"block", json::Array{128}},
                         {"vector", 3}};
  EXPECT_FALSE(tuningFromJson(badVector, &ctx, reason));
  EXPECT_FALSE(reason.empty());
}
