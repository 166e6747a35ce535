//===- BufferizableOpInterfaceImpl.h - Bufferizing egg ops ------*- C++ -*-===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define EGG_DIALECT_EGG_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace egg {

/// One-shot bufferization of the egg ops with tensor semantics (egg.scan).
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace egg
} // namespace mlir

#endif // EGG_DIALECT_EGG_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
