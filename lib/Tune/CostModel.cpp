//===- CostModel.cpp - Analytic kernel time estimates ---------------------===//
//
// Deliberately simple and documented (docs/egg-tune.md): it has to rank the
// candidates of one kernel sensibly without a GPU, not to predict times.
// Constants that are not in the target profile are named below with where
// they come from.
//
//===----------------------------------------------------------------------===//

#include "egg/Tune/CostModel.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Target/Limits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::egg;

namespace {
/// DRAM latency the bytes in flight must cover (Little's law); ~700 ns is
/// the loaded latency commonly measured on Hopper.
constexpr double kLatencySeconds = 700e-9;
constexpr int64_t kThreadsPerSm = kMaxThreadsPerSM,
                  kBlocksPerSm = kMaxBlocksPerSM;
/// Cache (L2 + L1) bandwidth relative to DRAM, for operand re-reads.
constexpr double kCacheOverDram = 3.0;
/// A warp whose lanes each walk their own row touches 32 rows per load: each
/// lane keeps about a 32-byte sector per load in flight (4 loads after
/// unrolling) and uses a quarter of what is fetched before it is evicted;
/// calibrated on the H200 row-wise kernels (1-5% of floor).
constexpr double kRowWalkBytesInFlight = 4 * 32, kRowWalkEfficiency = 0.25;
/// Launch and tail cost per kernel.
constexpr double kLaunchMs = 0.002;
} // namespace

