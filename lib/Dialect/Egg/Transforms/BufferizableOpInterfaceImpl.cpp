//===- BufferizableOpInterfaceImpl.cpp - Bufferizing egg ops --------------===//
//
// egg.scan is destination-passing like a linalg op: its result is its init's
// buffer, written in place; its input is read.
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
                   scan.getKind());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlir::egg::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, EggDialect *) {
    ScanOp::attachInterface<ScanOpInterface>(*ctx);
  });
}
