//===- AnalysisTest.cpp - Kernel analysis queries --------------*- C++ -*-===//
//
// tiledLoops: which loops a block (or thread) tile list maps to grid (or
// block) dimensions, of which there are three.
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/KernelAnalysis.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

static RootLoops parallelLoops(ArrayRef<int64_t> extents) {
  RootLoops loops;
  for (auto [i, e] : llvm::enumerate(extents)) {
    loops.extents.push_back(e);
    loops.parallel.push_back(true);
    loops.parallelPositions.push_back(i);
    loops.reducedByProducer.push_back(false);
  }
  return loops;
}

TEST(TiledLoops, ThreeOrFewerTilesStayAsGiven) {
  RootLoops loops = parallelLoops({10, 16, 224});
  SmallVector<bool> tiled = tiledLoops(loops, loops.extents, {1, 16, 32});
  EXPECT_EQ(tiled, SmallVector<bool>({true, true, true}));
}

TEST(TiledLoops, WholeTilesDropFirst) {
  // n, f, oh, ow: f's tile is its whole extent.
  RootLoops loops = parallelLoops({10, 64, 224, 224});
  SmallVector<bool> tiled =
      tiledLoops(loops, loops.extents, {1, 64, 1, 32});
  EXPECT_EQ(tiled, SmallVector<bool>({true, false, true, true}));
}

TEST(TiledLoops, TilesBeyondTheExtentDropWhereWholeOnesAreNotEnough) {
  // A partial GEMM tile of 32 on 16 output channels is one tile too.
  RootLoops loops = parallelLoops({10, 16, 224, 224});
  SmallVector<bool> tiled =
      tiledLoops(loops, loops.extents, {1, 32, 1, 32});
  EXPECT_EQ(tiled, SmallVector<bool>({true, false, true, true}));
}
