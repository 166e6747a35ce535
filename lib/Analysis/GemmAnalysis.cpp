//===- GemmAnalysis.cpp - Products as M, N, K -----------------------------===//

#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::egg;

/// Whether every result of `map` is a sum of loops with positive constant
/// coefficients (a convolution's input: oh * stride + kh * dilation).
static bool isSumOfLoops(AffineMap map) {
  auto isTerm = [](AffineExpr e) {
    if (isa<AffineDimExpr>(e))
      return true;
    auto mul = dyn_cast<AffineBinaryOpExpr>(e);
    if (!mul || mul.getKind() != AffineExprKind::Mul)
      return false;
    auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
    return isa<AffineDimExpr>(mul.getLHS()) && c && c.getValue() > 0;
  };
  return llvm::all_of(map.getResults(), [&](AffineExpr result) {
    SmallVector<AffineExpr> worklist = {result};
    while (!worklist.empty()) {
      AffineExpr e = worklist.pop_back_val();
      auto add = dyn_cast<AffineBinaryOpExpr>(e);
      if (add && add.getKind() == AffineExprKind::Add) {
        worklist.push_back(add.getLHS());
        worklist.push_back(add.getRHS());
      } else if (!isTerm(e)) {
        return false;
      }
    }
    return true;
  });
}

int64_t GemmLoops::extent(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents) {
  int64_t product = 1;
  for (unsigned d : loops)
    product = mulSat(product, extents[d]);
  return product;
}

std::optional<SmallVector<int64_t>>
mlir::egg::splitRowMajor(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
                         int64_t count, bool partial, bool overhang) {
  if (partial && loops.size() == 1 && count != extents[loops[0]] &&
      count <= 2 * extents[loops[0]])
    return SmallVector<int64_t>{count};
  if (partial && overhang && !loops.empty() && count > extents[loops.back()] &&
      count % extents[loops.back()] != 0 &&
      count <= 2 * extents[loops.back()]) {
    SmallVector<int64_t> split(loops.size(), 1);
    split.back() = count;
    return split;
  }
  SmallVector<int64_t> split(loops.size(), 1);
  for (int64_t i = loops.size() - 1; i >= 0 && count > 1; --i) {
    int64_t e = extents[loops[i]];
    if (count >= e) {
      if (count % e != 0)
        return std::nullopt;
      split[i] = e;
      count /= e;
    } else {
      // The loop the range ends in: with `partial`, its last tile may be
      // cut short (the loops inside it are whole, those outside take 1).
      if (e % count != 0 && !partial)
        return std::nullopt;
      split[i] = count;
      count = 1;
    }
  }
  if (count != 1)
    return std::nullopt;
  return split;
}

int64_t mlir::egg::fitRowMajor(ArrayRef<unsigned> loops,
                               ArrayRef<int64_t> extents, int64_t want,
                               bool partial) {
  for (int64_t count = want; count >= 1; --count)
    if (splitRowMajor(loops, extents, count, partial))
      return count;
  return 0;
}

int64_t mlir::egg::rowMajorTileCount(ArrayRef<unsigned> loops,
                                     ArrayRef<int64_t> extents, int64_t count,
                                     bool partial, bool overhang) {
  std::optional<SmallVector<int64_t>> split =
      splitRowMajor(loops, extents, count, partial, overhang);
  if (!split)
    return 0;
  int64_t tiles = 1;
  for (auto [d, s] : llvm::zip(loops, *split))
    tiles = mulSat(tiles, llvm::divideCeil(extents[d], s));
  return tiles;
}

std::optional<SmallVector<int64_t>>
mlir::egg::gemmTileList(const GemmLoops &gemm, ArrayRef<int64_t> within,
                        int64_t m, int64_t n, bool partial, bool overhang) {
  std::optional<SmallVector<int64_t>> ms =
      splitRowMajor(gemm.mLoops, within, m, partial, overhang);
  std::optional<SmallVector<int64_t>> ns =
      splitRowMajor(gemm.nLoops, within, n, partial, overhang);
  if (!ms || !ns)
    return std::nullopt;
  SmallVector<int64_t> tile;
  for (unsigned d = 0; d < within.size(); ++d) {
    if (gemm.isReduction(d))
      continue;
    const auto *inM = llvm::find(gemm.mLoops, d);
    const auto *inN = llvm::find(gemm.nLoops, d);
    if (inM != gemm.mLoops.end())
      tile.push_back((*ms)[inM - gemm.mLoops.begin()]);
    else if (inN != gemm.nLoops.end())
      tile.push_back((*ns)[inN - gemm.nLoops.begin()]);
    else
      tile.push_back(1);
  }
  return tile;
}

std::optional<RowRuns> mlir::egg::rowRuns(ArrayRef<int64_t> block,
                                          ArrayRef<int64_t> inner) {
  size_t n = block.size();
  if (inner.size() != n)
    return std::nullopt;
  // The row loop: the outermost one the thread tile spans beyond 1, whole.
  size_t row = 0;
  while (row < n && inner[row] == 1)
    ++row;
  if (row == n || block[row] == 1 || inner[row] != block[row])
    return std::nullopt;
  // The loop the thread's part of a row ends in: strictly part of it.
  size_t part = row + 1;
  while (part < n && block[part] == 1)
    ++part;
  if (part == n || inner[part] >= block[part] || block[part] % inner[part] != 0)
    return std::nullopt;
  int64_t stride = 1;
  for (size_t l = row + 1; l < n; ++l) {
    if (l > part && inner[l] != block[l])
      return std::nullopt;
    stride *= block[l];
  }
  return RowRuns{block[row], stride};
}

