//===- Reference.cpp - Independent float64 reference ----------------------===//

#include "egg/Eval/Reference.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

#include <atomic>
#include <cmath>
#include <thread>

using namespace mlir;
using namespace mlir::egg::eval;

Reference::~Reference() = default;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "reference: " + message);
}

static std::string where(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName() << " at " << op->getLoc();
  return s;
}

static std::vector<int64_t> toStd(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

static std::optional<ElementType> toElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  return std::nullopt;
}

namespace {
//===----------------------------------------------------------------------===//
// Affine index maps as linear forms
//===----------------------------------------------------------------------===//

/// One result of an indexing map: constant + sum(coeff[d] * dim d).
struct LinearExpr {
  int64_t constant = 0;
  std::vector<int64_t> coeffs;
};

static std::optional<LinearExpr> linearize(AffineExpr expr, unsigned numDims) {
  LinearExpr result;
  result.coeffs.assign(numDims, 0);
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    result.constant = c.getValue();
    return result;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    result.coeffs[d.getPosition()] = 1;
    return result;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt;
  auto lhs = linearize(bin.getLHS(), numDims);
  auto rhs = linearize(bin.getRHS(), numDims);
  if (!lhs || !rhs)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add) {
    for (unsigned i = 0; i < numDims; ++i)
      result.coeffs[i] = lhs->coeffs[i] + rhs->coeffs[i];
    result.constant = lhs->constant + rhs->constant;
    return result;
  }
  if (expr.getKind() == AffineExprKind::Mul) {
    // One side must be constant.
    bool lhsConst = llvm::all_of(lhs->coeffs, [](int64_t c) { return c == 0; });
    bool rhsConst = llvm::all_of(rhs->coeffs, [](int64_t c) { return c == 0; });
    if (!lhsConst && !rhsConst)
      return std::nullopt;
    const LinearExpr &var = lhsConst ? *rhs : *lhs;
    int64_t k = lhsConst ? lhs->constant : rhs->constant;
    for (unsigned i = 0; i < numDims; ++i)
      result.coeffs[i] = var.coeffs[i] * k;
    result.constant = var.constant * k;
    return result;
  }
  return std::nullopt;
}

/// The value of `expr` at the loop point `iv`: dims, constants, +, * and
/// mod, floordiv, ceildiv by a positive constant (affine's semantics:
/// rounding towards negative infinity, a non-negative remainder).
static std::optional<int64_t> evaluateIndex(AffineExpr expr,
                                            ArrayRef<int64_t> iv) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return iv[d.getPosition()];
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt;
  std::optional<int64_t> lhs = evaluateIndex(bin.getLHS(), iv);
  std::optional<int64_t> rhs = evaluateIndex(bin.getRHS(), iv);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return *lhs + *rhs;
  case AffineExprKind::Mul:
    return *lhs * *rhs;
  case AffineExprKind::Mod:
    return *rhs > 0 ? std::optional<int64_t>(llvm::mod(*lhs, *rhs))
                    : std::nullopt;
  case AffineExprKind::FloorDiv:
    return *rhs > 0
               ? std::optional<int64_t>(llvm::divideFloorSigned(*lhs, *rhs))
               : std::nullopt;
  case AffineExprKind::CeilDiv:
    return *rhs > 0 ? std::optional<int64_t>(llvm::divideCeilSigned(*lhs, *rhs))
                    : std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Whether evaluateIndex takes every result of `map`.
static bool isEvaluable(AffineMap map) {
  std::vector<int64_t> zeros(map.getNumDims(), 0);
  return llvm::all_of(map.getResults(), [&](AffineExpr e) {
    bool ok = true;
    e.walk([&](AffineExpr sub) {
      if (auto bin = dyn_cast<AffineBinaryOpExpr>(sub))
        if (sub.getKind() != AffineExprKind::Add &&
            sub.getKind() != AffineExprKind::Mul)
          ok &= isa<AffineConstantExpr>(bin.getRHS()) &&
                cast<AffineConstantExpr>(bin.getRHS()).getValue() > 0;
      ok &= !isa<AffineSymbolExpr>(sub);
    });
    return ok && evaluateIndex(e, zeros).has_value();
  });
}

/// An operand access: flat offset = base + sum(stride[d] * iv[d]), or, for
/// a map with mod or divisions (a crop read as `d mod extent`), the map
/// evaluated at each point (`general`; strides then 0).
struct Access {
  int64_t base = 0;
  std::vector<int64_t> strides; // Per loop dim.
  AffineMap general;
  std::vector<int64_t> shape;

  /// The flat offset of a general access at `iv`.
  int64_t offsetAt(ArrayRef<int64_t> iv) const {
    int64_t offset = 0;
    for (auto [r, e] : llvm::enumerate(general.getResults()))
      offset = offset * shape[r] + *evaluateIndex(e, iv);
    return offset;
  }
};

static std::optional<Access> compileAccess(AffineMap map,
                                           ArrayRef<int64_t> shape) {
  Access a;
  a.strides.assign(map.getNumDims(), 0);
  int64_t stride = 1;
  for (int64_t r = int64_t(map.getNumResults()) - 1; r >= 0; --r) {
    auto lin = linearize(map.getResult(r), map.getNumDims());
    if (!lin) {
      if (!isEvaluable(map))
        return std::nullopt;
      Access general;
      general.strides.assign(map.getNumDims(), 0);
      general.general = map;
      general.shape.assign(shape.begin(), shape.end());
      return general;
    }
    a.base += lin->constant * stride;
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      a.strides[d] += lin->coeffs[d] * stride;
    stride *= shape[r];
  }
  return a;
}

/// A generic's operand as the interpreter reads it: a tensor's data (an
/// output's copy of its init) and access, or a scalar.
struct Operand {
  const double *data = nullptr;
  double *out = nullptr;
  Access access;
  bool scalar = false;
  double scalarValue = 0;
};

//===----------------------------------------------------------------------===//
// Payload bytecode
//===----------------------------------------------------------------------===//

