//===- GemmAnalysis.h - Products as M, N, K ---------------------*- C++ -*-===//
//
// A product or convolution seen as a GEMM: the roles of its loops and how
// tile sizes of M and N positions split over them.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_ANALYSIS_GEMMANALYSIS_H
#define EGG_ANALYSIS_GEMMANALYSIS_H

#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::egg {

/// The roles of a product's loops for the shared-memory GEMM lowering
/// (docs/pipeline.md, "GEMM through shared memory"): the reduction loops K,
/// the parallel loops M read by `lhs` only and N read by `rhs` only (N holds
/// the result's innermost index), batch loops read by both. A matrix
/// product has one M, N and K loop; a convolution taken as an implicit GEMM
/// (docs/pipeline.md, "Convolutions as implicit GEMM") several, e.g. M =
/// (n, oh, ow), N = (f), K = (kh, kw, c) for NHWC. The lowering numbers the
/// positions of a group row-major over its loops (outermost first).
struct GemmLoops {
  SmallVector<unsigned> batch;
  SmallVector<unsigned> mLoops, nLoops, kLoops; // In loop order.
  unsigned lhs = 0, rhs = 1; // Input operand numbers of A and B.
  bool isReduction(unsigned d) const { return llvm::is_contained(kLoops, d); }
  /// Whether loop `d` is an M or N loop (neither batch nor reduction).
  bool isMN(unsigned d) const {
    return llvm::is_contained(mLoops, d) || llvm::is_contained(nLoops, d);
  }
  /// The loop of `kLoops`, `mLoops` or `nLoops` that varies fastest.
  unsigned innerK() const { return kLoops.back(); }
  unsigned innerM() const { return mLoops.back(); }
  unsigned innerN() const { return nLoops.back(); }
  /// Product of `extents` over `loops`.
  static int64_t extent(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents);
};
/// The roles of `op`'s loops, or failure (with the reason in `why`) when it
/// is neither a two-input contraction with projected-permutation maps nor a
/// convolution whose input is indexed by sums of loops (and whose filter
/// and result by projected permutations) with at least one loop on each
/// of M, N and K.
FailureOr<GemmLoops> analyzeGemmLoops(Operation *op, std::string &why);

/// The loop an operand read through `map` is contiguous along: its last
/// index, when that is a loop (not a sum of loops). Nullopt otherwise.
std::optional<unsigned> contiguousLoop(AffineMap map);

/// Splits `count` positions over `loops` (of extents `extents`, indexed by
/// loop) row-major: the innermost loop's whole extent before the next
/// loop's, so that the split covers one contiguous range of the row-major
/// numbering. Returns the per-loop counts (in the order of `loops`), or
/// nullopt when the extents do not divide so. With `partial`, the loop the
/// range ends in (whole loops inside it) need not be divided by its part,
/// and a group of one loop also takes a count up to twice its extent: the
/// last tile is partial (docs/pipeline.md, "Partial tiles"). With
/// `overhang` (and `partial`), the innermost loop of a group may also take
/// a count above its extent, up to twice it, the outer loops 1: a 64-row
/// tile of warpgroup MMA over a 62-wide output row.
std::optional<SmallVector<int64_t>>
splitRowMajor(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
              int64_t count, bool partial = false, bool overhang = false);

/// The largest count of at most `want` positions that splitRowMajor
/// splits over `loops` (with `partial` as there); 0 if none.
int64_t fitRowMajor(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
                    int64_t want, bool partial = false);

/// Tiles of `count` positions (splitRowMajor with `partial`) that cover
/// `loops`: the product over its loops of their tiles per loop, a cut
/// last tile counted whole; 0 where `count` does not split so.
int64_t rowMajorTileCount(ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
                          int64_t count, bool partial = false,
                          bool overhang = false);

/// A tile list (one entry per parallel loop of a product with `numLoops`
/// loops) holding `m` positions over the M loops and `n` over the N loops
/// (splitRowMajor over `within`, the loop extents or an outer tile indexed
/// by loop) and 1 on batch loops; nullopt when a group does not split so.
/// (`overhang` as in splitRowMajor, for the block tile.)
std::optional<SmallVector<int64_t>>
gemmTileList(const GemmLoops &gemm, ArrayRef<int64_t> within, int64_t m,
             int64_t n, bool partial = false, bool overhang = false);

/// A product's block tile list of `m` x `n` positions within the loop
/// `extents`, and its owners' (warps', warpgroups' or threads') lists of
/// `om` x `on` each within the block; nullopt where a group does not split
/// so (gemmTileList). With `partial`, block tiles need not divide the loop
/// their range ends in (the owners' tiles still divide the block's).
struct GemmTiles {
  SmallVector<int64_t> block, inner;
};
std::optional<GemmTiles> gemmTiles(const GemmLoops &gemm,
                                   ArrayRef<int64_t> extents, int64_t m,
                                   int64_t n, int64_t om, int64_t on,
                                   bool partial = false, bool overhang = false);

/// A thread tile of an N group that is not one contiguous range of the
/// block's row-major positions but `rows` of them, `stride` positions
/// apart: the thread spans a whole outer loop of the block tile (its rows)
/// and a part of the loop inside it, with the loops between of block tile 1
/// and those further in whole (4 rows x 2 positions of a block of 4 output
/// rows 62 wide; docs/pipeline.md, "Row thread tiles"). `block` and `inner`
/// hold the group's block and thread tiles per loop, outer to inner;
/// nullopt where the thread tile is not of that form.
struct RowRuns {
  int64_t rows, stride;
};
std::optional<RowRuns> rowRuns(ArrayRef<int64_t> block,
                               ArrayRef<int64_t> inner);

/// Whether a shared-memory GEMM stores an operand's tile contiguous along
/// M/N (else along K): FMA tiles always (a thread reads its TM/TN values
/// as vectors); tensor-core tiles keep the global layout (ldmatrix and
/// wgmma transpose 16-bit tiles), except TF32's, always K-major.
inline bool gemmTileAlongMN(bool tensorCores, bool wgmma, int64_t bytes,
                            bool globalAlongMN) {
  if (!tensorCores)
    return true;
  return globalAlongMN && !(wgmma && bytes == 4);
}

/// How warpgroup MMA over cp.async fills the K-major TF32 tile of input
/// `which` of `op` (a product of `gemm`'s loops, 4-byte elements;
/// docs/pipeline.md, "Split TF32 products"):
/// - `pieces`: 16-byte pieces along K, as laid out;
/// - `transposed`: (split products only) 16-byte pieces along M/N into the
///   tile of low parts, which the split pass transposes: an input
///   contiguous along M/N whose innermost M/N loop is a multiple of
///   `vector` (`x @ w`'s w);
/// - `elements`: one element at a time: an input contiguous along neither
///   (an NCHW image read along ow + kw), one along K or M/N whose
///   innermost loop is no multiple of `vector` (a filter's 3 taps), or one
///   contiguous along M/N of an unsplit product.
enum class Tf32Copy { pieces, transposed, elements };
Tf32Copy tf32CopyOf(linalg::LinalgOp op, const GemmLoops &gemm, unsigned which,
                    int64_t vector, bool split);

} // namespace mlir::egg

#endif // EGG_ANALYSIS_GEMMANALYSIS_H
