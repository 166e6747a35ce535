//===- TuningQueries.cpp - Which lowering a tuning takes ------------------===//

#include "egg/Analysis/TuningQueries.h"
#include "egg/Support/Saturating.h"

using namespace mlir;
using namespace mlir::egg;

bool mlir::egg::isStagedMap(StructureAttr structure, TuningAttr tuning) {
  return structure && tuning &&
         structure.getFormulation() == Formulation::elementwise_flat &&
         !tuning.getShared().empty();
}

RecurrenceSplit mlir::egg::splitRecurrence(int64_t units, int64_t threads,
                                           int64_t cluster) {
  int64_t own = units / std::max<int64_t>(cluster, 1);
  int64_t slices = own > 0 && threads >= own ? threads / own : 1;
  return {own, slices};
}

int64_t mlir::egg::recurrenceSharedBytes(int64_t rows, int64_t units,
                                         int64_t gates, RecurrenceSplit split) {
  int64_t floats = rows * units;
  if (split.kSlices > 1)
    floats += split.kSlices * rows * gates * split.unitsPerBlock;
  return floats * 4;
}

bool mlir::egg::lowersBlockOpsWhole(StructureAttr structure,
                                    TuningAttr tuning) {
  return isSharedGemm(tuning) || isStagedMap(structure, tuning) ||
         (structure &&
          (structure.getFormulation() == Formulation::reduce_two_stage ||
           structure.getFormulation() == Formulation::recurrence_block));
}

bool mlir::egg::isSharedGemm(TuningAttr tuning) {
  return tuning && !tuning.getShared().empty();
}

bool mlir::egg::isMmaGemm(TuningAttr tuning) {
  return isSharedGemm(tuning) && tuning.getMma() != MmaKind::fma;
}

bool mlir::egg::isWgmmaGemm(TuningAttr tuning) {
  return isSharedGemm(tuning) && tuning.getMma() == MmaKind::wgmma;
}

GemmRegisterBudget mlir::egg::gemmRegisterBudget(int64_t computing,
                                                 bool producer) {
  // The producer's loop fits 56 registers, and linear + GELU's computing
  // threads spilled less with the 224 that leaves two warpgroups than with
  // the 232 that 40 would (ptxas, 48 -> 32 bytes).
  constexpr int64_t kProducerRegisters = 56;
  auto roundDown = [](int64_t v) { return v / 8 * 8; };
  int64_t threads = computing + (producer ? 128 : 0);
  GemmRegisterBudget budget;
  budget.launchCap = std::min<int64_t>(
      kMaxRegistersPerThread,
      roundDown(kRegistersPerSM / std::max<int64_t>(threads, 1)));
  budget.computing = budget.launchCap;
  if (!producer || computing <= 0)
    return budget;
  int64_t owned = budget.launchCap * threads;
  int64_t share = std::min<int64_t>(
      kMaxRegistersAfterSetmaxnreg,
      roundDown((owned - 128 * kProducerRegisters) / computing));
  if (share > budget.launchCap) {
    budget.computing = share;
    budget.producerRegisters = kProducerRegisters;
    budget.split = true;
  }
  return budget;
}

int64_t mlir::egg::gemmAccumulatorsPerThread(TuningAttr tuning) {
  auto product = [](ArrayRef<int64_t> tile) {
    int64_t n = 1;
    for (int64_t t : tile)
      n = mulSat(n, std::max<int64_t>(t, 1));
    return n;
  };
  if (isWgmmaGemm(tuning))
    return product(tuning.getWarp()) / 128;
  if (isMmaGemm(tuning))
    return product(tuning.getWarp()) / 32;
  return product(tuning.getThread());
}

int64_t mlir::egg::sharedGemmBytes(int64_t bm, int64_t bn, int64_t bk,
                                   int64_t padding, int64_t stages, Type lhs,
                                   Type rhs, bool lhsKFast, bool rhsKFast) {
  auto tile = [&](int64_t mn, bool kFast, Type type) {
    int64_t elements =
        kFast ? mulSat(mn, bk + padding) : mulSat(bk, mn + padding);
    return mulSat(elements, (type.getIntOrFloatBitWidth() + 7) / 8);
  };
  // Each operand's stages start 16-byte aligned (the lowering's layout).
  auto stagesOf = [&](int64_t bytes) {
    return (mulSat(stages, bytes) + 15) / 16 * 16;
  };
  return stagesOf(tile(bm, lhsKFast, lhs)) + stagesOf(tile(bn, rhsKFast, rhs));
}
