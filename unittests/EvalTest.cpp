//===- EvalTest.cpp - CPU side of egg-eval --------------------------------===//
//
// Manifest parsing, element conversions, the correctness verdict, timing
// statistics, roofline arithmetic and the float64 reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "egg/Eval/Check.h"
#include "egg/Eval/Inputs.h"
#include "egg/Eval/Manifest.h"
#include "egg/Eval/Reference.h"
#include "egg/Eval/ReferenceCache.h"
#include "egg/Support/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

using namespace mlir::egg::eval;

namespace {
const char *kManifest = R"json({
  "format": "egg-manifest", "version": 1,
  "target": "#egg.target<chip = \"sm_90a\", dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>",
  "modules": [{"name": "m", "ptx": "// ptx"}],
  "functions": [{
    "name": "f",
    "buffers": [
      {"id": 0, "role": "input", "arg": 0, "shape": [4, 8], "element_type": "f32", "bytes": 128},
      {"id": 1, "role": "output", "arg": 1, "shape": [4, 8], "element_type": "bf16", "bytes": 64},
      {"id": 2, "role": "temp", "shape": [4], "element_type": "f16", "bytes": 8}],
    "steps": [
      {"kind": "launch", "module": "m", "kernel": "k", "grid": [2, 1, 1], "block": [32, 1, 1],
       "shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 1}, {"scalar": "i64", "value": 7}]},
      {"kind": "copy", "src": 0, "dst": 0}]
  }]})json";

std::string errorOf(llvm::StringRef text) {
  llvm::Expected<Manifest> m = parseManifest(text);
  if (m)
    return "";
  return llvm::toString(m.takeError());
}

std::string replace(std::string s, const std::string &from,
                    const std::string &to) {
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}
} // namespace

TEST(ManifestTest, ParsesBuffersStepsAndTargetFigures) {
  llvm::Expected<Manifest> m = parseManifest(kManifest);
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->dramGbps, 4250);
  EXPECT_EQ(m->tensorGflops, 790000);
  const Function *f = m->findFunction("f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->inputs(), std::vector<int64_t>{0});
  EXPECT_EQ(f->outputs(), std::vector<int64_t>{1});
  EXPECT_EQ(f->buffers[1].elementType, ElementType::BF16);
  ASSERT_EQ(f->steps.size(), 2u);
  EXPECT_EQ(f->steps[0].grid[0], 2);
  EXPECT_FALSE(f->steps[0].args[2].isBuffer);
  EXPECT_EQ(f->steps[0].args[2].value, 7);
  EXPECT_EQ(f->steps[1].kind, Step::Kind::Copy);
  EXPECT_FALSE(m->allowTf32);
  EXPECT_FALSE(m->launchesTf32(*f));
}

TEST(ManifestTest, TellsWhatTf32WasAllowedAndWhatRan) {
  // Allowed, but the launched kernel computes in f32: judged as f32.
  std::string allowed = replace(kManifest, R"("version": 1,)",
                                R"("version": 1, "allow_tf32": true,)");
  llvm::Expected<Manifest> m = parseManifest(allowed);
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  EXPECT_TRUE(m->allowTf32);
  EXPECT_FALSE(m->launchesTf32(*m->findFunction("f")));
  // A kernel with wgmma's tf32 form ran.
  llvm::Expected<Manifest> t = parseManifest(
      replace(allowed, "// ptx",
              "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"));
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_TRUE(t->launchesTf32(*t->findFunction("f")));
}

TEST(ManifestTest, RejectsMalformedInputWithALocatedMessage) {
  EXPECT_NE(errorOf("{"), "");
  EXPECT_NE(errorOf(R"({"format": "other"})").find("not an egg-manifest"),
            std::string::npos);
  std::string m = kManifest;
  EXPECT_NE(errorOf(replace(m, "{\"buffer\": 1}", "{\"buffer\": 9}"))
                .find("functions[0].steps[0]: buffer 9 does not exist"),
            std::string::npos);
  EXPECT_NE(errorOf(replace(m, "\"bytes\": 64", "\"bytes\": 65"))
                .find("'bytes' does not match"),
            std::string::npos);
  EXPECT_NE(
      errorOf(replace(m, "\"block\": [32, 1, 1]", "\"block\": [2048, 1, 1]"))
          .find("more than 1024 threads"),
      std::string::npos);
  EXPECT_NE(errorOf(replace(m, "\"module\": \"m\"", "\"module\": \"x\""))
                .find("unknown module 'x'"),
            std::string::npos);
  EXPECT_NE(errorOf(replace(m, "\"element_type\": \"f16\"",
                            "\"element_type\": \"i8\""))
                .find("unsupported element type 'i8'"),
            std::string::npos);
  EXPECT_NE(errorOf(replace(m, "\"role\": \"output\"", "\"role\": \"input\""))
                .find("no output buffer"),
            std::string::npos);
  // Regression (found by fuzz-manifest-short): a shape whose size overflows
  // int64 is refused, not multiplied into undefined behaviour.
  EXPECT_NE(
      errorOf(replace(m, "\"shape\": [4], \"element_type\": \"f16\"",
                      "\"shape\": [9223372036854775807], "
                      "\"element_type\": \"f16\""))
          .find("functions[0].buffers[2]: the buffer's shape is too large"),
      std::string::npos);
  // Regression (fuzz-manifest-short): 2^63 written as a double
  // passes llvm::json's own integer range check; it is refused before the
  // conversion to int64_t, which would be undefined.
  EXPECT_NE(
      errorOf(replace(m, "\"bytes\": 64", "\"bytes\": 9223372036854775808.0"))
          .find("functions[0].buffers[1]: 'bytes' must be an integer"),
      std::string::npos);
}

