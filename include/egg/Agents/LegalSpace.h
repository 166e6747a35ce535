//===- LegalSpace.h - What the compiler can build for a kernel --*- C++ -*-===//
//
// The agents never invent decisions: they pick from what this header
// enumerates, and everything they return is checked here against what the
// lowering implements before it reaches the IR.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_LEGALSPACE_H
#define EGG_AGENTS_LEGALSPACE_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir::egg {

/// The op class a kernel is built around; decides which structures apply.
enum class KernelClass {
  Elementwise,
  Contraction,
  Convolution,
  Reduction,
  Normalization,
  Softmax,
};
llvm::StringRef stringifyKernelClass(KernelClass kind);
KernelClass classifyKernel(KernelOp kernel);

/// Structures the lowering implements for `kernel`, best first.
SmallVector<StructureAttr> enumerateStructures(KernelOp kernel);

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

/// Checks that `tuning` is within what the generic lowering (tile + fuse,
/// scf.forall on blocks and threads) implements for `kernel`.
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
/// nullopt when the extents do not divide so. With `partial`, a group of
/// one loop also takes a count that does not divide it, up to twice its
/// extent (the last tile is partial; docs/pipeline.md, "Partial tiles").
std::optional<SmallVector<int64_t>> splitRowMajor(ArrayRef<unsigned> loops,
                                                  ArrayRef<int64_t> extents,
                                                  int64_t count,
                                                  bool partial = false);

/// A tile list (one entry per parallel loop of a product with `numLoops`
/// loops) holding `m` positions over the M loops and `n` over the N loops
/// (splitRowMajor over `within`, the loop extents or an outer tile indexed
/// by loop) and 1 on batch loops; nullopt when a group does not split so.
std::optional<SmallVector<int64_t>> gemmTileList(const GemmLoops &gemm,
                                                 ArrayRef<int64_t> within,
                                                 int64_t m, int64_t n,
                                                 bool partial = false);

/// A product's block tile list of `m` x `n` positions within the loop
/// `extents`, and its owners' (warps', warpgroups' or threads') lists of
/// `om` x `on` each within the block; nullopt where a group does not split
/// so (gemmTileList). With `partial`, block tiles of a one-loop group need
/// not divide it (the owners' tiles still divide the block's).
struct GemmTiles {
  SmallVector<int64_t> block, inner;
};
std::optional<GemmTiles> gemmTiles(const GemmLoops &gemm,
                                   ArrayRef<int64_t> extents, int64_t m,
                                   int64_t n, int64_t om, int64_t on,
                                   bool partial = false);

/// The reduced loop of a column reduction (`reduce_two_stage`,
/// docs/pipeline.md "Column reductions"): a reduction kernel whose one
/// reduction loop is not the innermost loop, which is parallel and along
/// which every input is contiguous (or constant); its result is indexed by
/// the parallel loops in order. Nullopt otherwise.
std::optional<unsigned> columnReductionLoop(KernelOp kernel);

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

/// Whether a tuning stages inputs of a map through shared memory
/// (`elementwise_flat` with `shared`; docs/pipeline.md, "Transposes through
/// shared memory"): egg-lower-staged-maps copies each block's tile of them
/// along their contiguous dimension, then computes along the results'.
bool isStagedMap(StructureAttr structure, TuningAttr tuning);

/// Whether a tuning takes the shared-memory GEMM lowering: it promotes
/// operands to shared memory (and is not a staged map).
bool isSharedGemm(TuningAttr tuning);

/// Whether a shared-memory GEMM tuning computes on tensor cores: it has a
/// warp tile (and no thread tile); each warp issues mma.sync m16n8k16 on
/// fragments loaded with ldmatrix (docs/pipeline.md, "Tensor cores").
bool isMmaGemm(TuningAttr tuning);

/// Whether a tensor-core GEMM tuning uses Hopper's warpgroup MMA: its
/// threads are [128, N, M], a warpgroup's 128 (not a warp's 32) then the
/// warpgroups along N and M; its warp tile is
/// each warpgroup's piece, and the tiles are stored with the 128-byte
/// swizzle that wgmma.mma_async reads through matrix descriptors
/// (docs/pipeline.md, "Warpgroup MMA").
bool isWgmmaGemm(TuningAttr tuning);

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

