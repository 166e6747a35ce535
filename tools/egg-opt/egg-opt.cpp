//===- egg-opt.cpp - EGG optimizer driver ---------------------------------===//
//
// mlir-opt's driver with EGG's dialects and passes, and crash reports that
// name the pass that was running (CrashContext.h).
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/LlmClient.h"
#include "egg/Support/CrashContext.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::egg::CrashReporting crashReporting("egg-opt");
  mlir::DialectRegistry registry;
  mlir::egg::registerToolExtensions(registry);
  mlir::egg::registerToolPasses();
  mlir::egg::registerLlmCLOptions();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "EGG optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return EXIT_SUCCESS;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return EXIT_SUCCESS;
  }
  // The pipeline from the command line, after the crash context.
  mlir::MlirOptMainConfig commandLine = config;
  config.setPassPipelineSetupFn([commandLine](mlir::PassManager &pm) {
    mlir::egg::addCrashContext(pm);
    return commandLine.setupPassPipeline(pm);
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return EXIT_FAILURE;
  out->keep();
  return EXIT_SUCCESS;
}
