//===- Registration.cpp - What the EGG tools register ---------------------===//

#include "egg/Tools/Registration.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::egg::registerToolDialects(DialectRegistry &registry) {
  registry.insert<EggDialect, arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

void mlir::egg::registerToolPasses() {
  registerEggPasses();
  registerCanonicalizerPass();
  registerCSEPass();
}