KernelEstimate mlir::egg::estimateKernel(KernelOp kernel, TuningAttr tuning,
                                         TargetAttr target) {
  KernelEstimate est;
  est.work = measureWork(kernel);
  double bandwidth = double(target.getDramGbps()) * 1e9; // bytes/s
  // Tensor-core products (mma) run at the matrix rate; f32 ones
  // (TF32, measureWork) at half of it.
  bool tensorCores = isMmaGemm(tuning);
  double peak = peakFlops(target, tensorCores, est.work.tf32);
  est.floorMs = rooflineFloorMs(est.work, target);

  auto quiet = [&]() { return kernel.emitOpError(); };
  ScopedDiagnosticHandler silence(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, quiet);
  if (failed(loops) || !tuning) {
    est.timeMs = est.floorMs + kLaunchMs;
    est.limiter = "memory";
    return est;
  }

  // Parallelism: blocks, threads, residency, waves.
  int64_t threadsPerBlock = 1;
  for (int64_t n : tuning.getThreads())
    threadsPerBlock *= std::max<int64_t>(1, n);
  // A product split along K runs a block per tile and slice; the
  // workspace and the sum are counted at the end.
  StructureAttr structure = kernel.getStructureAttr();
  // Rows shared by a cluster: C blocks per column tile.
  double blocks = (structure ? double(structure.getSplitK()) : 1) *
                  double(tuning.getCluster());
  ArrayRef<int64_t> block = tuning.getBlock(), thread = tuning.getThread();
  for (auto [p, pos] : llvm::enumerate(loops->parallelPositions))
    if (p < block.size() && block[p] > 0)
      blocks *= double(llvm::divideCeil(loops->extents[pos], block[p]));
  int64_t residentBlocks = std::max<int64_t>(
      1, std::min(kBlocksPerSm, kThreadsPerSm / threadsPerBlock));
  // Shared-memory GEMM tiles also limit residency: `stages` K steps of
  // both operands' tiles (padding ignored) in the SM's shared memory.
  std::string notGemm;
  FailureOr<GemmLoops> gemm = failure();
  if (isSharedGemm(tuning) && tuning.getReduction().size() == 1)
    gemm = analyzeGemmLoops(kernel.getAnchorOp(), notGemm);
  if (succeeded(gemm)) {
    int64_t bm = 1, bn = 1;
    for (auto [p, pos] : llvm::enumerate(loops->parallelPositions)) {
      int64_t b = p < block.size() ? std::max<int64_t>(block[p], 1) : 1;
      if (llvm::is_contained(gemm->mLoops, pos))
        bm *= b;
      else if (llvm::is_contained(gemm->nLoops, pos))
        bn *= b;
    }
    auto anchor = cast<linalg::LinalgOp>(kernel.getAnchorOp());
    int64_t tileBytes = sharedGemmBytes(
        bm, bn, tuning.getReduction()[0], /*padding=*/0,
        std::max<int64_t>(1, tuning.getPipeline()),
        getElementTypeOrSelf(anchor.getDpsInputOperand(gemm->lhs)->get()),
        getElementTypeOrSelf(anchor.getDpsInputOperand(gemm->rhs)->get()),
        /*lhsKFast=*/false, /*rhsKFast=*/false);
    if (tileBytes > 0)
      residentBlocks = std::max<int64_t>(
          1, std::min<int64_t>(residentBlocks,
                               target.getSharedMemoryPerBlock() / tileBytes));
  }
  double concurrentBlocks = double(target.getSmCount() * residentBlocks);
  double waves = std::ceil(blocks / concurrentBlocks);
  double waveEfficiency =
      blocks >= concurrentBlocks ? blocks / (waves * concurrentBlocks) : 1.0;
  double activeThreads =
      std::min(blocks, concurrentBlocks) * double(threadsPerBlock);

  // Bytes each thread has in flight: one access per operand read.
  double elementBytes = 4;
  kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(t))
        elementBytes = std::min(
            elementBytes, double((shaped.getElementTypeBitWidth() + 7) / 8));
  });
  double operandsRead = std::max<size_t>(1, kernel.getInputs().size());
  double inFlight =
      activeThreads * double(tuning.getVector()) * elementBytes * operandsRead;
  double latencyEfficiency =
      std::min(1.0, inFlight / (bandwidth * kLatencySeconds));

  // Row-wise kernels whose threads each walk a contiguous row.
  KernelClass kind = classifyKernel(kernel);
  bool rowWise = kind == KernelClass::Reduction ||
                 kind == KernelClass::Normalization ||
                 kind == KernelClass::Softmax;
  // Rows shared by the lanes of a warp or block read coalesced, like maps.
  bool walksRows = false;
  if (rowWise && !loops->extents.empty() &&
      !isCooperativeRow(kernel.getStructureAttr())) {
    size_t last = loops->extents.size() - 1;
    walksRows = !loops->parallel[last] || loops->reducedByProducer[last];
  }
  double coalescing = walksRows ? kRowWalkEfficiency : 1.0;

  if (walksRows)
    latencyEfficiency = std::min(1.0, activeThreads * kRowWalkBytesInFlight /
                                          (bandwidth * kLatencySeconds));
  double memoryTime = est.work.bytes / (bandwidth * latencyEfficiency *
                                        coalescing * waveEfficiency);
  double computeTime =
      est.work.flops /
      (peak *
       std::min(1.0, activeThreads /
                         double(target.getSmCount() * kThreadsPerSm / 4)) *
       waveEfficiency);
  double cacheTime = 0;
  if (kind == KernelClass::Contraction || kind == KernelClass::Convolution) {
    // Operand elements re-read from cache per FMA: (tm + tn) / (tm * tn),
    // over the thread tile (or a tensor-core warp's tile).
    ArrayRef<int64_t> reuse = tensorCores ? tuning.getWarp() : thread;
    SmallVector<int64_t> tiles;
    for (size_t p = reuse.size(); p-- > 0 && tiles.size() < 2;)
      if (reuse[p] > 0)
        tiles.push_back(reuse[p]);
    double tm = tiles.size() > 0 ? tiles[0] : 1,
           tn = tiles.size() > 1 ? tiles[1] : 1;
    double rereads =
        (est.work.flops / 2) * elementBytes * (tm + tn) / (tm * tn);
    cacheTime = rereads / (kCacheOverDram * bandwidth * latencyEfficiency *
                           waveEfficiency);
  }
  double time = std::max({memoryTime, computeTime, cacheTime});
  est.limiter = time == memoryTime    ? "memory"
                : time == computeTime ? "compute"
                                      : "cache";
  est.timeMs = 1e3 * time + kLaunchMs;
  if (kLaunchMs > 1e3 * time)
    est.limiter = "launch";
  // A split product also writes its S partial results and a second
  // kernel reads them back: twice S results' bytes and a launch.
  if (structure && structure.getSplitK() > 1)
    if (auto result = dyn_cast<ShapedType>(
            kernel.getAnchorOp()->getResult(0).getType())) {
      double bytes = 2.0 * double(structure.getSplitK()) *
                     double(result.getNumElements()) *
                     double((result.getElementTypeBitWidth() + 7) / 8);
      est.timeMs += 1e3 * bytes / bandwidth + kLaunchMs;
    }
  return est;
}
