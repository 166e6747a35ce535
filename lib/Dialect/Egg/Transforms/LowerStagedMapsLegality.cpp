//===- LowerStagedMapsLegality.cpp - Staged maps: legality ----------------===//
//===//

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
mlir::egg::checkStagedMap(KernelOp kernel, TuningAttr tuning,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(kernel.getAnchorOp());
  int64_t ops = 0;
  kernel.getBody().walk([&](TilingInterface) { ++ops; });
  if (!op || ops != 1)
    return emitError() << "inputs are staged through shared memory for "
                          "kernels of one op only";
  if (!tuning.getThread().empty() || !tuning.getWarp().empty() ||
      !tuning.getReduction().empty() || !tuning.getRegisters().empty())
    return emitError() << "a map staged through shared memory takes block "
                          "tiles, threads, shared inputs and padding only";
  int64_t v = tuning.getVector();
  if (v < 1 || !llvm::isPowerOf2_64(v))
    return emitError() << "vector = " << v << " is not a power of two";
  if (tuning.getCopy() != CopyEngine::sync || tuning.getPipeline() != 1 ||
      tuning.getSwizzle() != Swizzle::none)
    return emitError() << "a map staged through shared memory copies with "
                          "plain loads and stores (copy = sync, pipeline = "
                          "1, no swizzle)";
  if (tuning.getPadding() < 0 || tuning.getPadding() > 64)
    return emitError() << "padding " << tuning.getPadding()
                       << " is outside [0, 64]";
  SmallVector<int64_t> transposed = transposedInputs(kernel);
  for (int64_t k : tuning.getShared())
    if (!llvm::is_contained(transposed, k))
      return emitError() << "shared operand " << k
                         << " is not an input the map reads across its "
                            "results' innermost loop (staged inputs: ["
                         << ArrayRef<int64_t>(transposed) << "])";
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return failure();
  ArrayRef<int64_t> block = tuning.getBlock();
  SmallVector<int64_t> tile = loops->extents;
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t b = p < block.size() ? block[p] : 0;
    if (b && loops->extents[pos] % b != 0)
      return emitError() << "block tile " << b << " does not divide loop "
                         << pos << " of extent " << loops->extents[pos]
                         << " (the generic lowering needs whole tiles)";
    if (b)
      tile[pos] = b;
  }
  int64_t blockLoops =
      llvm::count(tiledLoops(*loops, loops->extents, block), true);
  if (blockLoops == 0 || blockLoops > 3)
    return emitError() << "block tile tiles " << blockLoops
                       << " loops; a grid has 1 to 3 dimensions";
  int64_t threads = tuning.getNumThreads();
  if (threads > kMaxThreadsPerBlock || threads % 32 != 0)
    return emitError() << threads
                       << " threads: a staged map takes whole warps, at most "
                       << kMaxThreadsPerBlock << " threads";
  // Vectors run along the results' innermost loop (stage 2) and along each
  // staged input's contiguous dimension (stage 1): both tiles must hold
  // whole vectors, and the results must be contiguous along that loop.
  unsigned inner = op.getNumLoops() - 1;
  if (v > 1) {
    for (OpOperand &operand : op->getOpOperands())
      if (auto type = dyn_cast<ShapedType>(operand.get().getType());
          type && type.getElementTypeBitWidth() * v > 128)
        return emitError() << "vector = " << v << " of "
                           << type.getElementType()
                           << " exceeds 16-byte accesses";
    if (tile[inner] % v != 0)
      return emitError() << "vector = " << v
                         << " does not divide the block tile " << tile[inner]
                         << " of the innermost loop";
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      if (map.getNumResults() == 0 ||
          map.getResult(map.getNumResults() - 1) !=
              getAffineDimExpr(inner, op.getContext()))
        return emitError() << "vector accesses need the results to be "
                              "contiguous along the innermost loop";
    }
  }
  // "N elements", or "N vectors of V" where accesses are vectors.
  auto pieces = [&](int64_t count) {
    return v == 1
               ? std::to_string(count) + " elements"
               : std::to_string(count / v) + " vectors of " + std::to_string(v);
  };
  int64_t elements = 1;
  for (int64_t t : tile)
    elements = mulSat(elements, t);
  if ((elements / v) % threads != 0)
    return emitError() << threads << " threads do not divide the block's "
                       << pieces(elements);
  int64_t bytes = 0;
  for (int64_t k : tuning.getShared()) {
    OpOperand &input = op->getOpOperand(k);
    AffineMap map = op.getMatchingIndexingMap(&input);
    int64_t count = 1, rows = 1;
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      int64_t extent = tile[map.getDimPosition(r)];
      count = mulSat(count, extent);
      if (r + 1 < map.getNumResults())
        rows = mulSat(rows, extent);
    }
    int64_t contiguous = tile[map.getDimPosition(map.getNumResults() - 1)];
    if (contiguous % v != 0)
      return emitError() << "vector = " << v << " does not divide input " << k
                         << "'s tile " << contiguous
                         << " along its contiguous dimension";
    if ((count / v) % threads != 0)
      return emitError() << threads << " threads do not divide the "
                         << pieces(count) << " of input " << k << "'s tile";
    Type element = getElementTypeOrSelf(input.get().getType());
    bytes += mulSat(count + mulSat(rows, tuning.getPadding()),
                    (element.getIntOrFloatBitWidth() + 7) / 8);
  }
  if (bytes > kStaticSharedMemoryPerBlock)
    return emitError() << "the staged tiles need " << bytes
                       << " bytes of shared memory; a block may have "
                       << kStaticSharedMemoryPerBlock;
  return success();
}

std::string mlir::egg::describeStagedMapRules(ArrayRef<int64_t> transposed) {
  return " This map reads input(s) [" +
         llvm::join(
             llvm::map_range(transposed,
                             [](int64_t k) { return std::to_string(k); }),
             ", ") +
         "] across its results' innermost loop; a kernel of this one op "
         "may stage them through shared memory instead: `shared` lists "
         "them, `block` tiles (whole tiles, 1 on other loops), "
         "one-dimensional `threads` (whole warps, at most " +
         std::to_string(kMaxThreadsPerBlock) +
         ", "
         "dividing each tile's elements), `padding` elements per "
         "shared row, no thread tiles, vector 1, at most " +
         std::to_string(kStaticSharedMemoryPerBlock / 1024) +
         " KB of shared memory.";
}
