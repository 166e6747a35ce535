//===- Translations.h - Translations out of EGG -----------------*- C++ -*-===//

#ifndef EGG_TRANSLATE_TRANSLATIONS_H
#define EGG_TRANSLATE_TRANSLATIONS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace mlir {
class Operation;
namespace egg {

/// Writes the manifest (docs/manifest.md) of a module that went through the
/// EGG pipeline: PTX modules, buffers, and the launch sequence of each
/// public host function.
LogicalResult translateToManifest(Operation *op, llvm::raw_ostream &os);

/// Where --egg-to-ptx puts the kernel modules: ptxas takes one module a
/// file, so a function of several kernel modules names one (`module`) or
/// has each written to `<dir>/<name>.ptx` (`dir`).
struct PtxOutput {
  std::string module;
  std::string dir;
};

/// Writes the PTX of the module's one kernel module (or `output.module`)
/// after a `// egg-ptx-module: <name>` line, or with `output.dir` every
/// kernel module to a file of its own and their paths to `os`.
LogicalResult translateToPtx(Operation *op, llvm::raw_ostream &os,
                             const PtxOutput &output = {});

/// Registers the egg-translate translations: --egg-to-decisions,
/// --egg-to-manifest, --egg-to-ptx.
void registerEggTranslations();

} // namespace egg
} // namespace mlir

#endif // EGG_TRANSLATE_TRANSLATIONS_H
