//===- SharedGemm.h - The shared-memory GEMM builder ------------*- C++ -*-===//
//
// egg-lower-shared-gemm's builder, shared by the files that build each part
// of the kernel (docs/pipeline.md, "GEMM through shared memory"):
//   SharedGemmBuilder.cpp   thread ids, partial tiles, the K loop
//   SharedGemmCopies.cpp    global -> shared copies and convolution borders
//   SharedGemmFma.cpp       FMA tiles
//   SharedGemmMma.cpp       mma.sync on ldmatrix fragments
//   SharedGemmWgmma.cpp     warpgroup MMA on swizzled tiles
//   SharedGemmTma.cpp       TMA copies, the producer warpgroup, mbarriers
//   SharedGemmEpilogue.cpp  stores staged through shared memory
// LowerSharedGemm.cpp reads the plan from the tuning and drives the builder.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_SHAREDGEMM_H
#define EGG_DIALECT_EGG_TRANSFORMS_SHAREDGEMM_H

#include "BlockOps.h"
#include "egg/Analysis/GemmAnalysis.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

namespace mlir::egg::gemm {

/// The decisions of one GEMM launch, read from its tuning.
struct Plan {
  GemmLoops loops;
  /// Block tile, K step, and the thread tile (or, with `mma`, warp tile).
  int64_t bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
  int64_t stages = 1, padding = 0, vector = 1;
  /// Each loop's extent within the block (a convolution's M and N groups
  /// number their positions row-major over these; docs/pipeline.md).
  SmallVector<int64_t> blockExtents;
  bool async = false;
  /// TMA copies into wgmma's swizzled tiles, warp-specialised: a producer
  /// warpgroup after the computing ones issues them, with a "full" and an
  /// "empty" mbarrier per stage (docs/pipeline.md, "TMA copies").
  bool tma = false;
  /// TMA multicast: clusters of `cluster` blocks along N share the A tile,
  /// each block copying 1/cluster of its rows to all of them
  /// (docs/pipeline.md, "TMA multicast").
  int64_t cluster = 1;
  bool mma = false;
  /// Warpgroup MMA (a warpgroup per warp tile); implies `mma`.
  bool wgmma = false;
  /// wgmma on f32 matrices as three TF32 products (`tf32_terms = 3`): each
  /// landed tile is split into high and low TF32 parts (splitTile), every
  /// K step adds lo x hi + hi x lo + hi x hi, and each K tile's sum starts
  /// from zero and is added to the accumulators with f32 adds
  /// (computeWgmma).
  bool splitTf32 = false;
  /// FMA tiles: a thread's TM (TN) values are two halves, one in each half
  /// of the block tile, where a half still fills a 16-byte load: a warp's
  /// shared-memory reads and its stores then cover contiguous 16-byte
  /// pieces instead of every other one.
  bool splitM = false, splitN = false;
  /// FMA tiles: a thread's TN values as `runsN` runs of TN / runsN,
  /// `runStrideN` positions apart, one per row of the block (rowRuns).
  int64_t runsN = 1, runStrideN = 0;
  /// FMA tiles: each K step's fragments loaded before the previous step's
  /// FMAs, across K tiles (`fragments_ahead`).
  bool fragmentsAhead = false;
  int64_t threadsN() const { return bn / tn; }
  /// Threads that share a warp tile: a warpgroup, a warp, or one thread.
  int64_t group() const { return wgmma ? 128 : mma ? 32 : 1; }
  /// Threads computing the product (and storing the epilogue).
  int64_t numThreads() const { return group() * (bn / tn) * (bm / tm); }
  /// Threads of the launch: with TMA, one producer warpgroup more.
  int64_t launchThreads() const { return numThreads() + (tma ? 128 : 0); }
};

/// K steps of an FMA tile unrolled per loop body: at most 1024
/// multiply-adds.
inline int64_t fmaUnroll(const Plan &plan) {
  int64_t factor = plan.bk;
  while (factor > 1 && factor * plan.tm * plan.tn > 1024)
    factor /= 2;
  return factor;
}

/// The largest power of two that divides every value and is at most `cap`.
inline int64_t commonPow2(ArrayRef<int64_t> values, int64_t cap) {
  int64_t w = 1;
  while (w * 2 <= cap &&
         llvm::all_of(values, [&](int64_t v) { return v % (w * 2) == 0; }))
    w *= 2;
  return w;
}

class GemmBuilder {
public:
  GemmBuilder(gpu::LaunchOp launch, linalg::GenericOp gemm, const Plan &plan)
      : launch(launch), gemm(gemm), plan(plan), loc(gemm.getLoc()) {}

