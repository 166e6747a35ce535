//===- EggOps.td - EGG operations --------------------------*- tablegen -*-===//

#ifndef EGG_OPS_TD
#define EGG_OPS_TD

include "egg/Dialect/Egg/IR/EggDialect.td"
include "egg/Dialect/Egg/IR/EggAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"
include "mlir/Interfaces/ViewLikeInterface.td"

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
    /// contraction, convolution, reduction or scan in the body, else the
    /// last linalg op. Null when the body has no linalg op or scan.
    ::mlir::Operation *getAnchorOp();
    /// The op whose tiling drives the kernel's loop nest: the last linalg
    /// op, tensor.pad or egg.scan in the body (an epilogue when there is
    /// one).
    /// The `block` and `thread` tile lists are per parallel loop of the root.
    ::mlir::Operation *getRootOp();
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Egg_YieldOp : Egg_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["KernelOp", "RecurrenceOp"]>]> {
  let summary = "returns the results of an egg.kernel or a recurrence's "
                "cell";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

def Egg_PaddedViewOp : Egg_Op<"padded_view", [
    Pure, ViewLikeOpInterface]> {
  let summary = "a buffer seen with a zero border, for an implicit GEMM's "
                "copies";
  let description = [{
    A view of `source` as if padded with zeros by `low` and `high` elements
    per dimension (the padded shape is the result's): element `i` of the
    result is `source[i - low]` where that lies inside `source`, and zero
    elsewhere. No memory holds the border: the result shares the source's
    base address and strides, and only `egg-lower-shared-gemm` may read it,
    whose copies of an implicit-GEMM convolution's input read the source
    where a piece lies inside it and zero-fill the rest (cp.async with a
    source size of 0). `egg-apply-schedule` creates it for a zero
    `tensor.pad` that `egg-form-kernels` fused into a convolution's kernel
    (docs/pipeline.md, "Convolutions as implicit GEMM"); any other reader is
    an error.

    ```mlir
    %v = egg.padded_view %x low [0, 1, 1, 0] high [0, 1, 1, 0]
        : memref<16x64x64x64xf16>
        to memref<16x66x66x64xf16, strided<[262144, 4096, 64, 1], offset: ?>>
    ```
  }];
  let arguments = (ins AnyStridedMemRef:$source, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high);
  let results = (outs AnyStridedMemRef:$result);
  let assemblyFormat = [{
    $source `low` $low `high` $high attr-dict `:` type($source) `to`
    type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source,
                   "::llvm::ArrayRef<int64_t>":$low,
                   "::llvm::ArrayRef<int64_t>":$high)>
  ];
  let extraClassDeclaration = [{
    /// The result type for `source` padded by `low` and `high`: the padded
    /// shape with the source's strides and a dynamic offset; null where the
    /// source's strides are not static.
    static ::mlir::MemRefType inferResultType(::mlir::MemRefType source,
                                              ::llvm::ArrayRef<int64_t> low,
                                              ::llvm::ArrayRef<int64_t> high);
    ::mlir::Value getViewSource() { return getSource(); }
  }];
}

def Egg_ScanOp : Egg_Op<"scan", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getIterationDomain", "getLoopIteratorTypes",
        "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "a scan along the innermost dimension";
  let description = [{
    Element `[..., i]` of the result combines `input[..., 0]` to
    `input[..., i]` with `kind` (`add`: a cumulative sum, `mul`: a
    cumulative product), in order along the innermost dimension; every
    other dimension is parallel. With `reverse` it combines `input[..., i]`
    to `input[..., n-1]`, walking from the end (`flip(cumsum(flip(x)))`);
    with `exclusive` it leaves out element `i` itself (the identity at the
    first element: `cat(0, cumsum(x[:-1]))`). Either way each element is
    read and written once. Linalg has no scan, so front ends put
    the scanned dimension innermost (a transpose where it was not) and use
    this op. Like a linalg op it has tensor semantics (`init` gives the
    result's shape and is overwritten) or buffer semantics (no result).

    `egg-form-kernels` gives each scan a kernel of its own, whose structure
    is `scan_warp` (docs/pipeline.md, "Scans"): a warp per row reads and
    writes each element once.

    ```mlir
    %y = egg.scan add %x into %init
        : tensor<128x4096xf32>, tensor<128x4096xf32> -> tensor<128x4096xf32>
    ```
  }];
  let arguments = (ins TensorOrMemRef<[AnyFloat]>:$input,
                       TensorOrMemRef<[AnyFloat]>:$init,
                       Egg_ScanKind:$kind,
                       UnitAttr:$reverse,
                       UnitAttr:$exclusive);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $kind (`reverse` $reverse^)? (`exclusive` $exclusive^)? $input `into`
    $init attr-dict `:` type($input) `,` type($init)
    (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// The scan's extent: the innermost dimension.
    int64_t getScanLength() {
      return ::llvm::cast<::mlir::ShapedType>(getInput().getType())
          .getShape().back();
    }
  }];
}

def Egg_RecurrenceOp : Egg_Op<"recurrence", [
    IsolatedFromAbove, AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getIterationDomain", "getLoopIteratorTypes",
        "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "a recurrent layer's steps (LSTM, GRU, RNN cells)";
  let description = [{
    Runs a recurrent cell over `T` steps for `B` independent batch rows of
    `H` units with `G` gates and `S` states (state 0 is the hidden state
    `h`). `input` ([T, B, G*H]) holds the input side of every gate, the
    input projection computed beforehand for all steps at once; `weight`
    ([H, G*H]) and `bias` ([G*H]) give the hidden side: at step `t` (taken
    from T-1 down to 0 when `reverse` is set) the hidden gates of row `b`
    are `h[b] @ weight + bias`. The cell region computes, for each row and
    unit `j`, the new states from its arguments: the G input gates
    `input[t][b][g*H + j]`, the G hidden gates, then the S old states at
    `[b][j]`; it yields the S new states. The new `h` is written to
    `sequence[t][b][j]` and feeds the next step. Results: the sequence
    ([T, B, H]) and the final states ([B, H] each), tensor semantics with
    `sequence` and `finals` as inits (overwritten), or buffer semantics (no
    results). Linalg has no loop-carried form, so front ends use this op
    for torch's LSTM, GRU and RNN layers (docs/pipeline.md, "Recurrences").

    Batch rows never meet: the op tiles along B (its one loop), every step
    of a row in one tile. `egg-form-kernels` gives it a kernel of its own.

    ```mlir
    %seq, %h, %c = egg.recurrence ins(%xg, %w, %b, %h0, %c0 :
        tensor<512x10x1024xf32>, tensor<256x1024xf32>, tensor<1024xf32>,
        tensor<10x256xf32>, tensor<10x256xf32>)
        outs(%s0, %h1, %c1 : tensor<512x10x256xf32>, tensor<10x256xf32>,
             tensor<10x256xf32>) {
    ^bb0(%xi: f32, %xf: f32, %xg: f32, %xo: f32, %hi: f32, %hf: f32,
         %hg: f32, %ho: f32, %h: f32, %c: f32):
      ...
      egg.yield %h2, %c2 : f32, f32
    } -> tensor<512x10x256xf32>, tensor<10x256xf32>, tensor<10x256xf32>
    ```
  }];
  let arguments = (ins TensorOrMemRef<[F32]>:$input,
                       TensorOrMemRef<[F32]>:$weight,
                       TensorOrMemRef<[F32]>:$bias,
                       Variadic<TensorOrMemRef<[F32]>>:$initial,
                       TensorOrMemRef<[F32]>:$sequence,
                       Variadic<TensorOrMemRef<[F32]>>:$finals,
                       UnitAttr:$reverse);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let regions = (region SizedRegion<1>:$cell);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `,` $bias `,` $initial `:` type($input) `,`
    type($weight) `,` type($bias) `,` type($initial) `)`
    `outs` `(` $sequence `,` $finals `:` type($sequence) `,` type($finals)
    `)` attr-dict-with-keyword $cell (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(
          getOperation(), getSequenceMutable().getOperandNumber(),
          1 + getFinals().size());
    }
    int64_t getSteps() { return getShape(getInput())[0]; }
    int64_t getBatch() { return getShape(getInput())[1]; }
    int64_t getUnits() { return getShape(getWeight())[0]; }
    int64_t getGates() { return getShape(getWeight())[1] / getUnits(); }
    int64_t getStates() { return getInitial().size(); }
    ::mlir::Block &getCellBlock() { return getCell().front(); }
    static ::llvm::ArrayRef<int64_t> getShape(::mlir::Value v) {
      return ::llvm::cast<::mlir::ShapedType>(v.getType()).getShape();
    }
  }];
}

#endif // EGG_OPS_TD
