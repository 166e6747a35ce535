//===- DistributeRowsLegality.cpp - Rows shared by lanes: legality --------===//

#include "LegalityChecks.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::egg;

LogicalResult
mlir::egg::checkCooperativeRow(KernelOp kernel, Formulation formulation,
                               TuningAttr tuning,
                               function_ref<InFlightDiagnostic()> emitError) {
  StringRef name = stringifyFormulation(formulation);
  std::optional<int64_t> row = cooperativeRowLength(kernel);
  if (!row)
    return emitError() << name
                       << " needs reductions along the innermost loop, all "
                          "over rows of one static length";
  if (!tuning.getThread().empty())
    return emitError() << name
                       << " has no thread tile: the lanes stride over the row";
  if (!tuning.getReduction().empty() || !tuning.getShared().empty() ||
      !tuning.getRegisters().empty())
    return emitError() << name
                       << " does not take reduction tiles or memory promotion";
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  bool perWarp = formulation == Formulation::reduce_row_per_warp;
  size_t numParallel = loops->parallelPositions.size();
  ArrayRef<int64_t> block = tuning.getBlock(), warp = tuning.getWarp();
  if (block.size() != numParallel)
    return emitError() << name << " needs a block tile entry for each of the "
                       << numParallel << " parallel loops";
  if (perWarp ? warp.size() != numParallel : !warp.empty())
    return emitError() << name
                       << (perWarp ? " needs a warp tile entry per parallel "
                                     "loop"
                                   : " has no warp tile");
  int64_t tiled = 0, rowsPerBlock = 1, rowsPerWarp = 1;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t b = block[p], w = perWarp ? warp[p] : 0;
    if (loops->reducedByProducer[pos]) {
      if (b || w)
        return emitError() << "loop " << pos
                           << " is the row the lanes share: it cannot be "
                              "tiled";
      continue;
    }
    if (b < 1 || loops->extents[pos] % b != 0)
      return emitError() << name << " needs a block tile that divides loop "
                         << pos << " (extent " << loops->extents[pos]
                         << "), got " << b;
    if (perWarp && (w < 1 || w > 32 || !llvm::isPowerOf2_64(w) || b % w))
      return emitError() << "a warp owns 1 to 32 rows: the warp tile of loop "
                         << pos
                         << " must be a power of two dividing the block tile "
                         << b << ", got " << w;
    rowsPerWarp *= perWarp ? w : 1;
    if (!perWarp && b != 1)
      return emitError() << "a block owns one row: the block tile of loop "
                         << pos << " must be 1, got " << b;
    rowsPerBlock *= b;
    ++tiled;
  }
  if (tiled == 0)
    return emitError() << name << " needs a parallel loop to spread rows over";
  if (tiled > 3)
    return emitError() << "block tile tiles " << tiled
                       << " loops but a grid has 3 dimensions";
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 1)
    return emitError() << name << " takes a one-dimensional block of threads";
  if (perWarp && rowsPerWarp > 32)
    return emitError() << "a warp owns at most 32 rows, got " << rowsPerWarp;
  if (perWarp && threads[0] != 32 * rowsPerBlock / rowsPerWarp)
    return emitError() << "threads [" << threads[0] << "] must be a warp per "
                       << rowsPerWarp
                       << " row(s): " << 32 * rowsPerBlock / rowsPerWarp
                       << " for " << rowsPerBlock << " rows per block";
  if (!perWarp && (threads[0] % 32 != 0))
    return emitError() << "threads [" << threads[0] << "] must be whole warps";
  int64_t v = tuning.getVector();
  if (*row % v != 0)
    return emitError() << "vector = " << v << " does not divide the row of "
                       << *row;
  if (v * narrowestElementBits(kernel) > 128)
    return emitError() << "vector = " << v
                       << " exceeds 16-byte accesses of the kernel's "
                          "narrowest operand";
  if (int64_t k = tuning.getRowShared()) {
    int64_t held = heldRowElementBytes(kernel);
    if (held == 0)
      return emitError() << "row_shared = " << k
                         << " needs an input row that two ops or more read "
                            "(held across them); none is";
    int64_t steps = *row / (threads[0] * v);
    if (*row % (threads[0] * v) != 0 || k > steps)
      return emitError() << "row_shared = " << k << " exceeds the " << steps
                         << " whole row steps of each thread (" << *row
                         << " elements, " << threads[0] << " threads x vector "
                         << v << ")";
    // Each held input keeps K steps of V elements per thread.
    int64_t bytes = mulSat(mulSat(k, threads[0]), v * held);
    int64_t limit = kStaticSharedMemoryPerBlock;
    if (TargetAttr target = lookupTarget(kernel))
      limit = std::max<int64_t>(limit, target.getSharedMemoryPerBlock());
    if (bytes > limit)
      return emitError() << "row_shared = " << k << " needs " << bytes
                         << " bytes of shared memory for its held rows; a "
                            "block may have "
                         << limit;
  }
  return success();
}

std::string mlir::egg::describeCooperativeRowRules() {
  return "Rules of the row lowering: `block` has one entry per parallel "
         "loop of the root op, tiles divide the extents, no thread "
         "tiles, one-dimensional `threads`; a warp per row: warp tile 1 "
         "on every row loop and threads = 32 x rows per block, except "
         "that short rows may share a warp (a warp tile G, a power of two "
         "of at most 32 rows, then 32 / G lanes per row and threads = 32 "
         "x rows per block / G); a block "
         "per row: block tile 1 on every row loop; `vector` divides the "
         "row and moves 16 bytes at most of the kernel's narrowest "
         "input or result type. A block per row whose row is read by "
         "several ops holds each thread's part of it across them; "
         "`row_shared = K` keeps the last K of those row steps (each "
         "threads x vector elements) in shared memory instead of "
         "registers, so that two blocks share an SM where the held row "
         "takes more than a quarter of the register file (a 128 KB "
         "group norm row over 1024 threads: 6 of 8 steps).";
}
