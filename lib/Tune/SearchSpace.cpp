//===- SearchSpace.cpp - What egg-tune searches ---------------------------===//

#include "egg/Tune/SearchSpace.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Limits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cmath>

using namespace mlir;
using namespace mlir::egg;

/// Candidate tile sizes for a loop of `extent`: powers of two that divide
/// it (whole tiles, as the generic lowering needs) up to 4096, the whole
/// loop when it is not larger, and `keep` (the anchor's choice).
static SmallVector<int64_t> tileChoices(int64_t extent, int64_t keep) {
  SmallVector<int64_t> choices;
  for (int64_t d = 1; d <= std::min<int64_t>(extent, 4096); d *= 2)
    if (extent % d == 0)
      choices.push_back(d);
  if (extent <= 4096)
    choices.push_back(extent);
  if (keep > 0)
    choices.push_back(keep);
  llvm::sort(choices);
  choices.erase(llvm::unique(choices), choices.end());
  return choices;
}

/// The anchor and the `found` points (with their distance to it), closest
/// first, at most `limit`. Points are distinct by construction; the anchor
/// is the only one at distance 0, so it comes first.
static SmallVector<TuningAttr>
closestFirst(SmallVectorImpl<std::pair<double, TuningAttr>> &found,
             TuningAttr anchor, size_t limit) {
  if (llvm::none_of(found, [&](auto &f) { return f.second == anchor; }))
    found.push_back({0.0, anchor});
  std::stable_sort(found.begin(), found.end(),
                   [](auto &x, auto &y) { return x.first < y.first; });
  SmallVector<TuningAttr> result;
  for (auto &entry : ArrayRef(found).take_front(std::min(limit, found.size())))
    result.push_back(entry.second);
  return result;
}

/// Rows shared by lanes, and scans: rows per block (a warp each) or threads
/// per block (one row each), and vector widths up to the anchor's.
static SmallVector<TuningAttr> enumerateRowTunings(KernelOp kernel,
                                                   const RootLoops &loops,
                                                   TuningAttr anchor,
                                                   size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  Formulation formulation = kernel.getStructureAttr().getFormulation();
  bool perWarp = formulation == Formulation::reduce_row_per_warp ||
                 formulation == Formulation::scan_warp;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  // The innermost loop tiled by blocks is the one that varies.
  std::optional<size_t> inner;
  for (size_t p = block.size(); p-- > 0 && !inner;)
    if (block[p] > 0)
      inner = p;
  SmallVector<std::pair<double, TuningAttr>> found;
  auto tryPoint = [&](int64_t threads, ArrayRef<int64_t> b,
                      ArrayRef<int64_t> warp, int64_t v,
                      int64_t rowShared = 0) {
    TuningAttr tuning =
        TuningBuilder(kernel.getContext())
            .threads({threads})
            .block(b)
            .warp(warp)
            .vector(v)
            .rowShared(rowShared)
            .getChecked(function_ref<InFlightDiagnostic()>(emitError));
    if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
      found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2) {
    if (!perWarp) {
      for (int64_t n = 32; n <= kMaxThreadsPerBlock; n *= 2) {
        tryPoint(n, block, anchor.getWarp(), v);
        // Held row steps in shared memory (row_shared): every count for
        // the block sizes of 256 threads and more whose rows are held (at
        // most kHeldBytesPerLane per lane): theirs are the held rows that
        // limit blocks per SM.
        if (n >= 256 && holdsRow(kernel, n))
          for (int64_t k = 1; k <= 16; ++k)
            tryPoint(n, block, anchor.getWarp(), v, k);
      }
      continue;
    }
    if (!inner)
      break;
    // n warps per block, g rows per warp (short rows share a warp).
    int64_t otherRows = 1;
    for (size_t p = 0; p < block.size(); ++p)
      if (p != *inner && block[p] > 0)
        otherRows *= block[p];
    for (int64_t n = 1; n <= 32 && 32 * n * otherRows <= kMaxThreadsPerBlock;
         n *= 2) {
      for (int64_t g = 1; g <= 32; g *= 2) {
        SmallVector<int64_t> b = block;
        SmallVector<int64_t> warp = llvm::to_vector(anchor.getWarp());
        b[*inner] = n * g;
        warp[*inner] = g;
        tryPoint(32 * n * otherRows, b, warp, v);
      }
    }
  }
  return closestFirst(found, anchor, limit);
}

