//===- EggAttrs.td - EGG decision attributes ---------------*- tablegen -*-===//
//
// Every choice an agent makes is one of these attributes. Their verifiers
// reject values that cannot describe a kernel; checks that need the kernel
// body or the target (shared-memory footprint, thread limits) live in the
// egg.kernel verifier.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_ATTRS_TD
#define EGG_ATTRS_TD

include "egg/Dialect/Egg/IR/EggDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Egg_Formulation : I32EnumAttr<"Formulation",
    "stage-1 algorithm structure of a kernel", [
  I32EnumAttrCase<"elementwise_flat", 0>,
  I32EnumAttrCase<"gemm_direct", 1>,
  I32EnumAttrCase<"gemm_split_k", 2>,
  I32EnumAttrCase<"reduce_row_per_block", 3>,
  I32EnumAttrCase<"reduce_row_per_warp", 4>,
  I32EnumAttrCase<"reduce_two_stage", 5>,
  I32EnumAttrCase<"softmax_three_pass", 6>,
  I32EnumAttrCase<"norm_two_pass", 9>,
  I32EnumAttrCase<"conv_direct", 11>,
  I32EnumAttrCase<"conv_implicit_gemm", 12>,
  I32EnumAttrCase<"reduce_serial", 13>,
  I32EnumAttrCase<"scan_warp", 14>,
  I32EnumAttrCase<"recurrence_block", 15>
]> {
  let cppNamespace = "::mlir::egg";
  let genSpecializedAttr = 0;
}

def Egg_ScanKind : I32EnumAttr<"ScanKind",
    "how a scan combines an element with the ones before it", [
  I32EnumAttrCase<"add", 0>,
  I32EnumAttrCase<"mul", 1>
]> {
  let cppNamespace = "::mlir::egg";
}

def Egg_CopyEngine : I32EnumAttr<"CopyEngine",
    "how tiles are moved from global to shared memory", [
  I32EnumAttrCase<"sync", 0>,
  I32EnumAttrCase<"cp_async", 1>,
  I32EnumAttrCase<"tma", 2>
]> {
  let cppNamespace = "::mlir::egg";
  let genSpecializedAttr = 0;
}

def Egg_Swizzle : I32EnumAttr<"Swizzle",
    "shared-memory layout swizzle", [
  I32EnumAttrCase<"none", 0>,
  I32EnumAttrCase<"xor32", 1>,
  I32EnumAttrCase<"xor64", 2>,
  I32EnumAttrCase<"xor128", 3>
]> {
  let cppNamespace = "::mlir::egg";
  let genSpecializedAttr = 0;
}

def Egg_MmaKind : I32EnumAttr<"MmaKind",
    "which units multiply a shared-memory GEMM's tiles", [
  I32EnumAttrCase<"fma", 0>,
  I32EnumAttrCase<"mma_sync", 1>,
  I32EnumAttrCase<"wgmma", 2>
]> {
  let cppNamespace = "::mlir::egg";
  let genSpecializedAttr = 0;
}

class Egg_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Egg_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// #egg.target
//===----------------------------------------------------------------------===//

