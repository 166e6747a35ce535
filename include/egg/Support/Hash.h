//===- Hash.h - Content hashes ----------------------------------*- C++ -*-===//
//
// Keys that must stay the same across processes and machines (records,
// caches, kernel signatures): SHA-256 in lowercase hex. llvm::hash_code is
// seeded per process and cannot serve.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_HASH_H
#define EGG_SUPPORT_HASH_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

#include <string>

namespace mlir::egg {

/// The SHA-256 of `text`, 64 lowercase hex digits.
inline std::string sha256Hex(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

} // namespace mlir::egg

#endif // EGG_SUPPORT_HASH_H