/// Column reductions: threads along the columns (TX), rows in flight (R)
/// and vector widths up to the anchor's.
static SmallVector<TuningAttr>
enumerateColumnTunings(KernelOp kernel, TuningAttr anchor, size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2) {
    for (int64_t tx = 2; tx <= 64; tx *= 2) {
      for (int64_t rows = 1; tx * rows <= kMaxThreadsPerBlock; rows *= 2) {
        if (tx * rows < 32)
          continue;
        block.back() = tx * v;
        // Rows shared by a cluster's blocks too (sm_90; farther from an
        // anchor without one, tuningDistance): none has beaten the tilings
        // without one yet on the H200 (docs/pipeline.md, "Column
        // reductions").
        for (int64_t cluster : {1, 2, 4}) {
          TuningAttr tuning =
              TuningBuilder(kernel.getContext())
                  .threads({tx, rows})
                  .block(block)
                  .vector(v)
                  .cluster(cluster)
                  .getChecked(function_ref<InFlightDiagnostic()>(emitError));
          if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
            continue;
          found.push_back({tuningDistance(tuning, anchor), tuning});
        }
      }
    }
  }
  return closestFirst(found, anchor, limit);
}

/// Recurrences: batch rows per block (the divisors of the batch), clusters
/// of 1-8 blocks, and threads: a thread per unit with k in 1 to 32 slices,
/// or fewer threads than units.
static SmallVector<TuningAttr>
enumerateRecurrenceTunings(KernelOp kernel, TuningAttr anchor, size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  auto recurrence = dyn_cast_or_null<RecurrenceOp>(kernel.getRootOp());
  SmallVector<std::pair<double, TuningAttr>> found;
  if (!recurrence)
    return closestFirst(found, anchor, limit);
  int64_t batch = recurrence.getBatch(), units = recurrence.getUnits();
  for (int64_t rows = 1; rows <= batch; ++rows) {
    if (batch % rows != 0)
      continue;
    for (int64_t cluster = 1; cluster <= kMaxPortableClusterSize;
         cluster *= 2) {
      if (units % cluster != 0)
        continue;
      int64_t own = units / cluster;
      SmallVector<int64_t> counts;
      for (int64_t slices = 1; slices <= 32; ++slices)
        if (units % slices == 0)
          counts.push_back(own * slices);
      for (int64_t threads = kWarpSize; threads < own; threads *= 2)
        counts.push_back(threads);
      for (int64_t threads : counts) {
        TuningAttr tuning =
            TuningBuilder(kernel.getContext())
                .threads({threads})
                .block({rows})
                .cluster(cluster)
                .getChecked(function_ref<InFlightDiagnostic()>(emitError));
        if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
          continue;
        found.push_back({tuningDistance(tuning, anchor), tuning});
      }
    }
  }
  return closestFirst(found, anchor, limit);
}

/// Maps staged through shared memory: tiles of 16-128 along the results'
/// innermost loop and the staged inputs' contiguous loops (other tiles as
/// the anchor's), 64-512 threads, padding 0 or the anchor's, the anchor's
/// vector width or scalar accesses; then the same
/// map unstaged (the generic lowering's tiles around the anchor's block).
static SmallVector<TuningAttr> enumerateStagedTunings(KernelOp kernel,
                                                      TargetAttr target,
                                                      const RootLoops &loops,
                                                      TuningAttr anchor,
                                                      size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  // Parallel-loop indices (into the tile lists) that the search varies.
  SmallVector<size_t> varied;
  for (unsigned pos : stagedTileLoops(kernel, anchor.getShared()))
    varied.push_back(llvm::find(loops.parallelPositions, pos) -
                     loops.parallelPositions.begin());
  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  SmallVector<size_t> index(varied.size(), 0);
  const int64_t sizes[] = {16, 32, 64, 128};
  while (true) {
    for (auto [i, p] : llvm::enumerate(varied))
      block[p] = sizes[index[i]];
    SmallVector<int64_t, 2> vectors = {anchor.getVector()};
    if (anchor.getVector() != 1)
      vectors.push_back(1);
    for (int64_t threads = 64; threads <= 512; threads *= 2) {
      for (int64_t padding : {int64_t(0), anchor.getPadding()}) {
        for (int64_t vector : vectors) {
          TuningAttr tuning =
              TuningBuilder(kernel.getContext())
                  .threads({threads})
                  .block(block)
                  .shared(anchor.getShared())
                  .padding(padding)
                  .vector(vector)
                  .getChecked(function_ref<InFlightDiagnostic()>(emitError));
          if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
            found.push_back({tuningDistance(tuning, anchor), tuning});
        }
      }
    }
    size_t i = 0;
    for (; i < index.size(); ++i) {
      if (++index[i] < std::size(sizes))
        break;
      index[i] = 0;
    }
    if (i == index.size())
      break;
  }
  SmallVector<TuningAttr> result =
      closestFirst(found, anchor, limit - std::min(limit, limit / 4));
  // Unstaged: the anchor's block tiles, a thread per element of the
  // innermost loop (its neighbourhood varies the thread tiles).
  SmallVector<int64_t> none = llvm::to_vector(anchor.getBlock());
  none[varied.front()] = 1;
  SmallVector<int64_t> threads = impliedThreads(loops, anchor.getBlock(), none);
  while (threads.size() > 1 && threads.back() == 1)
    threads.pop_back();
  TuningAttr plain =
      TuningBuilder(kernel.getContext())
          .threads(threads)
          .block(anchor.getBlock())
          .thread(none)
          .getChecked(function_ref<InFlightDiagnostic()>(emitError));
  if (plain && succeeded(checkLowerable(kernel, plain, emitError)))
    llvm::append_range(result,
                       enumerateTunings(kernel, target, plain, limit / 4));
  return result;
}

