//===- Translations.cpp - egg-translate translations ----------------------===//

#include "egg/Translate/Translations.h"
#include "egg/Agents/Decisions.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

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
  static llvm::cl::opt<std::string> ptxModule(
      "egg-ptx-module",
      llvm::cl::desc("--egg-to-ptx: the kernel module to write, where a "
                     "function has several"),
      llvm::cl::value_desc("name"));
  static llvm::cl::opt<std::string> ptxDir(
      "egg-ptx-dir",
      llvm::cl::desc("--egg-to-ptx: write each kernel module to "
                     "<dir>/<name>.ptx and list the files"),
      llvm::cl::value_desc("dir"));
  static TranslateFromMLIRRegistration ptx(
      "egg-to-ptx",
      "write the PTX of a compiled module's kernel module (one a file)",
      [](Operation *op, raw_ostream &os) {
        return translateToPtx(op, os, PtxOutput{ptxModule, ptxDir});
      },
      [](DialectRegistry &registry) { registerToolDialects(registry); });
}
