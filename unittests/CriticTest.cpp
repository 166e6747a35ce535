//===- CriticTest.cpp - The critic's register review ----------------------===//

#include "egg/Agents/Critic.h"
#include "ToolContext.h"
#include "egg/Agents/KernelWork.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Target/Limits.h"
#include "egg/Tune/SearchSpace.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

namespace {
/// A 2048 x 2048 x 128 bf16 product with an f32 result, as one kernel.
const char *kGemm = R"mlir(
  module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200",
      sm_count = 132, warp_size = 32, max_threads_per_block = 1024,
      shared_memory_per_block = 232448, registers_per_block = 65536,
      max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250,
      fp32_gflops = 51000, tensor_gflops = 790000>} {
    func.func @f(%a: tensor<2048x128xbf16>, %b: tensor<128x2048xbf16>) -> tensor<2048x2048xf32> {
      %r = egg.kernel @f_k0 ins(%a, %b : tensor<2048x128xbf16>, tensor<128x2048xbf16>) -> tensor<2048x2048xf32>
          attributes {structure = #egg.structure<gemm_direct>} {
      ^bb0(%x: tensor<2048x128xbf16>, %y: tensor<128x2048xbf16>):
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<2048x2048xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
        %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<2048x128xbf16>, tensor<128x2048xbf16>) outs(%f : tensor<2048x2048xf32>) {
        ^bb1(%p: bf16, %q: bf16, %acc: f32):
          %pf = arith.extf %p : bf16 to f32
          %qf = arith.extf %q : bf16 to f32
          %pq = arith.mulf %pf, %qf : f32
          %sum = arith.addf %acc, %pq : f32
          linalg.yield %sum : f32
        } -> tensor<2048x2048xf32>
        egg.yield %m : tensor<2048x2048xf32>
      }
      return %r : tensor<2048x2048xf32>
    }
  })mlir";

class CriticTest : public ::testing::Test {
protected:
  void SetUp() override {
    // The tiling models too: the critic reads the root op's loops.
    ctx = makeToolContext();
    module = parseSourceString<ModuleOp>(kGemm, ctx.get());
    ASSERT_TRUE(module);
    module->walk([&](KernelOp k) { kernel = k; });
    ASSERT_TRUE(kernel);
    target = cast<TargetAttr>((*module)->getAttr("egg.target"));
  }
  /// The critic's reasons against `tuning`, joined.
  std::string review(StringRef tuning) {
    auto attr = dyn_cast_or_null<TuningAttr>(parseAttribute(tuning, ctx.get()));
    EXPECT_TRUE(attr) << tuning.str();
    if (!attr)
      return "unparsed";
    return llvm::join(critique(kernel, kernel.getStructureAttr(), attr, target),
                      "; ");
  }
  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
  KernelOp kernel;
  TargetAttr target;
};
} // namespace

// The LLM's prompt states each lowering's rules with the limits its check
// enforces (one source: egg/Target/Limits.h).
TEST_F(CriticTest, PromptRulesQuoteTheLimitsTheChecksEnforce) {
  std::string rules = describeLoweringRules(kernel, kernel.getStructureAttr());
  EXPECT_NE(rules.find("Rules of the generic lowering"), std::string::npos);
  EXPECT_NE(rules.find("A matrix product may instead go through shared"),
            std::string::npos);
  EXPECT_NE(rules.find("at most " + std::to_string(kMaxThreadsPerBlock - 128) +
                       " computing threads"),
            std::string::npos)
      << rules;
  auto columns = cast<StructureAttr>(
      parseAttribute("#egg.structure<reduce_two_stage>", ctx.get()));
  EXPECT_NE(describeLoweringRules(kernel, columns)
                .find("at most " + std::to_string(kMaxThreadsPerBlock) + ";"),
            std::string::npos);
}