TEST(JsonTest, DeepNestingIsRefusedBeforeParsing) {
  // 100,000 nested arrays overflowed llvm::json's recursive parser.
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  llvm::Expected<llvm::json::Value> parsed = mlir::egg::parseJson(deep);
  ASSERT_FALSE(static_cast<bool>(parsed));
  EXPECT_NE(llvm::toString(parsed.takeError()).find("nested deeper than 256"),
            std::string::npos);
  std::string deepManifest = "{\"functions\": " + deep + "}";
  EXPECT_NE(errorOf(deepManifest).find("nested deeper than 256"),
            std::string::npos);
  // Brackets inside strings do not count; the bound itself is accepted.
  EXPECT_TRUE(static_cast<bool>(
      mlir::egg::parseJson("{\"a\": \"" + std::string(1000, '[') + "\"}")));
  std::string edge = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(static_cast<bool>(mlir::egg::parseJson(edge)));
  EXPECT_FALSE(static_cast<bool>(mlir::egg::parseJson("[" + edge + "]")));
  EXPECT_EQ(mlir::egg::jsonDepth(R"({"a": [1, {"b": "\"]["}]})", 100), 3u);
}

TEST(ManifestTest, ParsesTensorMapArgumentsAndRejectsBadOnes) {
  std::string m = kManifest;
  std::string map = R"({"tensor_map": {"buffer": 0, "shape": [2, 16], )"
                    R"("box": [4, 8], "swizzle": "128B", )"
                    R"("l2_promotion": "256B"}})";
  llvm::Expected<Manifest> parsed =
      parseManifest(replace(m, "{\"buffer\": 0}", map));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const KernelArg &arg = parsed->findFunction("f")->steps[0].args[0];
  EXPECT_TRUE(arg.isTensorMap);
  EXPECT_FALSE(arg.isBuffer);
  EXPECT_EQ(arg.buffer, 0);
  EXPECT_EQ(arg.mapShape, (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(arg.box, (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(arg.l2Promotion256);
  auto withMap = [&](const std::string &text) {
    return errorOf(replace(m, "{\"buffer\": 0}", text));
  };
  EXPECT_NE(withMap(R"({"tensor_map": {"buffer": 5, "shape": [4, 8], )"
                    R"("box": [4, 8], "swizzle": "128B"}})")
                .find("buffer 5 does not exist"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"tensor_map": {"buffer": 0, "shape": [4, 8], )"
                    R"("box": [4, 512], "swizzle": "128B"}})")
                .find("needs a 'box' of two sizes in [1, 256]"),
            std::string::npos);
  EXPECT_NE(withMap(R"({"tensor_map": {"buffer": 0, "shape": [4, 8], )"
                    R"("box": [4, 8], "swizzle": "none"}})")
                .find("swizzle must be \"128B\""),
            std::string::npos);
  // The viewed shape must cover the buffer (4 x 8 f32) exactly.
  EXPECT_NE(withMap(R"({"tensor_map": {"buffer": 0, "shape": [4, 4], )"
                    R"("box": [4, 4], "swizzle": "128B"}})")
                .find("a 2-D 'shape' with as many elements as its buffer"),
            std::string::npos);
}

TEST(ManifestTest, TargetFiguresThatDoNotFitAreIgnored) {
  // Regression (found by fuzz/run.sh): a huge number in the target string
  // aborted the reader.
  std::string m = replace(kManifest, "tensor_gflops = 790000",
                          "tensor_gflops = 7555555555555555555555555555555");
  llvm::Expected<Manifest> parsed = parseManifest(m);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->tensorGflops, 0);
  EXPECT_EQ(parsed->dramGbps, 4250);
}

TEST(CheckTest, HalfAndBFloat16RoundTripAndRound) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(halfToFloat(floatToHalf(f)), f) << f;
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  // 1 + 2^-11 is halfway between two halves: ties to even (1.0).
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 1.0f / 2048)), 1.0f);
  for (float f : {0.0f, 1.0f, -3.0f, 1.5f})
    EXPECT_EQ(bfloat16ToFloat(floatToBFloat16(f)), f);
  EXPECT_EQ(bfloat16ToFloat(floatToBFloat16(1.00390625f)), 1.0f); // Tie.
  std::vector<double> v = {1.0 / 3, -7.25, 1e-3};
  EXPECT_EQ(decode(encode(v, ElementType::F64), ElementType::F64), v);
  std::vector<double> r = roundTo(v, ElementType::F32);
  EXPECT_EQ(r[0], double(float(1.0 / 3)));
}

