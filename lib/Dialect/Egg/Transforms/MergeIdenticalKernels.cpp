//===- MergeIdenticalKernels.cpp - One compile per distinct kernel --------===//
//
// Outlining gives every launch its own gpu.module, so a model that repeats
// a layer compiles, lowers to PTX and loads the same kernel once per
// repetition. Modules are compared by their printed contents with the
// module's and the kernel's names replaced, which sets aside exactly what
// outlining made different and nothing else.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "egg-merge-identical-kernels"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGMERGEIDENTICALKERNELS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;

namespace {
/// The one kernel function of an outlined module, or null.
gpu::GPUFuncOp soleKernel(gpu::GPUModuleOp module) {
  gpu::GPUFuncOp kernel;
  for (gpu::GPUFuncOp func : module.getOps<gpu::GPUFuncOp>()) {
    if (!func.isKernel() || kernel)
      return nullptr;
    kernel = func;
  }
  return kernel;
}

/// The module's contents in generic form, its own name and its kernel's
/// replaced by fixed ones; std::nullopt where the kernel cannot be renamed.
std::optional<std::string> contentKey(gpu::GPUModuleOp module,
                                      gpu::GPUFuncOp kernel) {
  Operation *copy = module->clone();
  auto cleanup = llvm::make_scope_exit([&] { copy->erase(); });
  SymbolTable table(copy);
  Operation *copiedKernel = table.lookup(kernel.getName());
  MLIRContext *ctx = module.getContext();
  if (!copiedKernel ||
      failed(table.rename(copiedKernel, StringAttr::get(ctx, "kernel"))))
    return std::nullopt;
  SymbolTable::setSymbolName(copy, StringAttr::get(ctx, "module"));
  std::string key;
  llvm::raw_string_ostream os(key);
  copy->print(os, OpPrintingFlags().printGenericOpForm());
  return key;
}

struct MergeIdenticalKernelsPass
    : public egg::impl::EggMergeIdenticalKernelsBase<
          MergeIdenticalKernelsPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    llvm::StringMap<gpu::GPUFuncOp> firstWithKey;
    // Erased module name -> the kernel its launches call instead.
    llvm::StringMap<gpu::GPUFuncOp> replacement;
    SmallVector<gpu::GPUModuleOp> erased;
    for (gpu::GPUModuleOp module : top.getOps<gpu::GPUModuleOp>()) {
      gpu::GPUFuncOp kernel = soleKernel(module);
      if (!kernel)
        continue;
      std::optional<std::string> key = contentKey(module, kernel);
      if (!key)
        continue;
      auto [it, inserted] = firstWithKey.try_emplace(*key, kernel);
      if (inserted)
        continue;
      LLVM_DEBUG(llvm::dbgs()
                 << module.getName() << " is " << it->second.getName() << "\n");
      replacement[module.getName()] = it->second;
      erased.push_back(module);
    }
    if (erased.empty())
      return;

    StringAttr launchName = StringAttr::get(
        &getContext(), egg::EggDialect::getLaunchNameAttrName());
    top.walk([&](gpu::LaunchFuncOp launch) {
      auto it = replacement.find(launch.getKernelModuleName().getValue());
      if (it == replacement.end())
        return;
      if (!launch->hasAttr(launchName))
        launch->setAttr(launchName, launch.getKernelName());
      auto kept = it->second->getParentOfType<gpu::GPUModuleOp>();
      launch.setKernelAttr(
          SymbolRefAttr::get(kept.getNameAttr(),
                             ArrayRef<FlatSymbolRefAttr>{FlatSymbolRefAttr::get(
                                 it->second.getNameAttr())}));
    });
    for (gpu::GPUModuleOp module : erased)
      module->erase();
  }
};
} // namespace