/// Tensor-core GEMMs: for mma.sync, block tiles of 32-256 along M and N,
/// warp tiles of the block over 1, 2 or 4 warps per dimension (at most 8
/// warps), K steps of 16 and 32 with 2-4 stages, the anchor's copy engine,
/// padding and vector width; for wgmma (sm_90a), block tiles of 64-256 over
/// one or two warpgroups per dimension, K steps of 128 bytes with 2-4
/// stages (TMA also 6 and 8).
static SmallVector<TuningAttr>
enumerateMmaTunings(KernelOp kernel, TuningAttr anchor, size_t limit) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  std::string why;
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(kernel.getAnchorOp(), why);
  if (failed(gemm))
    return {};
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<std::pair<double, TuningAttr>> found;
  // One candidate: a BM x BN block tile over `perM` x `perN` owners (warps,
  // or warpgroups with group = 128), kept when legal.
  auto consider = [&](int64_t group, int64_t bm, int64_t bn, int64_t perM,
                      int64_t perN, int64_t bk, int64_t padding,
                      Swizzle swizzle, int64_t vector, CopyEngine copy,
                      int64_t stages) {
    std::optional<GemmTiles> tiles = gemmTiles(
        *gemm, extents, bm, bn, bm / perM, bn / perN, /*partial=*/true);
    if (!tiles)
      return;
    TuningAttr tuning =
        TuningBuilder(kernel.getContext())
            .threads({group, perN, perM})
            .block(tiles->block)
            .warp(tiles->inner)
            .mma(group == 128 ? MmaKind::wgmma : MmaKind::mma_sync)
            .reduction({bk})
            .shared(anchor.getShared())
            .registers(anchor.getRegisters())
            .padding(padding)
            .swizzle(swizzle)
            .vector(vector)
            .copy(copy)
            .pipeline(stages)
            // An f32 anchor's split products stay split: without the
            // user's TF32 permission no other tensor-core form is legal.
            .tf32Terms(anchor.getTf32Terms())
            .getChecked(function_ref<InFlightDiagnostic()>(emitError));
    if (tuning && succeeded(checkLowerable(kernel, tuning, emitError)))
      found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  // mma.sync pads its rows (a wgmma anchor has swizzled, unpadded tiles).
  int64_t mmaPadding = isWgmmaGemm(anchor) ? 8 : anchor.getPadding();
  for (int64_t bm = 32; bm <= 256; bm *= 2)
    for (int64_t bn = 32; bn <= 256; bn *= 2)
      for (int64_t warpsM = 1; warpsM <= 4; warpsM *= 2)
        for (int64_t warpsN = 1; warpsN <= 4 && warpsM * warpsN <= 8;
             warpsN *= 2)
          for (int64_t bk : {16, 32})
            for (int64_t stages = 2; stages <= 4; ++stages)
              consider(32, bm, bn, warpsM, warpsN, bk, mmaPadding,
                       Swizzle::none, anchor.getVector(), anchor.getCopy(),
                       stages);
  // Warpgroup MMA (sm_90a; checkLowerable refuses it elsewhere): one or
  // two warpgroups along M and N, K steps of one 128-byte swizzled row,
  // 16-byte swizzled copies by cp.async or (plain 2-D products) TMA.
  int64_t bytes = getElementTypeOrSelf(op.getDpsInputOperand(gemm->lhs)->get())
                      .getIntOrFloatBitWidth() /
                  8;
  for (CopyEngine copy : {CopyEngine::cp_async, CopyEngine::tma})
    for (int64_t bm = 64; bm <= 256; bm *= 2)
      for (int64_t bn = 64; bn <= 256; bn *= 2)
        for (int64_t groupsM = 1; groupsM <= 2; ++groupsM)
          for (int64_t groupsN = 1; groupsN <= 2; ++groupsN)
            for (int64_t stages : {2, 3, 4, 6, 8})
              if (stages <= 4 || copy == CopyEngine::tma)
                consider(128, bm, bn, groupsM, groupsN, 128 / bytes, 0,
                         Swizzle::xor128, 16 / bytes, copy, stages);
  return closestFirst(found, anchor, limit);
}

