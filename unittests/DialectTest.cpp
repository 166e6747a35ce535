//===- DialectTest.cpp - Unit tests of the egg attributes -----------------===//
//
// What lit cannot say directly: the C++ API of the attributes (getChecked
// rejecting values with the verifier's message, derived quantities) and the
// shared-memory estimate on concrete anchors.
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Target/Profiles.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

namespace {
class EggDialectTest : public ::testing::Test {
protected:
  EggDialectTest() {
    DialectRegistry registry;
    registerToolExtensions(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Builds a tuning through getChecked; returns null and the message on
  /// failure.
  TuningAttr tuning(ArrayRef<int64_t> threads, ArrayRef<int64_t> block,
                    ArrayRef<int64_t> warp, ArrayRef<int64_t> shared,
                    int64_t vector, CopyEngine copy, int64_t pipeline,
                    std::string &message) {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    auto emitLoc = [&]() { return emitError(UnknownLoc::get(&ctx)); };
    return TuningBuilder(&ctx)
        .threads(threads)
        .block(block)
        .warp(warp)
        .mma(!warp.empty() && !shared.empty() ? MmaKind::mma_sync
                                              : MmaKind::fma)
        .reduction({32})
        .shared(shared)
        .vector(vector)
        .copy(copy)
        .pipeline(pipeline)
        .getChecked(function_ref<InFlightDiagnostic()>(emitLoc));
  }

  MLIRContext ctx;
};

TEST_F(EggDialectTest, BuiltinProfilesVerifyAndKnowTheirChip) {
  for (StringRef chip : getBuiltinTargetChips()) {
    TargetAttr target = getBuiltinTarget(&ctx, chip);
    ASSERT_TRUE(target) << chip.str();
    EXPECT_EQ(target.getChip(), chip);
  }
  TargetAttr hopper = getBuiltinTarget(&ctx, "sm_90a");
  EXPECT_EQ(hopper.getSmVersion(), 90);
  EXPECT_TRUE(hopper.hasArchSpecificFeatures());
  EXPECT_FALSE(getBuiltinTarget(&ctx, "sm_90").hasArchSpecificFeatures());
  EXPECT_EQ(hopper.getSmCount(), 132);
  EXPECT_FALSE(getBuiltinTarget(&ctx, "sm_99"));
}

TEST_F(EggDialectTest, TuningCountsThreadsAndAcceptsAConsistentChoice) {
  std::string message;
  TuningAttr t = tuning({64, 2}, {128, 128}, {64, 64}, {0, 1}, 4,
                        CopyEngine::cp_async, 3, message);
  ASSERT_TRUE(t) << message;
  EXPECT_EQ(t.getNumThreads(), 128);
  EXPECT_EQ(t.getPipeline(), 3);
}

TEST_F(EggDialectTest, TuningBuilderNamesTheFieldsItSets) {
  std::string message;
  TuningAttr positional = tuning({64, 2}, {128, 128}, {64, 64}, {0, 1}, 4,
                                 CopyEngine::cp_async, 3, message);
  ASSERT_TRUE(positional) << message;
  TuningAttr built = TuningBuilder(&ctx)
                         .threads({64, 2})
                         .block({128, 128})
                         .warp({64, 64})
                         .mma(MmaKind::mma_sync)
                         .reduction({32})
                         .shared({0, 1})
                         .vector(4)
                         .copy(CopyEngine::cp_async)
                         .pipeline(3)
                         .get();
  EXPECT_EQ(built, positional);
  // Starting from a tuning keeps every field; a setter changes one.
  TuningAttr deeper = TuningBuilder(positional).pipeline(4).get();
  EXPECT_EQ(deeper.getPipeline(), 4);
  EXPECT_EQ(TuningBuilder(deeper).pipeline(3).get(), positional);
  // getChecked reports the verifier's message instead of building.
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  auto emitLoc = [&]() { return emitError(UnknownLoc::get(&ctx)); };
  EXPECT_FALSE(TuningBuilder(positional).threads({256}).getChecked(emitLoc));
  EXPECT_NE(message.find("warp"), std::string::npos) << message;
}

TEST_F(EggDialectTest, TuningRejectsWarpCountMismatch) {
  std::string message;
  // 128x128 / 64x64 = 4 warps, but 256 threads are 8 warps.
  EXPECT_FALSE(
      tuning({256}, {128, 128}, {64, 64}, {}, 1, CopyEngine::sync, 1, message));
  EXPECT_NE(message.find("give 4 warps"), std::string::npos) << message;
}

TEST_F(EggDialectTest, TuningStatesWhichUnitsMultiply) {
  std::string message;
  auto check = [&](TuningBuilder builder) {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    auto emitLoc = [&]() { return emitError(UnknownLoc::get(&ctx)); };
    return builder.getChecked(function_ref<InFlightDiagnostic()>(emitLoc));
  };
  TuningBuilder gemm = TuningBuilder(&ctx)
                           .threads({32, 2, 2})
                           .block({128, 128})
                           .warp({64, 64})
                           .reduction({32})
                           .shared({0, 1});
  // A warp tile without thread tile must say which tensor cores take it.
  EXPECT_FALSE(check(gemm));
  EXPECT_NE(message.find("set mma"), std::string::npos) << message;
  TuningAttr sync = check(TuningBuilder(gemm).mma(MmaKind::mma_sync));
  ASSERT_TRUE(sync) << message;
  EXPECT_TRUE(isMmaGemm(sync));
  EXPECT_FALSE(isWgmmaGemm(sync));
  // wgmma lays threads out as warpgroups; mma_sync as warps.
  EXPECT_FALSE(check(TuningBuilder(gemm).mma(MmaKind::wgmma)));
  EXPECT_NE(message.find("threads = [128, N, M]"), std::string::npos)
      << message;
  TuningAttr group = check(TuningBuilder(gemm)
                               .threads({128, 1, 2})
                               .warp({64, 128})
                               .swizzle(Swizzle::xor128)
                               .mma(MmaKind::wgmma));
  ASSERT_TRUE(group) << message;
  EXPECT_TRUE(isWgmmaGemm(group));
  EXPECT_FALSE(
      check(TuningBuilder(gemm).threads({128, 1, 2}).mma(MmaKind::mma_sync)));
  // Tensor cores own warp tiles: no thread tile, and an operand in shared
  // memory.
  EXPECT_FALSE(
      check(TuningBuilder(sync).thread({8, 8}).mma(MmaKind::mma_sync)));
  EXPECT_FALSE(check(TuningBuilder(sync).shared({}).mma(MmaKind::mma_sync)));
  EXPECT_NE(message.find("needs an operand in shared memory"),
            std::string::npos)
      << message;
}

TEST_F(EggDialectTest, TuningRejectsPipelineWithoutAsyncCopy) {
  std::string message;
  EXPECT_FALSE(tuning({128}, {64}, {}, {0}, 4, CopyEngine::sync, 2, message));
  EXPECT_NE(message.find("asynchronous copy"), std::string::npos) << message;
}

TEST_F(EggDialectTest, SharedMemoryEstimateOfAMatmulTile) {
  const char *ir = R"mlir(
    func.func @mm(%a: tensor<256x512xf16>, %b: tensor<512x128xf16>,
                  %c: tensor<256x128xf32>) -> tensor<256x128xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<256x512xf16>, tensor<512x128xf16>)
                         outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
      return %r : tensor<256x128xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module);
  Operation *matmul = nullptr;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "linalg.matmul")
      matmul = op;
  });
  ASSERT_TRUE(matmul);
  std::string message;
  TuningAttr t =
      tuning({128}, {128, 64}, {}, {0, 1}, 8, CopyEngine::cp_async, 2, message);
  ASSERT_TRUE(t) << message;
  FailureOr<int64_t> bytes = estimateSharedMemoryBytes(
      matmul, t, [&]() { return emitError(matmul->getLoc()); });
  ASSERT_TRUE(succeeded(bytes));
  // A: 128x32 f16, B: 32x64 f16, double-buffered.
  EXPECT_EQ(*bytes, (128 * 32 + 32 * 64) * 2 * 2);
}
} // namespace
