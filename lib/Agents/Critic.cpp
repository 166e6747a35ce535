//===- Critic.cpp - Static review of a proposed decision ------------------===//

#include "egg/Agents/Critic.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Support/Saturating.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::egg;

std::vector<std::string> mlir::egg::critique(KernelOp kernel,
                                             StructureAttr structure,
                                             TuningAttr tuning,
                                             TargetAttr target) {
  std::vector<std::string> reasons;
  int64_t threads = tuning.getNumThreads();
  int64_t warp = target ? target.getWarpSize() : 32;
  if (threads % warp != 0)
    reasons.push_back(llvm::formatv("{0} threads per block is not a whole "
                                    "number of warps: the last warp runs "
                                    "partly idle",
                                    threads));
  FailureOr<RootLoops> loops =
      analyzeRootLoops(kernel, [&]() { return kernel.emitOpError(); });
  if (failed(loops) || loops->parallelPositions.empty())
    return reasons;

  // Coalescing: consecutive threads (x) should walk the innermost loop when
  // it is long enough to fill a warp.
  unsigned inner = loops->parallelPositions.back();
  int64_t innerExtent = loops->extents[inner];
  ArrayRef<int64_t> block = tuning.getBlock(), thread = tuning.getThread();
  size_t p = loops->parallelPositions.size() - 1;
  int64_t innerThread = p < thread.size() ? thread[p] : 0;
  int64_t innerBlock = p < block.size() ? block[p] : 0;
  bool rowWise = loops->reducedByProducer[inner];
  // (Shared-memory GEMM tiles read shared memory; their copies, which the
  // whole block shares, are what coalesce.)
  if (!rowWise && innerExtent >= warp && innerThread != 0 &&
      !isSharedGemm(tuning)) {
    int64_t x = (innerBlock ? innerBlock : innerExtent) / innerThread;
    if (x < warp)
      reasons.push_back(llvm::formatv(
          "only {0} threads walk the innermost loop (extent {1}): a warp's "
          "accesses are not coalesced; give threads.x at least {2}",
          x, innerExtent, warp));
  }

  // Occupancy: at least half the SMs busy when the problem allows it.
  // A product split along K runs a block per tile and slice. Judged against
  // the most blocks the structure allows: a row its producers reduce is
  // never split between blocks, so a few long rows cannot fill the GPU
  // whatever the tiles.
  int64_t blocks = structure ? structure.getSplitK() : 1;
  int64_t mostBlocks = blocks;
  for (auto [i, pos] : llvm::enumerate(loops->parallelPositions)) {
    if (i < block.size() && block[i] > 0)
      blocks = mulSat(blocks, llvm::divideCeil(loops->extents[pos], block[i]));
    if (!loops->reducedByProducer[pos])
      mostBlocks = mulSat(mostBlocks, loops->extents[pos]);
  }
  int64_t sms = target ? target.getSmCount() : 0;
  int64_t work = 1;
  for (unsigned pos : loops->parallelPositions)
    work = mulSat(work, loops->extents[pos]);
  if (sms && 2 * blocks < std::min(sms, mostBlocks) && work / threads >= sms)
    reasons.push_back(llvm::formatv("{0} blocks leave most of the {1} SMs "
                                    "idle: use smaller block tiles",
                                    blocks, sms));

  // Registers: tensor cores hold a thread's share of its warp's (or
  // warpgroup's) tile in registers, of which a launch of many threads
  // leaves each fewer. Addresses, descriptors and fragments need more:
  // measured on the H200's wgmma kernels, some 70 with cp.async (128
  // accumulators, 196-206 registers) and some 30 with TMA (128 in 154-168,
  // 64 in at most 96).
  if (isMmaGemm(tuning)) {
    bool tma = tuning.getCopy() == CopyEngine::tma;
    int64_t accumulators = gemmAccumulatorsPerThread(tuning);
    int64_t registers = gemmRegisterBudget(threads, tma).computing;
    if (accumulators + (tma ? 32 : 64) > registers)
      reasons.push_back(llvm::formatv(
          "{0} accumulators per thread leave too few of the {1} registers "
          "each of {2} threads may use: it will spill; use a smaller warp "
          "tile or fewer warps",
          accumulators, registers, threads));
    return reasons;
  }
  if (classifyKernel(kernel) != KernelClass::Contraction)
    return reasons;
  // FMA tiles: each thread keeps its whole tile of the outputs.
  int64_t tile = 1;
  for (auto [i, pos] : llvm::enumerate(loops->parallelPositions)) {
    int64_t t = i < thread.size() ? thread[i] : 0;
    int64_t b = i < block.size() ? block[i] : 0;
    tile = mulSat(tile, t ? t : (b ? b : loops->extents[pos]));
  }
  // Legal up to 128, but 8x16 / 16x8 tiles take about 200 registers (one
  // block per SM) and ran 5-10% slower than 8x8 on the H200
  // (docs/pipeline.md, "GEMM through shared memory").
  if (tile > 64)
    reasons.push_back(llvm::formatv(
        "a thread tile of {0} accumulators takes about 200 registers and ran "
        "slower than 8x8 on the H200",
        tile));
  return reasons;
}
