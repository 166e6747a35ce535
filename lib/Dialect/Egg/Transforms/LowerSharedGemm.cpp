//===- LowerSharedGemm.cpp - Block-cooperative GEMM through shared memory -===//
//
// For kernels whose tuning promotes the product's operands to shared memory,
// each gpu.launch holds the block's ops whole (egg-apply-schedule tiles them
// at block level only): an accumulator fill, the matrix product (a generic
// with one reduction loop) and the elementwise epilogue over its result.
// They are rewritten here into the classic tiled GEMM (docs/pipeline.md,
// "GEMM through shared memory"):
//
//   for kt in K / BK:                 (stages > 1: cp.async, tiles in flight)
//     all threads copy A[BM, BK] and B[BK, BN] into workgroup buffers, laid
//     out [BK][BM + pad] and [BK][BN + pad] whatever the global layout, so
//     that a thread reads its TM (TN) consecutive values with vector loads;
//     barrier; every thread updates its TM x TN accumulators; barrier
//   epilogue: each accumulator goes through the epilogue ops in registers
//   and is stored once.
//
// The accumulators are scalars carried by the loops, so they stay in
// registers. The product's body is cloned per accumulator, so any
// multiply-accumulate (with f16/bf16 inputs widened to f32) works.
//
// With a warp tile (f16/bf16 products, "Tensor cores" in docs/pipeline.md)
// each warp owns a [WM, WN] piece of the block tile and computes it with
// mma.sync m16n8k16: fragments come from shared memory through ldmatrix
// (transposing when the tile is stored M/N-contiguous), and the tiles keep
// the global layout so that every copy is a contiguous cp.async. A thread
// holds 4 f32 accumulators per m16n8 fragment.
//
//===----------------------------------------------------------------------===//

#include "BlockOps.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <functional>

namespace mlir::egg {
#define GEN_PASS_DEF_EGGLOWERSHAREDGEMM
#define GEN_PASS_DEF_EGGALIGNWORKGROUPMEMORY
#define GEN_PASS_DEF_EGGEXTERNDYNAMICSHAREDMEMORY
#define GEN_PASS_DEF_EGGLOWERTENSORMAPARGS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

namespace {
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
  /// FMA tiles: a thread's TM (TN) values are two halves, one in each half
  /// of the block tile, where a half still fills a 16-byte load: a warp's
  /// shared-memory reads and its stores then cover contiguous 16-byte
  /// pieces instead of every other one.
  bool splitM = false, splitN = false;
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

} // namespace

/// K steps of an FMA tile unrolled per loop body: at most 1024
/// multiply-adds.
static int64_t fmaUnroll(const Plan &plan) {
  int64_t factor = plan.bk;
  while (factor > 1 && factor * plan.tm * plan.tn > 1024)
    factor /= 2;
  return factor;
}

/// The largest power of two that divides every value and is at most `cap`.
static int64_t commonPow2(ArrayRef<int64_t> values, int64_t cap) {
  int64_t w = 1;
  while (w * 2 <= cap &&
         llvm::all_of(values, [&](int64_t v) { return v % (w * 2) == 0; }))
    w *= 2;
  return w;
}

namespace {
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
    // wgmma: the matrix descriptor of the warpgroup's piece at stage 0,
    // K step 0, and the bytes of one stage.
    Value descriptor;
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
    return plan.wgmma && (plan.tma || plan.stages >= 4);
  }
  void copyTile(OpBuilder &b, const Operand &x, Value kt, Value stage);
  /// Elements per copied piece of `x`. Stored transposed by cp.async, one
  /// 4-byte element per copy: each lane copies single elements, so that a
  /// warp's copies cover few rows of the global tile. (With 16-byte pieces,
  /// lanes 4 elements apart: on matmul 2048^3 f32, 8 rows of A per
  /// warp-wide copy cost 18.9M excess shared wavefronts, and 16 rows,
  /// arranged to avoid bank conflicts, 27.8M.)
  int64_t copyWidth(const Operand &x) const {
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
  SmallVector<Value> loadFragment(OpBuilder &b, const Operand &x, Value stage,
                                  Value kk, int64_t count, Value base);
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
} // namespace

void GemmBuilder::buildThreadIds(OpBuilder &b) {
  if (plan.tma) {
    // A 1-D block (lowerLaunch): warpgroup w computes the warp tile at
    // (w / threadsN, w % threadsN) of the block tile; the last one is the
    // producer (tz = bm / tm).
    auto c = [&](int64_t v) { return constIndex(b, loc, v); };
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    tx = arith::RemUIOp::create(b, loc, tid, c(128));
    Value warpgroup = arith::DivUIOp::create(b, loc, tid, c(128));
    ty = arith::RemUIOp::create(b, loc, warpgroup, c(plan.threadsN()));
    tz = arith::DivUIOp::create(b, loc, warpgroup, c(plan.threadsN()));
    return;
  }
  tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value row = ty;
  if (plan.wgmma) {
    tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.threadsN())),
        ty);
  } else if (plan.mma) {
    Value eight = constIndex(b, loc, 8), two = constIndex(b, loc, 2);
    Value quad = arith::DivUIOp::create(b, loc, tx, eight);
    lane.row = arith::RemUIOp::create(b, loc, tx, eight);
    lane.lowOffset = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, quad, two), eight);
    lane.highOffset = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, quad, two), eight);
    tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.threadsN())),
        ty);
  }
  tid = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, row,
          constIndex(b, loc, plan.mma ? plan.group() : plan.threadsN())),
      tx);
}

void GemmBuilder::buildBounds(OpBuilder &b) {
  SmallVector<int64_t> extents = gemm.getStaticLoopRanges();
  bounds.assign(extents.size(), Value());
  SmallVector<Range, 4> ranges;
  if (llvm::any_of(extents, ShapedType::isDynamic))
    ranges =
        cast<linalg::LinalgOp>(gemm.getOperation()).createLoopRanges(b, loc);
  for (unsigned d = 0; d < extents.size(); ++d) {
    if (ShapedType::isDynamic(extents[d])) {
      bounds[d] = getValueOrCreateConstantIndexOp(b, loc, ranges[d].size);
      continue;
    }
    // A tile larger than its whole loop (M = 16 in a 32-row tile): the
    // one block's extent is the loop's.
    if (plan.loops.isMN(d) && extents[d] < plan.blockExtents[d])
      bounds[d] = constIndex(b, loc, extents[d]);
  }
}

Value GemmBuilder::inBounds(OpBuilder &b, ArrayRef<Value> loopIdx,
                            ArrayRef<unsigned> loops) {
  Value inside;
  for (auto [d, bound, idx] : llvm::enumerate(bounds, loopIdx)) {
    if (!bound || (!loops.empty() && !llvm::is_contained(loops, d)))
      continue;
    Value in =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, in) : in;
  }
  return inside;
}

void GemmBuilder::clampToBounds(OpBuilder &b, SmallVector<Value> &loopIdx) {
  for (auto [bound, idx] : llvm::zip(bounds, loopIdx))
    if (bound)
      idx = arith::MinUIOp::create(
          b, loc, idx,
          arith::SubIOp::create(b, loc, bound, constIndex(b, loc, 1)));
}

SmallVector<std::pair<Value, Value>>
GemmBuilder::accumulatorPositions(OpBuilder &b) {
  auto add = [&](Value v, int64_t c) {
    return arith::AddIOp::create(b, loc, v, constIndex(b, loc, c)).getResult();
  };
  auto mul = [&](Value v, int64_t c) {
    return arith::MulIOp::create(b, loc, v, constIndex(b, loc, c)).getResult();
  };
  SmallVector<std::pair<Value, Value>> positions;
  if (!plan.mma) {
    // A thread's rows (columns): its runs' positions in order (fmaRuns).
    auto along = [&](bool alongM) {
      SmallVector<Value> at;
      auto [starts, run] = fmaRuns(b, alongM);
      for (Value start : starts)
        for (int64_t i = 0; i < run; ++i)
          at.push_back(add(start, i));
      return at;
    };
    SmallVector<Value> ms = along(/*alongM=*/true), ns = along(false);
    for (int64_t i = 0; i < plan.tm; ++i)
      for (int64_t j = 0; j < plan.tn; ++j)
        positions.push_back({ms[i], ns[j]});
    return positions;
  }
  // An m16n8 accumulator fragment: lane l holds rows l/4 and l/4 + 8,
  // columns 2 (l % 4) and 2 (l % 4) + 1 (PTX ISA, mma.m16n8k16 layout).
  // wgmma's m64nN result stacks the fragments of its four warps (warp w of
  // the warpgroup holds rows 16w to 16w + 15) and repeats them per 8
  // columns, like mma.sync's per-warp fragments do per 16 rows and 8
  // columns.
  Value lane = plan.wgmma
                   ? arith::RemUIOp::create(b, loc, tx, constIndex(b, loc, 32))
                   : tx;
  Value group = arith::DivUIOp::create(b, loc, lane, constIndex(b, loc, 4));
  Value pair =
      mul(arith::RemUIOp::create(b, loc, lane, constIndex(b, loc, 4)), 2);
  Value m0 = mul(tz, plan.tm);
  if (plan.wgmma)
    m0 = arith::AddIOp::create(
        b, loc, m0,
        mul(arith::DivUIOp::create(b, loc, tx, constIndex(b, loc, 32)), 16));
  m0 = arith::AddIOp::create(b, loc, m0, group);
  Value n0 = arith::AddIOp::create(b, loc, mul(ty, plan.tn), pair);
  int64_t fragmentM = plan.wgmma ? 64 : 16;
  for (int64_t mi = 0; mi < plan.tm / fragmentM; ++mi)
    for (int64_t ni = 0; ni < plan.tn / 8; ++ni)
      for (int64_t r = 0; r < 4; ++r)
        positions.push_back(
            {add(m0, mi * fragmentM + 8 * (r / 2)), add(n0, ni * 8 + r % 2)});
  return positions;
}

std::pair<SmallVector<Value, 2>, int64_t> GemmBuilder::fmaRuns(OpBuilder &b,
                                                               bool alongM) {
  int64_t tile = alongM ? plan.tm : plan.tn;
  bool split = alongM ? plan.splitM : plan.splitN;
  int64_t run = split ? tile / 2 : tile;
  Value first =
      arith::MulIOp::create(b, loc, alongM ? ty : tx, constIndex(b, loc, run));
  SmallVector<Value, 2> starts = {first};
  if (split)
    starts.push_back(arith::AddIOp::create(
        b, loc, first, constIndex(b, loc, (alongM ? plan.bm : plan.bn) / 2)));
  return {starts, run};
}