enum class Opc {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Neg,
  Max,
  Min,
  MaxNum,
  MinNum,
  CmpF,
  CmpI,
  Select,
  Copy,
  FpToInt,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Tanh,
  Erf,
  Sqrt,
  Rsqrt,
  Abs,
  Pow,
  Sin,
  Cos,
  Floor,
  Ceil,
  Round,
  Fma,
  Atan,
  Atan2,
  Index,
  Extract,
  AndI,
  OrI,
  XorI
};

struct Instr {
  Opc op;
  int a = -1, b = -1, c = -1;
  int pred = 0;
  int dst = -1;
  bool isFlop = false;
  // Extract: the tensor read and the slots of its indices.
  const RefTensor *source = nullptr;
  std::vector<int> indices;
};

/// tensor.extract at the indices held in `slots`; NaN outside the tensor
/// (a gather index out of range), which no check lets pass.
static double extractElement(const Instr &in, const double *slots) {
  const RefTensor &t = *in.source;
  int64_t at = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    double i = slots[in.indices[d]];
    if (!(i >= 0 && i < double(t.shape[d])))
      return NAN;
    at = at * t.shape[d] + int64_t(i);
  }
  return t.data[at];
}

struct Program {
  std::vector<Instr> code;
  std::vector<std::pair<int, double>> constants; // slot -> value
  std::vector<int> yields;
  int numSlots = 0;
  int64_t flopsPerPoint = 0;
};

static bool cmpF(arith::CmpFPredicate p, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  switch (p) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && x == y;
  case arith::CmpFPredicate::OGT:
    return !unordered && x > y;
  case arith::CmpFPredicate::OGE:
    return !unordered && x >= y;
  case arith::CmpFPredicate::OLT:
    return !unordered && x < y;
  case arith::CmpFPredicate::OLE:
    return !unordered && x <= y;
  case arith::CmpFPredicate::ONE:
    return !unordered && x != y;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || x == y;
  case arith::CmpFPredicate::UGT:
    return unordered || x > y;
  case arith::CmpFPredicate::UGE:
    return unordered || x >= y;
  case arith::CmpFPredicate::ULT:
    return unordered || x < y;
  case arith::CmpFPredicate::ULE:
    return unordered || x <= y;
  case arith::CmpFPredicate::UNE:
    return unordered || x != y;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  return false;
}

static bool cmpI(arith::CmpIPredicate p, double x, double y) {
  switch (p) {
  case arith::CmpIPredicate::eq:
    return x == y;
  case arith::CmpIPredicate::ne:
    return x != y;
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    return x < y;
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    return x <= y;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    return x > y;
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge:
    return x >= y;
  }
  return false;
}

