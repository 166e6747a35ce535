//===- ExpertAgent.cpp - The built-in expert ------------------------------===//
//
// Implements docs/principles/structure.md and docs/principles/tuning.md for
// the generic lowering. Every rule here has its reason in those files.
//
//===----------------------------------------------------------------------===//

#include "ExpertAgent.h"
#include "egg/Agents/Agent.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-expert"

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::expert;

/// Most outputs a direct convolution's thread takes along a loop whose
/// neighbouring outputs share inputs: 8 rows of a 3x3 window load 30
/// values for 72 products, and the tile stays well within registers.
static constexpr int64_t kOutputsPerThread = 8;

Agent::~Agent() = default;

FailureOr<StructureAttr>
ExpertAgent::chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) {
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
    // flight than a warp per row's 0.48 waves (H200: matvec_bf16 10%
    // faster; rows of 1500 the same either way; principle 5 of
    // structure.md).
    bool multiPass =
        succeeded(loops) && llvm::is_contained(loops->reducedByProducer, true);
    if ((multiPass && *row >= 2048) || (!multiPass && *row >= 4096) ||
        (rows < 16 * target.getSmCount() && *row >= 1024)) {
      EXPERT_TRACE(kernel, "a block per row: rows of " << *row << ", " << rows
                                                       << " rows");
      return StructureAttr::get(kernel.getContext(),
                                Formulation::reduce_row_per_block, 1);
    }
  }
  // Convolutions: an implicit GEMM (principle 6 of structure.md) where
  // the GEMM lowering can tile it, else the direct loop nest.
  if (has(Formulation::conv_implicit_gemm)) {
    auto implicit = StructureAttr::get(kernel.getContext(),
                                       Formulation::conv_implicit_gemm, 1);
    bool tiles = target && succeeded(chooseGemm(kernel, implicit, target));
    EXPERT_TRACE(kernel, "convolution: the GEMM lowering "
                             << (tiles ? "tiles" : "cannot tile")
                             << " it as an implicit GEMM");
    if (tiles)
      return implicit;
    return StructureAttr::get(kernel.getContext(), Formulation::conv_direct, 1);
  }
  if (target)
    if (StructureAttr split = chooseSplit(kernel, legal, target)) {
      EXPERT_TRACE(kernel, "split-K: " << split);
      return split;
    }
  if (target && has(Formulation::reduce_two_stage))
    if (StructureAttr split = chooseColumnSplit(kernel, legal, target)) {
      EXPERT_TRACE(kernel, "column split: " << split);
      return split;
    }
  EXPERT_TRACE(kernel, "the first legal structure of " << legal.size());
  return legal.front();
}