TEST_F(CriticTest, TensorCoreTilesAreJudgedByTheirShareOfTheWarpTile) {
  // The expert's wgmma tiling: 128 accumulators of 255 registers. (The
  // critic used to count the block tile, 32768, against every tensor-core
  // proposal.)
  EXPECT_EQ(review("#egg.tuning<threads = [128, 2, 1], block = [128, 256], "
                   "warp = [128, 128], reduction = [64], shared = [0, 1], "
                   "swizzle = xor128, vector = 8, copy = cp_async, "
                   "pipeline = 4, mma = wgmma>"),
            "");
  // With TMA the producer warpgroup lowers the cap to 168, and setmaxnreg
  // gives the computing threads 224.
  EXPECT_EQ(review("#egg.tuning<threads = [128, 2, 1], block = [128, 256], "
                   "warp = [128, 128], reduction = [64], shared = [0, 1], "
                   "swizzle = xor128, vector = 8, copy = tma, pipeline = 4, mma = wgmma>"),
            "");
  // FMA tiles: 16 threads along N read shared memory; the block's copies
  // are what coalesce, so no objection (the critic used to object to
  // every shared-memory FMA tiling).
  EXPECT_EQ(review("#egg.tuning<threads = [16, 16], block = [128, 128], "
                   "thread = [8, 8], reduction = [16], shared = [0, 1], "
                   "padding = 4, vector = 4, copy = cp_async, pipeline = 2>"),
            "");
  // mma.sync: a 32x32 warp tile is 32 accumulators per lane.
  EXPECT_EQ(review("#egg.tuning<threads = [32, 2, 2], block = [64, 64], "
                   "warp = [32, 32], reduction = [32], shared = [0, 1], "
                   "padding = 8, vector = 8, copy = cp_async, pipeline = 3, mma = mma_sync>"),
            "");
}

TEST_F(CriticTest, AccumulatorsBeyondTheLaunchsRegistersAreObjectedTo) {
  // Four warpgroups of 64x256 pieces: 128 accumulators, but 512 threads
  // leave each at most 128 registers.
  EXPECT_NE(review("#egg.tuning<threads = [128, 1, 4], block = [256, 256], "
                   "warp = [64, 256], reduction = [64], shared = [0, 1], "
                   "swizzle = xor128, vector = 8, copy = cp_async, "
                   "pipeline = 2, mma = wgmma>")
                .find("128 accumulators per thread leave too few of the 128 "
                      "registers each of 512 threads may use"),
            std::string::npos);
  // Three warpgroups of 64x224 pieces: 112 accumulators. With cp.async the
  // 384 threads have 168 registers each, too few; with TMA the producer's
  // setmaxnreg leaves the computing threads 152 (512 threads at 128 own
  // 65536: 128 x 56 + 384 x 152 fit), enough.
  EXPECT_NE(review("#egg.tuning<threads = [128, 3, 1], block = [64, 672], "
                   "warp = [64, 224], reduction = [64], shared = [0, 1], "
                   "swizzle = xor128, vector = 8, copy = cp_async, "
                   "pipeline = 2, mma = wgmma>")
                .find("112 accumulators per thread leave too few of the 168"),
            std::string::npos);
  EXPECT_EQ(review("#egg.tuning<threads = [128, 3, 1], block = [64, 672], "
                   "warp = [64, 224], reduction = [64], shared = [0, 1], "
                   "swizzle = xor128, vector = 8, copy = tma, pipeline = 2, mma = wgmma>")
                .find("accumulators per thread"),
            std::string::npos);
  // FMA tiles keep their rule: legal up to 128 accumulators, but slower
  // than 8x8 beyond 64 (docs/pipeline.md, "GEMM through shared memory").
  EXPECT_NE(review("#egg.tuning<threads = [8, 16], block = [128, 128], "
                   "thread = [16, 8], reduction = [16], shared = [0, 1], "
                   "padding = 4, vector = 4, copy = cp_async, pipeline = 2>")
                .find("a thread tile of 128 accumulators takes about 200 "
                      "registers and ran slower than 8x8"),
            std::string::npos);
}