SmallVector<TuningAttr> mlir::egg::enumerateTunings(KernelOp kernel,
                                                    TargetAttr target,
                                                    TuningAttr anchor,
                                                    size_t limit) {
  SmallVector<TuningAttr> result;
  if (!anchor)
    return result;
  // Enumeration probes many illegal points: keep their diagnostics quiet.
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  auto emitError = [&]() { return kernel.emitOpError(); };
  if (kernel.getStructureAttr() && kernel.getStructureAttr().getFormulation() ==
                                       Formulation::recurrence_block)
    return enumerateRecurrenceTunings(kernel, anchor, limit);
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  if (failed(loops))
    return result;
  size_t numParallel = loops->parallelPositions.size();
  if (isCooperativeRow(kernel.getStructureAttr()) ||
      (kernel.getStructureAttr() &&
       kernel.getStructureAttr().getFormulation() == Formulation::scan_warp))
    return enumerateRowTunings(kernel, *loops, anchor, limit);
  if (isMmaGemm(anchor))
    return enumerateMmaTunings(kernel, anchor, limit);
  if (isStagedMap(kernel.getStructureAttr(), anchor))
    return enumerateStagedTunings(kernel, target, *loops, anchor, limit);
  if (kernel.getStructureAttr() && kernel.getStructureAttr().getFormulation() ==
                                       Formulation::reduce_two_stage)
    return enumerateColumnTunings(kernel, anchor, limit);
  SmallVector<int64_t> block = llvm::to_vector(anchor.getBlock());
  SmallVector<int64_t> thread = llvm::to_vector(anchor.getThread());
  block.resize(numParallel, 0);
  thread.resize(numParallel, 0);
  int64_t parallelIterations = 1;
  for (unsigned pos : loops->parallelPositions)
    parallelIterations = mulSat(parallelIterations, loops->extents[pos]);

  // Vary the two innermost loops the anchor tiles; others keep its tiles.
  SmallVector<size_t> varied;
  for (size_t p = numParallel; p-- > 0 && varied.size() < 2;)
    if (block[p] || thread[p])
      varied.push_back(p);

  SmallVector<int64_t> vectors;
  for (int64_t v = 1; v <= anchor.getVector(); v *= 2)
    vectors.push_back(v);
  if (!llvm::is_contained(vectors, anchor.getVector()))
    vectors.push_back(anchor.getVector());

  // (block, thread) pairs per varied loop.
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> pairs;
  for (size_t p : varied) {
    int64_t extent = loops->extents[loops->parallelPositions[p]];
    SmallVector<std::pair<int64_t, int64_t>> here;
    for (int64_t b : tileChoices(extent, block[p]))
      for (int64_t t : {1, 2, 4, 8})
        if (b % t == 0)
          here.push_back({b, t});
    pairs.push_back(std::move(here));
  }

  SmallVector<std::pair<double, TuningAttr>> found;
  SmallVector<size_t> index(varied.size(), 0);
  auto tryPoint = [&](int64_t vector) {
    SmallVector<int64_t> b = block, t = thread;
    for (auto [i, p] : llvm::enumerate(varied)) {
      b[p] = pairs[i][index[i]].first;
      t[p] = pairs[i][index[i]].second;
    }
    SmallVector<int64_t> threads = impliedThreads(*loops, b, t);
    int64_t total = 1;
    for (int64_t n : threads)
      total = mulSat(total, n);
    // At least a warp when the problem has that much parallelism.
    if (total > target.getMaxThreadsPerBlock() ||
        total < std::min<int64_t>(32, parallelIterations))
      return;
    while (threads.size() > 1 && threads.back() == 1)
      threads.pop_back();
    TuningAttr tuning =
        TuningBuilder(kernel.getContext())
            .threads(threads)
            .block(b)
            .warp(anchor.getWarp())
            .thread(t)
            .reduction(anchor.getReduction())
            .shared(anchor.getShared())
            .registers(anchor.getRegisters())
            .padding(anchor.getPadding())
            .swizzle(anchor.getSwizzle())
            .vector(vector)
            .copy(anchor.getCopy())
            .pipeline(anchor.getPipeline())
            .fragmentsAhead(anchor.getFragmentsAhead())
            .tf32Terms(anchor.getTf32Terms())
            .getChecked(function_ref<InFlightDiagnostic()>(emitError));
    if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
      return;
    found.push_back({tuningDistance(tuning, anchor), tuning});
  };
  for (int64_t vector : vectors) {
    std::fill(index.begin(), index.end(), 0);
    while (true) {
      tryPoint(vector);
      size_t i = 0;
      for (; i < index.size(); ++i) {
        if (++index[i] < pairs[i].size())
          break;
        index[i] = 0;
      }
      if (i == index.size())
        break;
    }
  }
  // Shared-memory FMA tiles: the anchor's tiles with other K steps and
  // pipeline depths (the expert keeps within 48 KB; deeper pipelines take
  // dynamic shared memory).
  std::string notGemm;
  FailureOr<GemmLoops> gemm = analyzeGemmLoops(kernel.getAnchorOp(), notGemm);
  // (K is a loop of the anchor, the product; the root may be its epilogue.)
  int64_t extentK =
      succeeded(gemm)
          ? GemmLoops::extent(gemm->kLoops,
                              cast<linalg::LinalgOp>(kernel.getAnchorOp())
                                  .getStaticLoopRanges())
          : 0;
  // With or without the fragments of the next K step loaded ahead.
  if (isSharedGemm(anchor) && anchor.getCopy() == CopyEngine::cp_async)
    for (int64_t bk : {8, 16, 32})
      for (int64_t stages = 2; stages <= 4 && bk <= extentK; ++stages)
        for (int64_t ahead : {0, 1}) {
          TuningAttr tuning =
              TuningBuilder(kernel.getContext())
                  .threads(anchor.getThreads())
                  .block(anchor.getBlock())
                  .warp(anchor.getWarp())
                  .thread(anchor.getThread())
                  .reduction({bk})
                  .shared(anchor.getShared())
                  .registers(anchor.getRegisters())
                  .padding(anchor.getPadding())
                  .swizzle(anchor.getSwizzle())
                  .vector(anchor.getVector())
                  .copy(anchor.getCopy())
                  .pipeline(stages)
                  .fragmentsAhead(ahead)
                  .getChecked(function_ref<InFlightDiagnostic()>(emitError));
          if (tuning && tuning != anchor &&
              succeeded(checkLowerable(kernel, tuning, emitError)))
            found.push_back({tuningDistance(tuning, anchor), tuning});
        }
  return closestFirst(found, anchor, limit);
}