void GemmBuilder::decode(OpBuilder &b, ArrayRef<unsigned> loops,
                         ArrayRef<int64_t> extents, Value flat,
                         SmallVector<Value> &loopIdx) {
  for (unsigned i = loops.size(); i-- > 0;) {
    if (i == 0) {
      loopIdx[loops[i]] = flat;
      break;
    }
    Value extent = constIndex(b, loc, extents[loops[i]]);
    loopIdx[loops[i]] = arith::RemUIOp::create(b, loc, flat, extent);
    flat = arith::DivUIOp::create(b, loc, flat, extent);
  }
}

SmallVector<Value> GemmBuilder::productIndices(OpBuilder &b, Value m, Value n) {
  SmallVector<Value> idx(gemm.getNumLoops(), constIndex(b, loc, 0));
  decode(b, plan.loops.mLoops, plan.blockExtents, m, idx);
  decode(b, plan.loops.nLoops, plan.blockExtents, n, idx);
  return idx;
}

void GemmBuilder::copyTile(OpBuilder &b, const Operand &x, Value kt,
                           Value stage) {
  AffineMap map = gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(x.which));
  SmallVector<int64_t> extents = gemm.getStaticLoopRanges();
  Type element = getElementTypeOrSelf(x.global.getType());
  bool contiguous = x.fastIsMN == x.sharedFastIsMN;
  int64_t v = copyWidth(x);
  int64_t along = (x.fastIsMN ? x.tileMN : plan.bk) / v;
  int64_t pieces = x.tileMN * plan.bk / v;
  int64_t nt = plan.numThreads();
  int64_t bytes = x.bytes;
  int64_t extentK = GemmLoops::extent(plan.loops.kLoops, extents);
  Value kBase = arith::MulIOp::create(b, loc, kt, constIndex(b, loc, plan.bk));
  // A thread's pieces: tid + c * nt; a last round that not every thread
  // has (pieces not a multiple of the threads) is guarded.
  auto copyPiece = [&](OpBuilder &b, Value piece) {
    Value fast = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc, piece, constIndex(b, loc, along)),
        constIndex(b, loc, v));
    Value slow =
        arith::DivUIOp::create(b, loc, piece, constIndex(b, loc, along));
    Value mn = x.fastIsMN ? fast : slow;
    Value k = x.fastIsMN ? slow : fast;
    SmallVector<Value> loopIdx(gemm.getNumLoops(), constIndex(b, loc, 0));
    decode(b, x.mnLoops, plan.blockExtents, mn, loopIdx);
    // Past the block's M/N extent (a partial block tile) a piece reads
    // nothing: cp.async reads 0 bytes of it and zero-fills the stage (no
    // branch, so the copies keep their common base address; on 1025 x 1024
    // x 1536 f32, branches took 173 registers against 127); other copies
    // skip it, as its rows (columns) only feed accumulators that are never
    // stored. (The M/N extents are multiples of the vector width along the
    // contiguous dimension, checkLowerable, so a piece is wholly inside or
    // outside.)
    Value inside = inBounds(b, loopIdx, x.mnLoops);
    OpBuilder::InsertionGuard guard(b);
    if (inside && !plan.async) {
      auto skip = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      b.setInsertionPointToStart(skip.thenBlock());
      inside = Value();
    }
    Value kAt = arith::AddIOp::create(b, loc, kBase, k);
    // Past K (a partial last tile), a piece reads nothing and is zero-filled
    // from a valid address (K itself is a multiple of the vector width,
    // checkLowerable, so a piece is wholly inside or outside).
    if (extentK % plan.bk != 0) {
      Value inK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kAt,
                                        constIndex(b, loc, extentK));
      kAt = arith::SelectOp::create(b, loc, inK, kAt, constIndex(b, loc, 0));
      inside = inside ? arith::AndIOp::create(b, loc, inside, inK) : inK;
    }
    auto readElements = [&](int64_t count) -> Value {
      if (!inside)
        return Value();
      return arith::SelectOp::create(b, loc, inside, constIndex(b, loc, count),
                                     constIndex(b, loc, 0));
    };
    decode(b, plan.loops.kLoops, extents, kAt, loopIdx);
    SmallVector<Value> src = applyMap(b, loc, map, loopIdx);
    // Through a padded view: the source's element at the view's position
    // less the low padding, where that lies inside the source (an unsigned
    // comparison also catches positions left of it), else a zero; outside,
    // a valid address (the source's first element) is read.
    Value global = x.global, inSource;
    if (x.border.source) {
      global = x.border.source;
      SmallVector<unsigned> padded;
      for (auto [d, idx] : llvm::enumerate(src)) {
        idx = arith::AddIOp::create(
            b, loc,
            getValueOrCreateConstantIndexOp(b, loc, x.border.offsets[d]), idx);
        if (x.border.low[d] == 0 && x.border.high[d] == 0)
          continue;
        if (x.border.low[d] != 0)
          idx = arith::SubIOp::create(b, loc, idx,
                                      constIndex(b, loc, x.border.low[d]));
        Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx,
                                         constIndex(b, loc, x.border.shape[d]));
        inSource = inSource ? arith::AndIOp::create(b, loc, inSource, in) : in;
        padded.push_back(d);
      }
      // cp.async with a source size of 0 reads nothing: its address may lie
      // outside the source. Synchronous copies load, so they read a valid
      // element (the source's first) and select the zero afterwards.
      if (!plan.async)
        for (unsigned d : padded)
          src[d] = arith::SelectOp::create(b, loc, inSource, src[d],
                                           constIndex(b, loc, 0));
      if (plan.async)
        inside =
            inside ? arith::AndIOp::create(b, loc, inside, inSource) : inSource;
    }
    // Synchronous copies select a zero for what lies in the border.
    auto zeroBorder = [&](Value value) -> Value {
      if (!inSource || plan.async)
        return value;
      Value zero = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(value.getType())));
      return arith::SelectOp::create(b, loc, inSource, value, zero);
    };
    // `offset` elements along the global layout's contiguous dimension.
    auto sharedAt = [&](int64_t offset) -> SmallVector<Value> {
      Value off = constIndex(b, loc, offset);
      Value mnAt = x.fastIsMN ? arith::AddIOp::create(b, loc, mn, off) : mn;
      Value kAt = x.fastIsMN ? k : arith::AddIOp::create(b, loc, k, off);
      // A 16-byte piece, or one TF32 element stored transposed.
      if (plan.wgmma)
        return {stage, swizzledOffset(b, x, mnAt, kAt)};
      if (x.sharedFastIsMN)
        return {stage, kAt, mnAt};
      return {stage, mnAt, kAt};
    };
    if (plan.async) {
      // One copy of V elements (transposed: V is 1, a 4-byte element,
      // checkLowerable). 16-byte pieces skip L1 (cp.async.cg): the tile is
      // read once.
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, x.shared, sharedAt(0), global, src, b.getIndexAttr(v),
          readElements(v), v * bytes == 16 ? b.getUnitAttr() : UnitAttr());
      return;
    }
    if (v == 1) {
      Value value = zeroBorder(memref::LoadOp::create(b, loc, global, src));
      memref::StoreOp::create(b, loc, value, x.shared, sharedAt(0));
      return;
    }
    auto vecType = VectorType::get({v}, element);
    auto load = vector::LoadOp::create(b, loc, vecType, global, src);
    load.setAlignment(v * bytes);
    Value loaded = zeroBorder(load.getResult());
    if (contiguous) {
      auto store =
          vector::StoreOp::create(b, loc, loaded, x.shared, sharedAt(0));
      store.setAlignment(v * bytes);
      return;
    }
    for (int64_t e = 0; e < v; ++e) {
      Value value = vector::ExtractOp::create(b, loc, loaded, e);
      memref::StoreOp::create(b, loc, value, x.shared, sharedAt(e));
    }
  };
  for (int64_t c = 0; c * nt < pieces; ++c) {
    Value piece =
        arith::AddIOp::create(b, loc, tid, constIndex(b, loc, c * nt));
    if ((c + 1) * nt <= pieces) {
      copyPiece(b, piece);
      continue;
    }
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, piece,
                                      constIndex(b, loc, pieces));
    scf::IfOp::create(b, loc, has, [&](OpBuilder &ib, Location) {
      copyPiece(ib, piece);
      scf::YieldOp::create(ib, loc);
    });
  }
}

SmallVector<Value> GemmBuilder::loadFragment(OpBuilder &b, const Operand &x,
                                             Value stage, Value kk,
                                             int64_t count, Value base) {
  Type element = getElementTypeOrSelf(x.shared.getType());
  int64_t bytes = x.bytes;
  int64_t w = commonPow2({count, x.tileMN + plan.padding}, 16 / bytes);
  SmallVector<Value> values;
  for (int64_t q = 0; q < count; q += w) {
    Value at = arith::AddIOp::create(b, loc, base, constIndex(b, loc, q));
    if (w == 1) {
      values.push_back(
          memref::LoadOp::create(b, loc, x.shared, ValueRange{stage, kk, at}));
      continue;
    }
    auto load = vector::LoadOp::create(b, loc, VectorType::get({w}, element),
                                       x.shared, ValueRange{stage, kk, at});
    load.setAlignment(w * bytes);
    for (int64_t e = 0; e < w; ++e)
      values.push_back(vector::ExtractOp::create(b, loc, load.getResult(), e));
  }
  return values;
}

SmallVector<Value> GemmBuilder::loadFmaFragments(OpBuilder &b, Value stage,
                                                 Value kk) {
  // A thread's values along M (N), a load per run (fmaRuns).
  SmallVector<Value> values;
  for (bool alongM : {true, false}) {
    auto [starts, run] = fmaRuns(b, alongM);
    for (Value start : starts)
      llvm::append_range(values, loadFragment(b, operands[alongM ? 0 : 1],
                                              stage, kk, run, start));
  }
  return values;
}