TEST(GemmRegisterBudget, TheProducerGivesBackOnlyWhatTheBlockOwns) {
  // Without a producer every thread has ptxas's cap.
  EXPECT_EQ(gemmRegisterBudget(256, false).computing, 255);
  EXPECT_EQ(gemmRegisterBudget(512, false).computing, 128);
  // One computing warpgroup: 256 threads keep the cap, no split.
  EXPECT_FALSE(gemmRegisterBudget(128, true).split);
  // Two: 384 x 168 = 128 x 56 + 256 x 224.
  GemmRegisterBudget two = gemmRegisterBudget(256, true);
  EXPECT_TRUE(two.split);
  EXPECT_EQ(two.launchCap, 168);
  EXPECT_EQ(two.computing, 224);
  EXPECT_EQ(two.producerRegisters, 56);
  // Four: 640 threads at 96 own 61440; the computing threads get 104, not
  // the 112 the whole SM would allow.
  GemmRegisterBudget four = gemmRegisterBudget(512, true);
  EXPECT_EQ(four.launchCap, 96);
  EXPECT_EQ(four.computing, 104);
  EXPECT_LE(128 * four.producerRegisters + 512 * four.computing,
            640 * four.launchCap);
}

TEST_F(CriticTest, TheFloorOfAProductIsAtTheTensorCoreRate) {
  // A bf16 product may use tensor cores; an f32 one only where the module
  // allows TF32, and then at half the tensor rate (else the FMA rate).
  KernelWork work = measureWork(kernel);
  EXPECT_TRUE(work.tensorCores);
  EXPECT_FALSE(work.tf32);
  std::string f32 = llvm::join(llvm::split(kGemm, "bf16"), "f32");
  // The widening casts become f32 -> f32 extf, which the parser rejects:
  // drop them.
  for (const char *cast : {"%pf = arith.extf %p : f32 to f32\n",
                           "%qf = arith.extf %q : f32 to f32\n"}) {
    size_t at = f32.find(cast);
    ASSERT_NE(at, std::string::npos);
    f32.erase(at, strlen(cast));
  }
  size_t mul = f32.find("arith.mulf %pf, %qf");
  f32.replace(mul, strlen("arith.mulf %pf, %qf"), "arith.mulf %p, %q");
  for (bool allowed : {false, true}) {
    std::string text = f32;
    if (allowed)
      text.replace(text.find("module attributes {"),
                   strlen("module attributes {"),
                   "module attributes {egg.allow_tf32, ");
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, ctx.get());
    ASSERT_TRUE(m);
    KernelOp k;
    m->walk([&](KernelOp op) { k = op; });
    KernelWork w = measureWork(k);
    EXPECT_EQ(w.tensorCores, allowed);
    EXPECT_EQ(w.tf32, allowed);
    double computeMs = 1e3 * w.flops / (allowed ? 790000e9 / 2 : 51000e9);
    EXPECT_NEAR(rooflineFloorMs(w, target),
                std::max(computeMs, 1e3 * w.bytes / 4250e9), 1e-9);
  }
}

