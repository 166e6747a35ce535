//===- ExpertGemm.cpp - The built-in expert: products ---------------------===//

#include "ExpertAgent.h"
#include "egg/Agents/Agent.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Profiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::expert;

FailureOr<TuningAttr> ExpertAgent::chooseGemm(KernelOp kernel,
                                              StructureAttr structure,
                                              TargetAttr target,
                                              bool splitPartial) {
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<TuningAttr> wgmma =
      chooseWgmma(kernel, structure, target, splitPartial);
  if (succeeded(wgmma))
    return wgmma;
  return chooseSharedGemm(kernel, structure, target, splitPartial);
}

FailureOr<TuningAttr> ExpertAgent::chooseWgmma(KernelOp kernel,
                                               StructureAttr structure,
                                               TargetAttr target,
                                               bool splitPartial,
                                               bool elementCopies) {
  if (!supportsWgmma(target))
    return failure();
  std::string why;
  Operation *anchor = kernel.getAnchorOp();
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
  if (failed(gemm))
    return failure();
  auto op = cast<linalg::LinalgOp>(anchor);
  Type element = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  // f32 as TF32 where the user allowed it; otherwise as three TF32
  // products on split inputs (tf32_terms = 3, f32-grade error), where each
  // input is copied in 16-byte pieces: along K, or along M/N and
  // transposed by the split pass (`x @ w`'s w). An input copied an element
  // at a time hardly pays (H200, 4096^3 x @ w: 2.61 ms against 2.79 on FMA
  // tiles; docs/principles/tuning.md, principle 13).
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  bool splitF32 = element.isF32() && !allowsTf32(kernel);
  if (bytes != 2 && !element.isF32())
    return failure();
  if (splitF32 && !elementCopies &&
      !llvm::all_of(std::array<unsigned, 2>{gemm->lhs, gemm->rhs},
                    [&](unsigned which) {
                      return tf32CopyOf(op, *gemm, which, 16 / bytes,
                                        /*split=*/true) != Tf32Copy::elements;
                    }))
    return failure();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t batches = batchCount(*gemm, extents);
  auto emitError = [&]() { return kernel.emitOpError(); };
  struct Tile {
    int64_t bm, bn, wm, wn;
    bool wholeK = false; // A whole K loop in a deep TMA pipeline (longK).
  };
  const Tile wide = {128, 256, 128, 128}, square = {128, 128, 64, 128},
             deep = {128, 64, 64, 64, true}, narrow = {64, 128, 64, 128},
             deepNarrow = {64, 128, 64, 128, true};
  int64_t extentM = GemmLoops::extent(gemm->mLoops, extents);
  int64_t extentN = GemmLoops::extent(gemm->nLoops, extents);
  int64_t extentK = GemmLoops::extent(gemm->kLoops, extents);
  // Two blocks per SM: 128x128 tiles at three stages (96 KB of shared
  // memory, about 128 registers) let one block's prologue and epilogue run
  // beside the other's main loop, which pays where K is short (H200: 8-12%
  // faster); 128x256 tiles (one block per SM) keep the higher rate of long
  // main loops. Whole tiles and whole K steps only: partial ones ran slower
  // (docs/principles/tuning.md, principle 9). Two blocks need at most 128
  // registers per thread.
  int64_t wideBlocks = mulSat(batches, llvm::divideCeil(extentM, 128) *
                                           llvm::divideCeil(extentN, 256));
  // Plain products only: a split product's partial products (f32
  // results into the workspace) took 130 registers at 128x128, which
  // leaves one block per SM.
  bool twoPerSm = bytes == 2 && !splitPartial &&
                  structure.getFormulation() == Formulation::gemm_direct &&
                  extentM % 128 == 0 && extentN % 128 == 0 &&
                  extentK % 64 == 0 &&
                  (extentK <= 1024 ||
                   (extentK <= 2048 && wideBlocks < target.getSmCount()));
  // Long K over few output tiles: a whole K loop per block fed by TMA
  // through a deep pipeline beats splitting K (H200: 1.1-1.6x faster),
  // where one wave of such blocks fills the SMs: 128x128 tiles at four
  // stages, else 128x64 tiles (two 64x64 warpgroups; cuBLAS's choice for
  // 1024 x 1024 x 8192) at eight (six with partial tiles), whole tiles of
  // a plain product as 64x128 (one 64x128 warpgroup; below). Other depths
  // ran slower (docs/principles/tuning.md, principle 9).
  bool longK = bytes == 2 && extentK >= 2048;
  SmallVector<Tile> tiles = {wide, square, narrow};
  if (twoPerSm)
    tiles = {square, wide, narrow};
  // Split products keep a second set of accumulators (each K tile's sum):
  // 64x128 warpgroup tiles (168 registers; 128x256 tiles over four of
  // them leave 128 registers a thread, and spill).
  if (splitF32)
    tiles = {square, narrow};
  // A split convolution whose output rows fill no 128-position tile (rows
  // of 56 or 112) takes whole rows up to 128 positions, a multiple of 8
  // (wgmma's N step): 2 x 56 = 112.
  if (splitF32 && gemm->nLoops.size() > 1) {
    int64_t row = extents[gemm->nLoops.back()];
    int64_t rows = fitRowMajor(gemm->nLoops, extents, 128);
    if (row < 128 && rows % row == 0 && rows >= 64 && rows < 128 &&
        rows % 8 == 0) {
      tiles.push_back({128, rows, 64, rows});
      tiles.push_back({64, rows, 64, rows});
    }
  }
  if (longK) {
    tiles.insert(tiles.end() - 1, deep);
    if (!splitPartial && extentM % 64 == 0 && extentN % 128 == 0)
      tiles.insert(tiles.end() - 2, deepNarrow);
  }
  // Whole tiles first; where none fits, partial last tiles (an M or N of
  // 1000 that no tile of 64 divides; docs/pipeline.md, "Partial tiles").
  // (An N of 1000 could also take whole 128 x 200 tiles, m64n200k16 in
  // one warpgroup per 64 rows, but on the H200 the classifier head 4096
  // x 1000 x 4096 bf16 ran 1.75x slower so than in partial 128 x 256
  // tiles.)
  // (Whole tiles are a property of each M/N loop, not of their product: a
  // convolution's 258 x 258 output pixels hold whole 128-pixel tiles of
  // the flattened N, but none that a tile of its rows divides.)
  for (bool partial : {false, true})
    for (const Tile &t : tiles) {
      std::optional<GemmTiles> tile =
          gemmTiles(*gemm, extents, t.bm, t.bn, t.wm, t.wn, partial);
      if (!tile || (partial && gemmTiles(*gemm, extents, t.bm, t.bn, t.wm, t.wn,
                                         /*partial=*/false)))
        continue;
      // A split product's tile never exceeds its M or N extent: FMA tiles
      // take such short products with less padding (H100, NetVLAD's
      // 32 x 512 x 100 products: 1.42 ms split in 64-row tiles, 1.15 on
      // FMA tiles, for the whole model).
      if (splitF32 && (extentM < t.bm || extentN < t.bn))
        continue;
      int64_t blocks = mulSat(batches, llvm::divideCeil(extentM, t.bm) *
                                           llvm::divideCeil(extentN, t.bn));
      if (blocks * 4 < target.getSmCount() * 3)
        continue;
      bool deepTile = t.wholeK;
      bool wholeTiles = !partial;
      // The deep pipelines: one wave of blocks (TMA's producer warpgroup
      // leaves one block per SM), whole K steps (64 divides K), no tile
      // larger than its loop (an M of 64 keeps the split). Square tiles
      // and 64x128 ones were timed whole only; 128x64 ones also with
      // partial edges.
      bool oneWave = blocks <= target.getSmCount() && extentK % 64 == 0 &&
                     extentM >= t.bm && extentN >= t.bn;
      bool squareTma = longK && oneWave && wholeTiles && !twoPerSm &&
                       !splitPartial && t.bm == square.bm && t.bn == square.bn;
      if (deepTile && !oneWave)
        continue;
      ArrayRef<int64_t> block = tile->block, warp = tile->inner;
      // 128x128 tiles at three stages leave room for a second block per
      // SM (implicit-GEMM convolutions too: the 3x3 f16 convolutions'
      // products 12-15% faster than at four stages on the H200).
      SmallVector<int64_t, 2> stageChoices = {4, 3};
      if (t.bm == 128 && t.bn == 128 && !splitPartial)
        stageChoices = {3, 4};
      // Split inputs keep their low parts beside them: twice the shared
      // memory per stage. Three stages of 128x128 tiles are the form
      // checked on the GPU (two ran 2-3% faster on the H200 but were only
      // timed; docs/next-steps.md, 0e).
      if (splitF32)
        stageChoices = {3, 2};
      // 128x256 tiles over a long K (at least 1024) take their copies
      // from TMA (a producer warpgroup; 2-D products and split products'
      // partial products, checkLowerable falls back to cp.async for the
      // rest): 7-12% faster than cp.async on the H200, slower at K = 256
      // (docs/principles/tuning.md, principle 9). TF32 keeps cp.async: no
      // long-K TF32 product has been timed.
      SmallVector<CopyEngine, 2> engines = {CopyEngine::cp_async};
      if ((t.bn == 256 && bytes == 2 && extentK >= 1024) || squareTma)
        engines.insert(engines.begin(), CopyEngine::tma);
      // Square TMA tiles at four stages (six ran slower).
      const int64_t squareTmaStages[] = {4};
      if (deepTile) {
        // TMA only: no deep cp.async pipeline has been timed.
        engines = {CopyEngine::tma};
        stageChoices = {wholeTiles ? 8 : 6};
      }
      for (CopyEngine engine : engines)
        for (int64_t stages : engine == CopyEngine::tma && squareTma
                                  ? ArrayRef<int64_t>(squareTmaStages)
                                  : ArrayRef<int64_t>(stageChoices)) {
          TuningAttr tuning =
              TuningBuilder(kernel.getContext())
                  .threads({128, t.bn / t.wn, t.bm / t.wm})
                  .block(block)
                  .warp(warp)
                  .mma(MmaKind::wgmma)
                  .reduction({128 / bytes})
                  .shared({0, 1})
                  .swizzle(Swizzle::xor128)
                  .vector(16 / bytes)
                  .copy(engine)
                  .pipeline(stages)
                  .tf32Terms(splitF32 ? 3 : 1)
                  .getChecked(function_ref<InFlightDiagnostic()>(emitError));
          if (tuning &&
              succeeded(checkLowerable(kernel, structure, tuning, emitError)))
            return tuning;
        }
    }
  return failure();
}