  /// The shared tiles, and with TMA the tensor maps, mbarriers and the
  /// producer warpgroup's loop, at `gemm`'s position. Everything built after
  /// it is the computing threads' (lowerLaunch).
  LogicalResult prepare(OpBuilder &b);
  /// The K loop at `gemm`'s position; returns the final accumulators.
  SmallVector<Value> buildMainLoop(OpBuilder &b, ValueRange initial);
  /// TMA: whether this thread computes (else it is the producer's).
  Value isConsumer(OpBuilder &b);
  /// `tid` as the warp's first lane sees it (with a cluster), else `tid`.
  Value warpTid(OpBuilder &b);
  /// wgmma: stores `values` (at `positions` of the block tile, in the
  /// result's dimensions through `outMap`; `fromResult` as in StoreHook)
  /// into `buffer` through the pipeline's shared memory, so that each thread
  /// writes whole 16-byte pieces of rows instead of the fragments' scattered
  /// pairs. False (nothing built) where the buffer or the tile does not
  /// allow it.
  bool stageStores(OpBuilder &b, Value buffer, ArrayRef<Value> values,
                   ArrayRef<unsigned> fromResult,
                   ArrayRef<std::pair<Value, Value>> positions,
                   AffineMap outMap);
  /// A barrier for the threads that compute: the block's, or with TMA a
  /// named one that the producer warpgroup does not join.
  void computingBarrier(OpBuilder &b);
  /// TMA: registers per thread for the producer and the computing threads
  /// where moving them between the two pays (else none).
  std::optional<std::pair<int64_t, int64_t>> registerSplit() const;
  /// Thread coordinates, computed once at the top of the launch.
  void buildThreadIds(OpBuilder &b);
  /// The extent within the block of each M or N loop whose block tile is
  /// partial (its loop range is dynamic, or smaller than the tile), at
  /// `b`'s insertion point.
  void buildBounds(OpBuilder &b);
  /// Accumulators per thread.
  int64_t numAccumulators() const {
    if (!plan.mma)
      return plan.tm * plan.tn;
    return (plan.tm / (plan.wgmma ? 64 : 16)) * (plan.tn / 8) * 4;
  }
  bool hasPartialTiles() const {
    return llvm::any_of(bounds, [](Value bound) { return bound != nullptr; });
  }
  /// Clamps the indices of loops with partial tiles into the block, so that
  /// a load past the edge reads a valid element (which nothing stores).
  void clampToBounds(OpBuilder &b, SmallVector<Value> &loopIdx);
  /// Whether loop indices `loopIdx` of the product fall inside the block's
  /// extents, along `loops` (all loops if empty); null where none of them
  /// has a partial tile.
  Value inBounds(OpBuilder &b, ArrayRef<Value> loopIdx,
                 ArrayRef<unsigned> loops = {});

  /// The (M, N) position of each accumulator, in accumulator order.
  SmallVector<std::pair<Value, Value>> accumulatorPositions(OpBuilder &b);
  /// Loop indices of the product at result position (m, n).
  SmallVector<Value> productIndices(OpBuilder &b, Value m, Value n);
  /// FMA tiles: where the runs of consecutive values of a thread's tile
  /// along M (N) start in the block tile (two runs of half the tile when
  /// the dimension is split in halves, else one), and the run length.
  std::pair<SmallVector<Value, 2>, int64_t> fmaRuns(OpBuilder &b, bool alongM);

private:
  /// Sets `loopIdx` at `loops` to the row-major digits of `flat` over
  /// `extents` (indexed by loop); a single loop takes `flat` itself.
  void decode(OpBuilder &b, ArrayRef<unsigned> loops, ArrayRef<int64_t> extents,
              Value flat, SmallVector<Value> &loopIdx);

