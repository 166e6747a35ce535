//===- LowerSharedGemmLegality.cpp - GEMMs through shared memory: legality ===//

#include "LegalityChecks.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Profiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::egg;

/// Tensor cores (mma.sync m16n8k16) take f16 or bf16 matrices and
/// accumulate in f32: the product's body must be exactly that
/// multiply-accumulate (inputs widened with extf), nothing else. Warpgroup
/// MMA also takes f32 matrices: read as TF32 (10-bit mantissas) where the
/// module allows it (`egg.allow_tf32`), never silently; or split into
/// three TF32 products (`tf32_terms = 3`), whose error is f32's order.
static LogicalResult
checkMmaProduct(linalg::LinalgOp op, bool wgmma, int64_t tf32Terms,
                function_ref<InFlightDiagnostic()> emitError) {
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  bool f32 = a == b && a.isF32() && c.isF32();
  if (tf32Terms != 1 && !(f32 && wgmma))
    return emitError() << "tf32_terms = " << tf32Terms
                       << " splits the f32 matrices of warpgroup MMA "
                          "(mma = wgmma); this product is "
                       << a << " x " << b << " -> " << c
                       << (wgmma ? "" : " on no warpgroup MMA");
  if (f32 && wgmma) {
    if (tf32Terms == 1 && !allowsTf32(op))
      return emitError() << "f32 products reach tensor cores only as TF32 "
                            "(10-bit mantissas), which the user must allow: "
                            "egg.allow_tf32 on the module (pipeline option "
                            "allow-tf32), or split into three TF32 products "
                            "(tf32_terms = 3)";
  } else if (a != b || !(a.isF16() || a.isBF16()) || !c.isF32()) {
    return emitError()
           << "tensor cores (mma = mma_sync or wgmma) take f16 or bf16 "
              "matrices of one type accumulated in f32"
           << (wgmma ? " (or f32 as TF32, where allowed)" : "") << ", not " << a
           << " x " << b << " -> " << c;
  }
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(inner))
      return emitError() << "tensor cores compute a plain multiply-add; the "
                            "product's body has '"
                         << inner.getName() << "'";
  return success();
}

/// The 2-D tensor whose tensor map TMA reads operand `operand` of a product
/// through. A 2-D operand is its own. A batched one qualifies where it is a
/// tensor.expand_shape of a 2-D tensor that pairs each batch loop with the
/// loop inside it (a split product's partial products read A as [M, S,
/// K/S] and B as [S, K/S, N]): the lowering then numbers that pair's
/// positions as the source's, which is exact as long as no box runs from
/// one batch into the next, i.e. the tiles of the inner loops (`tileOf`)
/// divide them.
static FailureOr<ShapedType>
tmaSource(const GemmLoops &gemm, OpOperand *operand, ArrayRef<int64_t> extents,
          ArrayRef<int64_t> tileOf,
          function_ref<InFlightDiagnostic()> emitError) {
  auto type = cast<ShapedType>(operand->get().getType());
  auto refuse = [&]() {
    return emitError() << "copy = tma: input " << operand->getOperandNumber()
                       << " is neither 2-D nor the reshape of a 2-D tensor "
                          "that pairs each batch loop with the loop inside "
                          "it, whose tile divides it";
  };
  AffineMap map = cast<linalg::LinalgOp>(operand->getOwner())
                      .getMatchingIndexingMap(operand);
  auto loopAt = [&](int64_t dim) -> std::optional<unsigned> {
    if (auto d = dyn_cast<AffineDimExpr>(map.getResult(dim)))
      return d.getPosition();
    return std::nullopt;
  };
  SmallVector<ReassociationIndices> groups;
  ShapedType source = type;
  auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (expand && expand.getSrcType().getRank() == 2 && type.getRank() > 2) {
    groups = expand.getReassociationIndices();
    source = expand.getSrcType();
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      groups.push_back({d});
  }
  if (source.getRank() != 2)
    return refuse();
  auto isBatch = [&](unsigned d) { return llvm::is_contained(gemm.batch, d); };
  for (const ReassociationIndices &group : groups) {
    SmallVector<std::optional<unsigned>> loops;
    for (int64_t dim : group)
      loops.push_back(loopAt(dim));
    if (llvm::any_of(loops, [](auto l) { return !l; }))
      return refuse();
    if (group.size() == 1 && !isBatch(*loops[0]))
      continue;
    if (group.size() != 2 || !isBatch(*loops[0]) || isBatch(*loops[1]) ||
        extents[*loops[1]] % tileOf[*loops[1]] != 0)
      return refuse();
  }
  return source;
}