def Egg_TargetAttr : Egg_Attr<"Target", "target"> {
  let summary = "hardware profile that decisions are checked against";
  let description = [{
    The machine a module is compiled for. Rates are integers in the units
    their names give (bandwidth in GB/s counting bytes read plus written,
    peak rates in GFLOP/s) so that the profile round-trips exactly.

    ```mlir
    module attributes {egg.target = #egg.target<chip = "sm_90a",
        name = "H200", sm_count = 132, warp_size = 32,
        max_threads_per_block = 1024, shared_memory_per_block = 232448,
        registers_per_block = 65536, max_registers_per_thread = 255,
        l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000,
        tensor_gflops = 790000>} {}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"compute capability, e.g. sm_90a">:$chip,
    StringRefParameter<"marketing name">:$name,
    "int64_t":$sm_count,
    "int64_t":$warp_size,
    "int64_t":$max_threads_per_block,
    "int64_t":$shared_memory_per_block,
    "int64_t":$registers_per_block,
    "int64_t":$max_registers_per_thread,
    "int64_t":$l2_bytes,
    "int64_t":$dram_gbps,
    "int64_t":$fp32_gflops,
    "int64_t":$tensor_gflops
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// SM version number: 90 for "sm_90a".
    int64_t getSmVersion() const;
    /// True for the `a` variants that enable wgmma / setmaxnreg.
    bool hasArchSpecificFeatures() const;
  }];
}

//===----------------------------------------------------------------------===//
// #egg.structure (stage 1)
//===----------------------------------------------------------------------===//

def Egg_StructureAttr : Egg_Attr<"Structure", "structure"> {
  let summary = "stage-1 decision: the algorithm structure of a kernel";
  let description = [{
    Which formulation the kernel's anchor op is computed with, and the
    formulation's own parameter where it has one: the number of slices of
    the reduced loop for `gemm_split_k` (K, at least 2) and
    `reduce_two_stage` (the column reduction's rows; 1 keeps them in one
    kernel). A split kernel runs as partial results, one per slice, and a
    sum (egg-split-k).

    ```mlir
    #egg.structure<gemm_split_k, split_k = 4>
    #egg.structure<reduce_two_stage, split_k = 8>
    #egg.structure<conv_direct>
    ```
  }];
  let parameters = (ins
    EnumParameter<Egg_Formulation>:$formulation,
    DefaultValuedParameter<"int64_t", "1">:$split_k
  );
  let assemblyFormat = "`<` $formulation (`,` `split_k` `=` $split_k^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the kernel runs as partial results of slices of its reduced
    /// loop and their sum: egg-split-k must build those before the schedule
    /// is applied.
    bool isSplit() const;
  }];
}

//===----------------------------------------------------------------------===//
// #egg.tuning (stage 2)
//===----------------------------------------------------------------------===//

def Egg_TuningAttr : Egg_Attr<"Tuning", "tuning"> {
  let summary = "stage-2 decisions: mapping, tiling and memory promotion";
  let description = [{
    How a kernel maps onto the machine. Tile lists have one entry per loop of
    the kernel's anchor op (parallel loops for `block`, `warp`, `thread`;
    reduction loops for `reduction`); 0 means "not tiled at this level".

    * `threads`: block dimensions (x, y, z), at most 3 entries.
    * `block`, `warp`, `thread`: tile sizes per level. A non-zero warp tile
      must divide the block tile, a non-zero thread tile the warp tile (or
      the block tile when there is no warp level). Each warp owns one warp
      tile; with `threads = [128, N, M]` and no thread tile each warpgroup
      (4 warps) owns one (warpgroup MMA).
    * `swizzle`: XOR layout of the shared tiles (`xor128`: the 128-byte
      swizzle that warpgroup MMA reads).
    * `reduction`: tile of the reduction loops (the K step).
    * `shared`, `registers`: operand numbers of the anchor op promoted to
      shared memory or kept in registers (an operand goes to at most one).
    * `padding`: elements added to each shared-memory row (bank conflicts);
      exclusive with `swizzle`.
    * `vector`: elements per vector access: 1, 2, 4, 8 or 16.
    * `copy`: `sync`, `cp_async` or `tma`; asynchronous copies need a
      promoted operand, and `pipeline` > 1 needs an asynchronous copy.
    * `cluster`: blocks per thread-block cluster (1, 2, 4 or 8; sm_90):
      a column reduction's rows are shared by the cluster's blocks, which
      combine their partial results over distributed shared memory.
    * `row_shared`: with a block per row (`reduce_row_per_block`) whose
      rows are held across its ops, the last `row_shared` row steps of each
      thread's part of a held row live in shared memory instead of
      registers, so that more blocks fit an SM (0: all in registers).
    * `fragments_ahead`: with FMA thread tiles over a pipeline (`pipeline`
      >= 2), 1 loads each K step's A and B values before the previous
      step's multiply-adds, across K tiles too, the K tile one unrolled
      loop body (0: each step loads its own values).
    * `tf32_terms`: with warpgroup MMA on f32 matrices, the TF32 products
      that make up each f32 product: 1 reads the inputs as TF32 (10-bit
      mantissas; the module must allow it, `egg.allow_tf32`); 3 splits
      each input into a TF32 high part and a TF32 low part and adds
      hi x hi + hi x lo + lo x hi, an error of the order of f32's own.
    * `mma`: which units multiply a shared-memory GEMM's tiles. `fma`
      (the default): CUDA cores, each thread its thread tile. `mma_sync`:
      tensor cores, each warp its warp tile with mma.sync (no thread
      tile). `wgmma`: Hopper's warpgroup MMA, each warpgroup of 4 warps
      its warp tile, with `threads = [128, N, M]` (no thread tile).

    ```mlir
    #egg.tuning<threads = [128], block = [128, 128], warp = [64, 64],
                thread = [8, 8], reduction = [32], shared = [0, 1],
                padding = 4, vector = 4, copy = cp_async, pipeline = 3>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "block dimensions">:$threads,
    ArrayRefParameter<"int64_t", "block tile per parallel loop">:$block,
    OptionalArrayRefParameter<"int64_t", "warp tile">:$warp,
    OptionalArrayRefParameter<"int64_t", "thread tile">:$thread,
    OptionalArrayRefParameter<"int64_t", "reduction tile">:$reduction,
    OptionalArrayRefParameter<"int64_t", "operands in shared memory">:$shared,
    OptionalArrayRefParameter<"int64_t", "operands in registers">:$registers,
    DefaultValuedParameter<"int64_t", "0">:$padding,
    DefaultValuedParameter<"::mlir::egg::Swizzle",
                           "::mlir::egg::Swizzle::none">:$swizzle,
    DefaultValuedParameter<"int64_t", "1">:$vector,
    DefaultValuedParameter<"::mlir::egg::CopyEngine",
                           "::mlir::egg::CopyEngine::sync">:$copy,
    DefaultValuedParameter<"int64_t", "1">:$pipeline,
    DefaultValuedParameter<"int64_t", "1">:$cluster,
    DefaultValuedParameter<"int64_t", "0">:$rowShared,
    DefaultValuedParameter<"int64_t", "0">:$fragmentsAhead,
    DefaultValuedParameter<"int64_t", "1">:$tf32Terms,
    DefaultValuedParameter<"::mlir::egg::MmaKind",
                           "::mlir::egg::MmaKind::fma">:$mma
  );
  // Keyword list in any order; printed in declaration order with defaults
  // elided (see EggAttrs.cpp).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block: the product of `threads`.
    int64_t getNumThreads() const;
  }];
}

#endif // EGG_ATTRS_TD
