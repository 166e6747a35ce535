//===- Translations.h - Translations out of EGG -----------------*- C++ -*-===//

#ifndef EGG_TRANSLATE_TRANSLATIONS_H
#define EGG_TRANSLATE_TRANSLATIONS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir {
class Operation;
namespace egg {

/// Writes the manifest (docs/manifest.md) of a module that went through the
/// EGG pipeline: PTX modules, buffers, and the launch sequence of each
/// public host function.
LogicalResult translateToManifest(Operation *op, llvm::raw_ostream &os);

/// Writes the PTX of every kernel module, each after a
/// `// egg-ptx-module: <name>` line.
LogicalResult translateToPtx(Operation *op, llvm::raw_ostream &os);

/// Registers the egg-translate translations: --egg-to-decisions,
/// --egg-to-manifest, --egg-to-ptx.
void registerEggTranslations();

} // namespace egg
} // namespace mlir

#endif // EGG_TRANSLATE_TRANSLATIONS_H
