//===- EggOps.td - EGG operations --------------------------*- tablegen -*-===//

#ifndef EGG_OPS_TD
#define EGG_OPS_TD

include "egg/Dialect/Egg/IR/EggDialect.td"
include "egg/Dialect/Egg/IR/EggAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Egg_KernelOp : Egg_Op<"kernel", [
    IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a fusion group that becomes one GPU kernel";
  let description = [{
    Groups the tensor ops that will be generated as one GPU kernel. The
    kernel is isolated from above: every value it reads is an explicit input
    (a block argument of its body) and everything it produces is yielded, so
    a kernel can be compiled, cached and tuned on its own.

    The decisions taken for it are attributes: `structure` (stage 1) and
    `tuning` (stage 2). When the module carries an `egg.target` profile the
    verifier checks `tuning` against it (threads per block, shared memory).

    ```mlir
    %0 = egg.kernel @k0 ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
        -> tensor<64x16xf32>
        attributes {structure = #egg.structure<gemm_direct>} {
    ^bb0(%x: tensor<64x32xf32>, %y: tensor<32x16xf32>):
      %e = tensor.empty() : tensor<64x16xf32>
      ...
      egg.yield %r : tensor<64x16xf32>
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Variadic<AnyType>:$inputs,
    OptionalAttr<Egg_StructureAttr>:$structure,
    OptionalAttr<Egg_TuningAttr>:$tuning
  );
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    /// The op whose loops the tuning's tile lists describe: the last
    /// contraction, convolution or reduction in the body, else the last
    /// linalg op. Null when the body has no linalg op.
    ::mlir::Operation *getAnchorOp();
    /// The op whose tiling drives the kernel's loop nest: the last linalg op
    /// or tensor.pad in the body (an epilogue when there is one).
    /// The `block` and `thread` tile lists are per parallel loop of the root.
    ::mlir::Operation *getRootOp();
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Egg_YieldOp : Egg_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"KernelOp">]> {
  let summary = "returns the results of an egg.kernel";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

#endif // EGG_OPS_TD