TEST(CheckTest, PoisonIsCountedPerElement) {
  std::vector<uint8_t> bytes(8, kPoisonByte);
  bytes[0] = 0;
  EXPECT_EQ(countPoison(bytes, ElementType::F32), 1);
  EXPECT_EQ(countPoison(bytes, ElementType::F16), 3);
  EXPECT_TRUE(std::isnan(
      decode(std::vector<uint8_t>(4, kPoisonByte), ElementType::F32)[0]));
}

TEST(CheckTest, VerdictPassesCloseResultsAndFailsWrongOnes) {
  std::vector<double> ref = {1, -2, 3, 0.5};
  Tolerance f32 = toleranceFor(false);
  std::vector<double> close = {1 + 1e-7, -2, 3 - 1e-7, 0.5};
  EXPECT_TRUE(compare(close, ref, f32).pass);
  std::vector<double> wrong = {1, -2, 3.1, 0.5};
  Comparison c = compare(wrong, ref, f32);
  EXPECT_FALSE(c.pass);
  EXPECT_NE(c.reason.find("relative error"), std::string::npos);
  // The same difference passes the half-precision tolerance.
  std::vector<double> halfish = {1.001, -2, 3.002, 0.5};
  EXPECT_FALSE(compare(halfish, ref, f32).pass);
  EXPECT_TRUE(compare(halfish, ref, toleranceFor(true)).pass);
  // TF32 sits between: 1e-3 passes, 1e-2 does not.
  EXPECT_TRUE(compare(halfish, ref, toleranceFor(false, /*tf32=*/true)).pass);
  std::vector<double> tenth = {1.008, -2.016, 3.024, 0.5};
  EXPECT_FALSE(compare(tenth, ref, toleranceFor(false, true)).pass);
  EXPECT_TRUE(compare(tenth, ref, toleranceFor(true)).pass);
}

TEST(CheckTest, NonFiniteNeverPasses) {
  std::vector<double> ref = {1, 2};
  Comparison nan = compare({1, NAN}, ref, toleranceFor(true));
  EXPECT_FALSE(nan.pass);
  EXPECT_EQ(nan.nonFinite, 1);
  EXPECT_FALSE(compare({INFINITY, 2}, ref, toleranceFor(true)).pass);
  Comparison badRef = compare({1, 2}, {1, NAN}, toleranceFor(true));
  EXPECT_FALSE(badRef.pass);
  EXPECT_NE(badRef.reason.find("outside the function's domain"),
            std::string::npos);
}

TEST(CheckTest, ElementwiseBoundCatchesOneBadElementInALargeOutput) {
  std::vector<double> ref(100000, 1.0), out = ref;
  out[123] = 1.01; // Relative L2 is only ~3e-5 over the whole output...
  Comparison c = compare(out, ref, toleranceFor(false));
  EXPECT_FALSE(c.pass); // ...but the element is far outside its bound.
  EXPECT_EQ(c.firstBad, 123);
}

TEST(CheckTest, StatisticsAndAdaptiveRuns) {
  Stats s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.p10, 1.4, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);
  EXPECT_EQ(summarize({}).count, 0);
  EXPECT_EQ(adaptiveRuns(0.001), 2000);
  EXPECT_EQ(adaptiveRuns(3.0), 100);
  EXPECT_EQ(adaptiveRuns(100.0), 20);
}

TEST(CheckTest, RooflineFloors) {
  // 1 GB at 4000 GB/s is 0.25 ms; 1 TFLOP at 50000 GFLOP/s is 20 ms.
  Roofline r = roofline(1e12, 1e9, 4000, 50000);
  EXPECT_NEAR(r.memoryFloorMs, 0.25, 1e-12);
  EXPECT_NEAR(r.computeFloorMs, 20, 1e-9);
  EXPECT_STREQ(r.bound(), "compute");
  EXPECT_DOUBLE_EQ(r.floorMs(), r.computeFloorMs);
}

namespace {
std::vector<RefTensor> runReference(const char *source,
                                    std::vector<RefTensor> args,
                                    double *flops = nullptr) {
  auto ref = Reference::create(source, "");
  EXPECT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  if (!ref)
    return {};
  auto out = (*ref)->run(args, 2);
  EXPECT_TRUE(bool(out)) << llvm::toString(out.takeError());
  if (flops)
    *flops = (*ref)->flops();
  return out ? *out : std::vector<RefTensor>{};
}
} // namespace