std::optional<unsigned> mlir::egg::contiguousLoop(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

Tf32Copy mlir::egg::tf32CopyOf(linalg::LinalgOp op, const GemmLoops &gemm,
                               unsigned which, int64_t vector, bool split) {
  OpOperand *operand = op.getDpsInputOperand(which);
  auto type = cast<ShapedType>(operand->get().getType());
  if (type.getElementTypeBitWidth() != 32)
    return Tf32Copy::pieces;
  std::optional<unsigned> fast =
      contiguousLoop(op.getMatchingIndexingMap(operand));
  unsigned mn = which == gemm.lhs ? gemm.innerM() : gemm.innerN();
  auto whole = [&](unsigned loop) {
    int64_t run = op.getStaticLoopRanges()[loop];
    return !ShapedType::isDynamic(run) && run % vector == 0;
  };
  if (fast == gemm.innerK())
    return whole(*fast) ? Tf32Copy::pieces : Tf32Copy::elements;
  // Transposed pieces also keep 16-byte alignment along the layout's rows.
  if (split && fast == mn && whole(mn) &&
      !type.isDynamicDim(type.getRank() - 1) &&
      type.getShape().back() % vector == 0)
    return Tf32Copy::transposed;
  return Tf32Copy::elements;
}

std::optional<GemmTiles> mlir::egg::gemmTiles(const GemmLoops &gemm,
                                              ArrayRef<int64_t> extents,
                                              int64_t m, int64_t n, int64_t om,
                                              int64_t on, bool partial,
                                              bool overhang) {
  std::optional<SmallVector<int64_t>> block =
      gemmTileList(gemm, extents, m, n, partial, overhang);
  if (!block)
    return std::nullopt;
  // The block's extent of each loop, for the split among its owners.
  SmallVector<int64_t> blockExtents(extents.size(), 1);
  unsigned p = 0;
  for (unsigned d = 0; d < extents.size(); ++d)
    if (!gemm.isReduction(d))
      blockExtents[d] = (*block)[p++];
  std::optional<SmallVector<int64_t>> inner =
      gemmTileList(gemm, blockExtents, om, on);
  if (!inner)
    return std::nullopt;
  return GemmTiles{*block, *inner};
}

FailureOr<GemmLoops> mlir::egg::analyzeGemmLoops(Operation *op,
                                                 std::string &why) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  bool contraction = linalgOp && linalg::isaContractionOpInterface(linalgOp);
  bool convolution = linalgOp && linalg::isaConvolutionOpInterface(linalgOp);
  if (!contraction && !convolution) {
    why = "the anchor is neither a contraction nor a convolution";
    return failure();
  }
  if (linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1 ||
      (contraction && linalgOp.getNumReductionLoops() != 1)) {
    why = "the contraction does not have two inputs, one result and one "
          "reduction loop";
    return failure();
  }
  GemmLoops loops;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  AffineMap out = maps[2];
  // A convolution's input (one of the two) reads sums of loops; everything
  // else is read through projected permutations.
  unsigned permutations = llvm::count_if(
      maps, [](AffineMap m) { return m.isProjectedPermutation(); });
  if (permutations < 2 || !out.isProjectedPermutation() ||
      !llvm::all_of(maps, isSumOfLoops) || (contraction && permutations != 3)) {
    why = contraction ? "an operand is not indexed by a projected "
                        "permutation of the loops"
                      : "the convolution's filter or result is not indexed "
                        "by a projected permutation, or its input not by "
                        "sums of loops";
    return failure();
  }
  if (out.getNumResults() == 0) {
    why = "the product has a scalar result";
    return failure();
  }
  // The result's dimensions in loop order, so that tile lists (one entry per
  // parallel loop) address them in order.
  if (!inLoopOrder(out)) {
    why = "the result is not indexed by the parallel loops in order";
    return failure();
  }
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  unsigned innermost = out.getDimPosition(out.getNumResults() - 1);
  SmallVector<unsigned> onlyA, onlyB;
  for (unsigned d = 0; d < linalgOp.getNumLoops(); ++d) {
    bool inA = maps[0].isFunctionOfDim(d), inB = maps[1].isFunctionOfDim(d);
    if (iterators[d] == utils::IteratorType::reduction) {
      if (!inA || !inB) {
        why = "reduction loop " + std::to_string(d) +
              " is not read by both "
              "inputs";
        return failure();
      }
      loops.kLoops.push_back(d);
    } else if (inA && inB) {
      loops.batch.push_back(d);
    } else if (inA) {
      onlyA.push_back(d);
    } else if (inB) {
      onlyB.push_back(d);
    }
  }
  // N holds the result's innermost loop; its input is B.
  bool bHoldsN = llvm::is_contained(onlyB, innermost);
  if (!bHoldsN && !llvm::is_contained(onlyA, innermost)) {
    why = "the result's innermost loop is read by both inputs";
    return failure();
  }
  loops.rhs = bHoldsN ? 1 : 0;
  loops.lhs = 1 - loops.rhs;
  loops.nLoops = bHoldsN ? onlyB : onlyA;
  loops.mLoops = bHoldsN ? onlyA : onlyB;
  if (loops.mLoops.empty() || loops.kLoops.empty()) {
    why = "the product is not a (batched) matrix product: it has no " +
          std::string(loops.mLoops.empty() ? "M" : "K") + " loop";
    return failure();
  }
  return loops;
}