SmallVector<Value> GemmBuilder::fmaStep(OpBuilder &b, ArrayRef<Value> fragments,
                                        ValueRange accs) {
  ArrayRef<Value> a = fragments.take_front(plan.tm),
                  bv = fragments.drop_front(plan.tm);
  Block *body = gemm.getBody();
  Value yielded = body->getTerminator()->getOperand(0);
  SmallVector<Value> next(accs.size());
  // Serpentine order (odd rows right to left, as CUTLASS's SIMT MMA): each
  // FMA shares an operand with the one before it, which ptxas then serves
  // from the operand reuse cache. FMAs that read three registers of one
  // bank stall in dispatch (ncu); this order halves the FMAs reading three
  // registers (H200: 2-3% faster on most f32 products, docs/benchmarks.md).
  for (int64_t i = 0; i < plan.tm; ++i) {
    for (int64_t step = 0; step < plan.tn; ++step) {
      int64_t j = i % 2 ? plan.tn - 1 - step : step;
      IRMapping map;
      map.map(body->getArgument(plan.loops.lhs), a[i]);
      map.map(body->getArgument(plan.loops.rhs), bv[j]);
      map.map(body->getArgument(2), accs[i * plan.tn + j]);
      for (Operation &op : body->without_terminator()) {
        Operation *copy = b.clone(op, map);
        // Multiply-add may become one FMA (as nvcc and cuBLAS do):
        // `.rn` PTX arithmetic would forbid ptxas to fuse them.
        if (auto fm = dyn_cast<arith::ArithFastMathInterface>(copy)) {
          arith::FastMathFlags flags = arith::FastMathFlags::contract;
          if (arith::FastMathFlagsAttr old = fm.getFastMathFlagsAttr())
            flags = flags | old.getValue();
          copy->setAttr(
              fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(copy->getContext(), flags));
        }
      }
      next[i * plan.tn + j] = map.lookupOrDefault(yielded);
    }
  }
  return next;
}

SmallVector<Value> GemmBuilder::compute(OpBuilder &b, Value stage,
                                        ValueRange accs) {
  // Unrolled by `factor` steps of kk: the loads of one step overlap the
  // FMAs of the previous.
  int64_t factor = fmaUnroll(plan);
  auto inner = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, plan.bk),
      constIndex(b, loc, factor), accs,
      [&](OpBuilder &nb, Location, Value kk0, ValueRange iter) {
        SmallVector<Value> values(iter);
        for (int64_t u = 0; u < factor; ++u) {
          Value kk =
              arith::AddIOp::create(nb, loc, kk0, constIndex(nb, loc, u));
          values = fmaStep(nb, loadFmaFragments(nb, stage, kk), values);
        }
        scf::YieldOp::create(nb, loc, values);
      });
  return SmallVector<Value>(inner.getResults());
}

/// Four 8x8 matrices of `x` through one ldmatrix: for A the 16x16 piece at
/// (mn0, k0) in the order of mma's A fragment; for B the 16 (N) x 16 (K)
/// piece as two B fragments (N 0-7, then 8-15). Lane l points at row l % 8
/// of matrix l / 8.
Value GemmBuilder::loadMatrices(OpBuilder &b, const Operand &x, Value stage,
                                Value mn0, Value k0, bool isA) {
  // A: matrices (mn, k) = (0,0), (8,0), (0,8), (8,8); B: (0,0), (0,8),
  // (8,0), (8,8).
  Value mn = arith::AddIOp::create(b, loc, mn0,
                                   isA ? lane.lowOffset : lane.highOffset);
  Value k =
      arith::AddIOp::create(b, loc, k0, isA ? lane.highOffset : lane.lowOffset);
  SmallVector<Value> at;
  if (x.sharedFastIsMN)
    at = {stage, arith::AddIOp::create(b, loc, k, lane.row), mn};
  else
    at = {stage, arith::AddIOp::create(b, loc, mn, lane.row), k};
  Type element = getElementTypeOrSelf(x.shared.getType());
  return nvgpu::LdMatrixOp::create(b, loc, VectorType::get({4, 2}, element),
                                   x.shared, at,
                                   /*transpose=*/x.sharedFastIsMN,
                                   /*numTiles=*/4);
}

SmallVector<Value> GemmBuilder::computeMma(OpBuilder &b, Value stage,
                                           ValueRange accs) {
  Type element = getElementTypeOrSelf(operands[0].shared.getType());
  bool bf16 = element.isBF16();
  // mma.sync takes f16 pairs as vector<2xf16> and bf16 pairs as i32.
  auto registers = [&](Value matrices, int64_t first, int64_t count) {
    SmallVector<Value> regs;
    for (int64_t r = first; r < first + count; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, matrices, r);
      if (bf16) {
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), pair);
        pair = vector::ExtractOp::create(b, loc, word, 0);
      }
      regs.push_back(pair);
    }
    return regs;
  };
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  Type result = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  NVVM::MMATypes type = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value mBase = arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.tm));
  Value nBase = arith::MulIOp::create(b, loc, ty, constIndex(b, loc, plan.tn));
  int64_t fragsM = plan.tm / 16, fragsN = plan.tn / 8;
  SmallVector<Value> values(accs);
  for (int64_t ks = 0; ks < plan.bk; ks += 16) {
    Value k0 = constIndex(b, loc, ks);
    SmallVector<SmallVector<Value>> a, bv;
    for (int64_t mi = 0; mi < fragsM; ++mi) {
      Value m0 =
          arith::AddIOp::create(b, loc, mBase, constIndex(b, loc, mi * 16));
      a.push_back(
          registers(loadMatrices(b, operands[0], stage, m0, k0, true), 0, 4));
    }
    for (int64_t np = 0; np < fragsN / 2; ++np) {
      Value n0 =
          arith::AddIOp::create(b, loc, nBase, constIndex(b, loc, np * 16));
      Value matrices = loadMatrices(b, operands[1], stage, n0, k0, false);
      bv.push_back(registers(matrices, 0, 2));
      bv.push_back(registers(matrices, 2, 2));
    }
    for (int64_t mi = 0; mi < fragsM; ++mi) {
      for (int64_t ni = 0; ni < fragsN; ++ni) {
        int64_t first = (mi * fragsN + ni) * 4;
        auto mma = NVVM::MmaOp::create(
            b, loc, result, a[mi], bv[ni],
            ArrayRef<Value>(values).slice(first, 4), {16, 8, 16}, std::nullopt,
            std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          values[first + r] =
              LLVM::ExtractValueOp::create(b, loc, mma, r).getResult();
      }
    }
  }
  return values;
}

LogicalResult GemmBuilder::createTensorMap(OpBuilder &b, Operand &x) {
  // The block's view is a unit-stride subview of a buffer defined outside
  // the launch, or of its expand_shape (checkLowerable: 2-D products, or
  // batches that reshape a 2-D buffer); the tensor map covers that whole
  // buffer and the boxes are placed at the view's offsets.
  Value base = x.global;
  if (auto view = base.getDefiningOp<memref::SubViewOp>()) {
    if (!llvm::all_of(view.getMixedStrides(), [](OpFoldResult st) {
          return getConstantIntValue(st) == 1;
        }))
      return gemm.emitOpError("copy = tma: input ")
             << x.which << " is a strided view";
    x.viewOffsets = view.getMixedOffsets();
    base = view.getSource();
  } else {
    x.viewOffsets.assign(cast<MemRefType>(base.getType()).getRank(),
                         b.getIndexAttr(0));
  }
  auto expand = base.getDefiningOp<memref::ExpandShapeOp>();
  if (expand && expand.getSrcType().getRank() == 2 &&
      expand.getResultType().getRank() > 2) {
    if (!expand.getResultType().hasStaticShape())
      return gemm.emitOpError("copy = tma: input ")
             << x.which << " reshapes its buffer to a dynamic shape";
    x.expandGroups = expand.getReassociationIndices();
    x.expandedShape = llvm::to_vector(expand.getResultType().getShape());
    base = expand.getSrc();
  }
  auto type = dyn_cast<MemRefType>(base.getType());
  if (!type || type.getRank() != 2 || !type.getLayout().isIdentity() ||
      launch->isAncestor(base.getParentBlock()->getParentOp()))
    return gemm.emitOpError("copy = tma: input ")
           << x.which
           << " is not a view of a whole 2-D buffer defined outside the "
              "launch";
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch);
  MLIRContext *ctx = b.getContext();
  int64_t rows = x.fastIsMN ? plan.bk : x.tileMN;
  if (multicasts(x))
    rows /= plan.cluster;
  int64_t along = 128 / x.bytes;
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto box = MemRefType::get({rows, along}, type.getElementType(),
                             MemRefLayoutAttrInterface(), space);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), Attribute()),
      base);
  // The launch captures the map; the outlined kernel receives a pointer to
  // it in device memory (egg-lower-tensor-map-args).
  x.tensorMap = nvgpu::TmaCreateDescriptorOp::create(
      b, loc, mapType, unranked,
      ValueRange{constIndex(b, loc, rows), constIndex(b, loc, along)});
  return success();
}

