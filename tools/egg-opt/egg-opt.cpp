//===- egg-opt.cpp - EGG optimizer driver ---------------------------------===//

#include "egg/Agents/LlmClient.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  // A crash is a bug: say where to report it, and that MLIR 22's own
  // parsers have known crashes on malformed input (docs/reliability.md).
  llvm::setBugReportMsg(
      "egg: internal error. Please report it with the input that caused it. "
      "Known: MLIR 22's parsers of linalg.transpose and linalg.broadcast "
      "crash on a malformed permutation/dimensions list "
      "(docs/reliability.md).\n");
  mlir::DialectRegistry registry;
  mlir::egg::registerToolExtensions(registry);
  mlir::egg::registerToolPasses();
  mlir::egg::registerLlmCLOptions();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "EGG optimizer driver\n", registry));
}