TEST(ReferenceTest, MatmulWithFillAndBias) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %bias: tensor<2xf32>) -> tensor<2x2xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<2x2xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
      %bb = linalg.broadcast ins(%bias : tensor<2xf32>) outs(%e : tensor<2x2xf32>) dimensions = [0]
      %r = linalg.add ins(%m, %bb : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      return %r : tensor<2x2xf32>
    })mlir";
  double flops = 0;
  auto out = runReference(src,
                          {{{2, 3}, {1, 2, 3, 4, 5, 6}},
                           {{3, 2}, {7, 8, 9, 10, 11, 12}},
                           {{2}, {0.5, -1}}},
                          &flops);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, (std::vector<double>{58.5, 63, 139.5, 153}));
  // 2*2*3 multiply-adds (2 flops each) + 4 adds.
  EXPECT_DOUBLE_EQ(flops, 2 * 2 * 3 * 2 + 4);
  // Work known before running: fill 4 + matmul 12 + broadcast 4 + add 4.
  auto ref = Reference::create(src, "");
  ASSERT_TRUE(bool(ref));
  EXPECT_DOUBLE_EQ((*ref)->iterations(), 4 + 12 + 4 + 4);
  // Flops too, for timing without checking (egg-eval --trials=0).
  EXPECT_DOUBLE_EQ((*ref)->flops(), flops);
}

TEST(ReferenceTest, SoftmaxRowsSumToOne) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %e = tensor.empty() : tensor<2x4xf32>
      %r = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
      return %r : tensor<2x4xf32>
    })mlir";
  auto out = runReference(src, {{{2, 4}, {1, 2, 3, 4, 0, 0, 0, 0}}});
  ASSERT_EQ(out.size(), 1u);
  double z = std::exp(1) + std::exp(2) + std::exp(3) + std::exp(4);
  EXPECT_NEAR(out[0].data[0], std::exp(1) / z, 1e-15);
  EXPECT_NEAR(out[0].data[3], std::exp(4) / z, 1e-15);
  EXPECT_NEAR(out[0].data[5], 0.25, 1e-15);
}

TEST(ReferenceTest, PaddedStridedConvolution) {
  // 1x1x3x3 input, padding 1, 2x2 kernel of ones, stride 2: each output is
  // the sum of a 2x2 window of the padded input.
  const char *src = R"mlir(
    func.func @f(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
      %zero = arith.constant 0.0 : f32
      %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
      ^bb0(%i: index, %j: index, %k: index, %l: index):
        tensor.yield %zero : f32
      } : tensor<1x1x3x3xf32> to tensor<1x1x5x5xf32>
      %e = tensor.empty() : tensor<1x1x2x2xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
      %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
          ins(%p, %w : tensor<1x1x5x5xf32>, tensor<1x1x2x2xf32>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
      return %r : tensor<1x1x2x2xf32>
    })mlir";
  auto out = runReference(src, {{{1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}},
                                {{1, 1, 2, 2}, {1, 1, 1, 1}}});
  ASSERT_EQ(out.size(), 1u);
  // Windows at padded rows/cols (0,0), (0,2), (2,0), (2,2).
  EXPECT_EQ(out[0].data, (std::vector<double>{1, 2 + 3, 4 + 7, 5 + 6 + 8 + 9}));
}

TEST(ReferenceTest, ReportsUnsupportedOpsWithTheirName) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %s = tensor.insert_slice %x into %y[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
      return %s : tensor<4xf32>
    })mlir";
  auto ref = Reference::create(src, "");
  ASSERT_FALSE(bool(ref));
  EXPECT_NE(llvm::toString(ref.takeError())
                .find("unsupported op tensor.insert_slice"),
            std::string::npos);
}