void GemmBuilder::issueTmaCopies(OpBuilder &b, Value kt, Value stage) {
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  int64_t total = 0;
  for (const Operand &x : operands)
    total += x.stageBytes;
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, fullBarriers, c(total), stage,
                                          Value());
  Value kBase = arith::MulIOp::create(b, loc, kt, c(plan.bk));
  for (const Operand &x : operands) {
    AffineMap map =
        gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(x.which));
    // A box is one swizzled column of the stage: [rows, along].
    MemRefType boxType =
        cast<nvgpu::TensorMapDescriptorType>(x.tensorMap.getType()).getTensor();
    int64_t rows = boxType.getDimSize(0), along = boxType.getDimSize(1);
    // A multicast operand (K-major: checkLowerable) copies this block's
    // 1/cluster of each column's rows to every block of the cluster.
    bool multicast = multicasts(x);
    int64_t columnRows = multicast ? x.tileMN : rows;
    int64_t columns = x.tileMN * plan.bk / (columnRows * along);
    Value mask, rowStart = c(0), rowBytes = c(0);
    if (multicast) {
      mask = arith::ConstantIntOp::create(b, loc, (1 << plan.cluster) - 1, 16);
      rowStart = arith::MulIOp::create(b, loc, clusterRank, c(rows));
      rowBytes = arith::MulIOp::create(b, loc, rowStart, c(128));
    }
    Value stageStart = arith::AddIOp::create(
        b, loc, x.tileStart,
        arith::MulIOp::create(b, loc, stage, c(x.stageBytes)));
    for (int64_t col = 0; col < columns; ++col) {
      // The column's first element, in the product's loops, then in the
      // operand's (global) indices.
      SmallVector<Value> loopIdx(gemm.getNumLoops(), c(0));
      Value mn = x.fastIsMN ? c(col * along) : rowStart;
      Value k = x.fastIsMN
                    ? kBase
                    : arith::AddIOp::create(b, loc, kBase, c(col * along))
                          .getResult();
      loopIdx[x.mnLoops.back()] = mn;
      loopIdx[plan.loops.innerK()] = k;
      SmallVector<Value> at = applyMap(b, loc, map, loopIdx);
      SmallVector<Value> coords;
      for (auto [i, offset] : llvm::enumerate(x.viewOffsets))
        coords.push_back(arith::AddIOp::create(
            b, loc, at[i], getValueOrCreateConstantIndexOp(b, loc, offset)));
      // Through an expand_shape, each group's indices number one of the
      // buffer's row-major (a box stays within the group's inner index:
      // checkLowerable).
      if (!x.expandGroups.empty()) {
        SmallVector<Value> linear;
        for (const ReassociationIndices &group : x.expandGroups) {
          Value index = coords[group.front()];
          for (int64_t dim : ArrayRef(group).drop_front())
            index = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, index, c(x.expandedShape[dim])),
                coords[dim]);
          linear.push_back(index);
        }
        coords = std::move(linear);
      }
      std::reverse(coords.begin(), coords.end()); // Innermost first.
      Value dst = memref::ViewOp::create(
          b, loc, boxType, sharedBytes,
          arith::AddIOp::create(b, loc, stageStart,
                                arith::AddIOp::create(b, loc,
                                                      c(col * columnRows * 128),
                                                      rowBytes)),
          ValueRange{});
      nvgpu::TmaAsyncLoadOp::create(b, loc, dst, fullBarriers, x.tensorMap,
                                    coords, stage, mask, Value());
    }
  }
}

void GemmBuilder::arriveOnPeer(OpBuilder &b, Value stage) {
  MLIRContext *ctx = b.getContext();
  Value mine = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                            emptyBarriers, stage);
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      mine);
  // Clusters of two: the peer is the other rank.
  Value peer = arith::XOrIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, b.getI32Type(), clusterRank),
      arith::ConstantIntOp::create(b, loc, 1, 32));
  Value theirs = NVVM::MapaOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
      pointer, peer);
  // The default `.release.cta` semantics (as CUTLASS's cluster barriers):
  // this block's products that read the stage completed (the wgmma wait)
  // before the arrival. `.release.cluster` made every K step of 1024 x
  // 1024 x 8192 3.1x slower on the H200 (session 29).
  NVVM::MBarrierArriveOp::create(b, loc, Type(), theirs, Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

Value GemmBuilder::fillParity(OpBuilder &b, Value kt, int64_t flip) {
  Value fill =
      arith::DivUIOp::create(b, loc, kt, constIndex(b, loc, plan.stages));
  if (flip)
    fill = arith::AddIOp::create(b, loc, fill, constIndex(b, loc, flip));
  return arith::TruncIOp::create(
      b, loc, b.getI1Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), fill));
}

Value GemmBuilder::warpTid(OpBuilder &b) {
  // With a cluster barrier at the kernel's end, ptxas serialised every
  // wgmma behind a consumer test it could not prove warp-uniform (its
  // warning C7520); the first lane's `tid` is uniform by construction and
  // on the same side of the warp-aligned producer boundary. (Kept to
  // clusters until the plain TMA kernels are timed with it.)
  if (plan.cluster == 1)
    return tid;
  Value tid32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tid);
  auto lane0 = gpu::ShuffleOp::create(b, loc, tid32, /*offset=*/0,
                                      /*width=*/32, gpu::ShuffleMode::IDX);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                      lane0.getShuffleResult());
}

Value GemmBuilder::isConsumer(OpBuilder &b) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warpTid(b),
                               constIndex(b, loc, plan.numThreads()));
}

std::optional<std::pair<int64_t, int64_t>> GemmBuilder::registerSplit() const {
  // Asking for more than the block owns would wait forever
  // (gemmRegisterBudget).
  GemmRegisterBudget budget =
      gemmRegisterBudget(plan.numThreads(), /*producer=*/plan.tma);
  if (!budget.split)
    return std::nullopt;
  return std::make_pair(budget.producerRegisters, budget.computing);
}

void GemmBuilder::buildProducer(OpBuilder &b) {
  // The producer warpgroup gives registers back (all its threads at once),
  // then its first thread copies; the others have nothing to do.
  Value inProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warpTid(b),
                            constIndex(b, loc, plan.numThreads()));
  scf::IfOp::create(b, loc, inProducer, [&](OpBuilder &pb, Location) {
    if (auto split = registerSplit())
      NVVM::SetMaxRegisterOp::create(pb, loc, split->first,
                                     NVVM::SetMaxRegisterAction::decrease);
    Value isFirst = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tx,
                                          constIndex(pb, loc, 0));
    scf::IfOp::create(pb, loc, isFirst, [&](OpBuilder &ib, Location) {
      scf::ForOp::create(ib, loc, constIndex(ib, loc, 0),
                         constIndex(ib, loc, numK), constIndex(ib, loc, 1),
                         ValueRange{},
                         [&](OpBuilder &nb, Location, Value kt, ValueRange) {
                           // Fill f of a stage waits for the consumers to free
                           // fill f - 1: phase f - 1 of its "empty" mbarrier,
                           // whose parity (f + 1) % 2 reads as complete before
                           // the first phase (f = 0) ends.
                           Value stage = arith::RemUIOp::create(
                               nb, loc, kt, constIndex(nb, loc, plan.stages));
                           nvgpu::MBarrierTryWaitParityOp::create(
                               nb, loc, emptyBarriers, fillParity(nb, kt, 1),
                               constIndex(nb, loc, 10000000), stage);
                           issueTmaCopies(nb, kt, stage);
                           scf::YieldOp::create(nb, loc);
                         });
      scf::YieldOp::create(ib, loc);
    });
    scf::YieldOp::create(pb, loc);
  });
}

void GemmBuilder::computingBarrier(OpBuilder &b) {
  if (!plan.tma) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // Named barrier 1, for the computing threads only.
  NVVM::BarrierOp::create(
      b, loc, Type(), arith::ConstantIntOp::create(b, loc, 1, 32),
      arith::ConstantIntOp::create(b, loc, plan.numThreads(), 32), {}, Value());
}

bool GemmBuilder::stageStores(OpBuilder &b, Value buffer,
                              ArrayRef<Value> values,
                              ArrayRef<unsigned> fromResult,
                              ArrayRef<std::pair<Value, Value>> positions,
                              AffineMap outMap) {
  std::optional<unsigned> dimN = outMap.getResultPosition(
      getAffineDimExpr(plan.loops.innerN(), b.getContext()));
  auto type = cast<MemRefType>(buffer.getType());
  Type element = type.getElementType();
  if (!plan.wgmma || !dimN || fromResult.empty() ||
      fromResult.back() != *dimN || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t v = 16 / bytes;
  // A row of the staged tile ends in one 16-byte piece of padding: the
  // fragments' eight rows per store then fall in distinct banks.
  int64_t rowElems = plan.bn + v;
  int64_t chunks = plan.bm * plan.bn / v;
  if (16 % bytes != 0 || plan.blockExtents[plan.loops.innerN()] % v != 0 ||
      !hasAlignedLayout(buffer, v) || plan.bm * rowElems * bytes > tilesBytes ||
      chunks % plan.numThreads() != 0 ||
      (hasPartialTiles() && plan.numThreads() % (plan.bn / v) != 0))
    return false;
  auto c = [&](int64_t value) { return constIndex(b, loc, value); };
  auto barrier = [&] { computingBarrier(b); };
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value staged = memref::ViewOp::create(
      b, loc,
      MemRefType::get({plan.bm, rowElems}, element, MemRefLayoutAttrInterface(),
                      space),
      sharedBytes, operands[0].tileStart, ValueRange{});
  // Every warpgroup's own products are complete, but others may still read
  // the stages this overwrites.
  barrier();
  auto pair = VectorType::get({2}, element);
  for (size_t e = 0; e + 1 < values.size(); e += 2) {
    auto [m, n] = positions[e];
    Value two =
        vector::FromElementsOp::create(b, loc, pair, values.slice(e, 2));
    vector::StoreOp::create(b, loc, two, staged, ValueRange{m, n})
        .setAlignment(2 * bytes);
  }
  barrier();
  auto piece = VectorType::get({v}, element);
  int64_t perRow = plan.bn / v;
  int64_t rounds = chunks / plan.numThreads();
  // Piece `chunk` of the staged tile: row chunk / perRow, 16-byte column
  // chunk % perRow; its row is read from shared memory and stored.
  auto copy = [&](OpBuilder &cb, Value chunk) {
    Value m = arith::DivUIOp::create(cb, loc, chunk, c(perRow));
    Value n = arith::MulIOp::create(
        cb, loc, arith::RemUIOp::create(cb, loc, chunk, c(perRow)), c(v));
    auto data =
        vector::LoadOp::create(cb, loc, piece, staged, ValueRange{m, n});
    data.setAlignment(16);
    SmallVector<Value> at = applyMap(outMap, productIndices(cb, m, n));
    SmallVector<Value> idx;
    for (unsigned r : fromResult)
      idx.push_back(at[r]);
    vector::StoreOp::create(cb, loc, data, buffer, idx).setAlignment(16);
  };
  if (!hasPartialTiles()) {
    for (int64_t i = 0; i < rounds; ++i)
      copy(b, arith::AddIOp::create(b, loc, tid, c(i * plan.numThreads())));
    return true;
  }
  // A partial tile: a thread's pieces share a column (the threads cover
  // whole rows per round), which is inside the block's N extent or not
  // (the buffer's aligned layout makes N a multiple of the piece), and its
  // rows inside the M extent are the first `count` rounds. Guarding each
  // piece instead made ptxas hold them all at once (4000 x 4096 x 640
  // bf16, 128 x 256 tiles: 255 registers and a spill, against 206).
  Value mBound = bounds[plan.loops.mLoops.front()];
  Value nBound = bounds[plan.loops.nLoops.front()];
  int64_t rowsPerRound = plan.numThreads() / perRow;
  Value m0 = arith::DivUIOp::create(b, loc, tid, c(perRow));
  Value count = c(rounds);
  if (mBound) {
    Value left = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, mBound, m0),
        arith::SubIOp::create(b, loc, mBound, m0), c(0));
    count = arith::MinUIOp::create(
        b, loc, count,
        arith::CeilDivUIOp::create(b, loc, left, c(rowsPerRound)));
  }
  auto rows = [&](OpBuilder &rb) {
    scf::ForOp::create(rb, loc, c(0), count, c(1), ValueRange{},
                       [&](OpBuilder &lb, Location, Value i, ValueRange) {
                         copy(lb, arith::AddIOp::create(
                                      lb, loc, tid,
                                      arith::MulIOp::create(
                                          lb, loc, i, c(plan.numThreads()))));
                         scf::YieldOp::create(lb, loc);
                       });
  };
  if (!nBound) {
    rows(b);
    return true;
  }
  Value n = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, tid, c(perRow)), c(v));
  Value inN =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, nBound);
  scf::IfOp::create(b, loc, inN, [&](OpBuilder &ib, Location) {
    rows(ib);
    scf::YieldOp::create(ib, loc);
  });
  return true;
}

