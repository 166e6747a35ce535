//===- DecisionsFuzzer.cpp - libFuzzer target for decisions files ---------===//
//
// Any bytes as a decisions file replayed on a kernel: the replay agent and
// the decision attributes' parser and verifiers must answer with a decision
// or a diagnostic, never crash. Built and run by fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "egg/Agents/Agent.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// Three kernels, two of the same body, so that entries are matched by name,
// by signature and shared (docs/decisions.md).
static const char *kKernel = R"mlir(
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  %r = egg.kernel @f_k0 ins(%a, %b, %c : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%x: tensor<64x32xf32>, %y: tensor<32x16xf32>, %z: tensor<64x16xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
    egg.yield %m : tensor<64x16xf32>
  }
  %s = egg.kernel @f_k1 ins(%a, %b, %r : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%x: tensor<64x32xf32>, %y: tensor<32x16xf32>, %z: tensor<64x16xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
    egg.yield %m : tensor<64x16xf32>
  }
  %t = egg.kernel @f_k2 ins(%r, %s : tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%x: tensor<64x16xf32>, %y: tensor<64x16xf32>):
    %e = tensor.empty() : tensor<64x16xf32>
    %m = linalg.add ins(%x, %y : tensor<64x16xf32>, tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
    egg.yield %m : tensor<64x16xf32>
  }
  return %r, %s, %t : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>
})mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext *ctx = egg_fuzz::getContext();
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  // Parsed afresh per input: the replayed decisions are set on the kernel.
  OwningOpRef<ModuleOp> module = egg_fuzz::parseKernels(kKernel);
  llvm::SmallString<64> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("egg-fuzz", "json", fd, path))
    return 0;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(data), size);
  }
  auto agent = egg::createReplayAgent(path, ctx, module->getLoc());
  if (succeeded(agent)) {
    module->walk([&](egg::KernelOp kernel) {
      auto legal = egg::enumerateStructures(kernel);
      if (succeeded((*agent)->chooseStructure(kernel, legal))) {
        auto tuning = (*agent)->chooseTuning(kernel, kernel.getStructureAttr(),
                                             egg::lookupTarget(kernel));
        if (succeeded(tuning)) {
          kernel.setTuningAttr(*tuning);
          (void)egg::checkLowerable(kernel, *tuning,
                                    [&]() { return kernel.emitOpError(); });
          (void)mlir::verify(kernel);
        }
      }
    });
  }
  llvm::sys::fs::remove(path);
  return 0;
}