// A static slice with strides and a dropped unit dimension (as egg-split-k's
// sum kernels read their workspace): row 1 of a 2 x 3 x 4 tensor, every
// other column of rows 0-2.
TEST(ReferenceTest, ExtractsStaticSlices) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
      %s = tensor.extract_slice %x[1, 0, 1] [1, 3, 2] [1, 1, 2] : tensor<2x3x4xf32> to tensor<3x2xf32>
      return %s : tensor<3x2xf32>
    })mlir";
  std::vector<double> x(24);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = double(i);
  auto out = runReference(src, {{{2, 3, 4}, x}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(out[0].data, (std::vector<double>{13, 15, 17, 19, 21, 23}));
}

TEST(ReferenceTest, FindsTheContractionForACublasBaseline) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<8x4xf16>, %b: tensor<6x4xf16>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
      %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%a, %b : tensor<8x4xf16>, tensor<6x4xf16>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
      return %r : tensor<8x6xf32>
    })mlir";
  auto ref = Reference::create(src, "");
  ASSERT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  auto gemm = (*ref)->contraction();
  ASSERT_TRUE(gemm.has_value());
  EXPECT_EQ(gemm->m, 8);
  EXPECT_EQ(gemm->n, 6);
  EXPECT_EQ(gemm->k, 4);
  EXPECT_EQ(gemm->batch, 1);
  EXPECT_FALSE(gemm->transA);
  EXPECT_TRUE(gemm->transB);
  EXPECT_EQ(gemm->aType, ElementType::F16);
  EXPECT_EQ(gemm->cType, ElementType::F32);
  EXPECT_EQ(gemm->argA, 0);
  EXPECT_EQ(gemm->argB, 1);

  const char *elementwise = R"mlir(
    func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    })mlir";
  auto ref2 = Reference::create(elementwise, "");
  ASSERT_TRUE(bool(ref2));
  EXPECT_FALSE((*ref2)->contraction().has_value());
}

namespace {
// Deterministic values of mixed magnitudes, so that a sum taken in another
// order would round differently.
std::vector<double> mixedValues(size_t count, unsigned seed) {
  std::vector<double> values(count);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (double &v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double unit = double(state >> 11) / double(1ull << 53) - 0.5;
    v = unit * std::ldexp(1.0, int(state % 40) - 20);
  }
  return values;
}
} // namespace

// The reference evaluates a product with its N loop innermost (contiguous
// B rows) and multiplies-adds without the bytecode, but every output still
// sums its K terms in the source's order: the results equal a naive k-loop
// to the bit, for the plain payload, for one the fast path does not take
// (a scaled product) and for a batched product with B transposed (K stays
// innermost).
TEST(ReferenceTest, ProductsSumInTheSourceOrderWhateverTheLoopOrder) {
  const int64_t m = 7, n = 9, k = 300;
  std::vector<double> a = mixedValues(m * k, 1), b = mixedValues(k * n, 2);
  auto naive = [&](const std::vector<double> &b, bool scaled,
                   bool bTransposed) {
    std::vector<double> c(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          double bv = bTransposed ? b[j * k + p] : b[p * n + j];
          double product = a[i * k + p] * bv;
          if (scaled)
            product = product * 2.0;
          acc = acc + product;
        }
        c[i * n + j] = acc;
      }
    return c;
  };
  const char *plain = R"mlir(
    func.func @f(%a: tensor<7x300xbf16>, %b: tensor<300x9xbf16>) -> tensor<7x9xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<7x9xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<7x9xf32>) -> tensor<7x9xf32>
      %r = linalg.matmul ins(%a, %b : tensor<7x300xbf16>, tensor<300x9xbf16>) outs(%f : tensor<7x9xf32>) -> tensor<7x9xf32>
      return %r : tensor<7x9xf32>
    })mlir";
  auto out = runReference(plain, {{{m, k}, a}, {{k, n}, b}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, naive(b, false, false));

  const char *scaled = R"mlir(
    func.func @f(%a: tensor<7x300xf32>, %b: tensor<300x9xf32>) -> tensor<7x9xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<7x9xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<7x9xf32>) -> tensor<7x9xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j, p) -> (i, p)>, affine_map<(i, j, p) -> (p, j)>, affine_map<(i, j, p) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<7x300xf32>, tensor<300x9xf32>) outs(%f : tensor<7x9xf32>) {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %two = arith.constant 2.0 : f32
        %p = arith.mulf %x, %y : f32
        %q = arith.mulf %p, %two : f32
        %s = arith.addf %acc, %q : f32
        linalg.yield %s : f32
      } -> tensor<7x9xf32>
      return %r : tensor<7x9xf32>
    })mlir";
  out = runReference(scaled, {{{m, k}, a}, {{k, n}, b}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, naive(b, true, false));

  const char *transposed = R"mlir(
    func.func @f(%a: tensor<1x7x300xf16>, %b: tensor<1x9x300xf16>) -> tensor<1x7x9xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<1x7x9xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x9xf32>) -> tensor<1x7x9xf32>
      %r = linalg.batch_matmul indexing_maps = [affine_map<(bb, i, j, p) -> (bb, i, p)>, affine_map<(bb, i, j, p) -> (bb, j, p)>, affine_map<(bb, i, j, p) -> (bb, i, j)>]
          ins(%a, %b : tensor<1x7x300xf16>, tensor<1x9x300xf16>) outs(%f : tensor<1x7x9xf32>) -> tensor<1x7x9xf32>
      return %r : tensor<1x7x9xf32>
    })mlir";
  std::vector<double> bt(n * k);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p)
      bt[j * k + p] = b[p * n + j];
  out = runReference(transposed, {{{1, m, k}, a}, {{1, n, k}, bt}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, naive(bt, false, true));
}

