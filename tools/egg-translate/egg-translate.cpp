//===- egg-translate.cpp - Translations out of EGG ------------------------===//

#include "egg/Translate/Translations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::egg::registerEggTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "EGG translation driver\n"));
}