FailureOr<TuningAttr> ExpertAgent::chooseSharedGemm(KernelOp kernel,
                                                    StructureAttr structure,
                                                    TargetAttr target,
                                                    bool splitPartial,
                                                    bool rowTiles) {
  std::string why;
  Operation *anchor = kernel.getAnchorOp();
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
  if (failed(gemm))
    return failure();
  auto op = cast<linalg::LinalgOp>(anchor);
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t bits = std::max(getElementTypeOrSelf(op.getDpsInputOperand(0)->get())
                              .getIntOrFloatBitWidth(),
                          getElementTypeOrSelf(op.getDpsInputOperand(1)->get())
                              .getIntOrFloatBitWidth());
  int64_t bk = bits <= 16 ? 32 : 16;
  int64_t padding = 128 / bits;
  Type lhsType = getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get());
  Type rhsType = getElementTypeOrSelf(op.getDpsInputOperand(gemm->rhs)->get());
  int64_t batches = batchCount(*gemm, extents);
  auto emitError = [&]() { return kernel.emitOpError(); };
  // Whether an operand is contiguous along its M/N loop in global memory
  // (FMA tiles store it that way, so it is copied in whole vectors).
  auto alongMN = [&](unsigned which, unsigned mn) {
    std::optional<unsigned> fast =
        contiguousLoop(op.getMatchingIndexingMap(op.getDpsInputOperand(which)));
    return fast && *fast == mn;
  };
  bool lhsAlongMN = alongMN(gemm->lhs, gemm->innerM());
  bool rhsAlongMN = alongMN(gemm->rhs, gemm->innerN());
  // FMA tiles (f32) chosen by the rules below; not yet a split product's
  // partial products, whose slices were measured under the plain rule
  // (docs/principles/tuning.md, principle 9).
  bool fma = bits > 16 && !splitPartial;
  bool convolution = classifyKernel(kernel) == KernelClass::Convolution;
  // (FMA tiles take 64x128 before 128x64: 3000 x 1000 x 1024 f32, 0.153
  // against 0.159 ms on the H200.)
  SmallVector<std::pair<int64_t, int64_t>> tiles = {
      {128, 128}, {128, 64}, {64, 128}, {64, 64}, {64, 32}, {32, 64}, {32, 32}};
  if (fma)
    std::swap(tiles[1], tiles[2]);
  struct Copy {
    CopyEngine engine;
    int64_t stages;
    int64_t bk;
    // K steps whose A and B values are loaded before the previous step's
    // FMAs (fragments_ahead = 1), in dynamic shared memory beyond 48 KB.
    bool deepAhead = false;
  };
  const Copy copies[] = {{CopyEngine::cp_async, 3, bk},
                         {CopyEngine::cp_async, 2, bk},
                         {CopyEngine::sync, 1, bk}};
  // Tensor cores wait on copies more than FMAs do: three stages of
  // 32-deep K tiles (in dynamic shared memory beyond 48 KB); where they
  // do not fit, four stages of 16 beat two of 32 (H200, 2048^3 bf16:
  // 0.067, 0.070 and 0.086 ms; docs/benchmarks.md).
  const Copy mmaCopies[] = {{CopyEngine::cp_async, 3, 32},
                            {CopyEngine::cp_async, 4, 16},
                            {CopyEngine::cp_async, 2, 32},
                            {CopyEngine::cp_async, 3, 16},
                            {CopyEngine::sync, 1, 32}};
  int64_t extentK = GemmLoops::extent(gemm->kLoops, extents);
  FailureOr<TuningAttr> best = failure();
  int64_t bestBlocks = 0, bestLoad = 0, bestSide = 0;
  int64_t extentM = GemmLoops::extent(gemm->mLoops, extents);
  int64_t extentN = GemmLoops::extent(gemm->nLoops, extents);
  // Whole tiles first; partial last tiles only where no whole tile fits
  // (docs/pipeline.md, "Partial tiles").
  for (bool partial : {false, true}) {
    if (partial && succeeded(best))
      break;
    for (auto [wantM, wantN] : tiles) {
      int64_t bm = wantM, bn = wantN;
      // A convolution's output positions that no such tile divides (30x30,
      // 508x250): as many as fit in whole inner loops and a part of the
      // next, whose last part is cut short (FMA tiles only;
      // docs/pipeline.md, "Partial tiles").
      bool fitted = partial && convolution && fma;
      if (fitted) {
        bm = fitRowMajor(gemm->mLoops, extents, std::min(wantM, extentM),
                         /*partial=*/true);
        bn = fitRowMajor(gemm->nLoops, extents, std::min(wantN, extentN),
                         /*partial=*/true);
        if (bm < 16 || bn < 1)
          continue;
      }
      std::optional<SmallVector<int64_t>> blockTile =
          gemmTileList(*gemm, extents, bm, bn, partial);
      if (!blockTile ||
          (partial && !fitted && extentM % bm == 0 && extentN % bn == 0))
        continue;
      auto blockCount = [&]() {
        return mulSat(
            batches,
            mulSat(rowMajorTileCount(gemm->mLoops, extents, bm, partial),
                   rowMajorTileCount(gemm->nLoops, extents, bn, partial)));
      };
      int64_t blocks = blockCount();
      // Larger tiles first; a smaller one only for more blocks while the
      // larger leaves SMs idle. FMA tiles (f32) of 64x64 and more: a
      // smaller one only where it lowers the busiest SM's work (its share
      // of the blocks times the tile, weighted by the shared-memory reads
      // per FMA of the thread tile, 1 + 1/tm + 1/tn), since one block of
      // 128 or 256 such threads keeps an SM's FMA pipes busy; and SMs
      // count as idle below 7/8 of them (H200: 3000 x 1000 x 1024 0.153 ms
      // in 64x128 tiles, 0.190 in 128x128; docs/principles/tuning.md,
      // principle 9).
      int64_t tm = std::max<int64_t>(bm / 16, 4),
              tn = std::max<int64_t>(bn / 16, 4);
      // Halves of 128x128 keep its 8x8 per thread (128 threads): 3000 x
      // 1000 x 1024 took 0.153 ms in 64x128 tiles of 8x8, 0.177 in 128x64
      // ones of 8x4 (256 threads).
      if (fma && bm * bn == 128 * 64)
        tm = tn = 8;
      // Fitted tiles: the largest thread tiles up to those that split the
      // block's loops.
      auto fitOwner = [&](int64_t want, bool alongM) -> int64_t {
        for (int64_t t = std::min(want, alongM ? bm : bn); t >= 1; --t)
          if (gemmTiles(*gemm, extents, bm, bn, alongM ? t : 1, alongM ? 1 : t,
                        partial))
            return t;
        return 1;
      };
      int64_t wantTm = tm, wantTn = tn;
      if (fitted) {
        tm = fitOwner(tm, /*alongM=*/true);
        tn = fitOwner(tn, /*alongM=*/false);
      }
      // Row thread tiles: where the output rows' width leaves a thread at
      // most 3 positions along a row (a row of 62 takes 2), the block
      // takes whole rows and each thread 8 filters (4 where 8 leave fewer
      // than four warps) x a part of each of 8 / part rows (8 x 4 rows x
      // 2 positions): the values per shared-memory read of an 8x8 tile
      // (docs/pipeline.md, "Row thread tiles"). Only with four warps or
      // more, in static shared memory.
      std::optional<SmallVector<int64_t>> rowThread;
      constexpr int64_t kRowPositions = 8;
      if (rowTiles && fitted && tn < 4 && gemm->nLoops.size() >= 2) {
        unsigned across = gemm->nLoops.back();
        unsigned down = gemm->nLoops[gemm->nLoops.size() - 2];
        int64_t width = extents[across];
        auto position = [&](unsigned d) {
          int64_t p = 0;
          for (unsigned l = 0; l < d; ++l)
            p += !gemm->isReduction(l);
          return p;
        };
        for (int64_t filters : {int64_t(8), int64_t(4)}) {
          if (rowThread)
            break;
          for (int64_t part = kRowPositions / 2; part >= 2 && !rowThread;
               part /= 2) {
            int64_t rows = kRowPositions / part;
            int64_t threads = (width / part) * (bm / filters);
            if (bm % filters != 0 || width % part != 0 ||
                rows > extents[down] ||
                llvm::divideCeil(threads, kWarpSize) < kWarpSchedulersPerSM ||
                threads > kMaxThreadsPerBlock ||
                sharedGemmBytes(bm, rows * width, bk, padding, 2, lhsType,
                                rhsType, false,
                                false) > kStaticSharedMemoryPerBlock)
              continue;
            std::optional<GemmTiles> tiles = gemmTiles(
                *gemm, extents, bm, rows * width, filters, 1, partial);
            if (!tiles)
              continue;
            tiles->inner[position(down)] = rows;
            tiles->inner[position(across)] = part;
            bn = rows * width;
            tm = wantTm = filters;
            tn = wantTn = kRowPositions;
            blockTile = tiles->block;
            rowThread = tiles->inner;
            blocks = blockCount();
          }
        }
      }
      int64_t load = mulSat(llvm::divideCeil(blocks, target.getSmCount()),
                            bm * bn * (tm * tn + tm + tn) / (tm * tn));
      int64_t busy = fma && bestSide >= 64 ? target.getSmCount() * 7 / 8
                                           : target.getSmCount();
      if (succeeded(best) && (fma && bestSide >= 64 && std::min(bm, bn) >= 64
                                  ? load >= bestLoad
                                  : bestBlocks >= busy || blocks <= bestBlocks))
        continue;
      // A fitted thread tile cut to half or less on one side (a row of 62
      // outputs takes 1, 2, 31 or 62 per thread) grows on the other to
      // about 32 outputs, so that each value read from shared memory still
      // feeds several FMAs, while the block keeps a warp per scheduler
      // (H100, a 3-D convolution to 62^3 x 64 channels: 4.12 ms with 4 x 2
      // per thread, 2.80 ms with 16 x 2; below four warps it lost up to
      // 30%; principle 9 of tuning.md). Only a block the plain tile maps
      // grows, and blocks are ranked by the plain tile: a 65-wide row cut
      // to 8 x 1 per thread (1040 threads) did not become 32 x 1 in place
      // of 128 x 64 outputs in 8 x 8 (2x slower).
      if (fitted && (bm / tm) * (bn / tn) <= kMaxThreadsPerBlock) {
        auto grow = [&](int64_t &side, int64_t other, int64_t blockSide,
                        bool alongM) {
          auto threads = [&](int64_t s) {
            return (bm / (alongM ? s : other)) * (bn / (alongM ? other : s));
          };
          while (side * other < 32 && side * 2 <= blockSide &&
                 threads(side * 2) >= kWarpSchedulersPerSM * kWarpSize &&
                 gemmTiles(*gemm, extents, bm, bn, alongM ? side * 2 : other,
                           alongM ? other : side * 2, partial))
            side *= 2;
        };
        if (2 * tn <= wantTn && tm == wantTm)
          grow(tm, tn, bm, /*alongM=*/true);
        else if (2 * tm <= wantTm && tn == wantTn)
          grow(tn, tm, bn, /*alongM=*/false);
      }
      // Tensor cores first (f16/bf16 products): four warps, each a half
      // of the block tile along M and N (at most 64x64). Otherwise FMAs:
      // the thread tiles above (16x16 threads for 128x128); small tiles
      // keep 4x4 per thread (fewer threads) so that each value read from
      // shared memory feeds 4 FMAs.
      int64_t wm = std::min<int64_t>(bm / 2, 64),
              wn = std::min<int64_t>(bn / 2, 64);
      std::optional<GemmTiles> warpTiles =
          gemmTiles(*gemm, extents, bm, bn, wm, wn, partial);
      std::optional<GemmTiles> threadTiles =
          gemmTiles(*gemm, extents, bm, bn, tm, tn, partial);
      ArrayRef<int64_t> block = *blockTile;
      ArrayRef<int64_t> warp, thread;
      if (warpTiles)
        warp = warpTiles->inner;
      if (threadTiles)
        thread = threadTiles->inner;
      if (rowThread)
        thread = *rowThread;
      struct Mapping {
        MmaKind mma;
        SmallVector<int64_t> threads;
        ArrayRef<int64_t> warp, thread;
        ArrayRef<Copy> copies;
      };
      // At most a block per SM (a skinny product): its copies alone hide
      // the memory latency, so its K steps deepen until four stages keep
      // 48 KB in flight (M = 32, N = K = 4096 bf16 on the H200: 32-deep
      // steps 0.054 ms, 64 0.031, 128 0.026; docs/benchmarks.md).
      SmallVector<Copy> tensorCopies(std::begin(mmaCopies),
                                     std::end(mmaCopies));
      int64_t inFlight = 3 * (bm + bn) * (bits / 8);
      if (blocks <= target.getSmCount() && inFlight * 32 < kDeepCopyBytes) {
        int64_t deep = 64;
        while (inFlight * deep < kDeepCopyBytes)
          deep *= 2;
        if (extentK >= 8 * deep)
          tensorCopies.insert(tensorCopies.begin(),
                              Copy{CopyEngine::cp_async, 4, deep});
      }
      // 8x8 FMA tiles per thread are bound by their FMAs: two stages
      // (three were 8% slower on the H200).
      SmallVector<Copy> fmaCopies(std::begin(copies), std::end(copies));
      if (fma && tm * tn >= 64)
        fmaCopies.erase(fmaCopies.begin());
      // A plain product's 128x128 FMA tiles with an operand copied in
      // 16-byte pieces along M/N (B row-major, or A column-major): 32-deep
      // K steps loaded a step ahead, half the barriers per FMA, in 68 KB
      // of dynamic shared memory (H200: 5-7% faster; slower in 64x128
      // tiles, in convolutions and with both operands transposed element
      // by element; docs/principles/tuning.md, principle 9).
      if (fma && !convolution && bm == 128 && bn == 128 &&
          (lhsAlongMN || rhsAlongMN) && extentK % 32 == 0)
        fmaCopies.insert(fmaCopies.begin(),
                         Copy{CopyEngine::cp_async, 2, 32, true});
      const Mapping mappings[] = {
          {MmaKind::mma_sync, {32, bn / wn, bm / wm}, warp, {}, tensorCopies},
          {MmaKind::fma, {bn / tn, bm / tm}, {}, thread, fmaCopies}};
      for (const Mapping &mapping : mappings) {
        if (mapping.warp.empty() && mapping.thread.empty())
          continue; // The owners' tiles do not split the loops.
        for (const Copy &copy : mapping.copies) {
          // FMA tiles stay within 48 KB of static shared memory, except
          // the 32-deep steps loaded ahead above: other deeper pipelines
          // in dynamic memory are legal, and egg-tune measures them, but
          // none has been measured better yet.
          if (!mapping.thread.empty() && !copy.deepAhead &&
              sharedGemmBytes(bm, bn, copy.bk, padding, copy.stages, lhsType,
                              rhsType, false,
                              false) > kStaticSharedMemoryPerBlock)
            continue;
          // A convolution's 8x8 FMA tiles load each K step's values
          // before the previous step's FMAs (principle 9 of tuning.md:
          // 1-3% faster on the f32 convolutions; plain products lost up
          // to 5%; smaller tiles not measured).
          int64_t ahead =
              copy.deepAhead || (convolution && !mapping.thread.empty() &&
                                 copy.stages >= 2 && tm * tn >= 64 &&
                                 tm * tn * copy.bk <= kFragmentsAheadFmas)
                  ? 1
                  : 0;
          FailureOr<TuningAttr> found = failure();
          for (int64_t v = 128 / bits; v >= 1 && failed(found); v /= 2) {
            TuningAttr tuning =
                TuningBuilder(kernel.getContext())
                    .threads(mapping.threads)
                    .block(block)
                    .warp(mapping.warp)
                    .thread(mapping.thread)
                    .mma(mapping.mma)
                    .reduction({copy.bk})
                    .shared({0, 1})
                    .padding(padding)
                    .vector(v)
                    .copy(copy.engine)
                    .pipeline(copy.stages)
                    .fragmentsAhead(ahead)
                    .getChecked(function_ref<InFlightDiagnostic()>(emitError));
            if (tuning &&
                succeeded(checkLowerable(kernel, structure, tuning, emitError)))
              found = tuning;
          }
          if (succeeded(found)) {
            best = found;
            bestBlocks = blocks;
            bestLoad = load;
            bestSide = std::min(bm, bn);
            break;
          }
        }
        if (succeeded(best) && bestBlocks == blocks)
          break;
      }
    }
  }
  // Row thread tiles that no copy makes legal leave the plain tiles.
  if (failed(best) && rowTiles)
    return chooseSharedGemm(kernel, structure, target, splitPartial,
                            /*rowTiles=*/false);
  return best;
}