// A product over K = 0 runs no point: the result is its init.
TEST(ReferenceTest, AnEmptyReductionKeepsTheInit) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<4x0xf32>, %b: tensor<0x3xf32>) -> tensor<4x3xf32> {
      %one = arith.constant 1.5 : f32
      %e = tensor.empty() : tensor<4x3xf32>
      %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
      %r = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
      return %r : tensor<4x3xf32>
    })mlir";
  auto out = runReference(src, {{{4, 0}, {}}, {{0, 3}, {}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, std::vector<double>(12, 1.5));
}

// An NHWC convolution sums along its channels (the innermost loop); the
// reference takes four filters at a time (the cheapest parallel loop moved
// just outside the channels, past the window's loops) and still sums each
// output in the source's order: kh, then kw, then c.
TEST(ReferenceTest, ConvolutionSumsInTheSourceOrder) {
  const int64_t h = 6, w = 6, c = 20, f = 7, o = 4;
  std::vector<double> x = mixedValues(h * w * c, 3),
                      k = mixedValues(f * 3 * 3 * c, 4);
  const char *src = R"mlir(
    func.func @f(%x: tensor<1x6x6x20xf16>, %k: tensor<7x3x3x20xf16>) -> tensor<1x4x4x7xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<1x4x4x7xf32>
      %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x7xf32>) -> tensor<1x4x4x7xf32>
      %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %k : tensor<1x6x6x20xf16>, tensor<7x3x3x20xf16>) outs(%fill : tensor<1x4x4x7xf32>) -> tensor<1x4x4x7xf32>
      return %r : tensor<1x4x4x7xf32>
    })mlir";
  auto out = runReference(src, {{{1, h, w, c}, x}, {{f, 3, 3, c}, k}});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want(o * o * f);
  for (int64_t i = 0; i < o; ++i)
    for (int64_t j = 0; j < o; ++j)
      for (int64_t g = 0; g < f; ++g) {
        double acc = 0;
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw)
            for (int64_t ch = 0; ch < c; ++ch) {
              double product = x[((i + kh) * w + j + kw) * c + ch] *
                               k[((g * 3 + kh) * 3 + kw) * c + ch];
              acc = acc + product;
            }
        want[(i * o + j) * f + g] = acc;
      }
  EXPECT_EQ(out[0].data, want);
}

