//===- SharedMemory.cpp - Shared-memory footprint of a tuning -------------===//
//
// Shared by the egg.kernel verifier (reject decisions that cannot fit) and the
// agents (estimate before proposing).
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::egg;

FailureOr<int64_t> mlir::egg::estimateSharedMemoryBytes(
    Operation *anchor, TuningAttr tuning,
    function_ref<InFlightDiagnostic()> emitError) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(anchor);
  if (!linalgOp)
    return emitError() << "shared-memory promotion needs a structured linalg "
                          "anchor op";
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return emitError() << "shared-memory promotion needs static loop ranges";

  // Extent of each loop inside one block's tile.
  SmallVector<int64_t> tile(ranges.size());
  ArrayRef<int64_t> block = tuning.getBlock();
  ArrayRef<int64_t> reduction = tuning.getReduction();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  size_t p = 0, r = 0;
  for (auto [i, it] : llvm::enumerate(iterators)) {
    int64_t size = 0;
    if (it == utils::IteratorType::parallel)
      size = p < block.size() ? block[p++] : 0;
    else
      size = r < reduction.size() ? reduction[r++] : 0;
    tile[i] = size > 0 ? std::min(size, ranges[i]) : ranges[i];
  }
  // One K step over several reduction loops (an implicit-GEMM convolution)
  // steps through them row-major: the innermost first, the rest by as many
  // whole rounds as the step spans (rounded up, an upper bound).
  if (reduction.size() == 1 && linalgOp.getNumReductionLoops() > 1) {
    int64_t remaining = reduction[0];
    for (int64_t i = iterators.size() - 1; i >= 0; --i) {
      if (iterators[i] != utils::IteratorType::reduction)
        continue;
      tile[i] = std::max<int64_t>(1, std::min(remaining, ranges[i]));
      remaining = (remaining + ranges[i] - 1) / ranges[i];
    }
  }
  // Evaluate at the last index of the tile: for the monotone maps linalg uses
  // (projections, convolution sums) that is the largest index touched.
  SmallVector<int64_t> last =
      llvm::map_to_vector(tile, [](int64_t t) { return t - 1; });

  int64_t total = 0;
  int64_t numOperands = linalgOp->getNumOperands();
  for (int64_t o : tuning.getShared()) {
    if (o >= numOperands)
      return emitError() << "shared operand " << o << " is out of range: the "
                         << "anchor op has " << numOperands << " operands";
    OpOperand &operand = linalgOp->getOpOperand(o);
    Type elementType = getElementTypeOrSelf(operand.get().getType());
    if (!elementType.isIntOrFloat())
      return emitError() << "cannot size a shared tile of " << elementType;
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    int64_t elems = 1;
    if (map.isProjectedPermutation()) {
      SmallVector<int64_t> extents = map.compose(last);
      for (auto [d, e] : llvm::enumerate(extents)) {
        int64_t extent = e + 1;
        if (d + 1 == extents.size())
          extent += tuning.getPadding();
        elems = mulSat(elems, extent);
      }
    } else {
      // A convolution's input is copied as the implicit GEMM's tile: one
      // element per combination of the tiled loops it reads (its window,
      // with strides, would overcount).
      int64_t lastTile = 1;
      for (unsigned d = 0; d < tile.size(); ++d)
        if (map.isFunctionOfDim(d)) {
          elems = mulSat(elems, tile[d]);
          lastTile = tile[d];
        }
      elems = mulSat(elems / lastTile, lastTile + tuning.getPadding());
    }
    total = addSat(
        total, mulSat(elems, (elementType.getIntOrFloatBitWidth() + 7) / 8));
  }
  return mulSat(total, tuning.getPipeline());
}