/// Registers per thread of a shared-memory GEMM launch: ptxas caps a launch
/// of T threads at 64K / T registers each (in steps of 8, at most 255), and
/// the block owns those. With TMA (`producer`, a warpgroup added to the
/// `computing` threads) and two or more computing warpgroups, setmaxnreg
/// gives the producer `producerRegisters` and the computing threads what the
/// block owns beyond that (at most 232); else every thread has the cap.
struct GemmRegisterBudget {
  int64_t launchCap = 0;
  int64_t computing = 0;
  int64_t producerRegisters = 0;
  bool split = false;
};
GemmRegisterBudget gemmRegisterBudget(int64_t computing, bool producer);

/// Accumulators a thread of a shared-memory GEMM tuning holds: its thread
/// tile, or its share of its warp's (mma.sync) or warpgroup's (wgmma) tile.
int64_t gemmAccumulatorsPerThread(TuningAttr tuning);

/// Alignment of the shared tiles that wgmma reads with the 128-byte
/// swizzle: the swizzle pattern repeats every 8 rows of 128 bytes.
inline constexpr int64_t kWgmmaSwizzleAtom = 1024;

/// Whether the block's ops stay whole through the mapping and are lowered
/// to thread code afterwards (a GEMM through shared memory, a column
/// reduction): no thread-level tiling, no per-thread temporaries.
bool lowersBlockOpsWhole(StructureAttr structure, TuningAttr tuning);

/// `fragments_ahead = 1` unrolls an FMA tile's whole K tile: at most this
/// many multiply-adds per thread (TM x TN x BK).
inline constexpr int64_t kFragmentsAheadFmas = 2048;

/// Static shared memory a launch may declare without opting in to more
/// (CUDA's limit; beyond it, dynamic shared memory).
inline constexpr int64_t kStaticSharedLimit = 48 * 1024;

/// Bytes of shared memory the shared-memory GEMM lowering allocates:
/// `stages` copies of a tile of A ([bk][bm + padding], or [bm][bk + padding]
/// when `lhsKFast`) and of B (likewise with bn).
int64_t sharedGemmBytes(int64_t bm, int64_t bn, int64_t bk, int64_t padding,
                        int64_t stages, Type lhs, Type rhs, bool lhsKFast,
                        bool rhsKFast);

LogicalResult checkLowerable(KernelOp kernel, TuningAttr tuning,
                             function_ref<InFlightDiagnostic()> emitError);

/// Which parallel loops (by index into `perParallel`) a tile list tiles over
/// loops of `extents` (by loop position): those with a non-zero tile, except
/// that with more than three, tiles spanning their whole loop are left
/// untiled when that leaves three (a grid or block has three dimensions).
/// egg-apply-schedule tiles exactly these; legality and the implied threads
/// count them.
SmallVector<bool> tiledLoops(const RootLoops &loops, ArrayRef<int64_t> extents,
                             ArrayRef<int64_t> perParallel);

/// Threads per block that the tile lists imply, in x, y, z order (innermost
/// tiled loop on x).
SmallVector<int64_t> impliedThreads(const RootLoops &loops,
                                    ArrayRef<int64_t> block,
                                    ArrayRef<int64_t> thread);

/// Stage-2 choices the generic lowering implements for `kernel` (structure
/// decided) on `target`: block and thread tiles of the loops `anchor`
/// tiles, in powers of two or whole loops, and vector widths up to the
/// anchor's. Ordered by closeness to `anchor` (the expert's choice, first),
/// at most `limit` of them. Every entry passes the dialect's verifier and
/// checkLowerable.
SmallVector<TuningAttr> enumerateTunings(KernelOp kernel, TargetAttr target,
                                         TuningAttr anchor, size_t limit = 512);

/// Steps between two tunings of one kernel: each halving or doubling of a
/// tile or of the vector width counts one.
double tuningDistance(TuningAttr a, TuningAttr b);

} // namespace mlir::egg

#endif // EGG_AGENTS_LEGALSPACE_H
