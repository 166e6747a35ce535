//===- SplitK.h - Split products and column reductions ----------*- C++ -*-===//
//
// A product split along K (`#egg.structure<gemm_split_k, split_k = S>`)
// runs as two kernels: the S partial products, one per K slice, as a
// batched product into a workspace in the accumulator type (S x the
// result; f32 for every product the front end forms), then a sum over
// the slices that also applies the kernel's epilogue (docs/pipeline.md,
// "Split-K"). A column reduction split along its rows
// (`#egg.structure<reduce_two_stage, split_k = S>`) runs the same way: S
// column reductions of a slice of the rows each, then their sum and the
// epilogue, so that short rows of columns fill the GPU. The decisions stay
// on the one kernel the user's IR formed: its tuning is the partial
// kernel's, minus the slice loop, so decisions files, egg-tune and the
// agents see one kernel; `egg-split-k` rewrites it into the two before the
// schedule is applied.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_EGG_TRANSFORMS_SPLITK_H
#define EGG_DIALECT_EGG_TRANSFORMS_SPLITK_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace mlir::egg {

/// Checks that `kernel` can run as `formulation` (`gemm_split_k` or
/// `reduce_two_stage`) in `splitK` slices (at most 64) of its reduced loop:
/// a product (not a matrix-vector one) with one static K loop, or a column
/// reduction, of at most two parallel loops, whose
/// reduced loop `splitK` divides into slices of 16 or more, whose body adds
/// to its accumulator, whose inputs are kernel inputs and whose initial
/// value is a kernel input or a fill; everything else in the body is its
/// epilogue.
LogicalResult checkSplitK(KernelOp kernel, Formulation formulation,
                          int64_t splitK,
                          function_ref<InFlightDiagnostic()> emitError);

/// The two kernels of a split product or column reduction.
struct SplitKernels {
  /// S partial results (`gemm_direct`, or `reduce_two_stage` unsplit),
  /// named as before.
  KernelOp partial;
  KernelOp sum; ///< Their sum and the epilogue (`elementwise_flat`).
};

/// Replaces `kernel` (a split structure, StructureAttr::isSplit, checked
/// with checkSplitK) by its two kernels. The partial kernel takes the tuning
/// (partialTuning); the sum kernel has no tuning yet.
FailureOr<SplitKernels> splitKernel(RewriterBase &rewriter, KernelOp kernel);

/// The partial kernel's tuning for the split kernel's `tuning`: the slice
/// loop is the partial kernel's first parallel loop, tiled by 1.
TuningAttr partialTuning(TuningAttr tuning);
/// The inverse: the split kernel's tuning for a partial kernel's.
TuningAttr splitTuning(TuningAttr partial);

/// Calls `fn` on the two kernels of a copy of `kernel` under `structure`
/// (split) and `tuning` (or none), built in a scratch module with the same
/// module attributes; `kernel` and its IR are untouched.
LogicalResult withSplitCopy(KernelOp kernel, StructureAttr structure,
                            TuningAttr tuning,
                            function_ref<LogicalResult(SplitKernels)> fn);

} // namespace mlir::egg

#endif // EGG_DIALECT_EGG_TRANSFORMS_SPLITK_H
