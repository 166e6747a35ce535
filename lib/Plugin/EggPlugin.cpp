//===- EggPlugin.cpp - EGG as an mlir-opt plugin --------------------------===//
//
//   mlir-opt-22 --load-dialect-plugin=EggPlugin.so \
//               --load-pass-plugin=EggPlugin.so --egg-form-kernels in.mlir
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Passes.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "EggDialect", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::egg::EggDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "EggPasses", LLVM_VERSION_STRING, []() {
            mlir::egg::registerEggPasses();
            mlir::egg::registerEggAgentsPasses();
          }};
}