TEST(GemmTiles, PartialTilesCutTheLoopTheirRangeEndsIn) {
  // Loops 0 (M) and 1 (N) of a plain product, extents 1000 x 4096.
  SmallVector<int64_t> extents = {1000, 4096, 512};
  SmallVector<unsigned> m = {0};
  // Whole tiles: 128 does not divide 1000.
  EXPECT_FALSE(splitRowMajor(m, extents, 128).has_value());
  // Partial: a 128-row tile, the last one 1000 - 7 * 128 = 104 rows.
  EXPECT_EQ(splitRowMajor(m, extents, 128, /*partial=*/true),
            SmallVector<int64_t>{128});
  // A tile larger than the loop, up to twice it (M = 16 in 32 rows).
  SmallVector<int64_t> skinny = {16, 4096, 512};
  EXPECT_EQ(splitRowMajor(m, skinny, 32, /*partial=*/true),
            SmallVector<int64_t>{32});
  EXPECT_FALSE(splitRowMajor(m, skinny, 64, /*partial=*/true).has_value());
  // A group of several loops (a convolution's n, oh, ow): whole inner
  // loops and a part of the next, which may be cut (4 of 30 rows), but no
  // range across a row boundary (64 positions of 30-wide rows).
  SmallVector<int64_t> conv = {1, 30, 30, 64};
  SmallVector<unsigned> group = {0, 1, 2};
  EXPECT_FALSE(splitRowMajor(group, conv, 64, /*partial=*/true).has_value());
  EXPECT_EQ(splitRowMajor(group, conv, 60, /*partial=*/true),
            (SmallVector<int64_t>{1, 2, 30}));
  EXPECT_FALSE(splitRowMajor(group, conv, 120).has_value());
  EXPECT_EQ(splitRowMajor(group, conv, 120, /*partial=*/true),
            (SmallVector<int64_t>{1, 4, 30}));
  // The largest such range up to a wanted size, and the tiles it takes
  // (8 along oh, the last holding 2 rows).
  EXPECT_EQ(fitRowMajor(group, conv, 128, /*partial=*/true), 120);
  EXPECT_EQ(fitRowMajor(group, conv, 128), 90);
  EXPECT_EQ(rowMajorTileCount(group, conv, 120, /*partial=*/true), 8);
  // 508 x 250 outputs of batch 8: 128 of 250 columns, two tiles per row.
  SmallVector<int64_t> wide = {8, 508, 250, 128};
  EXPECT_EQ(splitRowMajor(group, wide, 128, /*partial=*/true),
            (SmallVector<int64_t>{1, 1, 128}));
  EXPECT_EQ(rowMajorTileCount(group, wide, 128, /*partial=*/true), 8 * 508 * 2);
  // With `overhang`, the innermost loop takes a tile past its end, up to
  // twice its extent (warpgroup MMA's 64 rows over a 62-wide output row).
  SmallVector<int64_t> narrow = {16, 62, 62, 64};
  EXPECT_FALSE(splitRowMajor(group, narrow, 64, /*partial=*/true).has_value());
  EXPECT_EQ(splitRowMajor(group, narrow, 64, /*partial=*/true,
                          /*overhang=*/true),
            (SmallVector<int64_t>{1, 1, 64}));
  EXPECT_EQ(rowMajorTileCount(group, narrow, 64, /*partial=*/true,
                              /*overhang=*/true),
            16 * 62);
  EXPECT_FALSE(splitRowMajor(group, narrow, 128, /*partial=*/true,
                             /*overhang=*/true)
                   .has_value());
  // Whole rows still come first: 124 positions are two of them.
  EXPECT_EQ(splitRowMajor(group, narrow, 124, /*partial=*/true,
                          /*overhang=*/true),
            (SmallVector<int64_t>{1, 2, 62}));
}

// Search neighbourhoods (enumerateColumnTunings): a cluster is a change of
// the tuning like a tile's, one step per doubling, so clustered variants
// rank after the same tiling without one.
TEST(TuningDistance, ClustersCountOneStepPerDoubling) {
  std::unique_ptr<MLIRContext> owned = makeToolContext();
  MLIRContext &ctx = *owned;
  auto parse = [&](StringRef text) {
    return cast<TuningAttr>(parseAttribute(text, &ctx));
  };
  TuningAttr whole =
      parse("#egg.tuning<threads = [8, 64], block = [32], vector = 4>");
  TuningAttr two = parse(
      "#egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 2>");
  TuningAttr four = parse(
      "#egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 4>");
  EXPECT_EQ(tuningDistance(whole, whole), 0);
  EXPECT_DOUBLE_EQ(tuningDistance(two, whole), 1);
  EXPECT_DOUBLE_EQ(tuningDistance(four, whole), 2);
  EXPECT_DOUBLE_EQ(tuningDistance(four, two), 1);
}

