//===- Decisions.h - The decisions file -------------------------*- C++ -*-===//
//
// Format: docs/decisions.md. Written by egg-translate --egg-to-decisions and
// egg-record-decisions, read by the replay agent.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_DECISIONS_H
#define EGG_AGENTS_DECISIONS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace mlir {
class Attribute;
class Operation;
namespace egg {
class KernelOp;

/// A decision in the dialect's own syntax, as decisions files store it.
std::string printDecision(Attribute decision);

/// What a kernel computes, independent of its name, its place in the module
/// and its decisions: a hash of its body and types in generic form. Kernels
/// are named by position (`<function>_k<N>`), so a change elsewhere in the
/// input renames them; the replay agent finds a recorded kernel again by
/// this signature.
std::string kernelSignature(KernelOp kernel);

/// Writes the decisions of every egg.kernel under `op` as a decisions file.
LogicalResult exportDecisions(Operation *op, llvm::raw_ostream &os);

} // namespace egg
} // namespace mlir

#endif // EGG_AGENTS_DECISIONS_H
