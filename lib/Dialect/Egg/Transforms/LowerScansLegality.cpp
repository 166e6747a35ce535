//===- LowerScansLegality.cpp - Scans: legality ---------------------------===//

#include "LegalityChecks.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Target/Limits.h"

using namespace mlir;
using namespace mlir::egg;

LogicalResult
mlir::egg::checkScan(KernelOp kernel, TuningAttr tuning,
                     function_ref<InFlightDiagnostic()> emitError) {
  auto scan = dyn_cast_or_null<ScanOp>(kernel.getRootOp());
  if (!scan || classifyKernel(kernel) != KernelClass::Scan)
    return emitError() << "scan_warp needs a kernel whose root is an egg.scan";
  if (!tuning.getThread().empty() || !tuning.getReduction().empty() ||
      !tuning.getShared().empty() || !tuning.getRegisters().empty() ||
      tuning.getCluster() != 1 || tuning.getPipeline() != 1)
    return emitError() << "scan_warp takes block and warp tiles, threads and "
                          "a vector width only";
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  size_t numParallel = loops->parallelPositions.size();
  ArrayRef<int64_t> block = tuning.getBlock(), warp = tuning.getWarp();
  if (numParallel == 0 || numParallel > 3)
    return emitError() << "scan_warp spreads 1 to 3 row loops over the grid, "
                          "got "
                       << numParallel;
  if (block.size() != numParallel || warp.size() != numParallel)
    return emitError() << "scan_warp needs a block and a warp tile entry for "
                          "each of the "
                       << numParallel << " row loops";
  int64_t rows = 1;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t extent = loops->extents[pos];
    if (block[p] < 1 || extent % block[p] != 0)
      return emitError() << "block tile " << block[p]
                         << " does not divide row loop " << pos << " of extent "
                         << extent;
    if (warp[p] != 1)
      return emitError() << "a warp scans one row: warp tile 1 on every row "
                            "loop, got "
                         << warp[p];
    rows *= block[p];
  }
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 1 || threads[0] != 32 * rows)
    return emitError() << "scan_warp takes threads = [32 x rows per block] = ["
                       << 32 * rows << "]";
  if (threads[0] > kMaxThreadsPerBlock)
    return emitError() << threads[0] << " threads exceed "
                       << kMaxThreadsPerBlock << " per block";
  int64_t v = tuning.getVector();
  int64_t n = scan.getScanLength();
  if (n % v != 0)
    return emitError() << "vector = " << v << " does not divide the row of "
                       << n;
  int64_t bits =
      cast<ShapedType>(scan.getInput().getType()).getElementTypeBitWidth();
  if (v * bits > 128)
    return emitError() << "vector = " << v << " exceeds 16-byte accesses";
  return success();
}

std::string mlir::egg::describeScanRules() {
  return "Rules of the scan lowering (scan_warp): a warp scans one row; "
         "`block` has one entry per row loop (the scan's loops but the "
         "innermost), each dividing its extent (rows per block); `warp` is "
         "1 on every row loop; `threads` = [32 x rows per block], at most " +
         std::to_string(kMaxThreadsPerBlock) +
         "; `vector` (elements a lane reads at once) divides the row and "
         "moves 16 bytes at most; no thread, reduction or memory tiles.";
}