Value GemmBuilder::swizzledOffset(OpBuilder &b, const Operand &x, Value mn,
                                  Value k) {
  // The tile is stored as columns of 128-byte rows (64 16-bit elements along
  // the contiguous dimension), each column `rows` rows deep; within 8 rows
  // the 16-byte pieces of row r are permuted by XOR with r % 8 (the pattern
  // wgmma's 128-byte swizzle mode reads, given 1024-byte aligned columns).
  int64_t rowElems = 128 / x.bytes, pieceElems = 16 / x.bytes;
  int64_t rows = x.sharedFastIsMN ? plan.bk : x.tileMN;
  Value along = x.sharedFastIsMN ? mn : k, row = x.sharedFastIsMN ? k : mn;
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  Value column = arith::DivUIOp::create(b, loc, along, c(rowElems));
  Value piece = arith::DivUIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, along, c(rowElems)),
      c(pieceElems));
  Value swizzled = arith::XOrIOp::create(
      b, loc, piece, arith::RemUIOp::create(b, loc, row, c(8)));
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, column, c(rows * rowElems)),
      arith::MulIOp::create(b, loc, row, c(rowElems)));
  offset = arith::AddIOp::create(
      b, loc, offset, arith::MulIOp::create(b, loc, swizzled, c(pieceElems)));
  // The element's place inside its piece: 0 for 16-byte copies, not for
  // TF32's transposed 4-byte ones (without it they wrote a quarter of the
  // tile, session 14).
  return arith::AddIOp::create(
      b, loc, offset, arith::RemUIOp::create(b, loc, along, c(pieceElems)));
}

Value GemmBuilder::buildDescriptor(OpBuilder &b, const Operand &x,
                                   Value address) {
  // PTX ISA, "Matrix Descriptor Format": start address >> 4 in bits 0-13,
  // leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45,
  // swizzle mode in 62-63 (1: 128 bytes). K-major swizzled tiles step by
  // 8 rows (1024 bytes) along M/N and ignore the leading offset; M/N-major
  // ones step by 8 rows along K, and by a column (BK rows) every 64
  // elements of M/N.
  int64_t leading = x.sharedFastIsMN ? plan.bk * 128 : 16;
  int64_t stride = 8 * 128;
  uint64_t fixed = (uint64_t(leading >> 4) << 16) |
                   (uint64_t(stride >> 4) << 32) | (uint64_t(1) << 62);
  // The warpgroup's piece: rows of a K-major tile, columns of an M/N-major
  // one (its warp tile is a multiple of 64, checkLowerable).
  Value mn0 =
      x.which == plan.loops.lhs
          ? arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.tm))
          : arith::MulIOp::create(b, loc, ty, constIndex(b, loc, plan.tn));
  Value piece = arith::MulIOp::create(
      b, loc, mn0,
      constIndex(b, loc, x.sharedFastIsMN ? plan.bk * x.bytes : 128));
  Value start = arith::AddIOp::create(b, loc, address, piece);
  Type i64 = b.getI64Type();
  Value start64 = arith::IndexCastUIOp::create(b, loc, i64, start);
  Value field = arith::ShRUIOp::create(
      b, loc, start64, arith::ConstantIntOp::create(b, loc, 4, 64));
  return arith::OrIOp::create(
      b, loc, field,
      arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(fixed), 64));
}

SmallVector<Value> GemmBuilder::computeWgmma(OpBuilder &b, Value stage,
                                             ValueRange accs, bool drain) {
  MLIRContext *ctx = b.getContext();
  const Operand &lhs = operands[0], &rhs = operands[1];
  Type element = getElementTypeOrSelf(lhs.shared.getType());
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value stage64 = arith::IndexCastUIOp::create(b, loc, i64, stage);
  // The descriptor of `x` at this stage, `offset` bytes into its tile.
  auto descriptorAt = [&](const Operand &x, int64_t offset) -> Value {
    Value stageField = arith::MulIOp::create(
        b, loc, stage64,
        arith::ConstantIntOp::create(b, loc, x.stageBytes >> 4, 64));
    Value field = arith::AddIOp::create(
        b, loc, stageField,
        arith::ConstantIntOp::create(b, loc, offset >> 4, 64));
    return arith::AddIOp::create(b, loc, x.descriptor, field);
  };
  // Bytes from the start of the warpgroup's piece to (mn, ks).
  auto offsetOf = [&](const Operand &x, int64_t mn, int64_t ks) -> int64_t {
    int64_t rowElems = 128 / x.bytes;
    if (x.sharedFastIsMN)
      return mn * plan.bk * x.bytes + ks * 128;
    return (ks / rowElems) * x.tileMN * 128 + mn * 128 +
           (ks % rowElems) * x.bytes;
  };
  int64_t perInstr = plan.tn / 2;
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perInstr, f32));
  // f32 tiles are read as TF32 (the module allows it: checkLowerable).
  NVVM::WGMMATypes type = element.isBF16()  ? NVVM::WGMMATypes::bf16
                          : element.isF32() ? NVVM::WGMMATypes::tf32
                                            : NVVM::WGMMATypes::f16;
  // Each instruction consumes 32 bytes of K: 16 16-bit elements or 8 TF32.
  int64_t instrK = 32 / lhs.bytes;
  // A is "row" (K-major) unless stored M-contiguous; B is "col" (K-major)
  // unless stored N-contiguous: wgmma transposes 16-bit tiles as it reads
  // (TF32 tiles are stored K-major).
  auto layoutA =
      lhs.sharedFastIsMN ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto layoutB =
      rhs.sharedFastIsMN ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  SmallVector<Value> values(accs);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < plan.bk; ks += instrK) {
    Value descB = descriptorAt(rhs, offsetOf(rhs, 0, ks));
    for (int64_t mi = 0; mi < plan.tm / 64; ++mi) {
      Value descA = descriptorAt(lhs, offsetOf(lhs, mi * 64, ks));
      Value packed = LLVM::PoisonOp::create(b, loc, structType);
      for (int64_t e = 0; e < perInstr; ++e)
        packed = LLVM::InsertValueOp::create(b, loc, packed,
                                             values[mi * perInstr + e], e);
      auto mma = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, structType, packed, descA, descB,
          NVVM::MMAShapeAttr::get(ctx, 64, plan.tn, instrK),
          NVVM::WGMMATypesAttr::get(ctx, type),
          NVVM::WGMMATypesAttr::get(ctx, type),
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(ctx, layoutA),
          NVVM::MMALayoutAttr::get(ctx, layoutB), NVVM::MMAIntOverflowAttr());
      for (int64_t e = 0; e < perInstr; ++e)
        values[mi * perInstr + e] =
            LLVM::ExtractValueOp::create(b, loc, mma, e).getResult();
    }
  }
  // A stage is refilled once the products that read it complete: with
  // cp.async, after a barrier that every warpgroup passes once it waited
  // for them (with four or more stages the latest group stays in flight
  // across it and the refill skips a stage, buildMainLoop); with TMA, after
  // the next K step's wait frees it.
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, wgmmaInFlight() && !drain ? 1 : 0);
  return values;
}

LogicalResult GemmBuilder::findBorder(Operand &x) {
  auto stripCasts = [](Value v) {
    while (auto cast = v.getDefiningOp<memref::CastOp>())
      v = cast.getSource();
    return v;
  };
  Value v = stripCasts(x.global);
  auto view = v.getDefiningOp<memref::SubViewOp>();
  if (view)
    v = stripCasts(view.getSource());
  auto padded = v.getDefiningOp<PaddedViewOp>();
  if (!padded)
    return success();
  auto sourceType = cast<MemRefType>(padded.getSource().getType());
  if (view && (!view.hasUnitStride() ||
               view.getType().getRank() != sourceType.getRank()))
    return gemm.emitOpError("reads a padded view through a strided or "
                            "rank-reducing slice, which its copies cannot "
                            "bound");
  if (plan.tma)
    return gemm.emitOpError("reads a padded view: TMA copies take whole "
                            "tensors (use cp_async)");
  // A piece of several elements along a padded contiguous dimension could
  // straddle the border (checkLowerable).
  int64_t v1 = copyWidth(x);
  int64_t last = sourceType.getRank() - 1;
  if (v1 > 1 && (padded.getLow()[last] != 0 || padded.getHigh()[last] != 0))
    return gemm.emitOpError("input ")
           << x.which << " is padded along its contiguous dimension: its "
           << "copies need vector = 1, not " << v1;
  x.border.source = padded.getSource();
  x.border.low = llvm::to_vector(padded.getLow());
  x.border.high = llvm::to_vector(padded.getHigh());
  x.border.shape = llvm::to_vector(sourceType.getShape());
  if (view)
    x.border.offsets = view.getMixedOffsets();
  else
    x.border.offsets.assign(sourceType.getRank(),
                            OpBuilder(gemm).getIndexAttr(0));
  return success();
}