LogicalResult
mlir::egg::checkSharedGemm(KernelOp kernel, StructureAttr structure,
                           TuningAttr tuning,
                           function_ref<InFlightDiagnostic()> emitError) {
  std::string why;
  Operation *anchor = kernel.getAnchorOp();
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(anchor, why);
  KernelClass kind = classifyKernel(kernel);
  if (kind != KernelClass::Contraction && kind != KernelClass::Convolution)
    why = std::string("not a ") + stringifyKernelClass(kind).str() +
          " kernel, not a contraction or convolution";
  if (failed(gemm) || !why.empty())
    return emitError() << "shared-memory promotion is implemented for "
                          "matrix products and implicit-GEMM convolutions "
                          "only: "
                       << why;
  // A convolution goes through the GEMM lowering as its stage-1 structure
  // says (conv_implicit_gemm), and only then.
  if (kind == KernelClass::Convolution &&
      (!structure ||
       structure.getFormulation() != Formulation::conv_implicit_gemm))
    return emitError() << "a convolution takes shared-memory promotion as an "
                          "implicit GEMM: its structure must be "
                          "conv_implicit_gemm";
  auto op = cast<linalg::LinalgOp>(anchor);
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return emitError() << "dynamic shapes are not supported yet";
  FailureOr<RootLoops> root = analyzeRootLoops(kernel, emitError);
  if (failed(root))
    return failure();
  if (!rootRunsOverResult(*root, op))
    return emitError() << "the ops after the matrix product do not run over "
                          "its result in its order";
  SmallVector<unsigned> parallel;
  for (unsigned d = 0; d < extents.size(); ++d)
    if (!gemm->isReduction(d))
      parallel.push_back(d);

  auto sameAs = [](ArrayRef<int64_t> list, ArrayRef<int64_t> want) {
    return list.size() == want.size() && llvm::equal(list, want);
  };
  unsigned numInputs = 2;
  if (!sameAs(tuning.getShared(), {0, 1}))
    return emitError() << "shared = [0, 1] (both inputs) is the promotion "
                          "the GEMM lowering implements";
  if (!tuning.getRegisters().empty() &&
      !sameAs(tuning.getRegisters(), {int64_t(numInputs)}))
    return emitError() << "registers may only name the result (operand "
                       << numInputs << "): it is accumulated in registers";
  // Tensor cores (`mma`): a warp tile per warp instead of a thread tile.
  bool mma = isMmaGemm(tuning);
  // Warpgroup MMA (Hopper): tiles in the 128-byte swizzled layout that
  // wgmma's matrix descriptors describe; other GEMMs pad their rows.
  bool wgmma = isWgmmaGemm(tuning);
  if (tuning.getTf32Terms() != 1 && !mma)
    return emitError() << "tf32_terms = " << tuning.getTf32Terms()
                       << " splits the f32 matrices of warpgroup MMA "
                          "(mma = wgmma), not FMA thread tiles";
  if (mma &&
      failed(checkMmaProduct(op, wgmma, tuning.getTf32Terms(), emitError)))
    return failure();
  // The split pass runs in the computing threads on each tile they copied
  // (cp_async or sync), not on TMA's.
  if (tuning.getTf32Terms() == 3 && tuning.getCopy() == CopyEngine::tma)
    return emitError() << "tf32_terms = 3 splits each tile in the threads "
                          "that copied it: it needs copy = cp_async or sync, "
                          "not tma";
  if (wgmma) {
    TargetAttr target = lookupTarget(kernel);
    if (!supportsWgmma(target))
      return emitError() << "warpgroup MMA (mma = wgmma) needs an "
                            "sm_90a target, not "
                         << (target ? target.getChip() : StringRef("none"));
    if (tuning.getSwizzle() != Swizzle::xor128)
      return emitError() << "warpgroup MMA reads its tiles through the "
                            "128-byte swizzle: it needs swizzle = xor128";
  } else if (tuning.getSwizzle() != Swizzle::none) {
    return emitError() << "swizzled shared memory is implemented for "
                          "warpgroup MMA only (mma = wgmma): use "
                          "padding";
  }
  bool splitTf32 = wgmma && tuning.getTf32Terms() == 3;
  ArrayRef<int64_t> block = tuning.getBlock();
  ArrayRef<int64_t> inner = mma ? tuning.getWarp() : tuning.getThread();
  StringRef level = mma ? "warp" : "thread";
  if (!mma && !tuning.getWarp().empty())
    return emitError() << "FMA tiles (mma = fma) take no warp tile: each "
                          "thread multiplies its thread tile";
  if (block.size() != parallel.size() || inner.size() != parallel.size())
    return emitError() << "the shared-memory GEMM needs block and " << level
                       << " tiles for each of the " << parallel.size()
                       << " parallel loops";
  // Per loop: block tiles that divide the loops, inner tiles that divide
  // the block tiles; batch loops take 1. A block tile that does not divide
  // an M or N loop leaves a partial last tile, whose copies, loads and
  // stores past the loop's end are skipped (docs/pipeline.md, "Partial
  // tiles"). In a convolution's group of loops, only the loop the block's
  // row-major range ends in may be cut so (FMA tiles and split TF32
  // products, whose innermost loop may also take a tile past its end: 64
  // positions of a 62-wide row; the forms checked on the GPU).
  SmallVector<int64_t> blockOf(extents.size(), 1);
  int64_t gridLoops = 0;
  for (auto [p, d] : llvm::enumerate(parallel)) {
    bool inM = llvm::is_contained(gemm->mLoops, d);
    bool inN = llvm::is_contained(gemm->nLoops, d);
    if (!inM && !inN) {
      if (block[p] != 1 || inner[p] != 1)
        return emitError() << "batch loop " << d << " takes block and " << level
                           << " tiles of 1";
      gridLoops += extents[d] > 1;
      continue;
    }
    int64_t b = block[p], t = inner[p];
    ArrayRef<unsigned> group = inM ? gemm->mLoops : gemm->nLoops;
    if (b < 1 || b > 2 * extents[d])
      return emitError() << "block tile " << b << " of loop " << d
                         << " is not between 1 and twice its extent "
                         << extents[d]
                         << " (a partial tile at least half inside the loop)";
    if (extents[d] % b != 0 && group.size() != 1 && mma && !splitTf32)
      return emitError() << "block tile " << b << " does not divide loop " << d
                         << " of extent " << extents[d] << ": a partial tile "
                         << "in a group of several loops is implemented for "
                            "FMA tiles and split TF32 products only";
    if (t < 1 || b % t != 0)
      return emitError() << level << " tile " << t
                         << " does not divide the block tile " << b
                         << " of loop " << d;
    blockOf[d] = b;
    gridLoops += b < extents[d];
  }
  // More than three grid loops take a linear block index (tuning.md,
  // principle 6).
  if (gridLoops > kMaxLinearGridLoops)
    return emitError() << "the block tile leaves " << gridLoops
                       << " loops to the grid, which spreads at most "
                       << kMaxLinearGridLoops;
  // A group of several loops (a convolution's) numbers its positions
  // row-major: a block's (and an owner's) positions must be one contiguous
  // range of that numbering, i.e. whole inner loops and a part of one.
  auto groupTiles = [&](ArrayRef<unsigned> loops, ArrayRef<int64_t> list,
                        int64_t &total) -> SmallVector<int64_t> {
    SmallVector<int64_t> tiles;
    total = 1;
    for (unsigned d : loops) {
      tiles.push_back(list[llvm::find(parallel, d) - parallel.begin()]);
      total *= tiles.back();
    }
    return tiles;
  };
  int64_t bm, bn, tm, tn;
  for (bool isM : {true, false}) {
    ArrayRef<unsigned> loops = isM ? gemm->mLoops : gemm->nLoops;
    int64_t &b = isM ? bm : bn, &t = isM ? tm : tn;
    SmallVector<int64_t> blocks = groupTiles(loops, block, b);
    SmallVector<int64_t> inners = groupTiles(loops, inner, t);
    std::optional<SmallVector<int64_t>> wantBlock =
        splitRowMajor(loops, extents, b, /*partial=*/true, splitTf32);
    std::optional<SmallVector<int64_t>> wantInner =
        splitRowMajor(loops, blockOf, t);
    // FMA thread tiles may also take rows of the block along N (rowRuns).
    bool rowTile = !isM && !mma && wantBlock && *wantBlock == blocks &&
                   rowRuns(blocks, inners);
    if (!rowTile && (!wantBlock || *wantBlock != blocks || !wantInner ||
                     *wantInner != inners))
      return emitError() << "the " << (isM ? "M" : "N") << " loops ("
                         << ArrayRef<unsigned>(loops) << ") take block tiles ["
                         << ArrayRef<int64_t>(blocks) << "] and " << level
                         << " tiles [" << ArrayRef<int64_t>(inners) << "]"
                         << ": each must cover whole inner loops and part of "
                            "one (a contiguous row-major range), or FMA "
                            "thread tiles whole rows of the block along N";
  }
  // wgmma: 64 rows of A per instruction, N a multiple of 8 up to 256.
  if (wgmma && tm % 64 != 0)
    return emitError() << "warp tile " << tm << " along M is not a multiple "
                       << "of 64 (wgmma's M)";
  if (wgmma && (tn % 8 != 0 || tn > 256))
    return emitError() << "warp tile " << tn << " along N is not a multiple "
                       << "of 8 up to 256 (wgmma's N)";
  // ldmatrix loads 16x16 pieces of A and two 8-wide pieces of B at once.
  if (mma && !wgmma && (tm % 16 != 0 || tn % 16 != 0))
    return emitError() << "warp tile " << (tm % 16 ? tm : tn) << " along "
                       << (tm % 16 ? "M" : "N")
                       << " is not a multiple of 16 (the mma.sync "
                          "fragments)";
  int64_t group = wgmma ? 128 : mma ? 32 : 1;
  SmallVector<int64_t> wantThreads;
  if (mma)
    wantThreads = {group, bn / tn, bm / tm};
  else
    wantThreads = {bn / tn, bm / tm};
  if (!sameAs(tuning.getThreads(), wantThreads))
    return emitError() << "threads must be [" << ArrayRef<int64_t>(wantThreads)
                       << "]: "
                       << (wgmma ? "a warpgroup's threads, then warpgroups "
                                   "along N and M"
                           : mma ? "a warp's lanes, then warps along N and M"
                                 : "block tile over thread tile along N, then "
                                   "M");
  int64_t numThreads = group * (bn / tn) * (bm / tm);
  if (numThreads < 32 || numThreads > kMaxThreadsPerBlock)
    return emitError() << numThreads
                       << " threads per block: the GEMM needs 32 to "
                       << kMaxThreadsPerBlock;
  if (!mma && tm * tn > 128)
    return emitError() << "a thread tile of " << tm << "x" << tn
                       << " accumulators exceeds the 128 registers allowed";
  // A warp's m16n8 fragments hold 4 accumulators per thread each.
  // A warpgroup's m64nN result holds N / 2 per thread.
  int64_t accumulators =
      wgmma ? (tm / 64) * (tn / 2) : (tm / 16) * (tn / 8) * 4;
  if (mma && accumulators > 128)
    return emitError() << "a warp tile of " << tm << "x" << tn << " needs "
                       << accumulators
                       << " accumulators per thread; at most 128 are allowed";
  // Split products sum each K tile apart and add it to the accumulators:
  // a second set of them.
  if (tuning.getTf32Terms() == 3 && accumulators > 64)
    return emitError() << "tf32_terms = 3 keeps each K tile's sum beside the "
                          "accumulators: a warp tile of "
                       << tm << "x" << tn << " needs 2 x " << accumulators
                       << " registers per thread; at most 128 are allowed";
  if (tuning.getReduction().size() != 1)
    return emitError() << "the shared-memory GEMM needs a reduction tile "
                          "(the K step)";
  int64_t bk = tuning.getReduction()[0];
  int64_t extentK = GemmLoops::extent(gemm->kLoops, extents);
  if (bk < 1)
    return emitError() << "reduction tile " << bk << " is not positive";
  // A partial last K tile is zero-filled by its copies (cp.async with a
  // source size of 0 past K), which adds nothing to the multiply-add body
  // of a contraction or convolution (the kernel classes taken above).
  // (TMA fills boxes past the tensor's end with zeros too.)
  if (extentK % bk != 0 && tuning.getCopy() == CopyEngine::sync)
    return emitError() << "reduction tile " << bk
                       << " does not divide the K loop of extent " << extentK
                       << ": a partial last K tile needs copy = cp_async or "
                          "tma, whose copies zero-fill past K";
  // Fragments a K step ahead (egg-lower-shared-gemm): the wait and barrier
  // of the next K tile come inside the loop body, which is the whole K
  // tile unrolled.
  if (tuning.getFragmentsAhead() != 0) {
    if (tuning.getPipeline() < 2)
      return emitError() << "fragments_ahead = 1 needs pipeline >= 2: the "
                            "next K tile must be in flight";
    if (mulSat(mulSat(tm, tn), bk) > kFragmentsAheadFmas)
      return emitError() << "fragments_ahead = 1 unrolls the K tile: " << tm
                         << "x" << tn << " values over a K step of " << bk
                         << " are more than " << kFragmentsAheadFmas
                         << " multiply-adds";
  }
  Type lhs = getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get());
  Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(gemm->rhs)->get());
  // An instruction's K: 16 16-bit elements, or 8 TF32 (32 bytes either way).
  int64_t instrK = wgmma ? 256 / lhs.getIntOrFloatBitWidth() : 16;
  if (mma && bk % instrK != 0)
    return emitError() << "reduction tile " << bk << " is not a multiple of "
                       << instrK << " (the tensor-core instruction's K)";

  // Copies: every thread moves the same number of `vector`-wide pieces of
  // each tile, along the operand's contiguous dimension.
  int64_t v = tuning.getVector();
  for (unsigned which : {gemm->lhs, gemm->rhs}) {
    OpOperand *operand = op.getDpsInputOperand(which);
    auto type = cast<ShapedType>(operand->get().getType());
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    AffineMap map = op.getMatchingIndexingMap(operand);
    std::optional<unsigned> fastLoop = contiguousLoop(map);
    unsigned mn = which == gemm->lhs ? gemm->innerM() : gemm->innerN();
    int64_t tileMN = which == gemm->lhs ? bm : bn;
    // TF32 tiles (K-major) of an input without 16-byte pieces along K are
    // filled an element at a time by cp.async, or (split products of an
    // input contiguous along M/N) from 16-byte pieces along M/N that the
    // split pass transposes.
    Tf32Copy tf32Copy = wgmma && tuning.getCopy() == CopyEngine::cp_async
                            ? tf32CopyOf(op, *gemm, which, v, splitTf32)
                            : Tf32Copy::pieces;
    bool elements = tf32Copy == Tf32Copy::elements;
    bool staged = tf32Copy == Tf32Copy::transposed;
    // The fast index is neither: an NCHW input read along ow * s + kw,
    // copied one element at a time into FMA tiles or TF32 ones.
    if (!fastLoop || (*fastLoop != mn && *fastLoop != gemm->innerK())) {
      if ((mma || v != 1) && !elements)
        return emitError() << "input " << which
                           << " is not contiguous along its matrix "
                              "dimensions: only FMA tiles with vector = 1, "
                              "or f32 warpgroup MMA over cp_async, read it";
    }
    unsigned fast = fastLoop.value_or(~0u);
    int64_t along = fast == mn ? tileMN : bk;
    // A vector stays within the innermost loop of its group (block tile
    // along M/N, whole loop along K).
    int64_t run = fast == mn ? blockOf[mn] : extents[gemm->innerK()];
    // Pieces need not be a multiple of the threads: the last round of
    // copies is guarded (a 200-row tile of 8-element pieces over 256).
    if (!elements &&
        (v * bytes > 16 || along % v != 0 || type.getShape().back() % v != 0 ||
         run % v != 0 || (tileMN * bk) % v))
      return emitError() << "vector = " << v << " does not fit the copies of "
                         << "input " << which << ": " << tileMN << "x" << bk
                         << " elements, at most 16 bytes per access";
    // Swizzled tiles: 16-byte pieces, rows of 128 bytes (64 16-bit
    // elements) along the contiguous dimension.
    // wgmma transposes 16-bit tiles only: TF32 tiles are stored K-major,
    // an M/N-contiguous operand copied one element at a time.
    bool sharedMN = gemmTileAlongMN(mma, wgmma, bytes, fast == mn);
    if (wgmma && bytes == 4 && fast == mn &&
        tuning.getCopy() == CopyEngine::tma)
      return emitError() << "input " << which << " is contiguous along M/N: "
                         << "TF32 tiles are stored K-major, which TMA copies "
                            "cannot transpose (use cp_async)";
    if (wgmma && v * bytes != 16)
      return emitError() << "vector = " << v << " does not fit the swizzled "
                         << "tiles of input " << which
                         << ": warpgroup MMA copies 16-byte pieces";
    if (wgmma && (sharedMN ? tileMN : bk) % (128 / bytes) != 0)
      return emitError() << "input " << which << " is stored contiguous along "
                         << (sharedMN ? "M/N" : "K") << ": its tile extent "
                         << (sharedMN ? tileMN : bk)
                         << " must be a multiple of " << 128 / bytes
                         << " (128-byte swizzled rows)";
    if (wgmma && sharedMN && (which == gemm->lhs ? tm : tn) % (128 / bytes))
      return emitError() << "input " << which << " is contiguous along M/N: "
                         << "the warp tile must be a multiple of "
                         << 128 / bytes << " (128-byte swizzled rows)";
    // A zero pad fused into the kernel (egg.padded_view): a piece of
    // several elements along a padded contiguous dimension could straddle
    // the border.
    if (auto pad = operand->get().getDefiningOp<tensor::PadOp>()) {
      bool transposed = (fast == mn) != sharedMN;
      int64_t pieceElems = elements || (transposed && !staged &&
                                        tuning.getCopy() != CopyEngine::sync)
                               ? 1
                               : v;
      int64_t last = pad.getSourceType().getRank() - 1;
      if (pieceElems > 1 &&
          (pad.getStaticLow()[last] != 0 || pad.getStaticHigh()[last] != 0))
        return emitError() << "input " << which << " is padded along its "
                           << "contiguous dimension in the kernel: its "
                              "copies need vector = 1";
    }
    if (tuning.getCopy() == CopyEngine::cp_async) {
      bool transposed = (fast == mn) != sharedMN;
      int64_t chunk = (transposed && !staged) || elements ? bytes : v * bytes;
      if (chunk != 4 && chunk != 8 && chunk != 16)
        return emitError() << "copy = cp_async moves 4, 8 or 16 bytes at a "
                              "time: input "
                           << which << " gives pieces of " << chunk
                           << " bytes ("
                           << (fast == mn ? "vector width"
                                          : "stored transposed, one element")
                           << ")";
    }
  }
  int64_t stages = tuning.getPipeline();
  // TMA (docs/pipeline.md, "TMA copies"): a producer warpgroup copies each
  // stage's swizzled columns as boxes of a tensor map of the whole operand,
  // and the computing warpgroups wait on the stage's mbarrier.
  if (tuning.getCopy() == CopyEngine::tma) {
    if (!wgmma)
      return emitError() << "copy = tma fills the swizzled tiles of "
                            "warpgroup MMA (mma = wgmma) only";
    if (gemm->mLoops.size() != 1 || gemm->nLoops.size() != 1 ||
        gemm->kLoops.size() != 1)
      return emitError() << "copy = tma is implemented for matrix products "
                            "of one M, N and K loop";
    if (stages < 2)
      return emitError() << "copy = tma needs pipeline >= 2 (stages with "
                            "an mbarrier each)";
    if (numThreads + 128 > kMaxThreadsPerBlock)
      return emitError() << "copy = tma adds a producer warpgroup to the "
                         << numThreads << " computing threads: at most "
                         << kMaxThreadsPerBlock - 128;
    // A cluster of two blocks along N shares the A tile: each block copies
    // half of its rows and multicasts them to both (docs/pipeline.md,
    // "TMA multicast").
    if (int64_t c = tuning.getCluster(); c != 1) {
      OpOperand *lhsOperand = op.getDpsInputOperand(gemm->lhs);
      int64_t tilesN = llvm::divideCeil(extents[gemm->innerN()], bn);
      if (c != 2)
        return emitError() << "cluster = " << c
                           << ": TMA products take clusters of 2 only";
      // Only 128 x 64 tiles computed correctly on the H200 (128 x 128 not;
      // docs/pipeline.md, "TMA multicast"). The A tile's halves are then
      // whole 8-row swizzle atoms.
      if (bm != 128 || bn != 64)
        return emitError() << "cluster = 2 is limited to 128 x 64 tiles, the "
                              "only ones that computed correctly on the GPU "
                              "(got "
                           << bm << " x " << bn
                           << "; docs/pipeline.md, \"TMA multicast\")";
      if (!gemm->batch.empty())
        return emitError() << "cluster = 2 is implemented for products "
                              "without batch loops";
      if (contiguousLoop(op.getMatchingIndexingMap(lhsOperand)) !=
          gemm->innerK())
        return emitError() << "cluster = 2 multicasts halves of A's rows: "
                              "A must be contiguous along K";
      if (tilesN % 2 != 0)
        return emitError() << "cluster = 2 pairs the " << tilesN
                           << " tiles along N: their number must be even";
    }
    // A box must not run past a tile's end into the next batch (where the
    // operand is a batch's reshape, below): the tiles divide their loops.
    SmallVector<int64_t> tileOf(blockOf);
    tileOf[gemm->innerK()] = bk;
    for (unsigned which : {gemm->lhs, gemm->rhs}) {
      OpOperand *operand = op.getDpsInputOperand(which);
      FailureOr<ShapedType> source =
          tmaSource(*gemm, operand, extents, tileOf, emitError);
      if (failed(source))
        return failure();
      ShapedType type = *source;
      int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
      unsigned mn = which == gemm->lhs ? gemm->innerM() : gemm->innerN();
      bool fastIsMN = contiguousLoop(op.getMatchingIndexingMap(operand)) == mn;
      int64_t rows = fastIsMN ? bk : (which == gemm->lhs ? bm : bn);
      if (type.getRank() != 2 || rows > 256 ||
          (type.getShape().back() * bytes) % 16 != 0)
        return emitError()
               << "copy = tma: input " << which
               << " needs a 2-D tensor whose rows are a multiple of 16 bytes "
                  "and boxes of at most 256 rows (here "
               << rows << ")";
    }
  }
  if (stages > 1 && tuning.getCopy() == CopyEngine::sync)
    return emitError() << "pipeline = " << stages
                       << " needs copy = cp_async or tma";
  // Deeper pipelines were timed with TMA's mbarriers only
  // (docs/pipeline.md, "TMA copies").
  if (stages > 4 && tuning.getCopy() != CopyEngine::tma)
    return emitError() << "pipeline = " << stages
                       << " exceeds 4 stages: deeper pipelines need copy = tma";
  if (tuning.getPadding() < 0 || tuning.getPadding() > 64)
    return emitError() << "padding " << tuning.getPadding()
                       << " is outside [0, 64]";
  if (mma && tuning.getPadding() % 8 != 0)
    return emitError() << "padding " << tuning.getPadding()
                       << " is not a multiple of 8 elements: ldmatrix reads "
                          "rows at 16-byte boundaries";
  auto kFast = [&](unsigned which) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(which));
    return mma && contiguousLoop(map) == gemm->innerK();
  };
  int64_t bytes = sharedGemmBytes(bm, bn, bk, tuning.getPadding(), stages, lhs,
                                  rhs, kFast(gemm->lhs), kFast(gemm->rhs));
  // Split f32 products keep each tile's low parts beside it.
  if (tuning.getTf32Terms() == 3)
    bytes = mulSat(bytes, 2);
  // The lowering aligns the swizzled tiles at run time.
  if (wgmma)
    bytes += kWgmmaSwizzleAtom;
  // Beyond 48 KB the tiles live in the block's dynamic shared memory, up to
  // the target's limit (deep pipelines).
  int64_t limit = kStaticSharedMemoryPerBlock;
  if (TargetAttr target = lookupTarget(kernel))
    limit = std::max<int64_t>(limit, target.getSharedMemoryPerBlock());
  if (bytes > limit)
    return emitError() << "the tiles need " << bytes
                       << " bytes of shared memory; a block may have " << limit;
  return success();
}

