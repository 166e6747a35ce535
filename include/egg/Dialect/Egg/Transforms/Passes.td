//===- Passes.td - EGG passes ------------------------------*- tablegen -*-===//

#ifndef EGG_PASSES_TD
#define EGG_PASSES_TD

include "mlir/Pass/PassBase.td"

def EggAttachTarget : Pass<"egg-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach the hardware profile of a chip to the module";
  let description = [{
    Sets the module's `egg.target` attribute to the built-in profile of
    `chip` (see docs/dialect.md for the table). A module that already has a
    profile keeps it unless `override` is set. An unknown chip is an error.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Compute capability to target (sm_80, sm_90, sm_90a)">,
    Option<"overrideExisting", "override", "bool", /*default=*/"false",
           "Replace a profile that is already attached">
  ];
  let dependentDialects = ["::mlir::egg::EggDialect"];
}

def EggFormKernels : Pass<"egg-form-kernels", "::mlir::func::FuncOp"> {
  let summary = "Partition linalg-on-tensors functions into egg.kernel fusion groups";
  let description = [{
    Every linalg op of a function body becomes part of exactly one
    `egg.kernel`. The default fusion rule (the expert's): an elementwise op
    whose only user is in the same kernel chain is fused with its consumer, so
    an elementwise prologue/epilogue stays in the kernel of the contraction or
    reduction that anchors it. `fuse=false` makes one kernel per linalg op.
    `tensor.empty` and constants used by a kernel are cloned into it.
  }];
  let options = [
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse elementwise producers into their single consumer's kernel">
  ];
  let dependentDialects = ["::mlir::egg::EggDialect"];
}

def EggInlineKernels : Pass<"egg-inline-kernels", "::mlir::func::FuncOp"> {
  let summary = "Dissolve egg.kernel ops back into their function";
  let description = [{
    Replaces each `egg.kernel` by its body. Used after the decisions have
    been materialised, and to hand EGG IR to pipelines that do not know the
    dialect.
  }];
}

#endif // EGG_PASSES_TD
