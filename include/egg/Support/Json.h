//===- Json.h - Untrusted JSON: nesting, integers --------------*- C++ -*-===//
//
// Manifests, decisions files, LLM answers, HTTP bodies and tool outputs are
// read with llvm::json, whose parser recurses once per nesting level: a
// 200 KB answer of 100,000 nested arrays overflows the stack. parseJson
// refuses nesting deeper than a bound before parsing.
//
// llvm::json's
// Its getAsInteger range check compares a double against
// double(INT64_MAX), which rounds up to 2^63, so a file holding 2^63 (as
// 9223372036854775808.0) gets converted to int64_t: undefined behaviour
// (found by fuzz-manifest-short under UBSan). These refuse such doubles
// first.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_JSON_H
#define EGG_SUPPORT_JSON_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <optional>

namespace mlir::egg {

/// Deepest nesting of arrays and objects any EGG reader accepts; far above
/// what any manifest, decisions file or schema-constrained answer needs.
constexpr unsigned kMaxJsonDepth = 256;

/// The deepest nesting of `[` and `{` in `text` outside strings, counted
/// without recursion (stops counting past `limit`).
inline unsigned jsonDepth(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit)
        return deepest;
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return deepest;
}

/// llvm::json::parse of untrusted text, refusing nesting deeper than
/// `maxDepth` first (a clear error instead of a stack overflow).
inline llvm::Expected<llvm::json::Value>
parseJson(llvm::StringRef text, unsigned maxDepth = kMaxJsonDepth) {
  if (jsonDepth(text, maxDepth) > maxDepth)
    return llvm::createStringError(
        std::errc::invalid_argument,
        "JSON nested deeper than %u levels (arrays and objects)", maxDepth);
  return llvm::json::parse(text);
}

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
