//===- ExpertAgent.cpp - The built-in expert ------------------------------===//
//
// Implements docs/principles/structure.md and docs/principles/tuning.md for
// the generic lowering. Every rule here has its reason in those files.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::egg;

Agent::~Agent() = default;

/// The largest divisor of `n` that is at most `limit` (1 if none larger).
static int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The number of matrices a batched product computes.
static int64_t batchCount(const GemmLoops &gemm, ArrayRef<int64_t> extents) {
  int64_t batches = 1;
  for (unsigned d : gemm.batch)
    batches = mulSat(batches, extents[d]);
  return batches;
}

/// Bytes of tiles a lone block per SM keeps in flight to hide the memory
/// latency (principle 9 of tuning.md).
static constexpr int64_t kDeepCopyBytes = 48 * 1024;
/// Threads per SM a column reduction needs to keep enough loads in flight
/// (H200, session 26: 128 blocks of 512 threads on 132 SMs read as fast
/// as 1024 blocks; 64 blocks were 20% slower).
static constexpr int64_t kColumnThreadsPerSm = 384;
/// Rows each thread of a split column reduction's slice reads at least.
static constexpr int64_t kMinRowsPerThread = 16;

namespace {
class ExpertAgent : public Agent {
public:
  StringRef getName() const override { return "expert"; }

  FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) override {
    // The legal set is ordered best first by the principles.
    if (legal.empty())
      return kernel.emitOpError("has no structure the compiler can build");
    // Rows shared by lanes: a warp per row when there are rows enough for
    // 16 warps per SM; fewer, long rows get a block each (principle 5 of
    // structure.md).
    auto has = [&](Formulation f) {
      return llvm::any_of(
          legal, [&](StructureAttr s) { return s.getFormulation() == f; });
    };
    std::optional<int64_t> row = cooperativeRowLength(kernel);
    TargetAttr target = lookupTarget(kernel);
    if (row && target && has(Formulation::reduce_row_per_block)) {
      auto quiet = [&]() { return kernel.emitOpError(); };
      ScopedDiagnosticHandler silence(kernel.getContext(),
                                      [](Diagnostic &) { return success(); });
      FailureOr<RootLoops> loops = analyzeRootLoops(kernel, quiet);
      int64_t rows = 1;
      if (succeeded(loops))
        for (unsigned pos : loops->parallelPositions)
          if (!loops->reducedByProducer[pos])
            rows = mulSat(rows, loops->extents[pos]);
      // Rows of 2048 elements and more: a block per row keeps each
      // thread's part of the row in registers across the passes (egg-tune
      // on the H200: softmax 4096x4096 0.040 ms against 0.078 ms per warp).
      // A kernel whose output runs along the row (a norm, a softmax) reads
      // the row more than once. A plain reduction reads it once; for rows of
      // 4096 and more a block per row still wins, by keeping more loads in
      // flight than a warp per row's 0.48 waves (H200, session 19, 64 MB:
      // row_sum 0.0191 -> 0.0183 ms, matvec_bf16 0.0207 -> 0.0188,
      // row_mean_bf16 0.0189 -> 0.0183, row_max_f16 the same; rows of 1500
      // the same either way).
      bool multiPass = succeeded(loops) &&
                       llvm::is_contained(loops->reducedByProducer, true);
      if ((multiPass && *row >= 2048) || (!multiPass && *row >= 4096) ||
          (rows < 16 * target.getSmCount() && *row >= 1024))
        return StructureAttr::get(kernel.getContext(),
                                  Formulation::reduce_row_per_block, 1);
    }
    // Convolutions: an implicit GEMM (principle 6 of structure.md) where
    // the GEMM lowering can tile it, else the direct loop nest.
    if (has(Formulation::conv_implicit_gemm)) {
      auto implicit = StructureAttr::get(kernel.getContext(),
                                         Formulation::conv_implicit_gemm, 1);
      StructureAttr before = kernel.getStructureAttr();
      kernel.setStructureAttr(implicit);
      bool tiles = target && succeeded(chooseGemm(kernel, target));
      if (before)
        kernel.setStructureAttr(before);
      else
        kernel.removeStructureAttr();
      if (tiles)
        return implicit;
      return StructureAttr::get(kernel.getContext(), Formulation::conv_direct,
                                1);
    }
    if (target)
      if (StructureAttr split = chooseSplit(kernel, legal, target))
        return split;
    if (target && has(Formulation::reduce_two_stage))
      if (StructureAttr split = chooseColumnSplit(kernel, legal, target))
        return split;
    return legal.front();
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel,
                                     TargetAttr target) override {
    if (isCooperativeRow(kernel.getStructureAttr()))
      return chooseRow(kernel);
    // A split kernel: the partial results' tuning, less the slice loop.
    if (kernel.getStructureAttr().isSplit()) {
      bool product = kernel.getStructureAttr().getFormulation() ==
                     Formulation::gemm_split_k;
      TuningAttr chosen;
      if (failed(withSplitCopy(kernel, [&](SplitKernels split) {
            FailureOr<TuningAttr> partial =
                product
                    ? chooseGemm(split.partial, target, /*splitPartial=*/true)
                    : chooseColumns(split.partial, target);
            if (succeeded(partial))
              chosen = splitTuning(*partial);
            return success(chosen != nullptr);
          })))
        return kernel.emitOpError("the expert found no tuning for the "
                                  "partial results of this split kernel: "
                                  "choose ")
               << (product ? "gemm_direct"
                           : "reduce_two_stage without a "
                             "split");
      return chosen;
    }
    if (kernel.getStructureAttr().getFormulation() ==
        Formulation::reduce_two_stage)
      return chooseColumns(kernel, target);
    // Widest accesses first (16 bytes per thread, principle 7); if the
    // kernel cannot take them, the same choice with scalar accesses.
    if (classifyKernel(kernel) == KernelClass::Contraction) {
      FailureOr<TuningAttr> gemm = chooseGemm(kernel, target);
      if (succeeded(gemm))
        return gemm;
    }
    if (kernel.getStructureAttr().getFormulation() ==
        Formulation::conv_implicit_gemm) {
      FailureOr<TuningAttr> gemm = chooseGemm(kernel, target);
      if (failed(gemm))
        return kernel.emitOpError("the expert found no implicit-GEMM tiling "
                                  "for this convolution (the M and N loops "
                                  "do not split into its tiles): choose "
                                  "conv_direct");
      return gemm;
    }
    if (classifyKernel(kernel) == KernelClass::Elementwise) {
      FailureOr<TuningAttr> staged = chooseStagedMap(kernel);
      if (succeeded(staged))
        return staged;
      int64_t vector = std::max<int64_t>(1, 128 / widestElementBits(kernel));
      ScopedDiagnosticHandler quiet(kernel.getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<TuningAttr> wide = choose(kernel, target, vector);
      if (succeeded(wide))
        return wide;
    }
    return choose(kernel, target, 1);
  }

private:
  /// Split-K (principle 9 of structure.md): a product whose 128 x 128
  /// output tiles (the tiles that run FMA and tensor cores at full rate;
  /// the whole product would take smaller, slower ones to reach the SMs)
  /// are fewer than the SMs runs as the fewest K slices (2, 4 or 8) that
  /// give every SM a tile, or 8. A slice must be long enough to pay for
  /// writing and summing its partial results (the sum is a launch of its
  /// own, 3.5-6 us on the H200): at least 512 on tensor cores, 256 on FMA
  /// with K at least 1024 (the slice's flops go 15x faster on tensor
  /// cores), or 128 where the partial products keep thread tiles of at
  /// most 4x4 (egg-tune, session 18: 512 x 256 x 1024 f32 at S = 8 0.0165
  /// ms against 0.0187 at S = 4; slices of 128 gave 500 x 1000 outputs
  /// 8x8 thread tiles at the register cap, which spilled). An M or N
  /// below 32 stays whole: its
  /// one partial 32-row tile with deep K steps already runs well. Null
  /// when no split applies. H200, session 18 (docs/benchmarks.md): 17
  /// products split and whole in the same process.
  StructureAttr chooseSplit(KernelOp kernel, ArrayRef<StructureAttr> legal,
                            TargetAttr target) {
    SmallVector<StructureAttr> splits;
    for (StructureAttr s : legal)
      if (s.getFormulation() == Formulation::gemm_split_k)
        splits.push_back(s);
    if (splits.empty())
      return {};
    auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
    std::string why;
    FailureOr<GemmLoops> gemm = analyzeGemmLoops(op, why);
    if (failed(gemm))
      return {};
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t k = GemmLoops::extent(gemm->kLoops, extents);

    auto tryStructure = [&](StructureAttr structure) {
      return tuningUnder(kernel, structure, target);
    };
    // Only products that run through shared memory: direct tiles have no
    // K loop worth splitting.
    TuningAttr direct = tryStructure(
        StructureAttr::get(kernel.getContext(), Formulation::gemm_direct, 1));
    if (!direct || direct.getShared().empty())
      return {};
    // Nor products whose whole K loop already runs in a deep TMA pipeline
    // over a wave of 128x128, 128x64 or 64x128 blocks (chooseWgmma; 128x256
    // TMA tiles over few blocks may still split).
    int64_t blockArea = 1;
    for (int64_t t : direct.getBlock())
      blockArea = mulSat(blockArea, std::max<int64_t>(t, 1));
    if (direct.getCopy() == CopyEngine::tma && blockArea < 128 * 256)
      return {};
    int64_t blocks = mulSat(
        batchCount(*gemm, extents),
        mulSat(
            llvm::divideCeil(GemmLoops::extent(gemm->mLoops, extents), 128),
            llvm::divideCeil(GemmLoops::extent(gemm->nLoops, extents), 128)));
    int64_t want = target.getSmCount();
    bool mma = isMmaGemm(direct);
    if (blocks >= want || (!mma && k < 1024) ||
        GemmLoops::extent(gemm->mLoops, extents) < 32 ||
        GemmLoops::extent(gemm->nLoops, extents) < 32)
      return {};
    int64_t minSlice = mma ? 512 : 128;
    llvm::sort(splits, [](StructureAttr a, StructureAttr b) {
      return a.getSplitK() < b.getSplitK();
    });
    StructureAttr choice;
    for (StructureAttr s : splits) {
      int64_t slice = k / s.getSplitK();
      if (slice < minSlice)
        break;
      // FMA slices below 256 only where the partial products keep thread
      // tiles of at most 4x4: 8x8 ones at the register cap spilled.
      if (!mma && slice < 256) {
        TuningAttr partial = tryStructure(s);
        int64_t perThread = 1;
        if (partial)
          for (int64_t t : partial.getThread())
            perThread = mulSat(perThread, std::max<int64_t>(t, 1));
        if (!partial || perThread > 16)
          break;
      }
      choice = s;
      if (mulSat(blocks, s.getSplitK()) >= want)
        break;
      // Partial products in a deep TMA pipeline (more than four stages:
      // only chooseWgmma's 128x64 tiles) already fill a wave with their
      // narrower tiles.
      if (TuningAttr partial = tryStructure(s);
          partial && partial.getCopy() == CopyEngine::tma &&
          partial.getPipeline() > 4)
        break;
    }
    // Only where the partial products have tiles.
    return choice && tryStructure(choice) ? choice : StructureAttr();
  }

  /// The expert's tuning for `kernel` under `structure`, or null; the
  /// kernel keeps its own structure.
  TuningAttr tuningUnder(KernelOp kernel, StructureAttr structure,
                         TargetAttr target) {
    StructureAttr before = kernel.getStructureAttr();
    kernel.setStructureAttr(structure);
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<TuningAttr> tuning = chooseTuning(kernel, target);
    if (before)
      kernel.setStructureAttr(before);
    else
      kernel.removeStructureAttr();
    return succeeded(tuning) ? *tuning : TuningAttr();
  }

  /// Column reductions split along their rows (principle 6 of
  /// structure.md): where the columns alone give fewer than 384 threads
  /// per SM (a block owns 32-128 columns), the fewest slices of the rows
  /// (2 to 64) whose partial reductions reach that, each slice keeping 16
  /// or more rows per thread so that its loads still stream. Null when the
  /// columns are enough or no split applies: a split costs a second launch
  /// and the partial results' round trip, 1-8% on 4096 columns (H200,
  /// session 26: 8192 x 4096 bf16 0.0207 ms whole, 0.0209-0.0227 split),
  /// and wins 5.8x on 256 (65536 x 256 f32: 0.1222 -> 0.0211 ms at 16
  /// slices).
  StructureAttr chooseColumnSplit(KernelOp kernel,
                                  ArrayRef<StructureAttr> legal,
                                  TargetAttr target) {
    SmallVector<StructureAttr> splits;
    for (StructureAttr s : legal)
      if (s.getFormulation() == Formulation::reduce_two_stage && s.isSplit())
        splits.push_back(s);
    if (splits.empty())
      return {};
    llvm::sort(splits, [](StructureAttr a, StructureAttr b) {
      return a.getSplitK() < b.getSplitK();
    });
    std::optional<unsigned> rowsLoop = columnReductionLoop(kernel);
    if (!rowsLoop)
      return {};
    // Sums, maxima and minima alike (egg-split-k combines the slices by the
    // body's own op; H200, session 27, 65536 x 256 f32 at 16 slices: max
    // 0.1242 -> 0.0208 ms, min 0.1242 -> 0.0208, sum 0.1261 -> 0.0208).
    auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t rows = extents[*rowsLoop];
    // Blocks per slice for each column tile: the outer parallel loops'.
    int64_t outer = 1;
    for (auto [d, extent] : llvm::enumerate(extents))
      if (d != *rowsLoop && d + 1 != extents.size())
        outer = mulSat(outer, extent);
    int64_t want = mulSat(target.getSmCount(), kColumnThreadsPerSm);
    // The threads of `tuning` over the kernel's S slices.
    auto threadsOf = [&](TuningAttr tuning, int64_t slices) {
      int64_t blocks = mulSat(mulSat(slices, outer),
                              extents.back() / tuning.getBlock().back());
      return mulSat(blocks, tuning.getNumThreads());
    };
    TuningAttr whole =
        tuningUnder(kernel,
                    StructureAttr::get(kernel.getContext(),
                                       Formulation::reduce_two_stage, 1),
                    target);
    if (!whole || threadsOf(whole, 1) >= want)
      return {};
    StructureAttr choice;
    for (StructureAttr s : splits) {
      TuningAttr partial = tuningUnder(kernel, s, target);
      if (!partial ||
          rows / s.getSplitK() < kMinRowsPerThread * partial.getThreads()[1])
        break;
      choice = s;
      if (threadsOf(partial, s.getSplitK()) >= want)
        break;
    }
    return choice;
  }

  /// Transposes (principle 11 of tuning.md): a map that reads an input
  /// across the loop its results run along stages that input through
  /// shared memory, so that both the loads and the stores are coalesced:
  /// 64x64 tiles (32x32 where 64 does not divide), 256 threads, rows padded
  /// so that reading a column of the tile touches 32 different banks (an
  /// odd number of 4-byte words; with 16-byte runs of 16-bit elements, an
  /// odd number of elements).
  FailureOr<TuningAttr> chooseStagedMap(KernelOp kernel) {
    SmallVector<int64_t> staged = transposedInputs(kernel);
    if (staged.empty())
      return failure();
    auto quiet = [&]() { return kernel.emitOpError(); };
    ScopedDiagnosticHandler silence(kernel.getContext(),
                                    [](Diagnostic &) { return success(); });
    FailureOr<RootLoops> loops = analyzeRootLoops(kernel, quiet);
    if (failed(loops))
      return failure();
    auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
    SmallVector<unsigned> across = stagedTileLoops(kernel, staged);
    int64_t bits = 64;
    for (int64_t k : staged)
      bits = std::min<int64_t>(
          bits, getElementTypeOrSelf(op->getOpOperand(k).get().getType())
                    .getIntOrFloatBitWidth());
    // 16-bit inputs move 2 bytes per scalar access: runs of 16 bytes
    // (principle 7) along the staged inputs' rows and the results' rows.
    // Rows padded by an odd number of 16-bit elements then keep stage 2's
    // reads across the runs free of bank conflicts (a 32-lane model of the
    // 64x64 tile: padding 1 or 3 conflict-free, 2 two-way).
    int64_t widest = 8;
    for (OpOperand &operand : op->getOpOperands())
      if (Type element = getElementTypeOrSelf(operand.get().getType());
          element.isIntOrFloat())
        widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth());
    SmallVector<int64_t, 2> vectors = {1};
    if (bits < 32 && widest <= 64)
      vectors.insert(vectors.begin(), 128 / widest);
    for (int64_t vector : vectors) {
      int64_t padding = vector > 1 ? 1 : std::max<int64_t>(1, 32 / bits);
      for (int64_t t : {64, 32}) {
        SmallVector<int64_t> block;
        for (unsigned pos : loops->parallelPositions)
          block.push_back(llvm::is_contained(across, pos) ? t : 1);
        TuningAttr tuning = TuningAttr::getChecked(
            function_ref<InFlightDiagnostic()>(quiet), kernel.getContext(),
            ArrayRef<int64_t>{256}, ArrayRef<int64_t>(block),
            ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
            ArrayRef<int64_t>(staged), ArrayRef<int64_t>{}, padding,
            Swizzle::none, vector, CopyEngine::sync, int64_t(1),
            /*cluster=*/int64_t(1),
            /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
        if (tuning && succeeded(checkLowerable(kernel, tuning, quiet)))
          return tuning;
      }
    }
    return failure();
  }

  /// Products through shared memory: warpgroup MMA where it applies, else
  /// mma.sync or FMA tiles. Failure when no tiling is legal. `splitPartial`:
  /// the partial products of a split product.
  FailureOr<TuningAttr> chooseGemm(KernelOp kernel, TargetAttr target,
                                   bool splitPartial = false) {
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<TuningAttr> wgmma = chooseWgmma(kernel, target, splitPartial);
    if (succeeded(wgmma))
      return wgmma;
    return chooseSharedGemm(kernel, target, splitPartial);
  }

  /// Hopper's warpgroup MMA (principle 9 of tuning.md) for f16/bf16
  /// products on sm_90a large enough to give three quarters of the SMs a
  /// block with the largest tile that allows it: 128x256 tiles (two
  /// warpgroups of 128x128), else 128x128 or 64x128; K steps of 128 bytes
  /// (64 16-bit elements) in the 128-byte swizzled layout, as many stages
  /// as fit (4, else 3), but 128x128 tiles at 3 where two blocks can share
  /// an SM (short K; see twoPerSm); TMA copies for 128x256 tiles of 16-bit
  /// products with K (a split product's: K per slice) of 1024 or more,
  /// cp.async otherwise; where K >= 2048 and the wide tiles are too few,
  /// a whole K loop per block in a deep TMA pipeline over one wave of
  /// 128x128, 64x128 or 128x64 tiles (longK below). f32 products
  /// too where the module allows TF32 and both tiles are K-major. Smaller
  /// products keep mma.sync, whose smaller tiles reach more SMs (f32 ones FMA
  /// tiles: mma.sync's TF32 form is not implemented).
  FailureOr<TuningAttr> chooseWgmma(KernelOp kernel, TargetAttr target,
                                    bool splitPartial) {
    if (target.getSmVersion() != 90 || !target.hasArchSpecificFeatures())
      return failure();
    std::string why;
    Operation *anchor = kernel.getAnchorOp();
    FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
    if (failed(gemm))
      return failure();
    auto op = cast<linalg::LinalgOp>(anchor);
    Type element = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
    // f32 only where the user allowed TF32 (checkLowerable also wants its
    // tiles K-major).
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    if (bytes != 2 && !(element.isF32() && allowsTf32(kernel)))
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
    // beside the other's main loop, which pays where K is short; 128x256
    // tiles (one block per SM) keep the higher rate of long main loops.
    // H200, session 21, 16-bit plain products, 128x256 at 4 stages against
    // 128x128 at 3 (cuBLAS): 16 x 1024^3 0.0599 -> 0.0543 ms (0.0557),
    // 4096 x 4096 x 1024 0.0583 -> 0.0520 (0.0556), 32 x 1024 x 1024 x 128
    // 0.0397 -> 0.0350 (0.0442), 2048^3 (128 tiles of 128x256 for 132 SMs)
    // 0.0277 -> 0.0254 (0.0269); level at 4096 x 2048 x 2048; slower at
    // 4096^3 (0.1845 -> 0.1969), 8192^3 (1.489 -> 1.638), with partial N
    // tiles (4096 x 1000 x 4096) and with a partial K step (2048 x 2048 x
    // 1000: 146 registers, one block per SM, 0.0172 -> 0.0274). Two blocks
    // need at most 128 registers per thread.
    int64_t wideBlocks = mulSat(batches, llvm::divideCeil(extentM, 128) *
                                             llvm::divideCeil(extentN, 256));
    // Plain products only: a split product's partial products (f32
    // results into the workspace) took 130 registers at 128x128, which
    // leaves one block per SM.
    bool twoPerSm = bytes == 2 && !splitPartial &&
                    kernel.getStructureAttr().getFormulation() ==
                        Formulation::gemm_direct &&
                    extentM % 128 == 0 && extentN % 128 == 0 &&
                    extentK % 64 == 0 &&
                    (extentK <= 1024 ||
                     (extentK <= 2048 && wideBlocks < target.getSmCount()));
    // Long K over few output tiles (session 28): a whole K loop per block
    // fed by TMA through a deep pipeline beats splitting K, where one wave
    // of such blocks fills the SMs: 128x128 tiles at four stages, else
    // 128x64 tiles (two 64x64 warpgroups; cuBLAS's choice for 1024 x 1024 x
    // 8192) at eight (six with partial tiles), whole tiles as 64x128 (one
    // 64x128 warpgroup; below). H200, same process, against
    // the split products they replace (cuBLAS): 1024 x 1024 x K bf16, K =
    // 2048 0.0184 -> 0.0115 ms (0.0116), 4096 0.0241 -> 0.0180 (0.0168),
    // 8192 0.0341 -> 0.0310 (0.0273); 1000 x 1000 x 4096 f16 0.0249 ->
    // 0.0228 (0.0194); 128x128: 2048 x 1024 x 4096 0.0344 -> 0.0262
    // (0.0272), 1024 x 2048 x 8192 0.0545 -> 0.0470 (0.0471); a split
    // product's partial products too, 512 x 1024 x 8192 at S = 2 0.0251
    // (S = 8) -> 0.0212 (0.0191). Stages: six or seven 128x128 stages and
    // 128x64 ones at four, six or seven ran slower on whole tiles. Whole
    // tiles of a plain product (session 29, same process, cuBLAS): one
    // 64x128 warpgroup per block instead of two 64x64 ones, 1024 x 1024 x
    // 8192 0.0310 -> 0.0297 ms (0.0271), x 4096 0.0180 -> 0.0175 (0.0168);
    // at six stages slower (0.0329, 0.0189), with partial tiles (1000 x 1000
    // x 4096: 0.0227 -> 0.0331) much slower; level for a split product's
    // partial products (512 x 1024 x 8192 at S = 2: 0.0212 either way).
    bool longK = bytes == 2 && extentK >= 2048;
    SmallVector<Tile> tiles = {wide, square, narrow};
    if (twoPerSm)
      tiles = {square, wide, narrow};
    if (longK) {
      tiles.insert(tiles.end() - 1, deep);
      if (!splitPartial && extentM % 64 == 0 && extentN % 128 == 0)
        tiles.insert(tiles.end() - 2, deepNarrow);
    }
    // Whole tiles first; where none fits, partial last tiles (an M or N of
    // 1000 that no tile of 64 divides; docs/pipeline.md, "Partial tiles").
    // (An N of 1000 could also take whole 128 x 200 tiles, m64n200k16 in
    // one warpgroup per 64 rows, but on the H200 the classifier head 4096
    // x 1000 x 4096 bf16 took 0.0855 ms so, against 0.0488 with partial
    // 128 x 256 tiles; cuBLAS 0.0477.)
    for (bool partial : {false, true})
      for (const Tile &t : tiles) {
        std::optional<GemmTiles> tile =
            gemmTiles(*gemm, extents, t.bm, t.bn, t.wm, t.wn, partial);
        if (!tile || (partial && extentM % t.bm == 0 && extentN % t.bn == 0))
          continue;
        int64_t blocks = mulSat(batches, llvm::divideCeil(extentM, t.bm) *
                                             llvm::divideCeil(extentN, t.bn));
        if (blocks * 4 < target.getSmCount() * 3)
          continue;
        bool deepTile = t.wholeK;
        bool wholeTiles = extentM % t.bm == 0 && extentN % t.bn == 0;
        // The deep pipelines: one wave of blocks (TMA's producer warpgroup
        // leaves one block per SM), whole K steps (64 divides K), no tile
        // larger than its loop (an M of 64 keeps the split). Square tiles
        // and 64x128 ones were timed whole only; 128x64 ones also with
        // partial edges.
        bool oneWave = blocks <= target.getSmCount() && extentK % 64 == 0 &&
                       extentM >= t.bm && extentN >= t.bn;
        bool squareTma = longK && oneWave && wholeTiles && !twoPerSm &&
                         !splitPartial && t.bm == square.bm &&
                         t.bn == square.bn;
        if (deepTile && !oneWave)
          continue;
        ArrayRef<int64_t> block = tile->block, warp = tile->inner;
        // 128x128 tiles at three stages leave room for a second block per
        // SM (implicit-GEMM convolutions too, session 21: the 3x3 f16
        // convolutions' products 12-15% faster than at four stages).
        SmallVector<int64_t, 2> stageChoices = {4, 3};
        if (t.bm == 128 && t.bn == 128 && !splitPartial)
          stageChoices = {3, 4};
        // 128x256 tiles over a long K take their copies from TMA (a
        // producer warpgroup; 2-D products and split products' partial
        // products, checkLowerable falls back to cp.async for the rest).
        // H200, session 27, partial products at S = 4 / 2 (cuBLAS): 1024
        // x 1024 x 8192 bf16 0.0353 -> 0.0342 ms (0.0283), 1024 x 2048 x
        // 8192 0.0583 -> 0.0552 (0.0474). Session 26, normal(0,1)
        // inputs, cp.async -> TMA at four stages (cuBLAS): 4096^3 bf16
        // 0.2031 -> 0.1884 ms (0.1891), 8192^3 1.842 -> 1.707 (1.606),
        // 2048 x 2048 x 8192 0.1012 -> 0.0892 (0.0898), 4096 x 4096 x 2048
        // 0.1099 -> 0.1013 (0.1005); session 25 (zero-filled inputs) also
        // 6144^3 f16 0.625 -> 0.582, 4096 x 2048 x 2048 with a residual
        // epilogue 0.0611 -> 0.0573, level (within 1.5%) for the 4096 x
        // 2048 x 2048 linear layers and 4096 x 1000 x 4096; slower at K =
        // 256 (TF32 1024 x 4096 x 256, session 20: 0.0150 -> 0.0156).
        // TF32 keeps cp.async: no long-K TF32 product has been timed.
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
            TuningAttr tuning = TuningAttr::getChecked(
                function_ref<InFlightDiagnostic()>(emitError),
                kernel.getContext(),
                ArrayRef<int64_t>{128, t.bn / t.wn, t.bm / t.wm},
                ArrayRef<int64_t>(block), ArrayRef<int64_t>(warp),
                ArrayRef<int64_t>{}, ArrayRef<int64_t>{128 / bytes},
                ArrayRef<int64_t>{0, 1}, ArrayRef<int64_t>{}, int64_t(0),
                Swizzle::xor128, int64_t(16 / bytes), engine, stages,
                /*cluster=*/int64_t(1),
                /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
            if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
              return tuning;
          }
      }
    return failure();
  }

  /// Matrix products through shared memory (principle 9 of tuning.md): the
  /// largest output tile that still gives every SM a block; f16/bf16 on
  /// tensor cores (four warps, each half the tile along M and N), else 256
  /// threads with a register tile each; K steps of 16 (32-bit) or 32
  /// (16-bit) elements, 16-byte copies, and cp.async with three stages in
  /// flight where the layouts allow it.
  FailureOr<TuningAttr> chooseSharedGemm(KernelOp kernel, TargetAttr target,
                                         bool splitPartial) {
    std::string why;
    Operation *anchor = kernel.getAnchorOp();
    FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
    if (failed(gemm))
      return failure();
    auto op = cast<linalg::LinalgOp>(anchor);
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t bits =
        std::max(getElementTypeOrSelf(op.getDpsInputOperand(0)->get())
                     .getIntOrFloatBitWidth(),
                 getElementTypeOrSelf(op.getDpsInputOperand(1)->get())
                     .getIntOrFloatBitWidth());
    int64_t bk = bits <= 16 ? 32 : 16;
    int64_t padding = 128 / bits;
    Type lhsType =
        getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get());
    Type rhsType =
        getElementTypeOrSelf(op.getDpsInputOperand(gemm->rhs)->get());
    int64_t batches = batchCount(*gemm, extents);
    auto emitError = [&]() { return kernel.emitOpError(); };
    // Whether an operand is contiguous along its M/N loop in global memory
    // (FMA tiles store it that way, so it is copied in whole vectors).
    auto alongMN = [&](unsigned which, unsigned mn) {
      std::optional<unsigned> fast = contiguousLoop(
          op.getMatchingIndexingMap(op.getDpsInputOperand(which)));
      return fast && *fast == mn;
    };
    bool lhsAlongMN = alongMN(gemm->lhs, gemm->innerM());
    bool rhsAlongMN = alongMN(gemm->rhs, gemm->innerN());
    // FMA tiles (f32) chosen by session 22's rules below; not yet a split
    // product's partial products, whose slices session 18 measured under
    // the rules before.
    bool fma = bits > 16 && !splitPartial;
    bool convolution = classifyKernel(kernel) == KernelClass::Convolution;
    // (FMA tiles take 64x128 before 128x64: 3000 x 1000 x 1024 f32, 0.153
    // against 0.159 ms on the H200.)
    SmallVector<std::pair<int64_t, int64_t>> tiles = {
        {128, 128}, {128, 64}, {64, 128}, {64, 64},
        {64, 32},   {32, 64},  {32, 32}};
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
      for (auto [bm, bn] : tiles) {
        std::optional<SmallVector<int64_t>> blockTile =
            gemmTileList(*gemm, extents, bm, bn, partial);
        if (!blockTile || (partial && extentM % bm == 0 && extentN % bn == 0))
          continue;
        int64_t blocks = mulSat(batches, llvm::divideCeil(extentM, bm) *
                                             llvm::divideCeil(extentN, bn));
        // Larger tiles first; a smaller one only for more blocks while the
        // larger leaves SMs idle. FMA tiles (f32) of 64x64 and more: a
        // smaller one only where it lowers the busiest SM's work (its share
        // of the blocks times the tile, weighted by the shared-memory reads
        // per FMA of the thread tile, 1 + 1/tm + 1/tn), since one block of
        // 128 or 256 such threads keeps an SM's FMA pipes busy; and SMs
        // count as idle below 7/8 of them. H200, session 22: 3000 x 1000 x
        // 1024 took 0.190 ms in 192 tiles of 128x128 (two on some SMs),
        // 0.153 in 376 of 64x128 (at most three); a stride-2 convolution's
        // 128 tiles of 128x128 beat 256 of 128x64 (0.0735 against 0.0785
        // ms).
        int64_t tm = std::max<int64_t>(bm / 16, 4),
                tn = std::max<int64_t>(bn / 16, 4);
        // Halves of 128x128 keep its 8x8 per thread (128 threads): 3000 x
        // 1000 x 1024 took 0.153 ms in 64x128 tiles of 8x8, 0.177 in 128x64
        // ones of 8x4 (256 threads).
        if (fma && bm * bn == 128 * 64)
          tm = tn = 8;
        int64_t load = mulSat(llvm::divideCeil(blocks, target.getSmCount()),
                              bm * bn * (tm * tn + tm + tn) / (tm * tn));
        int64_t busy = fma && bestSide >= 64 ? target.getSmCount() * 7 / 8
                                             : target.getSmCount();
        if (succeeded(best) &&
            (fma && bestSide >= 64 && std::min(bm, bn) >= 64
                 ? load >= bestLoad
                 : bestBlocks >= busy || blocks <= bestBlocks))
          continue;
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
        struct Mapping {
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
        // (three took 0.165 against 0.153 ms for 3000 x 1000 x 1024 in
        // 64x128 tiles, session 22).
        SmallVector<Copy> fmaCopies(std::begin(copies), std::end(copies));
        if (fma && tm * tn >= 64)
          fmaCopies.erase(fmaCopies.begin());
        // A plain product's 128x128 FMA tiles with an operand copied in
        // 16-byte pieces along M/N (B row-major, or A column-major): 32-deep
        // K steps loaded a step ahead, half the barriers per FMA, in 68 KB
        // of dynamic shared memory (H200, session 34: bmm_f32 0.1958 ->
        // 0.1833 ms, 2048^3 and 4096^3 products -5 to -6% whichever operand
        // it is; 64x128 tiles of 3000 x 1000 x 1024 2% slower; with both
        // operands transposed element by element, session 33: linear_relu_f32
        // and matmul_bt_f32 3% slower, linear_odd_relu_f32 12%, conv3x3_f32
        // 11%).
        if (fma && !convolution && bm == 128 && bn == 128 &&
            (lhsAlongMN || rhsAlongMN) && extentK % 32 == 0)
          fmaCopies.insert(fmaCopies.begin(),
                           Copy{CopyEngine::cp_async, 2, 32, true});
        const Mapping mappings[] = {
            {{32, bn / wn, bm / wm}, warp, {}, tensorCopies},
            {{bn / tn, bm / tm}, {}, thread, fmaCopies}};
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
                                rhsType, false, false) > kStaticSharedLimit)
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
              TuningAttr tuning = TuningAttr::getChecked(
                  function_ref<InFlightDiagnostic()>(emitError),
                  kernel.getContext(), ArrayRef<int64_t>(mapping.threads),
                  ArrayRef<int64_t>(block), mapping.warp, mapping.thread,
                  ArrayRef<int64_t>{copy.bk}, ArrayRef<int64_t>{0, 1},
                  ArrayRef<int64_t>{}, padding, Swizzle::none, v, copy.engine,
                  copy.stages, /*cluster=*/int64_t(1),
                  /*rowShared=*/int64_t(0), /*fragmentsAhead=*/ahead);
              if (tuning &&
                  succeeded(checkLowerable(kernel, tuning, emitError)))
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
    return best;
  }

