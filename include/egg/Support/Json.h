//===- Json.h - Integers from untrusted JSON --------------------*- C++ -*-===//
//
// Manifests, decisions files and tool outputs are read with llvm::json.
// Its getAsInteger range check compares a double against
// double(INT64_MAX), which rounds up to 2^63, so a file holding 2^63 (as
// 9223372036854775808.0) gets converted to int64_t: undefined behaviour
// (found by fuzz-manifest-short under UBSan). These refuse such doubles
// first.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_JSON_H
#define EGG_SUPPORT_JSON_H

#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace mlir::egg {

/// `value` as an int64_t if it is an integral number that fits one;
/// std::nullopt otherwise.
inline std::optional<int64_t> jsonInteger(const llvm::json::Value &value) {
  // Integers stored as integers (all a non-negative one answers to
  // getAsUINT64) convert safely; a double converts safely below 2^63.
  if (!value.getAsUINT64())
    if (std::optional<double> number = value.getAsNumber();
        number && *number >= 0x1p63)
      return std::nullopt;
  return value.getAsInteger();
}

/// The integer at `key` of `object`, as jsonInteger.
inline std::optional<int64_t> jsonInteger(const llvm::json::Object &object,
                                          llvm::StringRef key) {
  const llvm::json::Value *value = object.get(key);
  return value ? jsonInteger(*value) : std::nullopt;
}

} // namespace mlir::egg

#endif // EGG_SUPPORT_JSON_H
