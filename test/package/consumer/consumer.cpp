// Uses EGG as an installed package: load the dialect, parse and print an
// attribute through the generated parser/printer.
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::egg::EggDialect>();
  mlir::Attribute attr =
      mlir::parseAttribute("#egg.structure<gemm_split_k, split_k = 4>", &ctx);
  if (!attr)
    return 1;
  llvm::outs() << attr << "\n";
  return 0;
}
