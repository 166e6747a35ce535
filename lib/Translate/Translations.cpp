//===- Translations.cpp - egg-translate translations ----------------------===//

#include "egg/Translate/Translations.h"
#include "egg/Agents/Decisions.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;
using namespace mlir::egg;

void mlir::egg::registerEggTranslations() {
  static TranslateFromMLIRRegistration decisions(
      "egg-to-decisions", "write the decisions of every egg.kernel as JSON",
      [](Operation *op, raw_ostream &os) { return exportDecisions(op, os); },
      [](DialectRegistry &registry) { registerToolDialects(registry); });
  static TranslateFromMLIRRegistration manifest(
      "egg-to-manifest",
      "write the PTX and launch manifest of a compiled module as JSON",
      translateToManifest,
      [](DialectRegistry &registry) { registerToolDialects(registry); });
  static TranslateFromMLIRRegistration ptx(
      "egg-to-ptx", "write the PTX of every kernel of a compiled module",
      translateToPtx,
      [](DialectRegistry &registry) { registerToolDialects(registry); });
}
