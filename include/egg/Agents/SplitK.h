//===- SplitK.h - The gemm_split_k formulation ------------------*- C++ -*-===//
//
// A product split along K (`#egg.structure<gemm_split_k, split_k = S>`)
// runs as two kernels: the S partial products, one per K slice, as a
// batched product into a workspace in the accumulator type (S x the
// result; f32 for every product the front end forms), then a sum over
// the slices that also applies the kernel's epilogue (docs/pipeline.md,
// "Split-K"). The decisions stay on the one kernel the user's IR formed:
// its tuning is the partial product's, minus the slice loop, so decisions
// files, egg-tune and the agents see one kernel; `egg-split-k` rewrites it
// into the two before the schedule is applied.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_SPLITK_H
#define EGG_AGENTS_SPLITK_H

#include "egg/Dialect/Egg/IR/EggOps.h"

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace mlir::egg {

/// Checks that `kernel` can run as `splitK` K slices: a product (not a
/// matrix-vector one) of two parallel loops with one static K loop that
/// `splitK` divides, whose
/// body adds to its accumulator, whose inputs are kernel inputs and whose
/// initial value is a kernel input or a fill; everything else in the body
/// is its epilogue.
LogicalResult checkSplitK(KernelOp kernel, int64_t splitK,
                          function_ref<InFlightDiagnostic()> emitError);

/// The two kernels of a split product.
struct SplitKernels {
  KernelOp partial; ///< S partial products (`gemm_direct`), named as before.
  KernelOp sum;     ///< Their sum and the epilogue (`elementwise_flat`).
};

/// Replaces `kernel` (structure `gemm_split_k`, checked with checkSplitK)
/// by its two kernels. The partial kernel takes the tuning (partialTuning);
/// the sum kernel has no tuning yet.
FailureOr<SplitKernels> splitKernel(RewriterBase &rewriter, KernelOp kernel);

/// The partial product's tuning for the split kernel's `tuning`: the slice
/// loop is the partial product's first parallel loop, tiled by 1.
TuningAttr partialTuning(TuningAttr tuning);
/// The inverse: the split kernel's tuning for a partial product's.
TuningAttr splitTuning(TuningAttr partial);

/// Calls `fn` on the two kernels of a split copy of `kernel` (its current
/// structure and tuning) built in a scratch module with the same module
/// attributes; `kernel` and its IR are untouched.
LogicalResult withSplitCopy(KernelOp kernel,
                            function_ref<LogicalResult(SplitKernels)> fn);

} // namespace mlir::egg

#endif // EGG_AGENTS_SPLITK_H