// Random generics against a naive evaluation in the source's loop order:
// 2-5 loops of random kinds and extents, the output indexed by the
// parallel loops in a random order, two inputs on random projections of
// the loops, and payloads that take the multiply-add path (plain or with
// extensions) or the bytecode (a scaled product, a loop index added). Every
// result must equal the naive one to the bit, whatever order the reference
// picks.
TEST(ReferenceTest, RandomGenericsMatchTheSourceOrder) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 150; ++trial) {
    int loops = pick(2, 5);
    std::vector<int64_t> extent(loops);
    std::vector<bool> parallel(loops);
    for (int d = 0; d < loops; ++d) {
      extent[d] = pick(1, 6);
      parallel[d] = pick(0, 2) != 0;
    }
    parallel[pick(0, loops - 1)] = true;
    auto shuffled = [&](std::vector<int> dims) {
      std::shuffle(dims.begin(), dims.end(), rng);
      return dims;
    };
    std::vector<int> outDims, all;
    for (int d = 0; d < loops; ++d) {
      all.push_back(d);
      if (parallel[d])
        outDims.push_back(d);
    }
    outDims = shuffled(outDims);
    // Every loop indexes some operand (linalg wants the loops to shape map
    // invertible): B takes the loops A does not, and random others.
    std::vector<int> inDims[2];
    inDims[0] = shuffled(all);
    inDims[0].resize(pick(1, loops));
    for (int d = 0; d < loops; ++d)
      if (llvm::find(inDims[0], d) == inDims[0].end() || pick(0, 1))
        inDims[1].push_back(d);
    if (inDims[1].empty())
      inDims[1].push_back(pick(0, loops - 1));
    inDims[1] = shuffled(inDims[1]);
    int payload = pick(0, 3); // 0 plain, 1 extended, 2 scaled, 3 + index
    int indexDim = pick(0, loops - 1);

    auto dimsText = [](const std::vector<int> &dims) {
      std::string text;
      for (size_t i = 0; i < dims.size(); ++i)
        text += (i ? ", d" : "d") + std::to_string(dims[i]);
      return text;
    };
    auto typeText = [&](const std::vector<int> &dims, const char *element) {
      std::string text = "tensor<";
      for (int d : dims)
        text += std::to_string(extent[d]) + "x";
      return text + element + ">";
    };
    std::string loopList = dimsText(all);
    const char *in = payload == 1 ? "f16" : "f32";
    std::string a = typeText(inDims[0], in), b = typeText(inDims[1], in),
                c = typeText(outDims, "f32");
    std::string iterators;
    for (int d = 0; d < loops; ++d)
      iterators += std::string(d ? ", " : "") +
                   (parallel[d] ? "\"parallel\"" : "\"reduction\"");
    std::string body;
    if (payload == 1)
      body = "%xe = arith.extf %x : f16 to f32\n"
             "%ye = arith.extf %y : f16 to f32\n"
             "%p = arith.mulf %xe, %ye : f32\n";
    else
      body = "%p = arith.mulf %x, %y : f32\n";
    std::string term = "%p";
    if (payload == 2) {
      body += "%three = arith.constant 3.0 : f32\n"
              "%q = arith.mulf %p, %three : f32\n";
      term = "%q";
    } else if (payload == 3) {
      body += "%i = linalg.index " + std::to_string(indexDim) +
              " : index\n"
              "%ii = arith.index_cast %i : index to i64\n"
              "%fi = arith.sitofp %ii : i64 to f32\n"
              "%q = arith.addf %p, %fi : f32\n";
      term = "%q";
    }
    std::string src =
        "func.func @f(%a: " + a + ", %b: " + b + ") -> " + c + " {\n" +
        "%zero = arith.constant 0.0 : f32\n%e = tensor.empty() : " + c +
        "\n%init = linalg.fill ins(%zero : f32) outs(%e : " + c + ") -> " +
        c + "\n%r = linalg.generic {indexing_maps = [affine_map<(" +
        loopList + ") -> (" + dimsText(inDims[0]) + ")>, affine_map<(" +
        loopList + ") -> (" + dimsText(inDims[1]) + ")>, affine_map<(" +
        loopList + ") -> (" + dimsText(outDims) +
        ")>], iterator_types = [" + iterators + "]} ins(%a, %b : " + a +
        ", " + b + ") outs(%init : " + c + ") {\n^bb0(%x: " + in +
        ", %y: " + in + ", %acc: f32):\n" + body +
        "%s = arith.addf %acc, " + term + " : f32\nlinalg.yield %s : f32\n} -> " +
        c + "\nreturn %r : " + c + "\n}\n";

    // Row-major offsets of a point in each operand.
    auto offset = [&](const std::vector<int> &dims,
                      const std::vector<int64_t> &iv) {
      int64_t off = 0;
      for (int d : dims)
        off = off * extent[d] + iv[d];
      return off;
    };
    auto count = [&](const std::vector<int> &dims) {
      int64_t n = 1;
      for (int d : dims)
        n *= extent[d];
      return n;
    };
    std::vector<double> av = mixedValues(count(inDims[0]), 10 + trial),
                        bv = mixedValues(count(inDims[1]), 500 + trial);
    if (payload == 1) // Values an f16 holds exactly: whole numbers.
      for (std::vector<double> *v : {&av, &bv})
        for (double &x : *v)
          x = std::round(std::fmod(x * 1e6, 100.0));
    std::vector<double> want(count(outDims), 0.0);
    std::vector<int64_t> iv(loops, 0);
    while (true) {
      double p = av[offset(inDims[0], iv)] * bv[offset(inDims[1], iv)];
      if (payload == 2)
        p = p * 3.0;
      if (payload == 3)
        p = p + double(iv[indexDim]);
      double &out = want[offset(outDims, iv)];
      out = out + p;
      int d = loops - 1;
      while (d >= 0 && ++iv[d] == extent[d])
        iv[d--] = 0;
      if (d < 0)
        break;
    }
    std::vector<int64_t> aShape, bShape, cShape;
    for (int d : inDims[0])
      aShape.push_back(extent[d]);
    for (int d : inDims[1])
      bShape.push_back(extent[d]);
    auto out = runReference(src.c_str(), {{aShape, av}, {bShape, bv}});
    ASSERT_EQ(out.size(), 1u) << src;
    ASSERT_EQ(out[0].data, want) << src;
  }
}

