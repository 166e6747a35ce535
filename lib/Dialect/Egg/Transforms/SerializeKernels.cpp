//===- SerializeKernels.cpp - gpu.module to gpu.binary, in parallel -------===//
//
// Upstream gpu-module-to-binary serializes one module after another; each
// serialization only reads its own module (and writes attributes on it),
// builds its own LLVMContext and target machine, so modules can be
// serialized at the same time. Creating the binaries and erasing the
// modules, which change the parent, stay on one thread.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-serialize-kernels"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGSERIALIZEKERNELS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
using Objects = SmallVector<SmallVector<char, 0>>;

/// Every target's object of one module, or failure (already diagnosed).
FailureOr<Objects> serialize(gpu::GPUModuleOp module,
                             const gpu::TargetOptions &options) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.empty())
    return module.emitError("the module has no target attributes");
  Objects objects;
  for (Attribute attr : targets) {
    auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
    if (!target)
      return module.emitError("target ")
             << attr << " cannot serialize a module";
    std::optional<SmallVector<char, 0>> object =
        target.serializeToObject(module, options);
    if (!object)
      return module.emitError("serializing the module for ")
             << attr << " failed";
    objects.push_back(std::move(*object));
  }
  return objects;
}

/// The targets' object attributes of a serialized module, or failure
/// (diagnosed).
FailureOr<ArrayAttr> buildObjects(gpu::GPUModuleOp module,
                                  const Objects &serialized,
                                  const gpu::TargetOptions &options) {
  SmallVector<Attribute> objects;
  for (auto [attr, object] : llvm::zip(module.getTargetsAttr(), serialized)) {
    Attribute built = cast<gpu::TargetAttrInterface>(attr).createObject(
        module, object, options);
    if (!built)
      return module.emitError("creating the object for ") << attr << " failed";
    objects.push_back(built);
  }
  return ArrayAttr::get(module.getContext(), objects);
}

struct SerializeKernelsPass
    : public egg::impl::EggSerializeKernelsBase<SerializeKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    auto compilationTarget =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Case("isa", gpu::CompilationTarget::Assembly)
            .Case("bin", gpu::CompilationTarget::Binary)
            .Case("fatbin", gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!compilationTarget) {
      top.emitError("egg-serialize-kernels: unknown format '")
          << format << "' (isa, bin or fatbin)";
      return signalPassFailure();
    }
    // Built before the threads start: targets may ask for it.
    SymbolTable table(top);
    auto tableOf = [&]() -> SymbolTable * { return &table; };
    gpu::TargetOptions options(toolkitPath, {}, {}, {}, *compilationTarget,
                               tableOf);

    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());
    SmallVector<FailureOr<Objects>> results(modules.size(), failure());
    {
      ParallelDiagnosticHandler diagnostics(&getContext());
      parallelFor(&getContext(), 0, modules.size(), [&](size_t i) {
        diagnostics.setOrderIDForThread(i);
        results[i] = serialize(modules[i], options);
        diagnostics.eraseOrderIDForThread();
      });
    }

    bool anyFailed = false;
    for (auto [module, result] : llvm::zip(modules, results)) {
      FailureOr<ArrayAttr> objects =
          succeeded(result) ? buildObjects(module, *result, options)
                            : FailureOr<ArrayAttr>(failure());
      if (failed(objects)) {
        anyFailed = true;
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "serialized " << module.getName() << "\n");
      OpBuilder builder(module);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(),
                            /*offloadingHandler=*/nullptr, *objects);
      module->erase();
    }
    if (anyFailed)
      signalPassFailure();
  }
};
} // namespace