  struct Operand {
    unsigned which;             // Input operand number of the product.
    ArrayRef<unsigned> mnLoops; // Its M or N loops.
    int64_t tileMN;             // BM or BN.
    Value global;               // The block's view of the input.
    Value shared;  // [stages][BK][tileMN + pad] or [stages][tileMN][BK + pad].
    bool fastIsMN; // Contiguous in global along M/N (else along K).
    bool sharedFastIsMN; // Contiguous in shared memory along M/N.
    int64_t bytes;       // Bytes per element.
    // wgmma over cp.async: copied into the TF32 tile one element at a time
    // (tf32CopyOf: `elements`); `blocked`: the global layout is not contiguous
    // along K, so a warp copies 8 M/N rows x 4 K columns (forEachPiece).
    bool elements = false, blocked = false;
    // Split TF32 products of an input contiguous along M/N: cp.async copies
    // 16-byte pieces along M/N into `low` laid out [BK][tileMN] (the
    // staging tile), which the split pass transposes into the K-major
    // tiles (readStaged, writeStaged).
    bool staged = false;
    // wgmma: the matrix descriptor of the warpgroup's piece at stage 0,
    // K step 0, and the bytes of one stage.
    Value descriptor;
    // splitTf32: the tiles of low parts (laid out as `shared`) and their
    // descriptor.
    Value low, lowDescriptor;
    int64_t stageBytes = 0;
    // TMA: the tensor map of the whole operand (created before the launch),
    // the block view's offsets into it, and the byte offset of the stage-0
    // tile in the dynamic shared memory.
    Value tensorMap;
    SmallVector<OpFoldResult> viewOffsets;
    Value tileStart;
    // TMA through a memref.expand_shape of the 2-D buffer (a split
    // product's partial products): its groups and result shape, by which
    // the view's indices become the buffer's (empty: the buffer itself).
    SmallVector<ReassociationIndices> expandGroups;
    SmallVector<int64_t> expandedShape;
    // A convolution's image read through egg.padded_view (its zero pad
    // fused into the kernel): the view's source, its low padding, and the
    // block view's offsets into the padded view. Copies read the source
    // and zero-fill what lies in the border.
    struct {
      Value source;
      SmallVector<int64_t> low, high, shape;
      SmallVector<OpFoldResult> offsets;
    } border;
  };
  /// Fills `x.border` where `x.global` is (a block view of) an
  /// egg.padded_view.
  LogicalResult findBorder(Operand &x);
  /// wgmma: element offset in a swizzled stage of `x` of the 16-byte piece
  /// starting at (mn, k).
  Value swizzledOffset(OpBuilder &b, const Operand &x, Value mn, Value k);
  /// TMA multicast: whether `x`'s tiles are shared by the cluster (A).
  bool multicasts(const Operand &x) const {
    return plan.cluster > 1 && x.which == plan.loops.lhs;
  }
  /// TMA multicast: arrive on the "empty" barrier of `stage` in the other
  /// block of the cluster, whose next fill of the stage this block's copies
  /// also write.
  void arriveOnPeer(OpBuilder &b, Value stage);
  /// wgmma: the descriptors' stage-independent bits for operand `x` whose
  /// tiles start at byte address `address` in shared memory.
  Value buildDescriptor(OpBuilder &b, const Operand &x, Value address);
  /// One K step of warpgroup MMAs; `drain` waits for all of them (the last
  /// step), else the step's group may stay in flight (wgmmaInFlight).
  SmallVector<Value> computeWgmma(OpBuilder &b, Value stage, ValueRange accs,
                                  bool drain);
  /// Whether wgmma products stay in flight across one K step: with TMA,
  /// whose consumers free a stage once its products complete, and with
  /// cp.async from four stages, where two tiles are still copied ahead (on
  /// the H200, 2048^3 bf16, 128x256 tiles: four stages 0.0453 ms in flight;
  /// three stages 0.0580 in flight, one tile ahead, against 0.0485 waiting).
  bool wgmmaInFlight() const {
    return plan.wgmma && !plan.splitTf32 && (plan.tma || plan.stages >= 4);
  }
  void copyTile(OpBuilder &b, const Operand &x, Value kt, Value stage);
  /// Calls `body` with the tile position (M/N offset, K offset) of each
  /// piece of `x` this thread copies (copyWidth elements along the global
  /// layout's contiguous dimension).
  void forEachPiece(OpBuilder &b, const Operand &x,
                    function_ref<void(OpBuilder &, Value, Value)> body);
  /// splitTf32: rewrites the pieces of `x` in `stage` that this thread
  /// copied as their TF32 high parts and stores the low parts in `x.low`.
  void splitTile(OpBuilder &b, const Operand &x, Value stage);
  /// Staged `x`: this thread's columns of 4 K values at one M/N position
  /// from the staging tile of `stage` (vectors of 4; zeros for a guarded
  /// last round's missing pieces).
  SmallVector<Value> readStaged(OpBuilder &b, const Operand &x, Value stage);
  /// Staged `x`: stores the columns read by readStaged as 16-byte pieces
  /// of the K-major tiles, their TF32 high parts in `shared` and low parts
  /// in `low` (once every thread has read the staging tile).
  void writeStaged(OpBuilder &b, const Operand &x, Value stage,
                   ArrayRef<Value> columns);
  /// Staged `x`: calls `body` with the (M/N, K) position of each column of
  /// 4 K values this thread transposes, and its round; a last round that
  /// not every thread has is guarded by `has` (null where all have it).
  void forEachStagedColumn(OpBuilder &b, const Operand &x,
                           function_ref<void(OpBuilder &, Value mn, Value k,
                                             int64_t round, Value has)>
                               body);
  /// Elements per copied piece of `x`. Stored transposed by cp.async, one
  /// 4-byte element per copy: each lane copies single elements, so that a
  /// warp's copies cover few rows of the global tile. (With 16-byte pieces,
  /// lanes 4 elements apart: on matmul 2048^3 f32, 8 rows of A per
  /// warp-wide copy cost 18.9M excess shared wavefronts, and 16 rows,
  /// arranged to avoid bank conflicts, 27.8M.)
  int64_t copyWidth(const Operand &x) const {
    if (x.elements)
      return 1;
    if (x.staged)
      return plan.vector;
    return x.fastIsMN == x.sharedFastIsMN || !plan.async ? plan.vector : 1;
  }
  /// TMA: the tensor map of `x`'s whole buffer, built before the launch.
  LogicalResult createTensorMap(OpBuilder &b, Operand &x);
  /// TMA: starts the copies of K tile `kt` into `stage`, counted by the
  /// stage's "full" mbarrier (one thread calls it).
  void issueTmaCopies(OpBuilder &b, Value kt, Value stage);
  /// TMA: the producer's loop over K tiles, each copied once the consumers
  /// have freed its stage.
  void buildProducer(OpBuilder &b);
  /// The parity of fill `kt / stages` of a stage's mbarrier, plus `flip`.
  Value fillParity(OpBuilder &b, Value kt, int64_t flip);
  /// `count` values of `x` from `base`, in vectors that also divide
  /// `align` (the distance between a thread's runs, 0 for none).
  SmallVector<Value> loadFragment(OpBuilder &b, const Operand &x, Value stage,
                                  Value kk, int64_t count, Value base,
                                  int64_t align = 0);
  SmallVector<Value> compute(OpBuilder &b, Value stage, ValueRange accs);
  /// FMA tiles: a thread's TM values of A, then its TN values of B, at
  /// K offset `kk` of the tile in `stage`.
  SmallVector<Value> loadFmaFragments(OpBuilder &b, Value stage, Value kk);
  /// FMA tiles: the product's body for every (TM, TN) pair of `fragments`
  /// (as loadFmaFragments returns them) added to `accs`.
  SmallVector<Value> fmaStep(OpBuilder &b, ArrayRef<Value> fragments,
                             ValueRange accs);
  /// FMA tiles with the fragments of the next K step loaded before the
  /// current step's FMAs, across tiles too (`fragments_ahead`).
  SmallVector<Value> buildPrefetchedLoop(OpBuilder &b, ValueRange initial,
                                         int64_t ahead);
  SmallVector<Value> computeMma(OpBuilder &b, Value stage, ValueRange accs);
  Value loadMatrices(OpBuilder &b, const Operand &x, Value stage, Value mn0,
                     Value k0, bool isA);

  gpu::LaunchOp launch;
  linalg::GenericOp gemm;
  const Plan &plan;
  Location loc;
  // Thread x/y (SIMT); with mma: tx the lane, ty/tz the warp along N/M.
  Value tid, tx, ty, tz;
  /// TMA multicast: this block's rank in its cluster (index).
  Value clusterRank;
  // With mma, the ldmatrix row each lane points at: row `row` of matrix
  // `q` = lane / 8, whose bits give offsets of 8 * (q % 2) and 8 * (q / 2).
  struct {
    Value row, lowOffset, highOffset;
  } lane;
  SmallVector<Operand, 2> operands;
  // Per loop: the block's extent where its tile is partial (else null).
  SmallVector<Value> bounds;
  // TMA: the dynamic shared memory (bytes) and the stages' mbarriers:
  // "full" completes when a stage's copies land, "empty" when every
  // consumer warpgroup is done reading it.
  Value sharedBytes, fullBarriers, emptyBarriers;
  int64_t numK = 0;
  // Bytes of both operands' stages (prepare); the staged epilogue reuses
  // them.
  int64_t tilesBytes = 0;
};

} // namespace mlir::egg::gemm

#endif // EGG_DIALECT_EGG_TRANSFORMS_SHAREDGEMM_H