/// Reads through mod and divisions (a crop read as `d mod extent`, an
/// interleave as `d floordiv 2`) are evaluated at each point.
TEST(ReferenceTest, ModAndFloorDivReads) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>) {
      %e = tensor.empty() : tensor<2x3xf32>
      %crop = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 mod 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x5xf32>) outs(%e : tensor<2x3xf32>) {
      ^bb0(%a: f32, %b: f32):
        linalg.yield %a : f32
      } -> tensor<2x3xf32>
      %e2 = tensor.empty() : tensor<2x4xf32>
      %half = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 floordiv 2 + 1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x5xf32>) outs(%e2 : tensor<2x4xf32>) {
      ^bb0(%a: f32, %b: f32):
        linalg.yield %a : f32
      } -> tensor<2x4xf32>
      return %crop, %half : tensor<2x3xf32>, tensor<2x4xf32>
    })mlir";
  auto out = runReference(src, {{{2, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, (std::vector<double>{0, 1, 2, 10, 11, 12}));
  EXPECT_EQ(out[1].data, (std::vector<double>{1, 1, 2, 2, 11, 11, 12, 12}));
}

namespace {
/// A reference that counts its evaluations and answers arg0 + 1.
class CountingReference : public Reference {
public:
  explicit CountingReference(int &runs) : runs(runs) {}
  const std::vector<std::vector<int64_t>> &argShapes() const override {
    return shapes;
  }
  const std::vector<ElementType> &argTypes() const override { return types; }
  const std::vector<std::vector<int64_t>> &resultShapes() const override {
    return shapes;
  }
  const std::vector<ElementType> &resultTypes() const override { return types; }
  double iterations() const override { return 3; }
  double flops() const override { return 3; }
  std::optional<Contraction> contraction() const override {
    return std::nullopt;
  }
  llvm::Expected<std::vector<RefTensor>> run(const std::vector<RefTensor> &args,
                                             unsigned) override {
    ++runs;
    RefTensor out = args[0];
    for (double &v : out.data)
      v += 1;
    return std::vector<RefTensor>{out};
  }

private:
  int &runs;
  std::vector<std::vector<int64_t>> shapes{{3}};
  std::vector<ElementType> types{ElementType::F32};
};
} // namespace

TEST(ReferenceCacheTest, SameSourceAndInputsRunOnceAcrossProcesses) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("egg-refcache", dir));
  int runs = 0;
  std::vector<RefTensor> a{{{3}, {1, 2, 3}}}, b{{{3}, {1, 2, 4}}};
  auto make = [&](llvm::StringRef source) {
    return CachedReference(std::make_unique<CountingReference>(runs), dir,
                           source, "f");
  };
  {
    CachedReference first = make("source one");
    auto out = first.run(a, 1);
    ASSERT_TRUE(bool(out));
    EXPECT_EQ((*out)[0].data, (std::vector<double>{2, 3, 4}));
    EXPECT_EQ(first.misses(), 1);
  }
  // Another evaluation (as another egg-eval process would make) finds it.
  CachedReference second = make("source one");
  auto again = second.run(a, 1);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ((*again)[0].data, (std::vector<double>{2, 3, 4}));
  EXPECT_EQ((*again)[0].shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(second.hits(), 1);
  EXPECT_EQ(runs, 1);
  // Other inputs, or another source, are evaluated.
  ASSERT_TRUE(bool(second.run(b, 1)));
  CachedReference other = make("source two");
  ASSERT_TRUE(bool(other.run(a, 1)));
  EXPECT_EQ(runs, 3);
  // A damaged entry is evaluated again, never trusted.
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".f64")) {
      llvm::raw_fd_ostream os(it->path(), ec);
      os << "short";
    }
  CachedReference damaged = make("source one");
  auto fresh = damaged.run(a, 1);
  ASSERT_TRUE(bool(fresh));
  EXPECT_EQ((*fresh)[0].data, (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(damaged.misses(), 1);
  EXPECT_EQ(runs, 4);
  llvm::sys::fs::remove_directories(dir);
}

TEST(InputsTest, ValuesDependOnTheSeedNotOnTheThreads) {
  // More than one chunk (2^20 values), with a partial last one.
  const int64_t n = (int64_t(1) << 21) + 12345;
  std::string name;
  std::mt19937_64 a(7), b(7);
  std::vector<double> one = drawInputs(n, 0, a, name, 1);
  std::vector<double> many = drawInputs(n, 0, b, name, 8);
  EXPECT_EQ(name, "normal(0,1)");
  EXPECT_EQ(one, many);
  double sum = 0, squares = 0;
  for (double x : one)
    sum += x, squares += x * x;
  EXPECT_NEAR(sum / double(n), 0.0, 0.01);
  EXPECT_NEAR(squares / double(n), 1.0, 0.01);
  // Chunks draw different values, and the next draw differs from this one.
  EXPECT_NE(std::vector<double>(one.begin(), one.begin() + 64),
            std::vector<double>(one.begin() + (1 << 20),
                                one.begin() + (1 << 20) + 64));
  std::vector<double> next = drawInputs(64, 0, a, name, 1);
  EXPECT_NE(next, std::vector<double>(one.begin(), one.begin() + 64));
  // Each trial's distribution, and the positive fallback's range.
  std::mt19937_64 c(1);
  std::vector<double> wide = drawInputs(100000, 2, c, name, 4);
  EXPECT_EQ(name, "uniform(-8,8)");
  EXPECT_TRUE(llvm::all_of(wide, [](double x) { return x >= -8 && x < 8; }));
  std::vector<double> positive = drawPositiveInputs(100000, c, 4);
  EXPECT_TRUE(
      llvm::all_of(positive, [](double x) { return x >= 0.5 && x < 2; }));
}
