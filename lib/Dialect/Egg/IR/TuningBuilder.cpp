//===- TuningBuilder.cpp - #egg.tuning field by field ---------------------===//

#include "egg/Dialect/Egg/IR/TuningBuilder.h"

using namespace mlir;
using namespace mlir::egg;

TuningBuilder::TuningBuilder(TuningAttr from) : ctx(from.getContext()) {
  threads(from.getThreads()).block(from.getBlock()).warp(from.getWarp());
  thread(from.getThread()).reduction(from.getReduction());
  shared(from.getShared()).registers(from.getRegisters());
  padding(from.getPadding()).swizzle(from.getSwizzle());
  vector(from.getVector()).copy(from.getCopy());
  pipeline(from.getPipeline()).cluster(from.getCluster());
  rowShared(from.getRowShared()).fragmentsAhead(from.getFragmentsAhead());
  tf32Terms(from.getTf32Terms()).mma(from.getMma());
}

TuningAttr
TuningBuilder::getChecked(function_ref<InFlightDiagnostic()> emitError) const {
  return TuningAttr::getChecked(
      emitError, ctx, ArrayRef<int64_t>(threads_), ArrayRef<int64_t>(block_),
      ArrayRef<int64_t>(warp_), ArrayRef<int64_t>(thread_),
      ArrayRef<int64_t>(reduction_), ArrayRef<int64_t>(shared_),
      ArrayRef<int64_t>(registers_), padding_, swizzle_, vector_, copy_,
      pipeline_, cluster_, rowShared_, fragmentsAhead_, tf32Terms_, mma_);
}

TuningAttr TuningBuilder::get() const {
  return TuningAttr::get(
      ctx, ArrayRef<int64_t>(threads_), ArrayRef<int64_t>(block_),
      ArrayRef<int64_t>(warp_), ArrayRef<int64_t>(thread_),
      ArrayRef<int64_t>(reduction_), ArrayRef<int64_t>(shared_),
      ArrayRef<int64_t>(registers_), padding_, swizzle_, vector_, copy_,
      pipeline_, cluster_, rowShared_, fragmentsAhead_, tf32Terms_, mma_);
}