LogicalResult GemmBuilder::prepare(OpBuilder &b) {
  auto addBuffer = [&](unsigned which, ArrayRef<unsigned> mnLoops,
                       int64_t tileMN) -> MemRefType {
    Value global = gemm.getDpsInputOperand(which)->get();
    AffineMap map = gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(which));
    Type element = getElementTypeOrSelf(global.getType());
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    // An input contiguous along neither (an NCHW input, read along
    // ow * s + kw) is copied an element at a time (checkLowerable).
    bool fastIsMN = contiguousLoop(map) == mnLoops.back();
    int64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
    bool sharedFastIsMN =
        gemmTileAlongMN(plan.mma, plan.wgmma, bytes, fastIsMN);
    SmallVector<int64_t> shape =
        sharedFastIsMN
            ? SmallVector<int64_t>{plan.stages, plan.bk, tileMN + plan.padding}
            : SmallVector<int64_t>{plan.stages, tileMN, plan.bk + plan.padding};
    // wgmma: a flat swizzled tile per stage (swizzledOffset).
    if (plan.wgmma)
      shape = {plan.stages, tileMN * plan.bk};
    auto type =
        MemRefType::get(shape, element, MemRefLayoutAttrInterface(), space);
    operands.push_back({which, mnLoops, tileMN, global, Value(), fastIsMN,
                        sharedFastIsMN, bytes});
    return type;
  };
  SmallVector<MemRefType, 2> types = {
      addBuffer(plan.loops.lhs, plan.loops.mLoops, plan.bm),
      addBuffer(plan.loops.rhs, plan.loops.nLoops, plan.bn)};
  for (Operand &x : operands)
    if (failed(findBorder(x)))
      return failure();
  // Up to 48 KB: static workgroup buffers. Beyond (deep pipelines,
  // checkLowerable): views of the block's dynamic shared
  // memory, whose size the launch carries (the driver needs an opt-in
  // above 48 KB, which egg-eval gives from the manifest).
  SmallVector<int64_t, 2> offsets;
  int64_t total = 0;
  for (auto [x, type] : llvm::zip(operands, types)) {
    offsets.push_back(total);
    int64_t bytes =
        type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    x.stageBytes = bytes / plan.stages;
    // ldmatrix and cp.async: 16 bytes; wgmma's swizzle: 1024.
    total += llvm::alignTo(bytes, plan.wgmma ? kWgmmaSwizzleAtom : 16);
  }
  tilesBytes = total;
  // wgmma tiles always live in dynamic shared memory, whose start is
  // aligned to the swizzle atom at run time (one atom more is allocated).
  Value alignedStart;
  if (total <= kStaticSharedLimit && !plan.wgmma) {
    for (auto [x, type] : llvm::zip(operands, types))
      x.shared = launch.addWorkgroupAttribution(type, loc);
  } else {
    OpBuilder::InsertionGuard guard(b);
    Value bytes = addDynamicSharedMemory(
        b, loc, launch, total + (plan.wgmma ? kWgmmaSwizzleAtom : 0));
    Value start = constIndex(b, loc, 0);
    if (plan.wgmma) {
      // Shared-window address of the buffer, rounded up to the atom.
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, bytes);
      Value atom = constIndex(b, loc, kWgmmaSwizzleAtom);
      Value aligned = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, address, atom), atom);
      start = arith::SubIOp::create(b, loc, aligned, address);
      alignedStart = aligned;
    }
    sharedBytes = bytes;
    for (auto [x, type, offset] : llvm::zip(operands, types, offsets)) {
      x.tileStart =
          arith::AddIOp::create(b, loc, start, constIndex(b, loc, offset));
      x.shared = memref::ViewOp::create(b, loc, type, bytes, x.tileStart,
                                        ValueRange{});
    }
  }
  // Descriptors hold absolute addresses; built here, at the product, where
  // the thread ids are defined.
  if (plan.wgmma)
    for (auto [x, offset] : llvm::zip(operands, offsets))
      x.descriptor =
          buildDescriptor(b, x,
                          arith::AddIOp::create(b, loc, alignedStart,
                                                constIndex(b, loc, offset)));

  int64_t extentK =
      GemmLoops::extent(plan.loops.kLoops, gemm.getStaticLoopRanges());
  // A partial last tile is zero-filled past K (copyTile; TMA fills boxes
  // past the tensor's end with zeros).
  numK = llvm::divideCeil(extentK, plan.bk);

  // TMA: a tensor map per operand (before the launch) and two mbarriers per
  // stage, initialised by thread 0 ("full" for the producer's expect_tx,
  // "empty" for one arrival per consumer warpgroup of each block it feeds)
  // and made visible to the block and to the copy engine before the
  // producer starts.
  if (plan.tma) {
    if (plan.cluster > 1)
      clusterRank = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          NVVM::ClusterId::create(b, loc, b.getI32Type()));
    for (Operand &x : operands)
      if (failed(createTensorMap(b, x)))
        return failure();
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto group =
        nvgpu::MBarrierGroupType::get(b.getContext(), space, plan.stages);
    fullBarriers = nvgpu::MBarrierCreateOp::create(b, loc, group);
    emptyBarriers = nvgpu::MBarrierCreateOp::create(b, loc, group);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                          constIndex(b, loc, 0));
    // With multicast a stage is refilled in every block of the cluster at
    // once: its "empty" barrier counts the consumers of all of them.
    int64_t consumers = plan.numThreads() / 128 * plan.cluster;
    scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &ib, Location) {
      for (int64_t st = 0; st < plan.stages; ++st) {
        nvgpu::MBarrierInitOp::create(ib, loc, fullBarriers,
                                      constIndex(ib, loc, 1),
                                      constIndex(ib, loc, st), Value());
        nvgpu::MBarrierInitOp::create(ib, loc, emptyBarriers,
                                      constIndex(ib, loc, consumers),
                                      constIndex(ib, loc, st), Value());
      }
      // (No `fence.proxy.tensormap` acquire: it needs PTX 8.3 and the
      // pipeline targets 8.0. The host writes each map before the launch
      // that reads it; docs/pipeline.md, "TMA copies".)
      for (const Operand &x : operands)
        nvgpu::TmaPrefetchOp::create(ib, loc, x.tensorMap, Value());
      scf::YieldOp::create(ib, loc);
    });
    NVVM::FenceMbarrierInitOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
    if (plan.cluster > 1) {
      // No block may copy into or arrive on a peer's barriers before the
      // peer initialised them.
      clusterBarrier(b, loc);
    }
    buildProducer(b);
  }
  return success();
}

SmallVector<Value> GemmBuilder::buildMainLoop(OpBuilder &b,
                                              ValueRange initial) {
  int64_t stages = plan.stages;
  auto copyBoth = [&](OpBuilder &nb, Value kt, Value stage) {
    for (const Operand &x : operands)
      copyTile(nb, x, kt, stage);
  };
  auto commit = [&](OpBuilder &nb) {
    NVVM::CpAsyncCommitGroupOp::create(nb, loc);
  };
  // wgmma reads shared memory through the async proxy: each thread's
  // copies (generic proxy) are made visible to it before the barrier.
  auto publish = [&](OpBuilder &nb) {
    if (plan.wgmma)
      NVVM::FenceProxyOp::create(
          nb, loc,
          NVVM::ProxyKindAttr::get(nb.getContext(),
                                   NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(nb.getContext(),
                                     NVVM::SharedSpace::shared_cta));
  };
  auto computeStep = [&](OpBuilder &nb, Value stage, ValueRange accs,
                         bool last) {
    if (plan.wgmma)
      return computeWgmma(nb, stage, accs, last);
    return plan.mma ? computeMma(nb, stage, accs) : compute(nb, stage, accs);
  };
  // The K loop over `step`. Products left in flight across a step are
  // drained by a last step peeled off the loop: ptxas serialises every
  // wgmma of a kernel where a loop's exit copies accumulators still being
  // written (it did for linear + GELU), and a wait after the loop leaves
  // that to its register allocator.
  using Step =
      function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange, bool)>;
  auto buildLoop = [&](Step step) {
    bool peel = wgmmaInFlight();
    auto loop = scf::ForOp::create(
        b, loc, constIndex(b, loc, 0), constIndex(b, loc, numK - peel),
        constIndex(b, loc, 1), initial,
        [&](OpBuilder &nb, Location, Value kt, ValueRange accs) {
          scf::YieldOp::create(nb, loc, step(nb, kt, accs, false));
        });
    SmallVector<Value> results(loop.getResults());
    if (peel)
      results = step(b, constIndex(b, loc, numK - 1), results, true);
    return results;
  };

  // Tiles copied ahead of the one computed: all other stages, except that
  // wgmma with four or more stages leaves its products in flight across
  // one iteration (computeWgmma), so the stage they read is refilled one
  // iteration later.
  // TMA: the consumers wait for a stage's copies on its "full" mbarrier and,
  // once the products that read it have completed (one K step later, the
  // wgmma wait in computeWgmma), free it on its "empty" one.
  if (plan.tma) {
    return buildLoop([&](OpBuilder &nb, Value kt, ValueRange accs, bool last) {
      Value stage =
          arith::RemUIOp::create(nb, loc, kt, constIndex(nb, loc, stages));
      nvgpu::MBarrierTryWaitParityOp::create(
          nb, loc, fullBarriers, fillParity(nb, kt, 0),
          constIndex(nb, loc, 10000000), stage);
      SmallVector<Value> next = computeWgmma(nb, stage, accs, last);
      if (last) // Nothing is copied after the last tile.
        return next;
      Value isLeader = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                             tx, constIndex(nb, loc, 0));
      Value hasPrevious = arith::CmpIOp::create(
          nb, loc, arith::CmpIPredicate::ugt, kt, constIndex(nb, loc, 0));
      Value frees = arith::AndIOp::create(nb, loc, isLeader, hasPrevious);
      scf::IfOp::create(nb, loc, frees, [&](OpBuilder &ib, Location) {
        Value previous = arith::RemUIOp::create(
            ib, loc,
            arith::AddIOp::create(ib, loc, kt, constIndex(ib, loc, stages - 1)),
            constIndex(ib, loc, stages));
        nvgpu::MBarrierArriveOp::create(
            ib, loc, nvgpu::MBarrierTokenType::get(ib.getContext()),
            emptyBarriers, previous);
        if (plan.cluster > 1)
          arriveOnPeer(ib, previous);
        scf::YieldOp::create(ib, loc);
      });
      return next;
    });
  }

  int64_t ahead = wgmmaInFlight() ? stages - 2 : stages - 1;
  if (stages > 1) {
    // Prologue: tiles 0 .. ahead-1 in flight; a group is committed for
    // each even when K has fewer tiles, so the waits count alike.
    for (int64_t s = 0; s < ahead; ++s) {
      if (s < numK)
        copyBoth(b, constIndex(b, loc, s), constIndex(b, loc, s));
      commit(b);
    }
  }
  // (readPlan: FMA tiles over cp.async in two stages or more.)
  if (plan.fragmentsAhead)
    return buildPrefetchedLoop(b, initial, ahead);
  return buildLoop([&](OpBuilder &nb, Value kt, ValueRange accs, bool last) {
    SmallVector<Value> next;
    if (stages == 1) {
      // The barrier first: no thread may still read the previous tile.
      Value stage = constIndex(nb, loc, 0);
      gpu::BarrierOp::create(nb, loc);
      copyBoth(nb, kt, stage);
      if (plan.async) {
        commit(nb);
        NVVM::CpAsyncWaitGroupOp::create(nb, loc, 0);
      }
      publish(nb);
      gpu::BarrierOp::create(nb, loc);
      next = computeStep(nb, stage, accs, last);
    } else {
      // Tile kt has landed once at most ahead-1 groups are pending;
      // then tile kt+ahead goes into the stage computed `stages - ahead`
      // iterations ago, which every thread has left (the barrier) and
      // whose wgmma products are complete.
      NVVM::CpAsyncWaitGroupOp::create(nb, loc, ahead - 1);
      publish(nb);
      gpu::BarrierOp::create(nb, loc);
      Value numStages = constIndex(nb, loc, stages);
      Value stage = arith::RemUIOp::create(nb, loc, kt, numStages);
      auto refill = [&]() {
        Value tile =
            arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, ahead));
        Value inRange =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult, tile,
                                  constIndex(nb, loc, numK));
        scf::IfOp::create(nb, loc, inRange, [&](OpBuilder &ib, Location) {
          copyBoth(ib, tile, arith::RemUIOp::create(ib, loc, tile, numStages));
          scf::YieldOp::create(ib, loc);
        });
        commit(nb);
      };
      // Products that complete within their step have freed the stage of
      // step kt-1 at the barrier: its refill goes out before this step's
      // products and has the whole step to land. (Refilled after them, the
      // f32 FMA product of 2048^3 waited for its copies at the top of every
      // step: 10.6% of ncu's warp samples.)
      bool early = !wgmmaInFlight();
      if (early && !last)
        refill();
      next = computeStep(nb, stage, accs, last);
      if (!early && !last) // After the last tile nothing is copied.
        refill();
    }
    return next;
  });
}

