//===- Tf32CopyTest.cpp - How TF32 tiles are filled -----------------------===//
//
// tf32CopyOf: an input contiguous along K copies in 16-byte pieces; one
// contiguous along M/N is staged and transposed in split products (whole
// pieces only) and copied an element at a time otherwise.
//
//===----------------------------------------------------------------------===//

#include "ToolContext.h"
#include "egg/Analysis/GemmAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::egg;

namespace {
class Tf32CopyTest : public ::testing::Test {
protected:
  void SetUp() override { ctx = makeToolContext(); }

  /// tf32CopyOf for both inputs of a product of `a` by `b` (M x K by K x
  /// N, or N x K for `bRows`), with and without the split.
  std::array<Tf32Copy, 4> classify(int64_t m, int64_t n, int64_t k,
                                   bool bRows) {
    auto dims = [](int64_t x, int64_t y) {
      return std::to_string(x) + "x" + std::to_string(y) + "xf32";
    };
    std::string types[] = {dims(m, k), bRows ? dims(n, k) : dims(k, n),
                           dims(m, n)};
    std::string src = R"mlir(
      func.func @f(%a: tensor<A>, %b: tensor<B>, %c: tensor<C>) -> tensor<C> {
        %m = linalg.generic {indexing_maps = [
            affine_map<(d0, d1, d2) -> (d0, d2)>,
            affine_map<(d0, d1, d2) -> MAP>,
            affine_map<(d0, d1, d2) -> (d0, d1)>],
            iterator_types = ["parallel", "parallel", "reduction"]}
            ins(%a, %b : tensor<A>, tensor<B>) outs(%c : tensor<C>) {
        ^bb0(%p: f32, %q: f32, %acc: f32):
          %pq = arith.mulf %p, %q : f32
          %s = arith.addf %acc, %pq : f32
          linalg.yield %s : f32
        } -> tensor<C>
        return %m : tensor<C>
      })mlir";
    auto replaceAll = [&](StringRef from, StringRef to) {
      for (size_t at = src.find(from); at != std::string::npos;
           at = src.find(from, at + to.size()))
        src.replace(at, from.size(), to.str());
    };
    replaceAll("tensor<A>", "tensor<" + types[0] + ">");
    replaceAll("tensor<B>", "tensor<" + types[1] + ">");
    replaceAll("tensor<C>", "tensor<" + types[2] + ">");
    replaceAll("MAP", bRows ? "(d1, d2)" : "(d2, d1)");
    module = parseSourceString<ModuleOp>(src, ctx.get());
    EXPECT_TRUE(module);
    linalg::GenericOp op;
    module->walk([&](linalg::GenericOp g) { op = g; });
    std::string why;
    FailureOr<GemmLoops> gemm = analyzeGemmLoops(op, why);
    EXPECT_TRUE(succeeded(gemm)) << why;
    return {tf32CopyOf(op, *gemm, gemm->lhs, 4, /*split=*/true),
            tf32CopyOf(op, *gemm, gemm->rhs, 4, /*split=*/true),
            tf32CopyOf(op, *gemm, gemm->lhs, 4, /*split=*/false),
            tf32CopyOf(op, *gemm, gemm->rhs, 4, /*split=*/false)};
  }

  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(Tf32CopyTest, LinearLayerCopiesPiecesAlongK) {
  auto [a, b, a1, b1] = classify(256, 512, 128, /*bRows=*/true);
  EXPECT_EQ(a, Tf32Copy::pieces);
  EXPECT_EQ(b, Tf32Copy::pieces);
  EXPECT_EQ(a1, Tf32Copy::pieces);
  EXPECT_EQ(b1, Tf32Copy::pieces);
}

TEST_F(Tf32CopyTest, RowMajorWeightIsStagedOnlyWhenSplit) {
  auto [a, b, a1, b1] = classify(256, 512, 128, /*bRows=*/false);
  EXPECT_EQ(a, Tf32Copy::pieces);
  EXPECT_EQ(b, Tf32Copy::transposed);
  EXPECT_EQ(b1, Tf32Copy::elements);
}

TEST_F(Tf32CopyTest, OddExtentsCopyElements) {
  // N = 1001: no 16-byte piece along N; K = 1001: none along K.
  auto [a, b, a1, b1] = classify(256, 1001, 128, /*bRows=*/false);
  EXPECT_EQ(b, Tf32Copy::elements);
  auto [c, d, c1, d1] = classify(256, 512, 1001, /*bRows=*/true);
  EXPECT_EQ(c, Tf32Copy::elements);
  EXPECT_EQ(d, Tf32Copy::elements);
}
