//===- LowerColumnReductionsLegality.cpp - Column reductions: legality ----===//

#include "LegalityChecks.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Profiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::egg;

LogicalResult
mlir::egg::checkColumnReduction(KernelOp kernel, TuningAttr tuning,
                                function_ref<InFlightDiagnostic()> emitError) {
  std::optional<unsigned> reduced = columnReductionLoop(kernel);
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  if (!reduced && anchor && matchIndexedReduction(anchor) &&
      kernel.getRootOp() != anchor.getOperation())
    return emitError() << "reduce_two_stage of a value and its index takes "
                          "no ops after the reduction in its kernel";
  if (!reduced)
    return emitError() << "reduce_two_stage needs one reduction loop that is "
                          "not innermost, inputs contiguous along the "
                          "innermost loop and a result in loop order";
  if (!tuning.getThread().empty() || !tuning.getWarp().empty() ||
      !tuning.getReduction().empty() || !tuning.getShared().empty() ||
      !tuning.getRegisters().empty())
    return emitError() << "reduce_two_stage takes block tiles, threads and a "
                          "vector width only";
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  ArrayRef<int64_t> block = tuning.getBlock();
  size_t numParallel = extents.size() - 1;
  if (block.size() != numParallel)
    return emitError() << "reduce_two_stage needs a block tile entry for each "
                          "of the "
                       << numParallel << " parallel loops";
  // Every parallel loop is a grid dimension (one output row per block).
  if (numParallel > 3)
    return emitError() << "reduce_two_stage spreads at most 3 parallel loops "
                          "over the grid, got "
                       << numParallel;
  for (size_t p = 0; p + 1 < numParallel; ++p)
    if (block[p] != 1)
      return emitError() << "reduce_two_stage takes one output row per block: "
                            "block tile 1 on every parallel loop but the "
                            "innermost, got "
                         << block[p];
  int64_t bn = block.back(), last = extents.back();
  int64_t v = tuning.getVector();
  if (bn < 1 || last % bn != 0)
    return emitError() << "block tile " << bn
                       << " does not divide the innermost loop of extent "
                       << last;
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 2 || threads[0] * v != bn)
    return emitError() << "reduce_two_stage takes threads = [block tile / "
                          "vector, rows in flight] = ["
                       << bn / std::max<int64_t>(v, 1) << ", R]";
  if (tuning.getNumThreads() > kMaxThreadsPerBlock)
    return emitError() << tuning.getNumThreads() << " threads exceed "
                       << kMaxThreadsPerBlock << " per block";
  if (v * widestElementBits(kernel) > 128)
    return emitError() << "vector = " << v << " exceeds 16-byte accesses";
  // A value and its index (argmax): both partials go through shared
  // memory, and the index leaves the kernel as reduced.
  bool indexed = op.getNumDpsInits() == 2;
  if (indexed && tuning.getCluster() != 1)
    return emitError() << "reduce_two_stage of a value and its index takes "
                          "no cluster";
  int64_t bytes = 0;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Type acc = getElementTypeOrSelf(init.get());
    bytes = addSat(bytes, mulSat(tuning.getNumThreads() * v,
                                 (acc.getIntOrFloatBitWidth() + 7) / 8));
  }
  if (bytes > kStaticSharedMemoryPerBlock)
    return emitError() << "the partials need " << bytes
                       << " bytes of shared memory; a block may have "
                       << kStaticSharedMemoryPerBlock;
  // A cluster's blocks take equal slices of the rows and the grid's z
  // dimension (the other parallel loops take x and y), on sm_90 or later.
  if (int64_t c = tuning.getCluster(); c != 1) {
    TargetAttr target = lookupTarget(kernel);
    if (!supportsClusters(target))
      return emitError() << "cluster = " << c
                         << " needs thread-block clusters (sm_90 or later)";
    if (numParallel > 2)
      return emitError() << "cluster = " << c << " needs the grid's z "
                         << "dimension: at most two parallel loops, got "
                         << numParallel;
    if (extents[*reduced] % c != 0)
      return emitError() << "cluster = " << c << " does not divide the "
                         << extents[*reduced] << " rows into equal slices";
  }
  return success();
}

std::string mlir::egg::describeColumnReductionRules() {
  return std::string(
             "Rules of the column reduction: `block` has one entry per "
             "parallel loop of the root op, 1 on all but the innermost, whose "
             "tile BN divides its extent; `threads` = [BN / vector, R] (R "
             "rows in flight), at most ") +
         std::to_string(kMaxThreadsPerBlock) +
         "; no thread, warp or reduction "
         "tiles; `vector` moves 16 bytes at most.";
}