  /// Column reductions (principle 10 of tuning.md): 16-byte loads, 32
  /// threads along the columns (a warp reads 512 contiguous bytes of a row)
  /// and 16 rows in flight; fewer threads along the columns while that
  /// leaves fewer than two blocks per SM, down to 8; then more rows in
  /// flight up to 512 threads.
  FailureOr<TuningAttr> chooseColumns(KernelOp kernel, TargetAttr target) {
    auto emitError = [&]() { return kernel.emitOpError(); };
    auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    std::optional<unsigned> reduced = columnReductionLoop(kernel);
    if (!reduced)
      return failure();
    int64_t last = extents.back(), outer = 1;
    for (unsigned d = 0; d + 1 < extents.size(); ++d)
      if (d != *reduced)
        outer = mulSat(outer, extents[d]);
    int64_t v = std::max<int64_t>(1, 128 / widestElementBits(kernel));
    while (v > 1 && last % v != 0)
      v /= 2;
    int64_t tx = 32;
    while (tx > 1 && (last % (tx * v) != 0 || tx * v > last))
      tx /= 2;
    while (tx > 8 && mulSat(outer, last / (tx * v)) < 2 * target.getSmCount())
      tx /= 2;
    int64_t rows = 1;
    while (tx * rows * 2 <= 512 && rows * 2 <= extents[*reduced])
      rows *= 2;
    SmallVector<int64_t> block(extents.size() - 1, 1);
    block.back() = tx * v;
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>{tx, rows}, ArrayRef<int64_t>(block),
        ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
        ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, int64_t(0), Swizzle::none, v,
        CopyEngine::sync, int64_t(1), /*cluster=*/int64_t(1),
        /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
    if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
      return failure();
    return tuning;
  }

