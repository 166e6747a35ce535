//===- egg-opt.cpp - EGG optimizer driver ---------------------------------===//

#include "egg/Agents/LlmClient.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::egg::registerToolExtensions(registry);
  mlir::egg::registerToolPasses();
  mlir::egg::registerLlmCLOptions();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "EGG optimizer driver\n", registry));
}
