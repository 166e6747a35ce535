//===- egg-translate.cpp - Translations out of EGG ------------------------===//

#include "egg/Translate/Translations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  // A crash is a bug: say where to report it, and that MLIR 22's own
  // parsers have known crashes on malformed input (docs/reliability.md).
  llvm::setBugReportMsg(
      "egg: internal error. Please report it with the input that caused it. "
      "Known: MLIR 22's parsers of linalg.transpose and linalg.broadcast "
      "crash on a malformed permutation/dimensions list "
      "(docs/reliability.md).\n");
  mlir::egg::registerEggTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "EGG translation driver\n"));
}
