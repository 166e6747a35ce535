//===- BufferizableOpInterfaceImpl.cpp - Bufferizing egg ops --------------===//
//
// egg.scan and egg.recurrence are destination-passing like a linalg op: each
// result is its init's buffer, written in place (the old values are never
// read); the other operands are read.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/BufferizableOpInterfaceImpl.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::egg;

namespace {
struct ScanOpInterface
    : public DstBufferizableOpInterfaceExternalModel<ScanOpInterface, ScanOp> {
  /// The init is only overwritten: its old values are never read.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return &operand == &cast<ScanOp>(op).getInputMutable();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto scan = cast<ScanOp>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, scan.getInput(), options, state);
    FailureOr<Value> init = getBuffer(rewriter, scan.getInit(), options, state);
    if (failed(input) || failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    ScanOp::create(rewriter, op->getLoc(), TypeRange(), *input, *init,
                   scan.getKind(), scan.getReverse(), scan.getExclusive());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};

struct RecurrenceOpInterface
    : public DstBufferizableOpInterfaceExternalModel<RecurrenceOpInterface,
                                                     RecurrenceOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<RecurrenceOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto recurrence = cast<RecurrenceOp>(op);
    auto buffer = [&](Value v) {
      return getBuffer(rewriter, v, options, state);
    };
    FailureOr<Value> input = buffer(recurrence.getInput()),
                     weight = buffer(recurrence.getWeight()),
                     bias = buffer(recurrence.getBias()),
                     sequence = buffer(recurrence.getSequence());
    if (failed(input) || failed(weight) || failed(bias) || failed(sequence))
      return failure();
    SmallVector<Value> initial, finals;
    for (Value v : recurrence.getInitial()) {
      FailureOr<Value> b = buffer(v);
      if (failed(b))
        return failure();
      initial.push_back(*b);
    }
    for (Value v : recurrence.getFinals()) {
      FailureOr<Value> b = buffer(v);
      if (failed(b))
        return failure();
      finals.push_back(*b);
    }
    rewriter.setInsertionPoint(op);
    auto bufferized = RecurrenceOp::create(
        rewriter, op->getLoc(), TypeRange(), *input, *weight, *bias, initial,
        *sequence, finals, recurrence.getReverse());
    rewriter.inlineRegionBefore(recurrence.getCell(), bufferized.getCell(),
                                bufferized.getCell().end());
    SmallVector<Value> results = {*sequence};
    llvm::append_range(results, finals);
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};
} // namespace

void mlir::egg::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, EggDialect *) {
    ScanOp::attachInterface<ScanOpInterface>(*ctx);
    RecurrenceOp::attachInterface<RecurrenceOpInterface>(*ctx);
  });
}