// Held row steps in shared memory count half a step each, so that a
// search around a block-per-row tuning tries a few counts before it
// changes the block size.
TEST(TuningDistance, RowSharedCountsHalfAStepPerRowStep) {
  std::unique_ptr<MLIRContext> owned = makeToolContext();
  MLIRContext &ctx = *owned;
  auto parse = [&](StringRef text) {
    return cast<TuningAttr>(parseAttribute(text, &ctx));
  };
  TuningAttr regs =
      parse("#egg.tuning<threads = [1024], block = [1, 0], vector = 4>");
  TuningAttr six = parse("#egg.tuning<threads = [1024], block = [1, 0], "
                         "vector = 4, row_shared = 6>");
  TuningAttr half = parse("#egg.tuning<threads = [512], block = [1, 0], "
                          "vector = 4, row_shared = 6>");
  EXPECT_EQ(six.getRowShared(), 6);
  EXPECT_DOUBLE_EQ(tuningDistance(six, regs), 3);
  EXPECT_DOUBLE_EQ(tuningDistance(half, six), 1);
}

/// Rows of 65536 that a reduction's producer reads whole: a block per row
/// is all the structure allows, so 32 rows leave SMs idle whatever the
/// tiles, and the critic does not object to the expert's own choice.
TEST(CriticOccupancy, FewRowsReducedByProducersAreNotObjectedTo) {
  const char *rows = R"mlir(
  module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200",
      sm_count = 132, warp_size = 32, max_threads_per_block = 1024,
      shared_memory_per_block = 232448, registers_per_block = 65536,
      max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250,
      fp32_gflops = 51000, tensor_gflops = 790000>} {
    func.func @g(%a: tensor<32x65536xf32>) -> tensor<32x65536xf32> {
      %r = egg.kernel @g_k0 ins(%a : tensor<32x65536xf32>) -> tensor<32x65536xf32>
          attributes {structure = #egg.structure<reduce_row_per_block>} {
      ^bb0(%x: tensor<32x65536xf32>):
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
        %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x65536xf32>) outs(%f : tensor<32xf32>) {
        ^bb1(%v: f32, %acc: f32):
          %y = arith.addf %acc, %v : f32
          linalg.yield %y : f32
        } -> tensor<32xf32>
        %e2 = tensor.empty() : tensor<32x65536xf32>
        %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<32x65536xf32>, tensor<32xf32>) outs(%e2 : tensor<32x65536xf32>) {
        ^bb1(%v: f32, %m: f32, %out: f32):
          %y = arith.subf %v, %m : f32
          linalg.yield %y : f32
        } -> tensor<32x65536xf32>
        egg.yield %o : tensor<32x65536xf32>
      }
      return %r : tensor<32x65536xf32>
    }
  })mlir";
  std::unique_ptr<MLIRContext> owned = makeToolContext();
  MLIRContext &ctx = *owned;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(rows, &ctx);
  ASSERT_TRUE(module);
  KernelOp kernel;
  module->walk([&](KernelOp k) { kernel = k; });
  auto target = cast<TargetAttr>((*module)->getAttr("egg.target"));
  auto tuning = [&](StringRef text) {
    return cast<TuningAttr>(parseAttribute(text, &ctx));
  };
  // A block per row: as many blocks as the structure allows.
  EXPECT_EQ(llvm::join(critique(kernel, kernel.getStructureAttr(),
                                tuning("#egg.tuning<threads = [1024], block = "
                                       "[1, 0], vector = 4>"),
                                target),
                       "; "),
            "");
  // Four rows a block leave 8 blocks where 32 were possible.
  EXPECT_NE(llvm::join(critique(kernel, kernel.getStructureAttr(),
                                tuning("#egg.tuning<threads = [1024], block = "
                                       "[4, 0], vector = 4>"),
                                target),
                       "; ")
                .find("8 blocks leave most of the 132 SMs idle"),
            std::string::npos);
}
