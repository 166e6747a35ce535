//===- ExpertAgent.cpp - The built-in expert ------------------------------===//
//
// Implements docs/principles/structure.md and docs/principles/tuning.md for
// the generic lowering. Every rule here has its reason in those files.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/LegalSpace.h"

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

namespace {
class ExpertAgent : public Agent {
public:
  StringRef getName() const override { return "expert"; }

  FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) override {
    // The legal set is ordered best first by the principles.
    if (legal.empty())
      return kernel.emitOpError("has no structure the compiler can build");
    return legal.front();
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel,
                                     TargetAttr target) override {
    auto emitError = [&]() { return kernel.emitOpError(); };
    FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
    if (failed(loops))
      return failure();
    KernelClass kind = classifyKernel(kernel);
    size_t numParallel = loops->parallelPositions.size();
    SmallVector<int64_t> block(numParallel, 0), thread(numParallel, 0);
    SmallVector<int64_t> extents = llvm::map_to_vector(
        loops->parallelPositions, [&](unsigned pos) { return loops->extents[pos]; });
    auto locked = [&](size_t p) {
      return loops->reducedByProducer[loops->parallelPositions[p]];
    };

    // Tiled loops, innermost first, at most three (a grid has 3 dims).
    SmallVector<size_t> tiled;
    for (size_t p = numParallel; p-- > 0 && tiled.size() < 3;)
      if (!locked(p))
        tiled.push_back(p);

    if (kind == KernelClass::Contraction && tiled.size() >= 2) {
      // Output tile per block, a small register tile per thread: each
      // operand element loaded feeds several FMAs.
      for (auto [i, p] : llvm::enumerate(tiled)) {
        int64_t want = i < 2 ? 64 : 1;
        block[p] = largestDivisorAtMost(extents[p], want);
        thread[p] = i < 2 ? largestDivisorAtMost(block[p], 4) : 1;
      }
    } else {
      // One element (or one row) per thread; a block of 256 threads for
      // maps, 128 for row-wise kernels whose threads each walk a row.
      bool rowWise = kind == KernelClass::Reduction ||
                     kind == KernelClass::Normalization ||
                     kind == KernelClass::Softmax;
      int64_t budget = rowWise ? 128 : 256;
      for (size_t p : tiled) {
        block[p] = largestDivisorAtMost(extents[p], budget);
        thread[p] = 1;
        budget = std::max<int64_t>(1, budget / block[p]);
      }
    }

    // At least two blocks per SM when the problem allows: shrink the
    // innermost block tile while it stays a multiple of a warp.
    if (!tiled.empty()) {
      size_t inner = tiled.front();
      auto numBlocks = [&]() {
        int64_t n = 1;
        for (size_t p = 0; p < numParallel; ++p)
          if (block[p])
            n *= extents[p] / block[p];
        return n;
      };
      while (numBlocks() < 2 * target.getSmCount() && block[inner] % 2 == 0 &&
             block[inner] / 2 >= 32 && block[inner] / 2 >= thread[inner] &&
             (block[inner] / 2) % thread[inner] == 0)
        block[inner] /= 2;
    }

    SmallVector<int64_t> threads = impliedThreads(*loops, block, thread);
    while (threads.size() > 1 && threads.back() == 1)
      threads.pop_back();
    TuningAttr tuning = TuningAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), kernel.getContext(),
        ArrayRef<int64_t>(threads), ArrayRef<int64_t>(block),
        ArrayRef<int64_t>{}, ArrayRef<int64_t>(thread), ArrayRef<int64_t>{}, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
        int64_t(0), Swizzle::none, int64_t(1), CopyEngine::sync, int64_t(1));
    if (!tuning || failed(checkLowerable(kernel, tuning, emitError)))
      return failure();
    return tuning;
  }
};
} // namespace

std::unique_ptr<Agent> mlir::egg::createExpertAgent() {
  return std::make_unique<ExpertAgent>();
}