  /// Rows shared by lanes: 16-byte accesses (principle 7), four rows (warps)
  /// per block, or for a block per row about four vectors per thread.
  FailureOr<TuningAttr> chooseRow(KernelOp kernel) {
    auto emitError = [&]() { return kernel.emitOpError(); };
    FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
    std::optional<int64_t> row = cooperativeRowLength(kernel);
    if (failed(loops) || !row)
      return failure();
    bool perWarp = kernel.getStructureAttr().getFormulation() ==
                   Formulation::reduce_row_per_warp;
    int64_t vector = std::max<int64_t>(1, 128 / narrowestElementBits(kernel));
    while (vector > 1 && *row % vector != 0)
      vector /= 2;
    // Rows shorter than a warp's worth of vectors share a warp: 32 / G
    // lanes per row with about two vectors each (the fewest lanes that
    // cover the row in two steps), G rows per warp (gpu.subgroup_reduce
    // over clusters of lanes). egg-tune on the H200, 20-element f32
    // softmax: 8 rows per warp 0.0278 ms, 4 (one vector per lane) 0.0376,
    // a warp per row with scalar lanes 0.0687.
    int64_t rowsPerWarp = 1;
    if (perWarp && *row < 32 * vector)
      while (rowsPerWarp < 32 && *row <= (32 / rowsPerWarp) * vector)
        rowsPerWarp *= 2;

    size_t numParallel = loops->parallelPositions.size();
    SmallVector<int64_t> block(numParallel, 0), warp;
    std::optional<size_t> inner;
    for (size_t p = 0; p < numParallel; ++p) {
      if (loops->reducedByProducer[loops->parallelPositions[p]])
        continue;
      block[p] = 1;
      inner = p;
    }
    if (!inner)
      return kernel.emitOpError("has no loop to spread rows over");
    int64_t threads;
    if (perWarp) {
      int64_t extent = loops->extents[loops->parallelPositions[*inner]];
      // Whole warps of rows: halve G until it divides the rows to spread.
      while (extent % rowsPerWarp != 0)
        rowsPerWarp /= 2;
      // Short rows: narrower accesses until the lanes' steps cover the row
      // whole. A partial last step leaves lanes idle and keeps the rows out
      // of registers (H200, session 21: 20-element f32 softmax at 8 rows
      // per warp, 16-byte steps 0.0255 ms, 4-byte steps 0.0220; a copy of
      // its bytes 0.0212). Where no narrower access gets there, the vector
      // stays.
      if (rowsPerWarp > 1)
        for (int64_t v = vector; v >= 1; v /= 2)
          if (*row % ((32 / rowsPerWarp) * v) == 0) {
            vector = v;
            break;
          }
      // Four warps per block; eight when rows are short (more loads in
      // flight per SM for the same number of resident blocks).
      int64_t warps =
          largestDivisorAtMost(extent / rowsPerWarp, *row < 256 ? 8 : 4);
      block[*inner] = warps * rowsPerWarp;
      threads = 32 * warps;
      warp = llvm::map_to_vector(
          block, [](int64_t b) -> int64_t { return b > 0 ? 1 : 0; });
      warp[*inner] = rowsPerWarp;
    } else {
      // About four vectors per thread, which egg-distribute-rows holds in
      // registers between the passes (64 bytes of its 128-byte budget).
      // egg-tune on the H200, session 11, rows held: 256 threads for rows
      // of 4096 f32 (layer norm + GELU 0.0389 ms against 0.0423 with 512
      // threads at 38 registers; softmax, norms within 2%), 64 for 2048
      // f16.
      threads = 32;
      while (threads < 1024 && threads * vector * 4 < *row)
        threads *= 2;
      // A plain reduction of a long row holds nothing between passes: at
      // least 256 threads (session 19: matvec_bf16, rows of 4096 bf16,
      // 0.0193 ms with 128 threads, 0.0188 with 256; 512 threads for rows
      // of 8192 f32 by the rule above, the fastest of 128-1024 at 256 MB).
      bool plain = !llvm::is_contained(loops->reducedByProducer, true);
      if (plain && *row >= 4096)
        threads = std::max<int64_t>(threads, 256);
    }
    // A row held across passes that takes more than a quarter of the SM's
    // registers (a group norm's 128 KB) leaves one block per SM, whose
    // read, reduce and write phases then run in turn: all but 32 bytes per
    // thread of it go to shared memory, so that two blocks share each SM
    // (principle 8 of tuning.md; H200, session 30, bench/ceilings/
    // group_norm.cu, 256 groups of 128 KB: 6 of 8 steps in shared memory
    // 0.0180 ms, 5 0.0188, 4 0.0189, all in registers 0.0200, a copy of
    // the bytes 0.0182).
    int64_t rowShared = 0;
    int64_t held = heldRowElementBytes(kernel);
    TargetAttr target = lookupTarget(kernel);
    if (!perWarp && target && *row % (threads * vector) == 0 &&
        holdsRow(kernel, threads) &&
        // Over a quarter of the register file in bytes (4-byte registers).
        mulSat(*row, held) > target.getRegistersPerBlock() &&
        2 * threads <= 2048) {
      int64_t steps = *row / (threads * vector);
      rowShared = steps - std::max<int64_t>(1, 32 / (vector * held));
    }
    auto build = [&](int64_t shared) {
      TuningAttr tuning = TuningAttr::getChecked(
          function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
          ArrayRef<int64_t>{threads}, ArrayRef<int64_t>(block),
          ArrayRef<int64_t>(warp), ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
          ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, int64_t(0), Swizzle::none,
          vector, CopyEngine::sync, int64_t(1), /*cluster=*/int64_t(1),
          /*rowShared=*/shared, /*fragmentsAhead=*/int64_t(0));
      if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
        return TuningAttr();
      return tuning;
    };
    if (rowShared > 0) {
      ScopedDiagnosticHandler silence(kernel.getContext(),
                                      [](Diagnostic &) { return success(); });
      if (TuningAttr tuning = build(rowShared))
        return tuning;
    }
    if (TuningAttr tuning = build(0))
      return tuning;
    return failure();
  }

