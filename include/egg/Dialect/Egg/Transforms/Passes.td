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
    `allow-tf32` sets the module's `egg.allow_tf32`: f32 products may then
    read their inputs as TF32 on tensor cores (never without it).
    `split-k=false` sets `egg.no_split_k`: products then stay whole along K
    and column reductions along their rows (`gemm_split_k` and split
    `reduce_two_stage`, which need a workspace of their slices' partial
    results, leave the legal space).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Compute capability to target (sm_80, sm_90, sm_90a)">,
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Allow f32 products on TF32 tensor cores (egg.allow_tf32)">,
    Option<"splitK", "split-k", "bool", /*default=*/"true",
           "Let products and column reductions split into slices (false "
           "sets egg.no_split_k)">,
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

def EggCollapseReducedLoops : Pass<"egg-collapse-reduced-loops", "::mlir::func::FuncOp"> {
  let summary = "Merge a reduction's trailing reduced loops into one row";
  let description = [{
    A reduction over several trailing dimensions that every operand lays
    out contiguously (a mean over C, D, H and W of an NCDHW tensor) becomes
    a reduction over one loop of their product, so that the row the agents
    see, and the lanes that share it, span the whole reduced extent rather
    than its innermost dimension (30 of 475200).

    Only reductions whose reduced input has no other reader are merged, so
    kernels that read the same row more than once (norms) keep one shape;
    a single-use elementwise producer of that input is merged alike, so it
    still fuses into the reduction's kernel. Contractions are left alone.
    Run before `egg-form-kernels`.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def EggInlineKernels : Pass<"egg-inline-kernels", "::mlir::func::FuncOp"> {
  let summary = "Dissolve egg.kernel ops back into their function";
  let description = [{
    Replaces each `egg.kernel` by its body. Used after the decisions have
    been materialised, and to hand EGG IR to pipelines that do not know the
    dialect.
  }];
}


def EggSplitK : Pass<"egg-split-k", "::mlir::ModuleOp"> {
  let summary = "Run each split kernel as partial results and a sum";
  let description = [{
    Replaces every decided kernel whose structure is split
    (`StructureAttr::isSplit`: `gemm_split_k`, or `reduce_two_stage` with
    `split_k` > 1, whose partial kernel is an unsplit column reduction over
    row slices; docs/pipeline.md, "Column reductions") by two kernels. For
    a product (docs/pipeline.md, "Split-K"): `@name`
    computes the S partial products, one per slice of K, as a batched
    product into an S x result workspace in the product's accumulator type
    (`gemm_direct`, the kernel's tuning with the slice loop in front, tiled
    by 1); `@name_sum` adds the slices to the product's initial value (its
    fill or the input it accumulated into) and applies the kernel's
    epilogue, as one elementwise kernel (`elementwise_flat`, left without a
    tuning: the pipelines run `egg-hardware-tuning` with the built-in expert
    next, as the sum's mapping is part of the formulation, not a decision
    of its own).
  }];
  let dependentDialects = [
    "::mlir::egg::EggDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def EggApplySchedule : Pass<"egg-apply-schedule", "::mlir::ModuleOp"> {
  let summary = "Materialise the decisions: outline and tile every kernel";
  let description = [{
    Turns every decided `egg.kernel` into a private function called from
    where the kernel was, and tiles its body on tensors as its `tuning` says:
    the root op is tiled into an `scf.forall` over GPU blocks (`block` tile)
    and again over threads (`thread` tile), and its producers are fused into
    both loops (upstream tile-and-fuse). Elementwise chains are fused first,
    aggregate ops (softmax) are decomposed per thread, and slices of empty
    tensors become small empty tensors (per-thread temporaries). The function keeps the decisions as
    `egg.structure` / `egg.tuning` attributes. A kernel without decisions, or
    with decisions the lowering does not implement, is an error.
  }];
  let dependentDialects = [
    "::mlir::egg::EggDialect", "::mlir::scf::SCFDialect",
    "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def EggMapToGPU : Pass<"egg-map-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Map each kernel function's block/thread loops to gpu.launch";
  let description = [{
    After bufferization, rewrites the block-level `scf.forall` of every
    kernel function (one carrying `egg.tuning`) into a `gpu.launch` and its
    thread-level loops onto thread ids, with the block size the tuning gives.
    Uses the upstream GPU transform ops through the transform interpreter.
    Copies left inside kernels become `linalg.copy` (later loops).
    Vector transfers (from `vector` > 1) become aligned `vector.load` /
    `vector.store` of the tuning's width.
    Buffers allocated inside a kernel are per-thread temporaries: they move
    to the stack (`memref.alloca`, registers or local memory) when their size
    is static and at most `max-private-bytes`; anything else is an error, never
    a device-side malloc.
  }];
  let options = [
    Option<"maxPrivateBytes", "max-private-bytes", "int64_t",
           /*default=*/"::mlir::egg::kMaxPrivateBytes",
           "Largest per-thread temporary a kernel may keep on the stack">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::transform::TransformDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def EggDistributeRows : Pass<"egg-distribute-rows", "::mlir::ModuleOp"> {
  let summary = "Share each row of a row-wise kernel among the lanes of a warp or block";
  let description = [{
    For kernel functions whose structure is `reduce_row_per_warp` or
    `reduce_row_per_block`, lowers the linalg ops inside each `gpu.launch`
    to loops in which the lanes of a row (the 32 lanes of a warp, or every
    thread of the block) stride over the row (the ops' innermost loop) with
    `vector`-wide accesses. Reductions along the row keep one partial per
    lane, combined with `gpu.subgroup_reduce` (lowered here to shuffles)
    and, across the warps of a block, through a workgroup buffer; every lane
    then holds the result. A division by a value of the row (a softmax's
    sum) becomes one f32 reciprocal per row step and a product per element.
    Ops not along the row run on every lane. When a
    launch would have a lane read row elements another lane holds, nothing
    in it is distributed and a warning says why. Runs after
    `egg-map-to-gpu`, before linalg ops become loops.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect"
  ];
}

def EggLowerSharedGemm : Pass<"egg-lower-shared-gemm", "::mlir::ModuleOp"> {
  let summary = "Build the block-cooperative GEMM of kernels that promote operands to shared memory";
  let description = [{
    For kernel functions whose tuning promotes the operands of their matrix
    product to shared memory (`shared = [0, 1]`), rewrites the linalg ops of
    each `gpu.launch` (the accumulator fill, the product, the elementwise
    epilogue over its result) into explicit thread code: all threads copy
    the block's [BK x BM] and [BK x BN] tiles into workgroup buffers
    (`copy = sync`: vector loads and stores; `cp_async`:
    `nvgpu.device_async_copy` with `pipeline` stages in flight), then each
    thread accumulates its [TM x TN] tile of the result in registers and
    applies the epilogue to it before storing. With a `warp` tile (f16/bf16
    products accumulated in f32) each warp computes its [WM x WN] piece on
    tensor cores instead: `nvgpu.ldmatrix` fragments from tiles kept in the
    global layout, `nvvm.mma.sync` m16n8k16, and tiles above 48 KB in the
    block's dynamic shared memory. With `threads = [128, N, M]` (sm_90a)
    each warpgroup computes its piece with `nvvm.wgmma.mma_async` instead,
    reading tiles stored with the 128-byte swizzle through matrix
    descriptors. Runs after `egg-map-to-gpu`.
    A launch whose ops do not have that shape is an error, never a silent
    fallback.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def EggLowerColumnReductions : Pass<"egg-lower-column-reductions", "::mlir::ModuleOp"> {
  let summary = "Build the block-cooperative reduction of column-reduction kernels";
  let description = [{
    For kernel functions whose structure is `reduce_two_stage` (a reduction
    over a loop that is not innermost, e.g. a sum over the rows of a
    matrix), rewrites the linalg ops of each `gpu.launch` into thread code:
    thread (x, y) of a [TX, R] block reduces rows y, y + R, ... of its
    `vector` consecutive columns into partials in registers (16-byte loads,
    consecutive threads on consecutive columns); the R partials of each
    column are combined through a workgroup buffer by the threads of row 0,
    which then apply the elementwise epilogue and store. Runs after
    `egg-map-to-gpu`. With `cluster = C` the C blocks of a thread-block
    cluster share the rows and combine their partials over distributed
    shared memory (docs/pipeline.md, "Column reductions").
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def EggLowerRecurrences : Pass<"egg-lower-recurrences", "::mlir::ModuleOp"> {
  let summary = "Build the steps of recurrence_block kernels";
  let description = [{
    For kernel functions whose structure is `recurrence_block`, rewrites
    the egg.recurrence of each block's batch rows (after `egg-map-to-gpu`)
    into its steps: per step the block copies its rows' hidden state into
    shared memory, each thread (a hidden unit) sums the products of the
    state with its units' weight columns for every gate and row, runs the
    cell and stores the new states; barriers separate the steps
    (docs/pipeline.md, "Recurrences").
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

def EggLowerScans : Pass<"egg-lower-scans", "::mlir::ModuleOp"> {
  let summary = "Build a warp's scan of its row in scan_warp kernels";
  let description = [{
    For kernel functions whose structure is `scan_warp`, rewrites the
    egg.scan on each warp's row (after `egg-map-to-gpu`) into lane code:
    the row is walked in steps of 32 x `vector` elements, each lane scans
    its `vector` consecutive elements in registers (one access of at most
    16 bytes), the lanes' totals are scanned by warp shuffles, and the
    running total of the row is carried from step to step. Each element is
    read and written once (docs/pipeline.md, "Scans").
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def EggLowerStagedMaps : Pass<"egg-lower-staged-maps", "::mlir::ModuleOp"> {
  let summary = "Stage the transposed inputs of maps through shared memory";
  let description = [{
    For kernel functions whose structure is `elementwise_flat` and whose
    tuning lists `shared` inputs (a map that reads them across the loop its
    results run along, e.g. a transpose), rewrites the block's linalg op of
    each `gpu.launch` into thread code: the block's tile of each staged
    input is copied into a workgroup buffer with consecutive threads on
    the input's contiguous dimension (rows padded by `padding` elements);
    after a barrier the threads compute the tile with consecutive threads
    on the innermost loop, reading the staged inputs from the buffers. Both
    the loads and the stores are then coalesced. With `vector` = V > 1
    each thread moves runs of V elements: one vector load per run of the
    staged input in stage 1, and in stage 2 vector loads of the operands
    contiguous along the innermost loop and one vector store per run of
    each result (the staged buffer is accessed by element). Runs after
    `egg-map-to-gpu`.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def EggAlignWorkgroupMemory : Pass<"egg-align-workgroup-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give workgroup buffers 16-byte alignment";
  let description = [{
    Sets `llvm.align = 16` on every workgroup attribution of the kernels in
    a `gpu.module` that has none, so that 16-byte vector accesses to shared
    memory are legal (LLVM otherwise aligns them to their element type).
  }];
}

def EggExternDynamicSharedMemory : Pass<"egg-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the kernels' dynamic shared memory external";
  let description = [{
    The GPU-to-NVVM conversion gives `gpu.dynamic_shared_memory` an internal
    zero-sized global in the shared address space, which the NVPTX backend
    of LLVM 22 prints as a one-byte static variable inside the kernel
    (`.shared .align 16 .b8 __dynamic_shmem__0;`). ptxas then places the
    kernel's other static shared variables (a TMA pipeline's mbarriers) just
    after it, inside the buffer the kernel indexes from its address: a
    stage's tile overwrote the mbarriers (found by compute-sanitizer
    racecheck). Made an external declaration, it is printed as
    `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`, which ptxas
    places after every static variable. Runs after the conversion to NVVM.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EggLowerTensorMapArgs : Pass<"egg-lower-tensor-map-args", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass TMA tensor maps to kernels as pointers";
  let description = [{
    A kernel that copies through TMA (`copy = tma`) captures the tensor maps
    that `nvgpu.tma.create.descriptor` builds on the host. What it receives
    is a pointer to the map in device memory (docs/manifest.md): this pass,
    run after `convert-nvgpu-to-nvvm` and before `convert-gpu-to-nvvm`,
    retypes such kernel arguments as `!llvm.ptr`, which the GPU-to-NVVM
    signature conversion understands, and casts them back for any remaining
    use (the conversion casts cancel).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EggForwardResultCopies : Pass<"egg-forward-result-copies", "::mlir::func::FuncOp"> {
  let summary = "Compute results directly in their out-parameter buffers";
  let description = [{
    After bufferization, a function result is often computed in a fresh
    `memref.alloc` and copied into its out-parameter at the end. When the
    copy is the allocation's last use and the out-parameter is used by
    nothing else, the allocation is replaced by the out-parameter and the
    copy disappears: for a memory-bound kernel that copy would double the
    traffic. The copy's source may view the allocation through reshapes
    (`memref.collapse_shape` / `expand_shape`, each used only by the next):
    a result computed in one shape and returned in another, such as a group
    norm over [N, G, C/G*H*W] returned as [N, C, H, W]; the allocation then
    becomes a view of the out-parameter in its own shape. EGG's calling convention guarantees that distinct buffer
    arguments do not alias.
  }];
}

def EggExpandErf : Pass<"egg-expand-erf"> {
  let summary = "Expand math.erf into short polynomials";
  let description = [{
    libdevice's `erff` chooses each coefficient of its two polynomials with
    a select: about 34 instructions per value, 14 of them on the half-rate
    ALU pipe, enough to make an erf GELU over bf16 compute-bound on H200.
    This pass rewrites `math.erf` on f32, f16 and bf16 scalars and vectors:

    * f32: `x + x * R(x^2)` below |x| = 0.9, else
      `copysign(1 - exp2(Q(min(|x|, 4))), x)`, one select between them
      (at most 1.23 ulp with an exact exp2, plus the error of `ex2.approx`);
    * f16 and bf16, computed in f32: `c + c * P(c^2)` with `c = clamp(x,
      -3, 3)`, relative error at most 2.4e-5 before rounding (half an f16
      ulp is 2.4e-4).

    NaN propagates (`minimumf`/`maximumf`). The coefficients and their
    errors come from `scripts/fit-erf.py`. Other types (f64) are left to
    libdevice.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def EggOverlapLaunches : Pass<"egg-overlap-launches", "::mlir::ModuleOp"> {
  let summary = "Let a split product's sum launch while its partial products run (Hopper)";
  let description = [{
    Programmatic dependent launch (sm_90 and later). A kernel whose function
    asks for it (`egg.overlap_previous`, set by egg-split-k on a split
    product's sum) and the kernel its host function launches just before
    it begin with `nvvm.griddepcontrol wait` (nothing is read before the
    previous grid has completed and its writes are visible) followed by
    `nvvm.griddepcontrol launch_dependents` (the next kernel may be
    scheduled); launched normally, both do nothing. The launches of the
    kernel that asked are marked `egg.waits_for_previous`, which the
    manifest passes on as the step's `waits_for_previous`: hosts that
    launch it with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    overlap its launch with the previous kernel's tail. Other kernels are
    left as they are. Runs after kernel outlining and before inlining
    (each kernel's launches still in its function); a module whose
    `egg.target` is older than sm_90 is left unchanged.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def EggClusterKernels : Pass<"egg-cluster-kernels", "::mlir::ModuleOp"> {
  let summary = "Give kernels launched in clusters their compile-time cluster size";
  let description = [{
    A kernel launched with a constant cluster size (`gpu.launch_func ...
    clusters in (...)`: a column reduction whose rows a thread-block
    cluster shares) gets `known_cluster_size` on its `gpu.func`, which the
    NVVM lowering turns into `nvvm.cluster_dim` and PTX into
    `.reqnctapercluster`: a kernel with a compile-time cluster size forms
    its clusters under a plain launch, so neither runtime needs a cluster
    launch attribute. (MLIR 22's kernel outlining does not set it.) A
    kernel launched with two different cluster sizes, or a size that is
    not constant, gets an error. Runs after kernel outlining.
  }];
}

def EggMinBlocksPerSM : Pass<"egg-min-blocks-per-sm", "::mlir::ModuleOp"> {
  let summary = "Ask ptxas for the blocks per SM a kernel's lowering planned";
  let description = [{
    A lowering that sized a kernel for several resident blocks per SM (a
    block per row whose held rows partly live in shared memory,
    `row_shared`) marks an op of its launch with `egg.min_blocks_per_sm =
    N`. After kernel outlining, this pass moves the largest such mark of
    each `gpu.func` kernel to its `nvvm.minctasm` (PTX `.minnctapersm N`),
    so that ptxas keeps the registers per thread within what N blocks of
    the kernel's `.maxntid` allow, and drops the marks. A kernel that
    already has `nvvm.minctasm` keeps it.
  }];
}

def EggUnrollPrivateTiles : Pass<"egg-unroll-private-tiles", "::mlir::ModuleOp"> {
  let summary = "Unroll the loops that index a thread's private tile";
  let description = [{
    A thread's private tile (a small `memref.alloca` inside a `gpu.launch`
    of a kernel function whose threads each own a tile of its outputs, as
    `egg.structure` and `egg.tuning` say: several outputs of a direct
    convolution or a pool, accumulated in registers) stays in registers only where every access has constant
    indices; a loop whose induction variable indexes it leaves it in local
    memory, and it also hides that neighbouring outputs read the same
    inputs. Such loops with a constant trip count are unrolled fully,
    innermost first, while the unrolled body stays within `max-ops`
    operations and the tile within `max-elements` elements.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "4096",
           "Most operations a fully unrolled loop may hold">,
    Option<"maxElements", "max-elements", "int64_t", "64",
           "Most elements of a private tile kept in registers">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def EggMergeIdenticalKernels : Pass<"egg-merge-identical-kernels", "::mlir::ModuleOp"> {
  let summary = "Compile each distinct outlined kernel once";
  let description = [{
    Models repeat layers, so many outlined kernels are the same code under
    another name (DenseNet201: 786 kernels, 246 distinct). Every
    `gpu.module` whose contents equal an earlier one's, once the names of
    the module and its kernel are set aside, is erased, and its launches
    call the earlier kernel instead: lowering, PTX generation and the
    driver's load each then run once per distinct kernel. A redirected
    `gpu.launch_func` keeps the name of the kernel it launched as
    `egg.launch_name`, which the manifest reports, so that per-kernel times
    still name the launch's own kernel. Modules holding anything but one
    kernel function are left alone.
  }];
}

def EggSerializeKernels : Pass<"egg-serialize-kernels", "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary with the modules serialized in parallel";
  let description = [{
    Replaces every `gpu.module` by a `gpu.binary` holding what its targets
    serialize it to, as upstream `gpu-module-to-binary` does, but runs the
    serializations (translation to LLVM IR, libdevice, optimisation, PTX)
    of different modules on the context's threads: that is most of the
    compile time of a model with many kernels. The binaries replace the
    modules in their order, and diagnostics come out in module order.
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit path (libdevice)">,
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "What each module becomes: isa (PTX), bin (cubin) or fatbin">
  ];
}

def EggStripCompileTimes : Pass<"egg-strip-compile-times", "::mlir::ModuleOp"> {
  let summary = "Drop compile-time measurements from gpu.binary objects";
  let description = [{
    gpu-module-to-binary records how long each step took as properties of
    the objects it creates. EGG promises that the same input and decisions
    give byte-identical output, so those properties are removed.
  }];
}

#endif // EGG_PASSES_TD
