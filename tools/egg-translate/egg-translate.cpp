//===- egg-translate.cpp - Translations out of EGG ------------------------===//

#include "egg/Support/CrashContext.h"
#include "egg/Translate/Translations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  // A crash report says whether a pass or reading the IR crashed.
  mlir::egg::CrashReporting crashReporting("egg-translate");
  mlir::egg::registerEggTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "EGG translation driver\n"));
}
