//===- DecisionsTest.cpp - The decisions file -----------------------------===//

#include "egg/Agents/Decisions.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Tools/Registration.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

TEST(DecisionsTest, ExportedAttributesParseBackToTheSameDecisions) {
  DialectRegistry registry;
  registerToolDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  const char *ir = R"mlir(
    module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200",
        sm_count = 132, warp_size = 32, max_threads_per_block = 1024,
        shared_memory_per_block = 232448, registers_per_block = 65536,
        max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250,
        fp32_gflops = 51000, tensor_gflops = 790000>} {
      func.func @f(%x: tensor<1024x1024xf32>) -> tensor<1024xf32> {
        %r = egg.kernel @f_k0 ins(%x : tensor<1024x1024xf32>) -> tensor<1024xf32>
            attributes {structure = #egg.structure<reduce_row_per_warp>,
                        tuning = #egg.tuning<threads = [256], block = [8],
                                             reduction = [1024], vector = 4>} {
        ^bb0(%in: tensor<1024x1024xf32>):
          %e = tensor.empty() : tensor<1024xf32>
          %s = linalg.reduce ins(%in : tensor<1024x1024xf32>)
                             outs(%e : tensor<1024xf32>) dimensions = [1]
            (%a: f32, %b: f32) {
              %t = arith.addf %a, %b : f32
              linalg.yield %t : f32
            }
          egg.yield %s : tensor<1024xf32>
        }
        return %r : tensor<1024xf32>
      }
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  ASSERT_TRUE(succeeded(exportDecisions(*module, os)));

  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  ASSERT_TRUE(bool(json)) << text;
  const llvm::json::Array *kernels = json->getAsObject()->getArray("kernels");
  ASSERT_TRUE(kernels && kernels->size() == 1);
  const llvm::json::Object *k = (*kernels)[0].getAsObject();
  EXPECT_EQ(k->getString("name"), "f_k0");
  EXPECT_EQ(k->getString("anchor"), "linalg.reduce");

  KernelOp kernel;
  module->walk([&](KernelOp op) { kernel = op; });
  Attribute structure = parseAttribute(*k->getString("structure"), &ctx);
  Attribute tuning = parseAttribute(*k->getString("tuning"), &ctx);
  EXPECT_EQ(structure, kernel.getStructureAttr());
  EXPECT_EQ(tuning, kernel.getTuningAttr());
}