SmallVector<Value> GemmBuilder::buildPrefetchedLoop(OpBuilder &b,
                                                    ValueRange initial,
                                                    int64_t ahead) {
  Value numStages = constIndex(b, loc, plan.stages);
  auto stageOf = [&](OpBuilder &nb, Value kt) -> Value {
    return arith::RemUIOp::create(nb, loc, kt, numStages);
  };
  // Tile kt has landed for every thread (at most ahead-1 groups pending,
  // then the barrier), and tile kt+ahead goes into the stage tile kt-1
  // used, which every thread has read into registers by now.
  auto land = [&](OpBuilder &nb, Value kt) {
    NVVM::CpAsyncWaitGroupOp::create(nb, loc, ahead - 1);
    gpu::BarrierOp::create(nb, loc);
    Value tile = arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, ahead));
    Value inRange = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult,
                                          tile, constIndex(nb, loc, numK));
    scf::IfOp::create(nb, loc, inRange, [&](OpBuilder &ib, Location) {
      for (const Operand &x : operands)
        copyTile(ib, x, tile, stageOf(ib, tile));
      scf::YieldOp::create(ib, loc);
    });
    NVVM::CpAsyncCommitGroupOp::create(nb, loc);
  };
  Value zero = constIndex(b, loc, 0);
  land(b, zero);
  SmallVector<Value> init(initial);
  size_t numAccs = init.size();
  llvm::append_range(init, loadFmaFragments(b, zero, zero));
  // The fragments of step kk+1 (of the next tile after the last step) are
  // loaded before step kk's FMAs: the barrier before the next tile no
  // longer leaves every warp of the block waiting on shared memory at
  // once. After the last tile the loads read a stage's stale values,
  // which nothing uses.
  auto loop = scf::ForOp::create(
      b, loc, zero, constIndex(b, loc, numK), constIndex(b, loc, 1), init,
      [&](OpBuilder &nb, Location, Value kt, ValueRange iter) {
        Value stage = stageOf(nb, kt);
        SmallVector<Value> accs(iter.take_front(numAccs));
        SmallVector<Value> current(iter.drop_front(numAccs));
        for (int64_t kk = 0; kk < plan.bk; ++kk) {
          SmallVector<Value> next;
          if (kk + 1 < plan.bk) {
            next = loadFmaFragments(nb, stage, constIndex(nb, loc, kk + 1));
          } else {
            Value following =
                arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, 1));
            land(nb, following);
            next = loadFmaFragments(nb, stageOf(nb, following),
                                    constIndex(nb, loc, 0));
          }
          accs = fmaStep(nb, current, accs);
          current = std::move(next);
        }
        llvm::append_range(accs, current);
        scf::YieldOp::create(nb, loc, accs);
      });
  return SmallVector<Value>(loop.getResults().take_front(numAccs));
}

/// Reads the plan from a kernel function's tuning and the product's loops.
static FailureOr<Plan> readPlan(TuningAttr tuning, linalg::GenericOp gemm) {
  std::string why;
  FailureOr<GemmLoops> loops = analyzeGemmLoops(gemm, why);
  if (failed(loops))
    return gemm.emitOpError("cannot take the shared-memory GEMM lowering: ")
           << why;
  Plan plan;
  plan.loops = *loops;
  plan.mma = isMmaGemm(tuning);
  plan.wgmma = isWgmmaGemm(tuning);
  ArrayRef<int64_t> inner = plan.mma ? tuning.getWarp() : tuning.getThread();
  // Tile lists are per parallel loop, in loop order (checkLowerable); a
  // group's tile is the product over its loops.
  plan.bm = plan.bn = plan.tm = plan.tn = 1;
  plan.blockExtents.assign(gemm.getNumLoops(), 1);
  unsigned p = 0;
  for (unsigned d = 0; d < gemm.getNumLoops(); ++d) {
    if (loops->isReduction(d))
      continue;
    plan.blockExtents[d] = tuning.getBlock()[p];
    if (llvm::is_contained(loops->mLoops, d)) {
      plan.bm *= tuning.getBlock()[p];
      plan.tm *= inner[p];
    } else if (llvm::is_contained(loops->nLoops, d)) {
      plan.bn *= tuning.getBlock()[p];
      plan.tn *= inner[p];
    }
    ++p;
  }
  plan.bk = tuning.getReduction()[0];
  plan.stages = tuning.getPipeline();
  plan.padding = tuning.getPadding();
  plan.vector = tuning.getVector();
  plan.async = tuning.getCopy() == CopyEngine::cp_async;
  plan.tma = tuning.getCopy() == CopyEngine::tma;
  plan.cluster = tuning.getCluster();
  plan.fragmentsAhead = tuning.getFragmentsAhead() != 0;
  if (!plan.mma) {
    auto bytesOf = [&](unsigned which) {
      return (getElementTypeOrSelf(gemm.getDpsInputOperand(which)->get())
                  .getIntOrFloatBitWidth() +
              7) /
             8;
    };
    plan.splitM =
        plan.tm % 2 == 0 && (plan.tm / 2) * bytesOf(plan.loops.lhs) >= 16;
    plan.splitN =
        plan.tn % 2 == 0 && (plan.tn / 2) * bytesOf(plan.loops.rhs) >= 16;
  }
  // Partial M/N tiles (dynamic loop ranges within the block) guard their
  // copies, loads and stores per loop; K and batch loops must be static.
  SmallVector<int64_t> ranges = gemm.getStaticLoopRanges();
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (ShapedType::isDynamic(ranges[d]) && !plan.loops.isMN(d))
      return gemm.emitOpError("has a dynamic range on loop ")
             << d << ", which is neither an M nor an N loop";
  int64_t extentK = GemmLoops::extent(plan.loops.kLoops, ranges);
  if (plan.tma && (!plan.wgmma || plan.stages < 2))
    return gemm.emitOpError("copy = tma needs warpgroup MMA and two stages "
                            "or more");
  if (plan.fragmentsAhead && (plan.mma || plan.stages < 2 || !plan.async))
    return gemm.emitOpError("fragments_ahead = 1 needs FMA thread tiles over "
                            "cp.async copies in two stages or more");
  if (plan.cluster != 1) {
    // checkLowerable's conditions the copies rely on (A's rows are halved).
    AffineMap lhsMap =
        gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(plan.loops.lhs));
    if (!plan.tma || plan.cluster != 2 || !plan.loops.batch.empty() ||
        contiguousLoop(lhsMap) != plan.loops.innerK())
      return gemm.emitOpError("cluster = ")
             << plan.cluster
             << " needs copy = tma, clusters of 2, no batch loops and A "
                "contiguous along K";
  }
  if (plan.bk < 1 || (extentK % plan.bk != 0 && !plan.async && !plan.tma))
    return gemm.emitOpError("a partial last K tile (K step ")
           << plan.bk << ", K " << extentK
           << ") needs cp.async copies to zero-fill it";
  return plan;
}

