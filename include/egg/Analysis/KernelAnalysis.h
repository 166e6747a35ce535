//===- KernelAnalysis.h - What a kernel is ----------------------*- C++ -*-===//
//
// What a kernel computes and over which loops: its op class, its root
// loops, the rows its reductions run along, its layouts. Pure queries on
// the IR, shared by the lowerings, their legality checks and the agents.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_ANALYSIS_KERNELANALYSIS_H
#define EGG_ANALYSIS_KERNELANALYSIS_H

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::egg {

/// The op class a kernel is built around; decides which structures apply.
enum class KernelClass {
  Elementwise,
  Contraction,
  Convolution,
  Reduction,
  Normalization,
  Softmax,
  Scan,
  Recurrence,
};
llvm::StringRef stringifyKernelClass(KernelClass kind);
KernelClass classifyKernel(KernelOp kernel);

/// Whether a projected permutation lists its loops in increasing order.
bool inLoopOrder(AffineMap map);

/// A contraction whose one reduction is its innermost loop, read
/// contiguously by every input that reads it, with no N loop (a
/// matrix-vector product, batched or not) or with at most
/// kSkinnyProductRows rows on its M or N side whose other operand fits a
/// quarter of L2 (a linear layer over a few rows): it is a row reduction
/// of a product, memory-bound, and lanes can share its rows like a row
/// sum's (structure principle 8).
bool isRowContraction(Operation *op);
inline constexpr int64_t kSkinnyProductRows = 16;

/// Whether `structure` shares each row among the lanes of a warp
/// (`reduce_row_per_warp`) or of a block (`reduce_row_per_block`): lanes
/// stride over the row and combine partial reductions with shuffles.
bool isCooperativeRow(StructureAttr structure);
bool isCooperativeRow(Formulation formulation);

/// The row a row-wise kernel's reductions run along, when lanes can share
/// it: every reduction (and softmax) in the body reduces its innermost loop
/// and all have the same static extent, which is returned. Otherwise
/// nullopt (for example a reduction over a non-contiguous axis).
std::optional<int64_t> cooperativeRowLength(KernelOp kernel);

/// Bytes of its row a lane of a row-sharing kernel may hold in registers
/// across the kernel's ops (egg-distribute-rows): like the loads in flight
/// of a warp per row, about 128 bytes, which a block of 1024 threads (at
/// most 64 registers each) still affords.
inline constexpr int64_t kHeldBytesPerLane = 128;

/// Bytes per row element of the kernel inputs that a row-sharing kernel
/// holds across its ops: inputs read along the row by two ops or more (a
/// softmax counts as several), as egg-distribute-rows finds them after
/// tiling. 0 when no input is read twice.
int64_t heldRowElementBytes(KernelOp kernel);

/// Whether a block of `threads` holds the kernel's row across its ops: an
/// input read twice (heldRowElementBytes), at most kHeldBytesPerLane of it
/// per thread.
bool holdsRow(KernelOp kernel, int64_t threads);

/// Widest element, in bits (at least 8), of any shaped value the kernel's
/// inputs and body carry: what bounds a 16-byte vector access.
int64_t widestElementBits(KernelOp kernel);

/// Narrowest element, in bits (at least 8), of the kernel's inputs and
/// results: what bounds a row's vector when lanes share rows. Wider values
/// along the row (an f32 accumulator of a bf16 row) take several 16-byte
/// accesses per vector, so the narrow row still moves 16 bytes per access.
int64_t narrowestElementBits(KernelOp kernel);

/// Static extents of the root op's loops and which are parallel; fails with
/// a diagnostic on dynamic shapes.
struct RootLoops {
  SmallVector<int64_t> extents;
  SmallVector<bool> parallel;
  /// Positions (in root loop order) of the parallel loops, i.e. of the
  /// entries of the `block` / `thread` tile lists.
  SmallVector<unsigned> parallelPositions;
  /// Parallel loops that the kernel's reductions run along (a softmax or
  /// normalisation row): tiling them would split a reduction.
  SmallVector<bool> reducedByProducer;
};
FailureOr<RootLoops>
analyzeRootLoops(KernelOp kernel, function_ref<InFlightDiagnostic()> emitError);

/// Whether the root's parallel loops are `op`'s parallel loops, with the
/// same extents and in order: tile lists (one entry per parallel loop of
/// the root) then address `op`'s loops (the root is `op`, or an epilogue
/// over its result in its order).
bool rootRunsOverResult(const RootLoops &root, linalg::LinalgOp op);

/// The parallel loop (by index into the tile lists) along which the root's
/// first result is contiguous (its innermost dimension), if one is.
std::optional<size_t> resultContiguousLoop(KernelOp kernel,
                                           const RootLoops &loops);

/// Which parallel loops (by index into the tile lists) the kernel's window
/// op (its anchor: a pooling or convolution) slides its window along
/// by one tap, so that neighbouring outputs share all but one tap's
/// inputs: its first input is read at `s * o + d * k` for the loop o and
/// a reduced loop k of extent K > 1, with s = d. Empty where the root's
/// loops are not the anchor's.
SmallVector<bool> overlappingWindowLoops(KernelOp kernel,
                                         const RootLoops &loops);

/// Which parallel loops (by index into `perParallel`) a tile list tiles over
/// loops of `extents` (by loop position): those with a non-zero tile, except
/// that with more than three, tiles spanning their whole loop are left
/// untiled when that leaves three (a grid or block has three dimensions).
/// egg-apply-schedule tiles exactly these; legality and the implied threads
/// count them.
SmallVector<bool> tiledLoops(const RootLoops &loops, ArrayRef<int64_t> extents,
                             ArrayRef<int64_t> perParallel);

/// The most block loops one kernel spreads over the grid: more than three
/// take a linear block index, delinearized by upstream's GPU mapping into
/// at most ten loops (#gpu.block<linear_dim_0> to <linear_dim_9>).
inline constexpr int64_t kMaxLinearGridLoops = 10;

/// Threads per block that the tile lists imply, in x, y, z order (innermost
/// tiled loop on x).
SmallVector<int64_t> impliedThreads(const RootLoops &loops,
                                    ArrayRef<int64_t> block,
                                    ArrayRef<int64_t> thread);

/// The reduced loop of a column reduction (`reduce_two_stage`,
/// docs/pipeline.md "Column reductions"): a reduction kernel whose one
/// reduction loop is not the innermost loop, which is parallel and along
/// which every input is contiguous (or constant); its result is indexed by
/// the parallel loops in order. Nullopt otherwise.
std::optional<unsigned> columnReductionLoop(KernelOp kernel);

/// A reduction that carries an index with its value (argmax, argmin): two
/// results, the value `select(c, x, best)` and the index `select(c, i,
/// at)` under one `c = cmpf(predicate, x, best)`, where x is an input and
/// i is the reduced loop's index (cast to the index result's type). A
/// strict predicate keeps the first such row.
struct IndexedReduction {
  arith::CmpFPredicate predicate;
};
std::optional<IndexedReduction> matchIndexedReduction(linalg::LinalgOp op);

/// Inputs of an elementwise anchor that it reads across the loop its
/// results run along (a transpose's source): operand numbers of rank-2+
/// tensors read through a projected permutation whose contiguous loop is
/// not the innermost loop, which the results are contiguous along.
SmallVector<int64_t> transposedInputs(KernelOp kernel);

/// The loops whose tiles a staged map's blocks take across both layouts:
/// the innermost loop (the results' contiguous one), then the contiguous
/// loop of each input in `staged`, each loop once.
SmallVector<unsigned> stagedTileLoops(KernelOp kernel,
                                      ArrayRef<int64_t> staged);

} // namespace mlir::egg

#endif // EGG_ANALYSIS_KERNELANALYSIS_H
