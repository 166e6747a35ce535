//===- ExpertSplits.cpp - The built-in expert: splits ---------------------===//

#include "ExpertAgent.h"
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
using namespace mlir::egg::expert;

StructureAttr ExpertAgent::chooseSplit(KernelOp kernel,
                                       ArrayRef<StructureAttr> legal,
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
      mulSat(llvm::divideCeil(GemmLoops::extent(gemm->mLoops, extents), 128),
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

StructureAttr ExpertAgent::chooseColumnSplit(KernelOp kernel,
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
  // body's own op; H200, 65536 x 256 f32 at 16 slices: each about 6x
  // faster than whole; principle 6 of structure.md).
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
  TuningAttr whole = tuningUnder(
      kernel,
      StructureAttr::get(kernel.getContext(), Formulation::reduce_two_stage, 1),
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