std::string mlir::egg::describeSharedGemmRules() {
  return std::string(
             " A matrix product may instead go through shared memory: "
             "`shared = [0, 1]`, `block` BM/BN on its M/N loops (1 on batch "
             "loops), `thread` TM/TN (at most 128 accumulators; 8x8 ran "
             "fastest), `threads` = "
             "[BN/TN, BM/TM], `reduction` = [BK] (a BK that does not divide "
             "K needs cp_async or tma, whose copies zero-fill the last "
             "step), `padding` "
             "elements per shared row, `vector` elements per copy (every "
             "thread the same number), `copy` sync or cp_async (4, 8 or 16 "
             "bytes per copy), `pipeline` stages 2-4 only with cp_async, "
             "shared memory up to the target's limit; with `thread` tiles "
             "and `pipeline` >= 2, `fragments_ahead = 1` loads each K step's "
             "values before the previous step's FMAs, across K tiles (TM x "
             "TN x BK at most 2048; 1-3% faster on f32 convolutions, 3-5% "
             "slower on some plain products). With f16 or bf16 inputs "
             "and an "
             "f32 result it may run on tensor cores (`mma = mma_sync`, "
             "m16n8k16; the default `mma = fma` multiplies on CUDA cores): a "
             "`warp` tile WM/WN (multiples of 16, at most 128 accumulators "
             "per thread: WM/16 * WN/8 * 4) instead of `thread`, `threads` = "
             "[32, BN/WN, BM/WM], BK a multiple of 16, `padding` a multiple "
             "of 8; tiles "
             "keep the global layout, so every copy may be a "
             "16-byte cp_async. On sm_90a, warpgroup MMA (`mma = wgmma`) "
             "instead: "
             "`threads` = [128, BN/WN, BM/WM] (a warpgroup per `warp` tile), "
             "WM a multiple of 64, WN a multiple of 8 up to 256 "
             "(WM/64 * WN/2 accumulators per thread, at most 128), "
             "`swizzle = xor128` and no padding, `vector` = 16 bytes, the "
             "tile extent along each operand's contiguous dimension (BK for "
             "K-contiguous, BM/BN and WM/WN for M/N-contiguous) a multiple "
             "of 128 bytes (64 16-bit elements). f32 products may take wgmma "
             "only where the module allows TF32 (`egg.allow_tf32`; the "
             "checker refuses it otherwise), BK a multiple of 32 and `vector` "
             "= 4 (tiles stored K-major; an M/N-contiguous operand is copied "
             "transposed, so cp_async, not tma). Without that permission "
             "they may take wgmma as `tf32_terms = 3`: each tile is split "
             "into TF32 high and low parts (twice the shared memory; "
             "cp_async or sync copies), three products per K step summed "
             "per K tile apart from the accumulators (WM/64 * WN/2 at most "
             "64). With wgmma, `copy = tma` (a "
             "plain 2-D product, "
             "`pipeline` 2-8, at most ") +
         std::to_string(kMaxThreadsPerBlock - 128) +
         " computing threads) adds a "
         "producer warpgroup that fills the stages through the Tensor "
         "Memory Accelerator (a whole long K loop over few output tiles "
         "runs best at 8 stages in 64x128 tiles of one warpgroup, "
         "128x64 tiles of two where tiles are partial). A "
         "conv_implicit_gemm convolution must take "
         "this path, with M, N and K groups of loops (M: output loops "
         "only the input reads, N: those only the filter reads, K: the "
         "reductions): BM is the product of the block tile over the M "
         "loops, which must cover whole inner loops and part of one "
         "(e.g. [1, 2, 32] on (n, oh, ow) for 64 positions of a 32-wide "
         "output), likewise BN, WM/TM and WN/TN within the block tile; "
         "BK divides the product of the K extents; an input contiguous "
         "along neither group (NCHW) needs vector 1 and FMA tiles, or "
         "f32 warpgroup MMA over cp_async, which copies it (and a filter "
         "whose innermost K loop is no multiple of `vector`) an element at "
         "a time; with `tf32_terms = 3`, the innermost loop of a group may "
         "take a tile past its end, up to twice its extent (64 positions "
         "of a 62-wide row, the group's other loops 1).";
}