double mlir::egg::tuningDistance(TuningAttr a, TuningAttr b) {
  auto steps = [](int64_t x, int64_t y) -> double {
    if (x == y)
      return 0;
    if (x <= 0 || y <= 0)
      return 4; // Tiled against untiled: a large change.
    return std::abs(std::log2(double(x)) - std::log2(double(y)));
  };
  auto lists = [&](ArrayRef<int64_t> x, ArrayRef<int64_t> y) {
    double d = 0;
    for (size_t i = 0; i < std::max(x.size(), y.size()); ++i)
      d += steps(i < x.size() ? x[i] : 0, i < y.size() ? y[i] : 0);
    return d;
  };
  // Without thread tiles (rows shared by lanes) the block size is free.
  double threads = a.getThread().empty() && b.getThread().empty()
                       ? steps(a.getNumThreads(), b.getNumThreads())
                       : 0;
  return lists(a.getBlock(), b.getBlock()) +
         lists(a.getThread(), b.getThread()) + lists(a.getWarp(), b.getWarp()) +
         lists(a.getReduction(), b.getReduction()) +
         // Stages count one per stage: a third stage is as large a change
         // as halving a tile (log steps would put it first in every
         // neighbourhood).
         double(std::abs(a.getPipeline() - b.getPipeline())) +
         steps(a.getVector(), b.getVector()) + threads +
         steps(a.getCluster(), b.getCluster()) +
         // Row steps in shared memory: half a step each, so that the
         // neighbours of a tuning try a few of them before other changes.
         0.5 * double(std::abs(a.getRowShared() - b.getRowShared())) +
         // Fragments ahead or not: half a step, as a copy engine.
         0.5 * double(std::abs(a.getFragmentsAhead() - b.getFragmentsAhead())) +
         (a.getCopy() != b.getCopy() ? 0.5 : 0);
}
