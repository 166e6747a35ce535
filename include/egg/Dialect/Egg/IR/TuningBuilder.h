//===- TuningBuilder.h - #egg.tuning field by field -------------*- C++ -*-===//
//
// Builds a `#egg.tuning` by naming the knobs it sets; the others keep the
// attribute's defaults. Agents and the search space construct tunings
// through it rather than through the attribute's positional constructor,
// whose seventeen parameters are easy to misplace.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_IR_TUNINGBUILDER_H
#define EGG_DIALECT_EGG_IR_TUNINGBUILDER_H

#include "egg/Dialect/Egg/IR/EggAttrs.h"

namespace mlir::egg {

class TuningBuilder {
public:
  explicit TuningBuilder(MLIRContext *ctx) : ctx(ctx) {}
  /// Starts from every field of `from`.
  explicit TuningBuilder(TuningAttr from);

  TuningBuilder &threads(ArrayRef<int64_t> v) { return set(threads_, v); }
  TuningBuilder &block(ArrayRef<int64_t> v) { return set(block_, v); }
  TuningBuilder &warp(ArrayRef<int64_t> v) { return set(warp_, v); }
  TuningBuilder &thread(ArrayRef<int64_t> v) { return set(thread_, v); }
  TuningBuilder &reduction(ArrayRef<int64_t> v) { return set(reduction_, v); }
  TuningBuilder &shared(ArrayRef<int64_t> v) { return set(shared_, v); }
  TuningBuilder &registers(ArrayRef<int64_t> v) { return set(registers_, v); }
  TuningBuilder &padding(int64_t v) { return set(padding_, v); }
  TuningBuilder &swizzle(Swizzle v) { return set(swizzle_, v); }
  TuningBuilder &vector(int64_t v) { return set(vector_, v); }
  TuningBuilder &copy(CopyEngine v) { return set(copy_, v); }
  TuningBuilder &pipeline(int64_t v) { return set(pipeline_, v); }
  TuningBuilder &cluster(int64_t v) { return set(cluster_, v); }
  TuningBuilder &rowShared(int64_t v) { return set(rowShared_, v); }
  TuningBuilder &fragmentsAhead(int64_t v) { return set(fragmentsAhead_, v); }
  TuningBuilder &tf32Terms(int64_t v) { return set(tf32Terms_, v); }
  TuningBuilder &mma(MmaKind v) { return set(mma_, v); }

  /// The attribute, or null after a diagnostic through `emitError` when
  /// the fields break the attribute's verifier.
  TuningAttr getChecked(function_ref<InFlightDiagnostic()> emitError) const;
  /// The attribute; the fields must pass the verifier.
  TuningAttr get() const;

private:
  template <typename T, typename V> TuningBuilder &set(T &field, const V &v) {
    field = T(v);
    return *this;
  }
  template <typename V>
  TuningBuilder &set(SmallVector<int64_t> &field, const V &v) {
    field.assign(v.begin(), v.end());
    return *this;
  }

  MLIRContext *ctx;
  SmallVector<int64_t> threads_, block_, warp_, thread_, reduction_, shared_,
      registers_;
  int64_t padding_ = 0;
  Swizzle swizzle_ = Swizzle::none;
  int64_t vector_ = 1;
  CopyEngine copy_ = CopyEngine::sync;
  int64_t pipeline_ = 1, cluster_ = 1, rowShared_ = 0, fragmentsAhead_ = 0,
          tf32Terms_ = 1;
  MmaKind mma_ = MmaKind::fma;
};

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_IR_TUNINGBUILDER_H
