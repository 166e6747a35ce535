//===- Translations.h - Translations out of EGG -----------------*- C++ -*-===//

#ifndef EGG_TRANSLATE_TRANSLATIONS_H
#define EGG_TRANSLATE_TRANSLATIONS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir {
class Operation;
namespace egg {

/// Writes the decisions of every egg.kernel under `op` as a decisions file
/// (JSON, schema in docs/decisions.md).
LogicalResult exportDecisions(Operation *op, llvm::raw_ostream &os);

/// Registers the egg-translate translations (--egg-to-decisions).
void registerEggTranslations();

} // namespace egg
} // namespace mlir

#endif // EGG_TRANSLATE_TRANSLATIONS_H