static double eval(const Instr &in, const double *s) {
  double x = in.a >= 0 ? s[in.a] : 0, y = in.b >= 0 ? s[in.b] : 0;
  switch (in.op) {
  case Opc::Add:
    return x + y;
  case Opc::Sub:
    return x - y;
  case Opc::Mul:
    return x * y;
  case Opc::Div:
    return x / y;
  case Opc::Rem:
    return std::fmod(x, y);
  case Opc::Neg:
    return -x;
  case Opc::Max:
    return (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y);
  case Opc::Min:
    return (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y);
  case Opc::MaxNum:
    return std::fmax(x, y);
  case Opc::MinNum:
    return std::fmin(x, y);
  case Opc::CmpF:
    return cmpF(arith::CmpFPredicate(in.pred), x, y) ? 1 : 0;
  case Opc::CmpI:
    return cmpI(arith::CmpIPredicate(in.pred), x, y) ? 1 : 0;
  case Opc::Select:
    return x != 0 ? y : s[in.c];
  case Opc::Copy:
    return x;
  case Opc::FpToInt:
    return std::trunc(x);
  case Opc::Exp:
    return std::exp(x);
  case Opc::Exp2:
    return std::exp2(x);
  case Opc::Expm1:
    return std::expm1(x);
  case Opc::Log:
    return std::log(x);
  case Opc::Log2:
    return std::log2(x);
  case Opc::Log10:
    return std::log10(x);
  case Opc::Log1p:
    return std::log1p(x);
  case Opc::Tanh:
    return std::tanh(x);
  case Opc::Erf:
    return std::erf(x);
  case Opc::Sqrt:
    return std::sqrt(x);
  case Opc::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Opc::Abs:
    return std::fabs(x);
  case Opc::Pow:
    return std::pow(x, y);
  case Opc::Sin:
    return std::sin(x);
  case Opc::Cos:
    return std::cos(x);
  case Opc::Floor:
    return std::floor(x);
  case Opc::Ceil:
    return std::ceil(x);
  case Opc::Round:
    return std::round(x);
  case Opc::Fma:
    return x * y + s[in.c];
  case Opc::Atan:
    return std::atan(x);
  case Opc::Atan2:
    return std::atan2(x, y);
  case Opc::Index:
  case Opc::Extract:
    return 0; // Filled by the loop driver.
  case Opc::AndI:
    return double(int64_t(x) & int64_t(y));
  case Opc::OrI:
    return double(int64_t(x) | int64_t(y));
  case Opc::XorI:
    return double(int64_t(x) ^ int64_t(y));
  }
  return NAN;
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

class Interpreter : public Reference {
public:
  Interpreter() : context(std::make_unique<MLIRContext>()) {}

  llvm::Error prepare(llvm::StringRef source, llvm::StringRef name) {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, egg::EggDialect, func::FuncDialect,
                    linalg::LinalgDialect, math::MathDialect,
                    tensor::TensorDialect>();
    context->appendDialectRegistry(registry);
    context->loadAllAvailableDialects();
    std::string diagnostics;
    {
      llvm::raw_string_ostream os(diagnostics);
      llvm::SourceMgr sourceMgr;
      SourceMgrDiagnosticHandler handler(sourceMgr, context.get(), os);
      module = parseSourceString<ModuleOp>(source, context.get(), "source");
    }
    if (!module)
      return error("cannot parse the source: " + diagnostics);
    for (auto f : module->getOps<func::FuncOp>())
      if (!f.isDeclaration() && !f.isPrivate() &&
          (name.empty() || f.getSymName() == name)) {
        func = f;
        break;
      }
    if (!func)
      return error("no public function '" + name + "' in the source");

    findContraction();

    // Named ops and aggregates (softmax) to generics: the interpreter then
    // needs to know only linalg.generic.
    IRRewriter rewriter(context.get());
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    func.walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    for (auto op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
      if (failed(values))
        return error("cannot decompose " + where(op));
      rewriter.replaceOp(op, *values);
    }
    RewritePatternSet patterns(context.get());
    linalg::populateLinalgNamedOpsGeneralizationPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return error("cannot generalize the named ops");

    for (Type t : func.getArgumentTypes()) {
      auto tt = dyn_cast<RankedTensorType>(t);
      if (!tt || !tt.hasStaticShape() || !toElementType(tt.getElementType()))
        return error(llvm::formatv("argument type {0} is not a static f32, "
                                   "f16, bf16 or f64 tensor",
                                   typeString(t)));
      args.push_back(toStd(tt.getShape()));
      argElementTypes.push_back(*toElementType(tt.getElementType()));
    }
    for (Type t : func.getResultTypes()) {
      auto tt = dyn_cast<RankedTensorType>(t);
      if (!tt || !tt.hasStaticShape() || !toElementType(tt.getElementType()))
        return error("result type is not a static float tensor");
      results.push_back(toStd(tt.getShape()));
      resultElementTypes.push_back(*toElementType(tt.getElementType()));
    }
    // Reject unsupported ops now, with their location; count the work.
    // Tensors the CPU cannot hold in float64 are refused here too.
    const int64_t maxElements = int64_t(1) << 31;
    for (Operation &op : func.getBody().front()) {
      for (Type t : op.getResultTypes())
        if (auto shaped = dyn_cast<RankedTensorType>(t);
            shaped && shaped.hasStaticShape() &&
            llvm::any_of(shaped.getShape(),
                         [&](int64_t d) { return d > maxElements; }))
          return error("tensor too large for the float64 reference " +
                       where(&op));
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        if (std::optional<double> scalar = scalarConstant(c))
          scalars[c] = *scalar;
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        double points = 1;
        for (int64_t r : generic.getStaticLoopRanges())
          points *= double(std::max<int64_t>(r, 0));
        work += points;
        // Flops are counted again as the payloads run (run() starts from
        // zero); counting them here lets an evaluation that never runs the
        // reference (egg-eval --trials=0) report a compute floor. Payloads
        // capture constants (known here, run() sets them again); one that
        // captures a scalar computed at run time counts as none here.
        if (llvm::Expected<Program> program = compilePayload(generic))
          flopCount += points * double(program->flopsPerPoint);
        else
          llvm::consumeError(program.takeError());
      }
      if (auto scan = dyn_cast<egg::ScanOp>(op))
        work += double(numElements(
            cast<RankedTensorType>(scan.getInput().getType()).getShape()));
      if (auto recurrence = dyn_cast<egg::RecurrenceOp>(op)) {
        // Per step and row: the hidden gates, a product of [H] by [H, G*H].
        double products =
            double(recurrence.getSteps()) * double(recurrence.getBatch()) *
            double(recurrence.getUnits()) * double(recurrence.getUnits()) *
            double(recurrence.getGates());
        work += products;
        flopCount += 2 * products;
      }
      if (isa<arith::ConstantOp, tensor::EmptyOp, linalg::GenericOp,
              egg::ScanOp, egg::RecurrenceOp, tensor::PadOp,
              tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
              tensor::ExtractSliceOp, func::ReturnOp>(op))
        continue;
      return error("unsupported op " + where(&op));
    }
    return llvm::Error::success();
  }

  const std::vector<std::vector<int64_t>> &argShapes() const override {
    return args;
  }
  const std::vector<ElementType> &argTypes() const override {
    return argElementTypes;
  }
  const std::vector<std::vector<int64_t>> &resultShapes() const override {
    return results;
  }
  const std::vector<ElementType> &resultTypes() const override {
    return resultElementTypes;
  }
  double flops() const override { return flopCount; }
  double iterations() const override { return work; }
  std::optional<Contraction> contraction() const override { return gemm; }

  llvm::Expected<std::vector<RefTensor>>
  run(const std::vector<RefTensor> &inputs, unsigned threads) override {
    if (inputs.size() != args.size())
      return error("wrong number of arguments");
    tensors.clear();
    scalars.clear();
    flopCount = 0;
    for (auto [arg, input] : llvm::zip(func.getArguments(), inputs))
      tensors[arg] = std::make_shared<RefTensor>(input);
    for (Operation &op : func.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        std::vector<RefTensor> out;
        for (Value v : ret.getOperands())
          out.push_back(*tensors[v]);
        return out;
      }
      if (llvm::Error e = execute(op, threads))
        return std::move(e);
    }
    return error("function has no return");
  }