FailureOr<TuningAttr> ExpertAgent::chooseTuning(KernelOp kernel,
                                                StructureAttr structure,
                                                TargetAttr target) {
  EXPERT_TRACE(kernel, "tuning for "
                           << structure << " ("
                           << stringifyKernelClass(classifyKernel(kernel))
                           << ")");
  if (isCooperativeRow(structure))
    return chooseRow(kernel, structure);
  // A split kernel: the partial results' tuning, less the slice loop.
  if (structure.isSplit()) {
    bool product = structure.getFormulation() == Formulation::gemm_split_k;
    TuningAttr chosen;
    if (failed(withSplitCopy(
            kernel, structure, TuningAttr(), [&](SplitKernels split) {
              StructureAttr partialStructure = split.partial.getStructureAttr();
              FailureOr<TuningAttr> partial =
                  product
                      ? chooseGemm(split.partial, partialStructure, target,
                                   /*splitPartial=*/true)
                      : chooseColumns(split.partial, partialStructure, target);
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
  if (structure.getFormulation() == Formulation::reduce_two_stage)
    return chooseColumns(kernel, structure, target);
  if (structure.getFormulation() == Formulation::scan_warp)
    return chooseScan(kernel, structure, target);
  if (structure.getFormulation() == Formulation::recurrence_block)
    return chooseRecurrence(kernel, structure);
  // Widest accesses first (16 bytes per thread, principle 7); if the
  // kernel cannot take them, the same choice with scalar accesses.
  if (classifyKernel(kernel) == KernelClass::Contraction) {
    FailureOr<TuningAttr> gemm = chooseGemm(kernel, structure, target);
    if (succeeded(gemm))
      return gemm;
  }
  if (structure.getFormulation() == Formulation::conv_implicit_gemm) {
    FailureOr<TuningAttr> gemm = chooseGemm(kernel, structure, target);
    if (failed(gemm))
      return kernel.emitOpError("the expert found no implicit-GEMM tiling "
                                "for this convolution (the M and N loops "
                                "do not split into its tiles): choose "
                                "conv_direct");
    return gemm;
  }
  if (classifyKernel(kernel) == KernelClass::Elementwise) {
    FailureOr<TuningAttr> staged = chooseStagedMap(kernel, structure);
    if (succeeded(staged)) {
      EXPERT_TRACE(kernel, "inputs staged through shared memory");
      return staged;
    }
    int64_t vector = std::max<int64_t>(1, 128 / widestElementBits(kernel));
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<TuningAttr> wide = choose(kernel, structure, target, vector);
    if (succeeded(wide))
      return wide;
    EXPERT_TRACE(kernel, "no " << vector << "-wide accesses: scalar ones");
  }
  return choose(kernel, structure, target, 1);
}

SmallVector<TuningAttr> ExpertAgent::alternativeTunings(KernelOp kernel,
                                                        StructureAttr structure,
                                                        TargetAttr target) {
  Formulation formulation = structure.getFormulation();
  if (formulation != Formulation::gemm_direct &&
      formulation != Formulation::conv_implicit_gemm)
    return {};
  TuningAttr chosen = tuningUnder(kernel, structure, target);
  if (!chosen || !isSharedGemm(chosen) || isMmaGemm(chosen))
    return {};
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<TuningAttr> split =
      chooseWgmma(kernel, structure, target, /*splitPartial=*/false,
                  /*elementCopies=*/true);
  if (failed(split) || *split == chosen)
    return {};
  EXPERT_TRACE(kernel, "alternative: " << *split);
  return {*split};
}

TuningAttr ExpertAgent::tuningUnder(KernelOp kernel, StructureAttr structure,
                                    TargetAttr target) {
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<TuningAttr> tuning = chooseTuning(kernel, structure, target);
  return succeeded(tuning) ? *tuning : TuningAttr();
}

FailureOr<TuningAttr> ExpertAgent::choose(KernelOp kernel,
                                          StructureAttr structure,
                                          TargetAttr target, int64_t vector,
                                          bool spreadOverGrid) {
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
  // The loop along the result's contiguous dimension takes x, and the
  // thread loops come from the loops before it (threads map in loop
  // order); loops after it take the grid. A named op whose loops are not in
  // its result's order (depthwise_conv_2d_nchw_chw: n, oh, ow, c) otherwise
  // put consecutive threads on channels, a plane apart in memory.
  size_t top = numParallel;
  if (std::optional<size_t> fast = resultContiguousLoop(kernel, *loops);
      fast && !locked(*fast))
    top = *fast + 1;
  SmallVector<size_t> tiled, rest;
  for (size_t p = top; p-- > 0;)
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
  // A thread walks its untiled loops serially and keeps its temporaries (a
  // direct convolution's accumulators) for all of them: where those would
  // pass the per-thread limit, the longest untiled loop takes the place
  // of the shortest tiled one other than the innermost (5-D convolutions).
  int64_t elementBytes = widestElementBits(kernel) / 8;
  auto untiledBytes = [&]() {
    int64_t bytes = elementBytes;
    for (size_t p = 0; p < numParallel; ++p)
      if (!locked(p) && !llvm::is_contained(tiled, p))
        bytes = mulSat(bytes, extents[p]);
    return bytes;
  };
  while (tiled.size() > 1 && untiledBytes() > kMaxPrivateBytes) {
    std::optional<size_t> longest;
    for (size_t p = 0; p < top; ++p)
      if (!locked(p) && !llvm::is_contained(tiled, p) &&
          (!longest || extents[p] > extents[*longest]))
        longest = p;
    auto *shortest = std::min_element(
        std::next(tiled.begin()), tiled.end(),
        [&](size_t x, size_t y) { return extents[x] < extents[y]; });
    if (!longest || extents[*longest] <= extents[*shortest])
      break;
    EXPERT_TRACE(kernel, "loop " << *longest << " tiled instead of loop "
                                 << *shortest << ": per-thread temporaries");
    *shortest = *longest;
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
      // An innermost loop without a divisor of a warp or more (65537, a
      // prime) takes a partial last tile, scalar accesses: otherwise
      // consecutive threads go to an outer loop, a row apart in memory
      // (H100, a 1-D average pool to 64 x 128 x 65537: 0.29x eager with
      // threads along the channels; principle 3 of tuning.md).
      if (i == 0 && width == 1 && threadsHere < kWarpSize &&
          extents[p] > kWarpSize)
        threadsHere =
            std::min<int64_t>(cap, llvm::alignTo(extents[p], kWarpSize));
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

  // Loops no thread takes are spread over the grid, a block per index,
  // instead of being walked by every thread: an 8-loop copy (the phase
  // interleave of a strided transposed convolution) otherwise ran 2048
  // threads over 64 MB (principle 6 of tuning.md).
  bool spread = false;
  if (spreadOverGrid)
    for (size_t p = 0; p < numParallel; ++p)
      if (!locked(p) && !block[p] && extents[p] > 1) {
        block[p] = 1;
        spread = true;
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

  // A block's z dimension holds fewer threads than its x and y.
  if (tiled.size() == 3 && threadsAlong(tiled[2]) > kMaxBlockDims[2]) {
    size_t z = tiled[2];
    block[z] = largestDivisorAtMost(extents[z], kMaxBlockDims[2] * thread[z]);
    thread[z] = largestDivisorAtMost(block[z], thread[z]);
  }

  // A direct convolution or pool whose neighbouring outputs along an outer
  // tiled loop share inputs gives each thread a run of outputs along it (a
  // divisor of the loop, up to kOutputsPerThread): their loads are shared,
  // in registers (egg-unroll-private-tiles). With one output per thread a
  // 4x4 stride-1 max pool made 16 loads an output and kept its SMs busy
  // issuing (principle 12 of tuning.md). Only while the grid keeps every
  // SM's thread slots filled: a small convolution needs its threads more.
  if (structure.getFormulation() == Formulation::conv_direct && vector == 1 &&
      tiled.size() >= 2) {
    SmallVector<bool> overlapping = overlappingWindowLoops(kernel, *loops);
    int64_t outputs = 1;
    for (size_t p = 0; p < numParallel; ++p)
      outputs = mulSat(outputs, extents[p]);
    for (size_t p : llvm::drop_begin(tiled)) {
      if (overlapping.empty() || !overlapping[p] || thread[p] != 1)
        continue;
      int64_t run = largestDivisorAtMost(extents[p], kOutputsPerThread);
      if (run < 2 ||
          outputs / run < mulSat(target.getSmCount(), kMaxThreadsPerSM))
        continue;
      int64_t along = largestDivisorAtMost(extents[p] / run, threadsAlong(p));
      EXPERT_TRACE(kernel, run << " outputs per thread along loop " << p
                               << ": overlapping windows");
      block[p] = along * run;
      thread[p] = run;
      // Fewer than four warps left: the innermost loop takes more
      // threads, up to the block's limit (L1 42's 511-wide rows: 73
      // threads a block 3.48 ms, 511 threads 1.98 ms on the H100).
      size_t inner = tiled.front();
      if (threadCount() < kWarpSchedulersPerSM * kWarpSize &&
          thread[inner] == 1) {
        int64_t others = threadCount() / threadsAlong(inner);
        block[inner] = largestDivisorAtMost(
            extents[inner], target.getMaxThreadsPerBlock() / others);
      }
      break;
    }
  }

  // A grid holds at most 65535 blocks along y and z (the second and third
  // tiled loops): a longer loop takes larger block tiles, with as many
  // threads along it as fit and the rest as a larger thread tile.
  for (size_t i = 1; i < tiled.size(); ++i) {
    size_t p = tiled[i];
    while (extents[p] / block[p] > kMaxGridDims[i]) {
      int64_t along = threadsAlong(p), next = block[p] + 1;
      while (extents[p] % next != 0)
        ++next;
      block[p] = next;
      if (threadCount() > target.getMaxThreadsPerBlock() ||
          threadsAlong(p) > kMaxBlockDims[i])
        thread[p] = block[p] % along == 0 ? block[p] / along : block[p];
    }
  }

  SmallVector<int64_t> threads = impliedThreads(*loops, block, thread);
  while (threads.size() > 1 && threads.back() == 1)
    threads.pop_back();
  TuningAttr tuning =
      TuningBuilder(kernel.getContext())
          .threads(threads)
          .block(block)
          .thread(thread)
          .vector(vector)
          .getChecked(function_ref<InFlightDiagnostic()>(emitError));
  if (spread) {
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (!tuning ||
        failed(checkLowerable(kernel, structure, tuning, emitError))) {
      EXPERT_TRACE(kernel, "untiled loops stay serial: the grid cannot "
                           "take them");
      return choose(kernel, structure, target, vector,
                    /*spreadOverGrid=*/false);
    }
    return tuning;
  }
  if (!tuning || failed(checkLowerable(kernel, structure, tuning, emitError)))
    return failure();
  return tuning;
}

std::unique_ptr<Agent> mlir::egg::createExpertAgent() {
  return std::make_unique<ExpertAgent>();
}
