//===- Registration.h - What the EGG tools register -------------*- C++ -*-===//
//
// One list of dialects and passes, shared by egg-opt, egg-translate and the
// plugin, so that every entry point accepts the same IR.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TOOLS_REGISTRATION_H
#define EGG_TOOLS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace egg {

/// The egg dialect and the upstream dialects EGG input and pipelines use:
/// enough to parse, print and verify any EGG IR.
void registerToolDialects(DialectRegistry &registry);

/// The dialects plus the external models the pipelines need (tiling,
/// bufferization, transform ops, lowering to NVVM and PTX).
void registerToolExtensions(DialectRegistry &registry);

/// The egg passes and the upstream passes the EGG pipelines rely on.
void registerToolPasses();

} // namespace egg
} // namespace mlir

#endif // EGG_TOOLS_REGISTRATION_H