private:
  static int64_t numElements(ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n = mlir::egg::mulSat(n, d);
    return n;
  }

  llvm::Expected<double> scalarOf(Value v) {
    auto it = scalars.find(v);
    if (it != scalars.end())
      return it->second;
    return error("value used in a payload is not a known scalar");
  }

  /// The value of a scalar (float or integer) constant.
  static std::optional<double> scalarConstant(arith::ConstantOp c) {
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return integerValue(i);
    return std::nullopt;
  }

  /// An integer constant's value; `true` is 1 (its one bit sign-extended
  /// would be -1, and xori with it would not negate a 0-or-1 boolean).
  static double integerValue(IntegerAttr i) {
    const APInt &bits = i.getValue();
    return bits.getBitWidth() == 1 ? double(bits.getZExtValue())
                                   : double(bits.getSExtValue());
  }

  llvm::Error execute(Operation &op, unsigned threads) {
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      Attribute value = c.getValue();
      if (std::optional<double> scalar = scalarConstant(c)) {
        scalars[c] = *scalar;
      } else if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
        auto t = std::make_shared<RefTensor>();
        t->shape = toStd(dense.getType().getShape());
        for (APFloat f : dense.getValues<APFloat>())
          t->data.push_back(f.convertToDouble());
        tensors[c] = t;
      } else {
        return error("unsupported constant " + where(&op));
      }
      return llvm::Error::success();
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      auto t = std::make_shared<RefTensor>();
      t->shape = toStd(empty.getType().getShape());
      if (!empty.getType().hasStaticShape())
        return error("dynamic tensor.empty " + where(&op));
      if (numElements(t->shape) > (int64_t(1) << 31))
        return error("tensor too large for the float64 reference " +
                     where(&op));
      // Reading uninitialised memory gives NaN, which no check lets pass.
      t->data.assign(numElements(t->shape), NAN);
      tensors[empty] = t;
      return llvm::Error::success();
    }
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(
            op)) {
      auto t = std::make_shared<RefTensor>(*tensors[op.getOperand(0)]);
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      t->shape = toStd(type.getShape());
      tensors[op.getResult(0)] = t;
      return llvm::Error::success();
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      return executePad(pad);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return executeSlice(slice);
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      return executeGeneric(generic, threads);
    if (auto scan = dyn_cast<egg::ScanOp>(op))
      return executeScan(scan);
    if (auto recurrence = dyn_cast<egg::RecurrenceOp>(op))
      return executeRecurrence(recurrence);
    return error("unsupported op " + where(&op));
  }

  /// A recurrent layer, step by step and row by row: the hidden gates of a
  /// row (its old h times the weight, plus the bias), then the cell on each
  /// unit; the row's new states replace the old ones once all its units
  /// are done.
  llvm::Error executeRecurrence(egg::RecurrenceOp op) {
    llvm::Expected<Program> program = compilePayload(op.getCellBlock());
    if (!program)
      return program.takeError();
    int64_t steps = op.getSteps(), batch = op.getBatch(), units = op.getUnits(),
            gates = op.getGates(), numStates = op.getStates();
    int64_t columns = gates * units;
    const std::vector<double> &x = tensors[op.getInput()]->data;
    const std::vector<double> &w = tensors[op.getWeight()]->data;
    const std::vector<double> &bias = tensors[op.getBias()]->data;
    auto sequence = std::make_shared<RefTensor>();
    sequence->shape = {steps, batch, units};
    sequence->data.assign(steps * batch * units, NAN);
    std::vector<std::shared_ptr<RefTensor>> states;
    for (Value v : op.getInitial())
      states.push_back(std::make_shared<RefTensor>(*tensors[v]));
    std::vector<double> slots(program->numSlots), hidden(columns),
        next(numStates * units);
    for (auto [id, value] : program->constants)
      slots[id] = value;
    for (int64_t step = 0; step < steps; ++step) {
      int64_t t = op.getReverse() ? steps - 1 - step : step;
      for (int64_t b = 0; b < batch; ++b) {
        const double *h = states[0]->data.data() + b * units;
        for (int64_t c = 0; c < columns; ++c) {
          double sum = 0;
          for (int64_t k = 0; k < units; ++k)
            sum += h[k] * w[k * columns + c];
          hidden[c] = sum + bias[c];
        }
        const double *in = x.data() + (t * batch + b) * columns;
        for (int64_t j = 0; j < units; ++j) {
          for (int64_t g = 0; g < gates; ++g) {
            slots[g] = in[g * units + j];
            slots[gates + g] = hidden[g * units + j];
          }
          for (int64_t s = 0; s < numStates; ++s)
            slots[2 * gates + s] = states[s]->data[b * units + j];
          for (const Instr &instr : program->code)
            slots[instr.dst] = eval(instr, slots.data());
          for (int64_t s = 0; s < numStates; ++s)
            next[s * units + j] = slots[program->yields[s]];
        }
        for (int64_t s = 0; s < numStates; ++s)
          std::copy(next.begin() + s * units, next.begin() + (s + 1) * units,
                    states[s]->data.begin() + b * units);
        std::copy(next.begin(), next.begin() + units,
                  sequence->data.begin() + (t * batch + b) * units);
      }
    }
    tensors[op.getResult()[0]] = sequence;
    for (int64_t s = 0; s < numStates; ++s)
      tensors[op.getResult()[1 + s]] = states[s];
    return llvm::Error::success();
  }

  /// A scan along the innermost dimension: from the first element (from
  /// the last with `reverse`), each element included or (`exclusive`) not.
  llvm::Error executeScan(egg::ScanOp scan) {
    const RefTensor &in = *tensors[scan.getInput()];
    auto t = std::make_shared<RefTensor>(in);
    int64_t n = t->shape.empty() ? 0 : t->shape.back();
    bool product = scan.getKind() == egg::ScanKind::mul;
    bool reverse = scan.getReverse(), exclusive = scan.getExclusive();
    for (size_t row = 0; n > 0 && row < t->data.size(); row += n) {
      double carry = product ? 1.0 : 0.0;
      for (int64_t k = 0; k < n; ++k) {
        size_t at = row + (reverse ? n - 1 - k : k);
        double x = in.data[at];
        double with = product ? carry * x : carry + x;
        t->data[at] = exclusive ? carry : with;
        carry = with;
      }
    }
    tensors[scan.getResult()[0]] = t;
    return llvm::Error::success();
  }

  /// A static slice (as egg-split-k's sum kernels read their workspace);
  /// dropped unit dimensions leave the elements in the same order.
  llvm::Error executeSlice(tensor::ExtractSliceOp slice) {
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return error("dynamic slice " + where(slice));
    const RefTensor &src = *tensors[slice.getSource()];
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    ArrayRef<int64_t> strides = slice.getStaticStrides();
    size_t rank = src.shape.size();
    std::vector<int64_t> srcStride(rank, 1);
    for (size_t d = rank; d-- > 1;)
      srcStride[d - 1] = srcStride[d] * src.shape[d];
    auto t = std::make_shared<RefTensor>();
    t->shape = toStd(slice.getResultType().getShape());
    int64_t count = numElements(toStd(sizes));
    t->data.resize(count);
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rem = flat, at = 0;
      for (size_t d = rank; d-- > 0;) {
        at += (offsets[d] + (rem % sizes[d]) * strides[d]) * srcStride[d];
        rem /= sizes[d];
      }
      t->data[flat] = src.data[at];
    }
    tensors[slice.getResult()] = t;
    return llvm::Error::success();
  }

  llvm::Error executePad(tensor::PadOp pad) {
    if (!pad.getLow().empty() || !pad.getHigh().empty())
      return error("dynamic padding " + where(pad));
    auto yield = cast<tensor::YieldOp>(pad.getRegion().front().getTerminator());
    Value padValue = yield.getValue();
    if (padValue.getParentRegion() == &pad.getRegion())
      return error("non-constant padding value " + where(pad));
    auto value = scalarOf(padValue);
    if (!value)
      return value.takeError();
    const RefTensor &src = *tensors[pad.getSource()];
    auto t = std::make_shared<RefTensor>();
    t->shape = toStd(pad.getResultType().getShape());
    t->data.assign(numElements(t->shape), *value);
    ArrayRef<int64_t> low = pad.getStaticLow();
    size_t rank = src.shape.size();
    std::vector<int64_t> idx(rank, 0);
    for (int64_t flat = 0, n = numElements(src.shape); flat < n; ++flat) {
      int64_t rem = flat, dst = 0;
      for (size_t d = rank; d-- > 0;) {
        idx[d] = rem % src.shape[d];
        rem /= src.shape[d];
      }
      for (size_t d = 0; d < rank; ++d)
        dst = dst * t->shape[d] + idx[d] + low[d];
      t->data[dst] = src.data[flat];
    }
    tensors[pad.getResult()] = t;
    return llvm::Error::success();
  }

  llvm::Expected<Program> compilePayload(linalg::GenericOp op) {
    return compilePayload(op.getRegion().front());
  }

  /// A scalar region (a generic's payload, a recurrence's cell) as code.
  llvm::Expected<Program> compilePayload(Block &body) {
    Program p;
    DenseMap<Value, int> slot;
    for (BlockArgument arg : body.getArguments())
      slot[arg] = p.numSlots++;
    auto operand = [&](Value v) -> llvm::Expected<int> {
      auto it = slot.find(v);
      if (it != slot.end())
        return it->second;
      // A scalar captured from the function body.
      auto s = scalarOf(v);
      if (!s)
        return s.takeError();
      int id = p.numSlots++;
      p.constants.push_back({id, *s});
      slot[v] = id;
      return id;
    };
    for (Operation &inner : body) {
      if (isa<linalg::YieldOp, egg::YieldOp>(inner)) {
        for (Value v : inner.getOperands()) {
          auto s = operand(v);
          if (!s)
            return s.takeError();
          p.yields.push_back(*s);
        }
        break;
      }
      if (auto c = dyn_cast<arith::ConstantOp>(inner)) {
        double value;
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          value = f.getValueAsDouble();
        else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          value = integerValue(i);
        else
          return error("unsupported constant " + where(&inner));
        int id = p.numSlots++;
        p.constants.push_back({id, value});
        slot[c] = id;
        continue;
      }
      Instr in;
      if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
        // A gather: the tensor comes from the function body.
        auto it = tensors.find(extract.getTensor());
        if (it == tensors.end())
          return error("tensor.extract from a tensor not yet computed " +
                       where(&inner));
        in.op = Opc::Extract;
        in.source = it->second.get();
        for (Value index : extract.getIndices()) {
          auto s = operand(index);
          if (!s)
            return s.takeError();
          in.indices.push_back(*s);
        }
        in.dst = p.numSlots++;
        slot[extract.getResult()] = in.dst;
        p.code.push_back(in);
        continue;
      }
      std::optional<Opc> opc =
          llvm::TypeSwitch<Operation *, std::optional<Opc>>(&inner)
              .Case<arith::AddFOp>([](auto) { return Opc::Add; })
              .Case<arith::SubFOp>([](auto) { return Opc::Sub; })
              .Case<arith::MulFOp>([](auto) { return Opc::Mul; })
              .Case<arith::DivFOp>([](auto) { return Opc::Div; })
              .Case<arith::RemFOp>([](auto) { return Opc::Rem; })
              .Case<arith::NegFOp>([](auto) { return Opc::Neg; })
              .Case<arith::MaximumFOp>([](auto) { return Opc::Max; })
              .Case<arith::MinimumFOp>([](auto) { return Opc::Min; })
              .Case<arith::MaxNumFOp>([](auto) { return Opc::MaxNum; })
              .Case<arith::MinNumFOp>([](auto) { return Opc::MinNum; })
              .Case<arith::CmpFOp>([](auto) { return Opc::CmpF; })
              .Case<arith::CmpIOp>([](auto) { return Opc::CmpI; })
              .Case<arith::SelectOp>([](auto) { return Opc::Select; })
              .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
                    arith::UIToFPOp, arith::IndexCastOp, arith::ExtSIOp,
                    arith::ExtUIOp, arith::TruncIOp>(
                  [](auto) { return Opc::Copy; })
              .Case<arith::FPToSIOp, arith::FPToUIOp>(
                  [](auto) { return Opc::FpToInt; })
              .Case<arith::AddIOp>([](auto) { return Opc::Add; })
              .Case<arith::SubIOp>([](auto) { return Opc::Sub; })
              .Case<arith::MulIOp>([](auto) { return Opc::Mul; })
              .Case<arith::MaxSIOp>([](auto) { return Opc::MaxNum; })
              .Case<arith::MinSIOp>([](auto) { return Opc::MinNum; })
              .Case<arith::AndIOp>([](auto) { return Opc::AndI; })
              .Case<arith::OrIOp>([](auto) { return Opc::OrI; })
              .Case<arith::XOrIOp>([](auto) { return Opc::XorI; })
              .Case<math::ExpOp>([](auto) { return Opc::Exp; })
              .Case<math::Exp2Op>([](auto) { return Opc::Exp2; })
              .Case<math::ExpM1Op>([](auto) { return Opc::Expm1; })
              .Case<math::LogOp>([](auto) { return Opc::Log; })
              .Case<math::Log2Op>([](auto) { return Opc::Log2; })
              .Case<math::Log10Op>([](auto) { return Opc::Log10; })
              .Case<math::Log1pOp>([](auto) { return Opc::Log1p; })
              .Case<math::TanhOp>([](auto) { return Opc::Tanh; })
              .Case<math::ErfOp>([](auto) { return Opc::Erf; })
              .Case<math::SqrtOp>([](auto) { return Opc::Sqrt; })
              .Case<math::RsqrtOp>([](auto) { return Opc::Rsqrt; })
              .Case<math::AbsFOp>([](auto) { return Opc::Abs; })
              .Case<math::PowFOp>([](auto) { return Opc::Pow; })
              .Case<math::SinOp>([](auto) { return Opc::Sin; })
              .Case<math::CosOp>([](auto) { return Opc::Cos; })
              .Case<math::FloorOp>([](auto) { return Opc::Floor; })
              .Case<math::CeilOp>([](auto) { return Opc::Ceil; })
              .Case<math::RoundOp>([](auto) { return Opc::Round; })
              .Case<math::FmaOp>([](auto) { return Opc::Fma; })
              .Case<math::AtanOp>([](auto) { return Opc::Atan; })
              .Case<math::Atan2Op>([](auto) { return Opc::Atan2; })
              .Case<linalg::IndexOp>([](auto) { return Opc::Index; })
              .Default([](Operation *) { return std::nullopt; });
      if (!opc)
        return error("unsupported payload op " + where(&inner));
      in.op = *opc;
      int *slots[] = {&in.a, &in.b, &in.c};
      for (auto [i, v] : llvm::enumerate(inner.getOperands())) {
        if (i >= 3)
          return error("too many operands " + where(&inner));
        auto s = operand(v);
        if (!s)
          return s.takeError();
        *slots[i] = *s;
      }
      if (auto cmp = dyn_cast<arith::CmpFOp>(inner))
        in.pred = int(cmp.getPredicate());
      if (auto cmp = dyn_cast<arith::CmpIOp>(inner))
        in.pred = int(cmp.getPredicate());
      if (auto index = dyn_cast<linalg::IndexOp>(inner))
        in.pred = int(index.getDim());
      bool floatResult = isa<FloatType>(inner.getResult(0).getType());
      in.isFlop = floatResult && in.op != Opc::Copy && in.op != Opc::Select &&
                  in.op != Opc::Neg;
      p.flopsPerPoint += in.isFlop ? (in.op == Opc::Fma ? 2 : 1) : 0;
      in.dst = p.numSlots++;
      slot[inner.getResult(0)] = in.dst;
      p.code.push_back(in);
    }
    return p;
  }

  /// The loop order of a generic's evaluation: loop 0 first (the threads
  /// split it), then the others in their order but for the innermost,
  /// chosen for contiguous accesses (a product's N loop rather than its K
  /// loop, whose B walks a column). The reduction loops keep their order
  /// relative to each other, so every output element sums its terms in the
  /// source's order and the result does not change by a bit. Only where
  /// each output is indexed by exactly the parallel loops.
  static SmallVector<unsigned>
  loopOrder(linalg::GenericOp op, ArrayRef<utils::IteratorType> iterators,
            ArrayRef<Operand> operands, ArrayRef<int64_t> ranges,
            bool groupOutputs) {
    unsigned numLoops = ranges.size();
    SmallVector<unsigned> order =
        llvm::to_vector(llvm::seq<unsigned>(0, numLoops));
    if (numLoops < 3)
      return order;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      llvm::SmallBitVector seen(numLoops);
      for (AffineExpr e : map.getResults()) {
        auto d = dyn_cast<AffineDimExpr>(e);
        if (!d || iterators[d.getPosition()] != utils::IteratorType::parallel)
          return order;
        seen.set(d.getPosition());
      }
      for (unsigned d = 0; d < numLoops; ++d)
        if (iterators[d] == utils::IteratorType::parallel && !seen.test(d))
          return order;
    }
    unsigned lastReduction = numLoops;
    for (unsigned d = 0; d < numLoops; ++d)
      if (iterators[d] == utils::IteratorType::reduction)
        lastReduction = d;
    // Cost of a loop as the innermost: per operand, nothing where it does
    // not move, 1 where it steps by one element, 4 where it strides.
    auto cost = [&](unsigned d) {
      int64_t total = 0;
      for (const Operand &o : operands)
        if (!o.scalar && o.access.strides[d] != 0)
          total += std::abs(o.access.strides[d]) == 1 ? 1 : 4;
      return total;
    };
    // On a tie a parallel loop wins (no chain of adds through one output),
    // then the longer one (a convolution's output row over its 3-wide
    // window row).
    auto better = [&](unsigned d, unsigned than) {
      if (cost(d) != cost(than))
        return cost(d) < cost(than);
      bool parallel = iterators[d] == utils::IteratorType::parallel;
      if (parallel != (iterators[than] == utils::IteratorType::parallel))
        return parallel;
      return ranges[d] > ranges[than];
    };
    unsigned best = numLoops - 1;
    for (unsigned d = 1; d < numLoops; ++d)
      if ((iterators[d] == utils::IteratorType::parallel ||
           d == lastReduction) &&
          better(d, best))
        best = d;
    llvm::erase(order, best);
    order.push_back(best);
    // A multiply-add summing along the innermost loop takes four outputs
    // at a time along the loop just outside it: bring the cheapest
    // parallel loop there (past reduction loops, whose order stays).
    if (groupOutputs && iterators[best] == utils::IteratorType::reduction) {
      std::optional<unsigned> middle;
      for (unsigned d = 1; d < numLoops; ++d)
        if (d != best && iterators[d] == utils::IteratorType::parallel &&
            (!middle || better(d, *middle)))
          middle = d;
      if (middle) {
        llvm::erase(order, *middle);
        order.insert(order.end() - 1, *middle);
      }
    }
    return order;
  }

  /// A payload that is out + lhs * rhs of two inputs (extensions and
  /// truncations are copies in float64): the interpreter's innermost loop
  /// then multiplies and adds directly, in the same order of operations.
  struct MultiplyAdd {
    int lhs, rhs, out;
  };
  static std::optional<MultiplyAdd> multiplyAdd(const Program &p,
                                                int64_t numInputs) {
    if (p.yields.size() != 1 || !p.constants.empty())
      return std::nullopt;
    DenseMap<int, const Instr *> producer;
    for (const Instr &in : p.code)
      producer[in.dst] = &in;
    auto through = [&](int slot) {
      for (const Instr *in = producer.lookup(slot); in && in->op == Opc::Copy;
           in = producer.lookup(slot))
        slot = in->a;
      return slot;
    };
    auto isInput = [&](int slot) { return slot >= 0 && slot < numInputs; };
    int outSlot = int(numInputs);
    const Instr *add = producer.lookup(p.yields[0]);
    if (!add || add->op != Opc::Add)
      return std::nullopt;
    int x = add->a, y = add->b;
    if (y == outSlot)
      std::swap(x, y);
    const Instr *mul = producer.lookup(y);
    if (x != outSlot || !mul || mul->op != Opc::Mul)
      return std::nullopt;
    int lhs = through(mul->a), rhs = through(mul->b);
    if (!isInput(lhs) || !isInput(rhs))
      return std::nullopt;
    // Every other instruction must feed the product through copies only.
    for (const Instr &in : p.code)
      if (&in != add && &in != mul && in.op != Opc::Copy)
        return std::nullopt;
    return MultiplyAdd{lhs, rhs, outSlot};
  }

  llvm::Error executeGeneric(linalg::GenericOp op, unsigned threads) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return error("dynamic loop ranges " + where(op));
    auto program = compilePayload(op);
    if (!program)
      return program.takeError();
    size_t numLoops = ranges.size();

    // Operand data and accesses; results start as copies of the inits.
    std::vector<Operand> operands;
    std::vector<std::shared_ptr<RefTensor>> outputs;
    for (OpOperand &operand : op->getOpOperands()) {
      Operand o;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!isa<RankedTensorType>(operand.get().getType())) {
        auto s = scalarOf(operand.get());
        if (!s)
          return s.takeError();
        o.scalar = true;
        o.scalarValue = *s;
        operands.push_back(o);
        continue;
      }
      auto it = tensors.find(operand.get());
      if (it == tensors.end())
        return error("operand not computed " + where(op));
      auto access = compileAccess(map, it->second->shape);
      if (!access)
        return error("unsupported indexing map " + where(op));
      o.access = *access;
      if (op.isDpsInit(&operand)) {
        auto result = std::make_shared<RefTensor>(*it->second);
        outputs.push_back(result);
        o.out = result->data.data();
        o.data = o.out;
      } else {
        o.data = it->second->data.data();
      }
      operands.push_back(o);
    }
    int64_t numInputs = op.getNumDpsInputs();

    // Parallelise over the outermost loop when every output is indexed by
    // it, so that threads write disjoint elements.
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    bool parallelOuter =
        numLoops > 0 && iterators[0] == utils::IteratorType::parallel &&
        llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
          AffineMap map = op.getMatchingIndexingMap(&init);
          return llvm::any_of(map.getResults(), [](AffineExpr e) {
            auto d = dyn_cast<AffineDimExpr>(e);
            return d && d.getPosition() == 0;
          });
        });
    int64_t outer = numLoops ? ranges[0] : 1;
    unsigned workers =
        parallelOuter ? std::max(1u, std::min<unsigned>(threads, outer)) : 1;
    std::optional<MultiplyAdd> mac = multiplyAdd(*program, numInputs);
    if (mac && (operands[mac->lhs].scalar || operands[mac->rhs].scalar))
      mac.reset(); // A scalar input has no data to step through.
    // Accesses through mod or divisions are evaluated at each point.
    std::vector<bool> general(operands.size(), false);
    for (size_t k = 0; k < operands.size(); ++k)
      general[k] = !operands[k].scalar && operands[k].access.general;
    if (llvm::is_contained(general, true))
      mac.reset();
    SmallVector<unsigned> order =
        loopOrder(op, iterators, operands, ranges, mac.has_value());
    // One point of the innermost loop per iteration, the operands' offsets
    // advanced by their strides instead of recomputed.
    auto work = [&](int64_t begin, int64_t end) {
      std::vector<double> slots(program->numSlots);
      for (auto [id, value] : program->constants)
        slots[id] = value;
      for (size_t k = 0; k < operands.size(); ++k)
        if (operands[k].scalar)
          slots[k] = operands[k].scalarValue;
      std::vector<int64_t> iv(numLoops, 0);
      std::vector<int64_t> offsets(operands.size());
      if (numLoops == 0) {
        begin = 0;
        end = 1;
      }
      unsigned inner = numLoops ? order.back() : 0;
      int64_t innerRange = numLoops > 1 ? ranges[inner] : 1;
      std::vector<int64_t> innerStride(operands.size(), 0);
      for (size_t k = 0; k < operands.size(); ++k)
        if (!operands[k].scalar && numLoops > 1)
          innerStride[k] = operands[k].access.strides[inner];
      // A multiply-add whose innermost loop is a reduction (a dot product,
      // as in x @ W^T) waits on each add; four outputs of the next loop out
      // at a time give four independent sums, each still in its own order.
      unsigned middle = order.size() >= 3 ? order[order.size() - 2] : 0;
      bool fourOutputs = mac && innerStride[mac->out] == 0 &&
                         order.size() >= 3 &&
                         iterators[middle] == utils::IteratorType::parallel &&
                         operands[mac->out].access.strides[middle] != 0;
      // Runs the innermost loop from the current offsets; returns how many
      // points of the middle loop it covered (four outputs at once, or one).
      auto runInner = [&]() -> int64_t {
        if (mac) {
          const double *a = operands[mac->lhs].data + offsets[mac->lhs];
          const double *b = operands[mac->rhs].data + offsets[mac->rhs];
          double *c = operands[mac->out].out + offsets[mac->out];
          int64_t sa = innerStride[mac->lhs], sb = innerStride[mac->rhs],
                  sc = innerStride[mac->out];
          if (fourOutputs && iv[middle] + 4 <= ranges[middle]) {
            int64_t ta = operands[mac->lhs].access.strides[middle],
                    tb = operands[mac->rhs].access.strides[middle],
                    tc = operands[mac->out].access.strides[middle];
            double c0 = c[0], c1 = c[tc], c2 = c[2 * tc], c3 = c[3 * tc];
            for (int64_t i = 0; i < innerRange; ++i) {
              const double *ai = a + i * sa, *bi = b + i * sb;
              double p0 = ai[0] * bi[0], p1 = ai[ta] * bi[tb],
                     p2 = ai[2 * ta] * bi[2 * tb], p3 = ai[3 * ta] * bi[3 * tb];
              c0 = c0 + p0;
              c1 = c1 + p1;
              c2 = c2 + p2;
              c3 = c3 + p3;
            }
            c[0] = c0;
            c[tc] = c1;
            c[2 * tc] = c2;
            c[3 * tc] = c3;
            return 4;
          }
          for (int64_t i = 0; i < innerRange; ++i) {
            double product = a[i * sa] * b[i * sb];
            c[i * sc] = c[i * sc] + product;
          }
          return 1;
        }
        for (int64_t i = 0; i < innerRange; ++i) {
          if (numLoops > 1)
            iv[inner] = i;
          for (size_t k = 0; k < operands.size(); ++k)
            if (general[k])
              slots[k] = operands[k].data[operands[k].access.offsetAt(iv)];
            else if (!operands[k].scalar)
              slots[k] = operands[k].data[offsets[k] + i * innerStride[k]];
          for (const Instr &in : program->code)
            slots[in.dst] = in.op == Opc::Index ? double(iv[in.pred])
                            : in.op == Opc::Extract
                                ? extractElement(in, slots.data())
                                : eval(in, slots.data());
          for (size_t r = 0; r < program->yields.size(); ++r) {
            size_t k = numInputs + r;
            int64_t at = general[k] ? operands[k].access.offsetAt(iv)
                                    : offsets[k] + i * innerStride[k];
            operands[k].out[at] = slots[program->yields[r]];
          }
        }
        return 1;
      };
      for (int64_t o = begin; o < end; ++o) {
        std::fill(iv.begin(), iv.end(), 0);
        if (numLoops)
          iv[0] = o;
        for (size_t k = 0; k < operands.size(); ++k)
          if (!operands[k].scalar)
            offsets[k] = operands[k].access.base +
                         (numLoops ? operands[k].access.strides[0] * o : 0);
        // The loops between the first and the innermost (odometer); the
        // middle one steps by what the innermost covered.
        while (true) {
          int64_t step = runInner();
          bool done = true;
          for (size_t j = order.size() >= 2 ? order.size() - 1 : 0; j-- > 1;) {
            unsigned d = order[j];
            if (iv[d] + step < ranges[d]) {
              iv[d] += step;
              for (size_t k = 0; k < operands.size(); ++k)
                if (!operands[k].scalar)
                  offsets[k] += operands[k].access.strides[d] * step;
              done = false;
              break;
            }
            for (size_t k = 0; k < operands.size(); ++k)
              if (!operands[k].scalar)
                offsets[k] -= operands[k].access.strides[d] * iv[d];
            iv[d] = 0;
            step = 1;
          }
          if (done)
            break;
        }
      }
    };
    // A loop of extent 0 runs no point: the outputs keep their inits.
    bool anyPoint = !llvm::is_contained(ranges, int64_t(0));
    if (anyPoint && workers <= 1) {
      work(0, outer);
    } else if (anyPoint) {
      std::vector<std::thread> pool;
      int64_t chunk = (outer + workers - 1) / workers;
      for (unsigned w = 0; w < workers; ++w) {
        int64_t b = int64_t(w) * chunk, e = std::min(outer, b + chunk);
        if (b < e)
          pool.emplace_back(work, b, e);
      }
      for (std::thread &t : pool)
        t.join();
    }
    double points = 1;
    for (int64_t r : ranges)
      points *= double(r);
    flopCount += points * double(program->flopsPerPoint);
    for (auto [result, tensor] : llvm::zip(op.getResults(), outputs))
      tensors[result] = tensor;
    return llvm::Error::success();
  }

  /// Records the single contraction reading two function arguments, in the
  /// layouts cuBLAS can run: (b,)m,k x (b,)k,n, either operand transposed.
  void findContraction() {
    SmallVector<linalg::LinalgOp> found;
    func.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        found.push_back(op);
    });
    if (found.size() != 1)
      return;
    linalg::LinalgOp op = found.front();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1 || dims->batch.size() > 1 ||
        op.getNumDpsInputs() != 2)
      return;
    auto a = dyn_cast<BlockArgument>(op.getDpsInputOperand(0)->get());
    auto b = dyn_cast<BlockArgument>(op.getDpsInputOperand(1)->get());
    if (!a || !b || a.getOwner() != &func.getBody().front() ||
        b.getOwner() != &func.getBody().front())
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto dimPos = [](AffineMap map, unsigned d) -> int {
      for (auto [i, e] : llvm::enumerate(map.getResults()))
        if (auto de = dyn_cast<AffineDimExpr>(e); de && de.getPosition() == d)
          return int(i);
      return -1;
    };
    AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    AffineMap mapB = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    int base = dims->batch.empty() ? 0 : 1;
    Contraction c;
    c.m = ranges[m];
    c.n = ranges[n];
    c.k = ranges[k];
    c.batch = dims->batch.empty() ? 1 : ranges[dims->batch[0]];
    if (dimPos(mapA, m) == base && dimPos(mapA, k) == base + 1)
      c.transA = false;
    else if (dimPos(mapA, k) == base && dimPos(mapA, m) == base + 1)
      c.transA = true;
    else
      return;
    if (dimPos(mapB, k) == base && dimPos(mapB, n) == base + 1)
      c.transB = false;
    else if (dimPos(mapB, n) == base && dimPos(mapB, k) == base + 1)
      c.transB = true;
    else
      return;
    auto type = [](Value v) {
      return toElementType(getElementTypeOrSelf(v.getType()));
    };
    auto ta = type(a), tb = type(b), tc = type(op->getResult(0));
    if (!ta || !tb || !tc)
      return;
    c.aType = *ta;
    c.bType = *tb;
    c.cType = *tc;
    c.argA = a.getArgNumber();
    c.argB = b.getArgNumber();
    gemm = c;
  }

  std::optional<Contraction> gemm;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::vector<std::vector<int64_t>> args, results;
  std::vector<ElementType> argElementTypes, resultElementTypes;
  DenseMap<Value, std::shared_ptr<RefTensor>> tensors;
  DenseMap<Value, double> scalars;
  double flopCount = 0;
  double work = 0;
};
} // namespace

llvm::Expected<std::unique_ptr<Reference>>
Reference::create(llvm::StringRef source, llvm::StringRef function) {
  auto interpreter = std::make_unique<Interpreter>();
  if (llvm::Error e = interpreter->prepare(source, function))
    return std::move(e);
  return std::unique_ptr<Reference>(std::move(interpreter));
}