static LogicalResult lowerLaunch(gpu::LaunchOp launch, TuningAttr tuning) {
  Block &body = launch.getBody().front();
  FailureOr<SmallVector<linalg::LinalgOp>> blockOps = collectBlockOps(launch);
  if (failed(blockOps))
    return failure();
  SmallVector<linalg::LinalgOp> &ops = *blockOps;
  auto gemmIt = llvm::find_if(
      ops, [](linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; });
  if (gemmIt == ops.end())
    return launch.emitOpError("has no matrix product to lower");
  auto gemm = dyn_cast<linalg::GenericOp>(gemmIt->getOperation());
  if (!gemm)
    return gemmIt->emitOpError("is not in generic form");
  FailureOr<Plan> plan = readPlan(tuning, gemm);
  if (failed(plan))
    return failure();
  Value acc = gemm.getDpsInitOperand(0)->get();

  linalg::LinalgOp init;
  FailureOr<std::optional<Value>> initValue =
      accumulatorStart(launch, ArrayRef(ops.begin(), gemmIt), gemm, init);
  if (failed(initValue))
    return failure();

  GemmBuilder builder(launch, gemm, *plan);
  OpBuilder b(&body, body.begin());
  builder.buildThreadIds(b);
  b.setInsertionPoint(gemm);
  builder.buildBounds(b);
  Location loc = gemm.getLoc();
  // TMA: the producer warpgroup's part comes first; all that follows is the
  // computing threads' (wrapped below).
  Operation *producerEnd = nullptr;
  if (plan->tma) {
    if (failed(builder.prepare(b)))
      return failure();
    producerEnd = gemm->getPrevNode();
  }
  AffineMap outMap = gemm.getMatchingIndexingMap(gemm.getDpsInitOperand(0));
  // Where each accumulator sits in the result. With partial tiles, one past
  // the block's extent stores nothing (accInside: its guard) and loads at
  // indices clamped into the tile (accLoadIndices: plain loads, which
  // accumulators of one column share); the epilogue locates them again
  // after the K loop, so that none of this lives across it (linear 3000 x
  // 1000 x 1024 f32 + ReLU: 156 registers with guarded loads located
  // before the loop, 124 so).
  SmallVector<SmallVector<Value>> accIndices, accLoadIndices;
  SmallVector<Value> accInside;
  SmallVector<std::pair<Value, Value>> positions;
  auto locate = [&] {
    accIndices.clear();
    accLoadIndices.clear();
    accInside.clear();
    positions = builder.accumulatorPositions(b);
    for (auto [m, n] : positions) {
      SmallVector<Value> loopIdx = builder.productIndices(b, m, n);
      accIndices.push_back(applyMap(outMap, loopIdx));
      accInside.push_back(builder.inBounds(b, loopIdx));
      if (accInside.back())
        builder.clampToBounds(b, loopIdx);
      accLoadIndices.push_back(applyMap(outMap, loopIdx));
    }
  };
  // (Before the loop only for the accumulators' first loads, where the
  // product does not start from a fill.)
  if (!builder.hasPartialTiles() || !*initValue)
    locate();
  SmallVector<Value> initial;
  int64_t numAccumulators = builder.numAccumulators();
  for (int64_t e = 0; e < numAccumulators; ++e)
    initial.push_back(
        *initValue ? **initValue
                   : memref::LoadOp::create(b, loc, acc, accLoadIndices[e])
                         .getResult());
  if (!plan->tma && failed(builder.prepare(b)))
    return failure();
  SmallVector<Value> finals = builder.buildMainLoop(b, initial);

  // The epilogue: before the launch's end, where every operand it reads
  // is defined.
  b.setInsertionPoint(body.getTerminator());
  if (builder.hasPartialTiles())
    locate();
  SmallVector<Operation *> producers;
  if (init)
    producers.push_back(init);
  producers.push_back(gemm);
  // Tensor-core accumulators come in pairs of adjacent columns (N); FMA
  // tiles in runs of TN (or TN / 2) adjacent columns, stored four at a time
  // where a run of four stays within the innermost N loop.
  std::optional<GroupedStores> grouped;
  std::optional<unsigned> dimN = outMap.getResultPosition(
      getAffineDimExpr(plan->loops.innerN(), gemm.getContext()));
  int64_t run = plan->splitN ? plan->tn / 2 : plan->tn;
  if (dimN && plan->mma)
    grouped = GroupedStores{*dimN, 2};
  else if (dimN && run % 4 == 0 &&
           plan->blockExtents[plan->loops.innerN()] % 4 == 0)
    grouped = GroupedStores{*dimN, 4};
  // A buffer stored twice (an epilogue writing in place) may be staged once
  // and not the next time: the staged pieces and the threads' own elements
  // then differ in owner, so a barrier orders the first stores before the
  // second (staged stores start with one).
  DenseMap<Value, bool> lastStaged;
  auto stage = [&](OpBuilder &sb, Value buffer, ArrayRef<Value> values,
                   ArrayRef<unsigned> fromResult) {
    bool staged =
        builder.stageStores(sb, buffer, values, fromResult, positions, outMap);
    bool &last = lastStaged[baseBuffer(buffer)];
    if (last && !staged)
      builder.computingBarrier(sb);
    last = staged;
    return staged;
  };
  if (failed(applyEpilogueInRegisters(b, launch, acc, accIndices, finals,
                                      ArrayRef(std::next(gemmIt), ops.end()),
                                      producers, grouped, stage, accInside,
                                      accLoadIndices)))
    return failure();
  if (!plan->tma)
    return success();

  // TMA: a 1-D block of the computing warpgroups and the producer's
  // (buildThreadIds), and everything after the producer's loop for the
  // computing threads only. Neither side meets a block barrier again.
  b.setInsertionPoint(launch);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  launch.getBlockSizeXMutable().assign(
      arith::ConstantIndexOp::create(b, loc, plan->launchThreads()));
  launch.getBlockSizeYMutable().assign(one);
  launch.getBlockSizeZMutable().assign(one);
  b.setInsertionPointAfter(producerEnd);
  auto computes = scf::IfOp::create(b, loc, builder.isConsumer(b),
                                    /*withElseRegion=*/false);
  Block *then = computes.thenBlock();
  then->getOperations().splice(
      then->getTerminator()->getIterator(), body.getOperations(),
      std::next(computes->getIterator()), body.getTerminator()->getIterator());
  // The producer's threads never reach a block barrier from here on: one
  // there would hang the block. Nothing builds one today; this guards
  // later changes to the epilogue.
  WalkResult blockBarrier = then->walk([](gpu::BarrierOp barrier) {
    barrier.emitOpError("would wait for the TMA producer's threads, which "
                        "skip the computing threads' code");
    return WalkResult::interrupt();
  });
  if (blockBarrier.wasInterrupted())
    return failure();
  if (auto split = builder.registerSplit()) {
    b.setInsertionPointToStart(then);
    NVVM::SetMaxRegisterOp::create(b, loc, split->second,
                                   NVVM::SetMaxRegisterAction::increase);
  }
  if (plan->cluster > 1) {
    // Blocks x and x + 1 (N tiles side by side, the same M rows) share A's
    // tile. Neither may exit while the other can still copy into it or
    // arrive on its barriers: all threads of both meet at a cluster barrier
    // before the end.
    if (failed(addClusterSize(launch, plan->cluster, 1, 1)))
      return failure();
    OpBuilder eb(body.getTerminator());
    clusterBarrier(eb, loc);
  }
  return success();
}

namespace {
struct LowerSharedGemmPass
    : public egg::impl::EggLowerSharedGemmBase<LowerSharedGemmPass> {
  void runOnOperation() override {
    auto applies = [](StructureAttr structure, TuningAttr tuning) {
      return isSharedGemm(tuning) && !isStagedMap(structure, tuning);
    };
    if (failed(lowerKernelLaunches(getOperation(), applies, lowerLaunch)))
      return signalPassFailure();
    // Padded views are read by the copies built above alone: the block
    // views left behind are dead; any other reader could not be lowered.
    SmallVector<PaddedViewOp> views;
    getOperation().walk([&](PaddedViewOp view) { views.push_back(view); });
    for (PaddedViewOp view : views) {
      SmallVector<Operation *> dead;
      std::function<bool(Value)> unused = [&](Value v) {
        for (Operation *user : v.getUsers()) {
          if (!isa<memref::SubViewOp, memref::CastOp>(user) ||
              !unused(user->getResult(0)))
            return false;
          dead.push_back(user);
        }
        return true;
      };
      if (!unused(view.getResult())) {
        view.emitOpError("is read by an op other than an implicit GEMM's "
                         "copies (egg-lower-shared-gemm): nothing else can "
                         "read its border");
        return signalPassFailure();
      }
      for (Operation *op : dead) // Users before what they read.
        op->erase();
      view.erase();
    }
  }
};

struct LowerTensorMapArgsPass
    : public egg::impl::EggLowerTensorMapArgsBase<LowerTensorMapArgsPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      Block &entry = func.getBody().front();
      auto pointer = LLVM::LLVMPointerType::get(&getContext());
      SmallVector<Type> inputs(func.getArgumentTypes());
      OpBuilder b(&entry, entry.begin());
      for (BlockArgument arg : entry.getArguments()) {
        Type mapType = arg.getType();
        if (!isa<nvgpu::TensorMapDescriptorType>(mapType))
          continue;
        arg.setType(pointer);
        inputs[arg.getArgNumber()] = pointer;
        // Uses still typed as maps read them through a cast, which cancels
        // against the NVGPU conversion's cast back to a pointer.
        auto back = UnrealizedConversionCastOp::create(b, func.getLoc(),
                                                       mapType, Value(arg));
        arg.replaceAllUsesExcept(back.getResult(0), back);
      }
      func.setType(
          FunctionType::get(&getContext(), inputs, func.getResultTypes()));
    });
  }
};

struct ExternDynamicSharedMemoryPass
    : public egg::impl::EggExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    auto shared = static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
    getOperation().walk([&](LLVM::GlobalOp global) {
      // The conversion's global for gpu.dynamic_shared_memory, and nothing
      // else: internal, zero-sized, no initializer, its reserved name.
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != shared || !array ||
          array.getNumElements() != 0 ||
          global.getLinkage() != LLVM::Linkage::Internal ||
          global.getValueOrNull() || !global.getInitializerRegion().empty() ||
          !global.getSymName().starts_with("__dynamic_shmem__"))
        return;
      global.setLinkage(LLVM::Linkage::External);
    });
  }
};

struct AlignWorkgroupMemoryPass
    : public egg::impl::EggAlignWorkgroupMemoryBase<AlignWorkgroupMemoryPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
        if (!func.getWorkgroupAttributionAttr(i, name))
          func.setWorkgroupAttributionAttr(i, name, b.getI64IntegerAttr(16));
    });
  }
};
} // namespace