  FailureOr<TuningAttr> choose(KernelOp kernel, TargetAttr target,
                               int64_t vector) {
    auto emitError = [&]() { return kernel.emitOpError(); };
    FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
    if (failed(loops))
      return failure();
    KernelClass kind = classifyKernel(kernel);
    size_t numParallel = loops->parallelPositions.size();
    SmallVector<int64_t> block(numParallel, 0), thread(numParallel, 0);
    SmallVector<int64_t> extents =
        llvm::map_to_vector(loops->parallelPositions,
                            [&](unsigned pos) { return loops->extents[pos]; });
    auto locked = [&](size_t p) {
      return loops->reducedByProducer[loops->parallelPositions[p]];
    };

    // Tiled loops, innermost first, at most three (a grid has 3 dims). A
    // loop of at most 4 (a filter's window) other than the innermost gives
    // its place to a longer outer loop, which would otherwise run serially
    // in every thread: an FCHW weight transposed to FHWC (128 x 64 x 3 x 3)
    // took 6 blocks of 96 threads, each walking all 128 filters (0.055 ms
    // on the H200, twice its convolution).
    SmallVector<size_t> tiled, rest;
    for (size_t p = numParallel; p-- > 0;)
      if (!locked(p))
        (tiled.size() < 3 ? tiled : rest).push_back(p);
    for (size_t q : rest) {
      if (extents[q] <= 4)
        continue;
      auto shortLoop = llvm::find_if(llvm::drop_begin(tiled),
                                     [&](size_t p) { return extents[p] <= 4; });
      if (shortLoop == tiled.end())
        break;
      *shortLoop = q;
      llvm::sort(tiled, std::greater<size_t>());
    }
    if (vector > 1 && (tiled.empty() || tiled.front() != numParallel - 1 ||
                       extents.back() % vector != 0))
      return failure();

    if (kind == KernelClass::Contraction && tiled.size() >= 2) {
      // Output tile per block, a small register tile per thread: each
      // operand element loaded feeds several FMAs.
      // 4x2 per thread (2 along the innermost loop): principle 4.
      for (auto [i, p] : llvm::enumerate(tiled)) {
        int64_t want = i < 2 ? 64 : 1;
        block[p] = largestDivisorAtMost(extents[p], want);
        thread[p] = i < 2 ? largestDivisorAtMost(block[p], i == 0 ? 2 : 4) : 1;
      }
    } else {
      // One element (or `vector` consecutive elements, or one row) per
      // thread; 256 threads for maps, 128 rows for row-wise kernels whose
      // threads each walk a row.
      bool rowWise = kind == KernelClass::Reduction ||
                     kind == KernelClass::Normalization ||
                     kind == KernelClass::Softmax;
      // Scalar maps take 512 threads, at most 256 along the innermost loop:
      // more loads in flight, and a 2-D patch that reuses the sectors of an
      // operand read across the innermost loop (principle 3).
      int64_t budget = rowWise ? 128 : vector > 1 ? 256 : 512;
      for (auto [i, p] : llvm::enumerate(tiled)) {
        int64_t width = i == 0 ? vector : 1;
        int64_t cap =
            i == 0 && !rowWise ? std::min<int64_t>(budget, 256) : budget;
        int64_t threadsHere = largestDivisorAtMost(extents[p] / width, cap);
        block[p] = threadsHere * width;
        thread[p] = width;
        budget = std::max<int64_t>(1, budget / threadsHere);
      }
    }

    // Vector accesses need a thread tile of 1 on every outer loop: the
    // loops of a 4-D channels-last pad beyond the three tiled ones take
    // block and thread tiles of 1; the lowering leaves whole tiles untiled
    // so that the grid stays 3-D (checkLowerable says when it cannot).
    // Other maps of four loops keep scalar accesses (checkLowerable).
    if (vector > 1 && isa_and_nonnull<tensor::PadOp>(kernel.getRootOp()))
      for (size_t p = 0; p < numParallel; ++p)
        if (!locked(p) && !block[p]) {
          block[p] = 1;
          thread[p] = 1;
        }

    // At least two blocks per SM when the problem allows: shrink the
    // innermost block tile while it keeps 32 elements (a warp of threads
    // when each thread takes one, or one vector each).
    if (!tiled.empty()) {
      size_t inner = tiled.front();
      auto numBlocks = [&]() {
        int64_t n = 1;
        for (size_t p = 0; p < numParallel; ++p)
          if (block[p])
            n = mulSat(n, extents[p] / block[p]);
        return n;
      };
      while (numBlocks() < 2 * target.getSmCount() && block[inner] % 2 == 0 &&
             block[inner] / 2 >= 32 * vector &&
             block[inner] / 2 >= thread[inner] &&
             (block[inner] / 2) % thread[inner] == 0)
        block[inner] /= 2;
    }

    // At most the target's threads per block: tiles of odd extents may
    // take many threads (a 129 x 500 product: 43 x 25 = 1075). A loop
    // whose block tile allows it, those with the most threads first, gives
    // each thread a larger tile (a divisor of the block tile, up to 8);
    // where none does, the loop with the most threads takes its next
    // smaller block tile.
    auto threadsAlong = [&](size_t p) { return block[p] / thread[p]; };
    auto threadCount = [&]() {
      int64_t n = 1;
      for (size_t p : tiled)
        n = mulSat(n, threadsAlong(p));
      return n;
    };
    while (threadCount() > target.getMaxThreadsPerBlock()) {
      SmallVector<size_t> order(tiled);
      llvm::stable_sort(order, [&](size_t x, size_t y) {
        return threadsAlong(x) > threadsAlong(y);
      });
      bool widened = false;
      for (size_t p : order) {
        if (p == tiled.front() && vector > 1)
          continue; // Its thread tile is the vector.
        int64_t t = thread[p] + 1;
        while (t <= 8 && block[p] % t != 0)
          ++t;
        if (t <= 8) {
          thread[p] = t;
          widened = true;
          break;
        }
      }
      if (widened)
        continue;
      size_t most = order.front();
      if (block[most] == 1)
        break;
      block[most] = largestDivisorAtMost(extents[most], block[most] - 1);
      thread[most] = largestDivisorAtMost(block[most], thread[most]);
    }

    SmallVector<int64_t> threads = impliedThreads(*loops, block, thread);
    while (threads.size() > 1 && threads.back() == 1)
      threads.pop_back();
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>(threads), ArrayRef<int64_t>(block),
        ArrayRef<int64_t>{}, ArrayRef<int64_t>(thread), ArrayRef<int64_t>{},
        ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, int64_t(0), Swizzle::none,
        vector, CopyEngine::sync, int64_t(1), /*cluster=*/int64_t(1),
        /*rowShared=*/int64_t(0), /*fragmentsAhead=*/int64_t(0));
    if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
      return failure();
    return tuning;
  }
};
} // namespace

std::unique_ptr<Agent> mlir::egg::createExpertAgent() {
  return std::make_unique<ExpertAgent>();
}
