//===- ExpandErf.cpp - math.erf as short polynomials ----------------------===//
//
// libdevice's erff evaluates one of two polynomials whose coefficients are
// each chosen by a select; in an elementwise kernel those instructions
// compete with the memory traffic (an erf GELU over bf16 took 1.6x the time
// of a bf16 add moving as many bytes). Here each branch is its own short
// Horner chain, and only the result is selected. The coefficients come from
// scripts/fit-erf.py, which also measures their error in f32 arithmetic.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGEXPANDERF
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

// f32, |x| < kErfCut: erf(x) = x + x * R(x^2).
static constexpr float kErfCut = 0.9f;
static constexpr float kErfSmall[] = {
    0.128379166f,  -0.376126349f,    0.112837195f,   -0.0268607531f,
    0.0052044373f, -0.000818193832f, 8.53888123e-05f};
// f32, |x| >= kErfCut: erf(x) = sign(x) (1 - 2^Q(min(|x|, kErfSaturate))).
// 1 - 2^Q(4) rounds to 1 in f32.
static constexpr float kErfSaturate = 4.0f;
static constexpr float kErfLarge[] = {
    -0.000256071886f, -1.62699866f,    -0.91908294f,   -0.150094181f,
    0.0321390405f,    -0.00440830877f, 0.000284472975f};
// f16 and bf16, in f32: erf(x) = c + c * P(c^2), c = clamp(x, -3, 3);
// erfc(3) = 2.2e-5 is a tenth of half an f16 ulp below 1.
static constexpr float kErfHalfClamp = 3.0f;
static constexpr float kErfHalf[] = {
    0.128374264f,    -0.376027614f,    0.112490825f,    -0.0263733659f,
    0.00485433964f,  -0.000687950291f, 7.15925271e-05f, -5.07323784e-06f,
    2.15890793e-07f, -4.1256869e-09f};

namespace {
/// Builds f32 arithmetic of one shape (a scalar or a vector).
class F32Builder {
public:
  F32Builder(ImplicitLocOpBuilder &b, Type type) : b(b), type(type) {}

  Value constant(float value) {
    auto attr = b.getF32FloatAttr(value);
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(b, type,
                                       SplatElementsAttr::get(shaped, attr));
    return arith::ConstantOp::create(b, type, attr);
  }

  /// c[0] + s * (c[1] + s * (...)), one fma per coefficient.
  Value horner(ArrayRef<float> coeffs, Value s) {
    Value r = constant(coeffs.back());
    for (float c : llvm::reverse(coeffs.drop_back()))
      r = math::FmaOp::create(b, r, s, constant(c));
    return r;
  }

  /// x + x * R(x^2): the leading term exact, the polynomial a correction.
  Value oddSeries(ArrayRef<float> coeffs, Value x) {
    Value s = arith::MulFOp::create(b, x, x);
    return math::FmaOp::create(b, x, horner(coeffs, s), x);
  }

  Value erfF32(Value x) {
    Value t = math::AbsFOp::create(b, x);
    Value small = oddSeries(kErfSmall, x);
    // minimumf, not minnumf: a NaN stays NaN.
    Value clamped = arith::MinimumFOp::create(b, t, constant(kErfSaturate));
    Value tail = math::Exp2Op::create(b, horner(kErfLarge, clamped));
    Value large = math::CopySignOp::create(
        b, arith::SubFOp::create(b, constant(1.0f), tail), x);
    Value isSmall = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, t,
                                          constant(kErfCut));
    return arith::SelectOp::create(b, isSmall, small, large);
  }

  Value erfHalf(Value x) {
    Value c = arith::MaximumFOp::create(b, x, constant(-kErfHalfClamp));
    c = arith::MinimumFOp::create(b, c, constant(kErfHalfClamp));
    return oddSeries(kErfHalf, c);
  }

private:
  ImplicitLocOpBuilder &b;
  Type type;
};

struct ExpandErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type elem = getElementTypeOrSelf(type);
    if (!elem.isF32() && !elem.isF16() && !elem.isBF16())
      return rewriter.notifyMatchFailure(op, "f64 stays with libdevice");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type f32 = b.getF32Type();
    Type wide = f32;
    if (auto shaped = dyn_cast<ShapedType>(type))
      wide = shaped.clone(f32);
    F32Builder f(b, wide);
    Value x = op.getOperand();
    if (elem.isF32()) {
      rewriter.replaceOp(op, f.erfF32(x));
      return success();
    }
    Value r = f.erfHalf(arith::ExtFOp::create(b, wide, x));
    rewriter.replaceOp(op, arith::TruncFOp::create(b, type, r));
    return success();
  }
};

struct ExpandErfPass : public egg::impl::EggExpandErfBase<ExpandErfPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandErf>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
