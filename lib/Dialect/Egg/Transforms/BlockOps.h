//===- BlockOps.h - Block-level ops of a launch, lowered by hand -*- C++
//-*-===//
//
// Shared by the lowerings that take a launch's block-level linalg ops whole
// (egg-lower-shared-gemm, egg-lower-column-reductions): a fill, one
// producer with a reduction loop, and the elementwise ops after it. The
// producer's results are computed by each thread into registers; the
// epilogue then runs on them element by element and stores once.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TRANSFORMS_BLOCKOPS_H
#define EGG_TRANSFORMS_BLOCKOPS_H

#include "egg/Dialect/Egg/IR/EggAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::egg {

/// The allocation or argument a memref view reads from.
Value baseBuffer(Value value);

/// An index constant.
Value constIndex(OpBuilder &b, Location loc, int64_t v);

/// The op that combines output `o` of a reduction with a new value: the
/// yield is `combiner(out, value)`, a binary op in the body, and `out` (the
/// output's block argument) is used by it alone. Null otherwise.
Operation *combinerOp(linalg::GenericOp op, unsigned o);

/// A buffer allocated inside `launch` (a block temporary).
bool isTemporary(Value buffer, gpu::LaunchOp launch);

/// Indices into an operand read through the projected permutation `map` at
/// loop indices `loopIdx`.
SmallVector<Value> applyMap(AffineMap map, ArrayRef<Value> loopIdx);
/// The same for any affine `map` (a convolution's input, oh * s + kh):
/// results that are not a loop are computed at `b`'s insertion point.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> loopIdx);

/// The linalg ops of `launch`, which must all be directly in its body.
FailureOr<SmallVector<linalg::LinalgOp>> collectBlockOps(gpu::LaunchOp launch);

/// Where `producer`'s accumulator (its init `result`) starts: the scalar of
/// the fill among `before` that writes it (returned in `init`), or nullopt
/// when it starts from the buffer's contents (not a temporary). Other ops
/// in `before` are errors.
FailureOr<std::optional<Value>>
accumulatorStart(gpu::LaunchOp launch, ArrayRef<linalg::LinalgOp> before,
                 linalg::LinalgOp producer, linalg::LinalgOp &init,
                 unsigned result = 0);

/// Runs the elementwise `epilogue` ops on the `values` a thread computed
/// for `result` (element e at result indices `indices[e]`), at `b`'s
/// insertion point, storing every buffer that is not a block temporary.
/// Then erases the epilogue, `producers`, and the temporaries left unused.
/// With `grouped` = (dim, G), elements Gi .. Gi + G - 1 sit at consecutive
/// positions along result dimension `dim`, the first a multiple of G:
/// buffers contiguous along it (with strides and offsets that are multiples
/// of G elsewhere) are stored G elements at a time.
/// `storeHook`, when given, may take over storing a buffer (returning true):
/// it receives the buffer, the values in accumulator order and the result
/// dimension of each buffer dimension.
/// Partial tiles: `inside`, when given, holds per element an i1 (or null:
/// always) that guards its stores, a group stored when its first element
/// is inside; `loadIndices`, when given, are the result indices the
/// epilogue's loads use instead of `indices` (clamped into the tile, so
/// that an element past its edge reads a valid one and stores nothing).
struct GroupedStores {
  unsigned dim;
  int64_t width;
};
using StoreHook =
    function_ref<bool(OpBuilder &, Value, ArrayRef<Value>, ArrayRef<unsigned>)>;
LogicalResult applyEpilogueInRegisters(
    OpBuilder &b, gpu::LaunchOp launch, Value result,
    ArrayRef<SmallVector<Value>> indices, ArrayRef<Value> values,
    ArrayRef<linalg::LinalgOp> epilogue, ArrayRef<Operation *> producers,
    std::optional<GroupedStores> grouped = std::nullopt,
    StoreHook storeHook = nullptr, ArrayRef<Value> inside = {},
    ArrayRef<SmallVector<Value>> loadIndices = {});

/// Whether `buffer`'s element offset is provably a multiple of `g` and its
/// layout has a unit innermost stride and outer strides that are multiples
/// of `g`.
bool hasAlignedLayout(Value buffer, int64_t g);

/// Groups `launch`'s blocks into thread-block clusters of `size` (x, y, z)
/// blocks: sets its cluster operands and adds the body's six cluster id and
/// size arguments after the twelve launch arguments. Fails (located) on a
/// launch that already has clusters or attributions. egg-cluster-kernels
/// later fixes the size in the kernel (`.reqnctapercluster`).
LogicalResult addClusterSize(gpu::LaunchOp launch, int64_t x, int64_t y,
                             int64_t z);

/// Every thread of the cluster meets here (`barrier.cluster.arrive` with
/// release, `wait` with acquire; aligned: whole warps arrive together).
void clusterBarrier(OpBuilder &b, Location loc);

/// Gives `launch` clusters of `size` blocks along z, which becomes the
/// grid's z extent; after outlining, egg-cluster-kernels turns the constant
/// cluster size into the kernel's `known_cluster_size` (PTX
/// `.reqnctapercluster`), so that the runtimes' plain launches form the
/// clusters. Before any attribution is added.
LogicalResult addClusters(gpu::LaunchOp launch, int64_t size);

/// Gives `launch` `bytes` of dynamic shared memory (its size operand, a
/// constant before the launch) and returns the body's view of it, a
/// `gpu.dynamic_shared_memory` at the start of the body; `b` is left just
/// after it. Egg-eval and the runtime opt in above 48 KB from the manifest.
Value addDynamicSharedMemory(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                             int64_t bytes);

/// Runs `lower` on every gpu.launch of the kernel functions of `module`
/// whose decisions (the function's structure and tuning attributes) satisfy
/// `applies`; fails as soon as one lowering fails.
LogicalResult lowerKernelLaunches(
    ModuleOp module, function_ref<bool(StructureAttr, TuningAttr)> applies,
    function_ref<LogicalResult(gpu::LaunchOp, TuningAttr)> lower);

} // namespace mlir::egg

#endif // EGG_TRANSFORMS_BLOCKOPS_H
