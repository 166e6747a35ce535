//===- Saturating.h - Overflow-safe size arithmetic -------------*- C++ -*-===//
//
// Products of shapes and tile counts come from user IR and files: they must
// not overflow (undefined behaviour, found by UBSan). Sizes saturate at
// INT64_MAX, which every limit check then rejects.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_SATURATING_H
#define EGG_SUPPORT_SATURATING_H

#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <limits>

namespace mlir::egg {

/// a * b for non-negative a, b, saturating at INT64_MAX.
inline int64_t mulSat(int64_t a, int64_t b) {
  int64_t r;
  return llvm::MulOverflow(a, b, r) ? std::numeric_limits<int64_t>::max() : r;
}

/// a + b for non-negative a, b, saturating at INT64_MAX.
inline int64_t addSat(int64_t a, int64_t b) {
  int64_t r;
  return llvm::AddOverflow(a, b, r) ? std::numeric_limits<int64_t>::max() : r;
}

} // namespace mlir::egg

#endif // EGG_SUPPORT_SATURATING_H
