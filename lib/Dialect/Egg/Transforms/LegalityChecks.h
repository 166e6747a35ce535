//===- LegalityChecks.h - Each lowering's legality check --------*- C++ -*-===//
//
// checkLowerable (Legality.h) dispatches on the structure and tuning to the
// check of the lowering that will build the kernel; each check lives beside
// its pass and states, in its diagnostics, what that lowering implements.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_LEGALITYCHECKS_H
#define EGG_DIALECT_EGG_TRANSFORMS_LEGALITYCHECKS_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir::egg {

/// Rows shared by lanes (docs/pipeline.md, "Rows shared by lanes"): every
/// parallel loop but the row is tiled by blocks; a warp owns one row
/// (`reduce_row_per_warp`: warp tile 1) or a block does (`_per_block`:
/// block tile 1); there is no thread tile; threads are one dimension.
/// (egg-distribute-rows)
LogicalResult checkCooperativeRow(KernelOp kernel, Formulation formulation,
                                  TuningAttr tuning,
                                  function_ref<InFlightDiagnostic()> emitError);

/// Column reductions (`reduce_two_stage`): a block owns BN consecutive
/// columns (the innermost loop; other parallel loops one at a time);
/// threads [TX, R] with TX * vector = BN; thread (x, y) reduces rows y,
/// y + R, ... of its `vector` columns, then the R partials per column are
/// combined through shared memory. (egg-lower-column-reductions)
LogicalResult
checkColumnReduction(KernelOp kernel, TuningAttr tuning,
                     function_ref<InFlightDiagnostic()> emitError);

/// Scans (`scan_warp`): a warp scans one row of the innermost loop; block
/// tiles of rows (warp tile 1), threads = 32 x rows per block, `vector`
/// elements per lane access. (egg-lower-scans)
LogicalResult checkScan(KernelOp kernel, TuningAttr tuning,
                        function_ref<InFlightDiagnostic()> emitError);

/// Recurrences (`recurrence_block`): a block runs every step of a tile of
/// batch rows, a thread per unit. (egg-lower-recurrences)
LogicalResult checkRecurrence(KernelOp kernel, TuningAttr tuning,
                              function_ref<InFlightDiagnostic()> emitError);

/// Maps staged through shared memory: a kernel of one elementwise op whose
/// `shared` inputs it reads transposed; block tiles only (whole tiles, at
/// most three tiled loops), threads a whole number of warps dividing the
/// block's elements and each staged tile (in runs of `vector`, which must
/// divide the tiles along the results' innermost loop and the staged
/// inputs' contiguous dimensions), and staged tiles (rows padded by
/// `padding` elements) within static shared memory. (egg-lower-staged-maps)
LogicalResult checkStagedMap(KernelOp kernel, TuningAttr tuning,
                             function_ref<InFlightDiagnostic()> emitError);

/// GEMM through shared memory (docs/pipeline.md): a block computes a
/// [BM, BN] tile of the result, stepping K by BK; A and B tiles are copied
/// to shared memory by all threads and each thread accumulates a [TM, TN]
/// tile in registers. (egg-lower-shared-gemm)
LogicalResult checkSharedGemm(KernelOp kernel, StructureAttr structure,
                              TuningAttr tuning,
                              function_ref<InFlightDiagnostic()> emitError);

/// Each lowering's rules in words (describeLoweringRules), beside its check.
std::string describeCooperativeRowRules();
std::string describeColumnReductionRules();
std::string describeScanRules();
std::string describeRecurrenceRules();
std::string describeSharedGemmRules();
/// `transposed`: the inputs a map reads across its results' innermost loop.
std::string describeStagedMapRules(ArrayRef<int64_t> transposed);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_LEGALITYCHECKS_H
