//===- ExpertAgent.h - The built-in expert ----------------------*- C++ -*-===//
//
// The expert implements docs/principles/structure.md and tuning.md; its
// choosers live by op family: ExpertAgent.cpp (the stages, elementwise maps),
// ExpertSplits.cpp (split-K and split column reductions), ExpertGemm.cpp
// (products and convolutions), ExpertRows.cpp (rows shared by lanes, column
// reductions, staged transposes).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_EXPERTAGENT_H
#define EGG_AGENTS_EXPERTAGENT_H

#include "egg/Agents/Agent.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Support/Saturating.h"
#include "llvm/Support/Debug.h"

/// Traces which rule decided (-debug-only=egg-expert, in builds with
/// assertions); the including file defines DEBUG_TYPE "egg-expert".
#define EXPERT_TRACE(kernel, what)                                             \
  LLVM_DEBUG(llvm::dbgs() << "[egg-expert] " << (kernel).getSymName() << ": "  \
                          << what << "\n")

namespace mlir::egg::expert {

/// The largest divisor of `n` that is at most `limit` (1 if none larger).
inline int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The most elements of `bits` each that one access of at most 16 bytes
/// moves while dividing `n` (principle 7 of tuning.md).
inline int64_t widestVectorDividing(int64_t n, int64_t bits) {
  int64_t v = std::max<int64_t>(1, 128 / bits);
  while (v > 1 && n % v != 0)
    v /= 2;
  return v;
}

/// The number of matrices a batched product computes.
inline int64_t batchCount(const GemmLoops &gemm, ArrayRef<int64_t> extents) {
  int64_t batches = 1;
  for (unsigned d : gemm.batch)
    batches = mulSat(batches, extents[d]);
  return batches;
}

/// Bytes of tiles a lone block per SM keeps in flight to hide the memory
/// latency (principle 9 of tuning.md).
inline constexpr int64_t kDeepCopyBytes =
    48 * 1024; // NOLINT(hardware-literal): a heuristic
/// Threads per SM a column reduction needs to keep enough loads in flight
/// (H200: 128 blocks of 512 threads on 132 SMs read as fast as 1024
/// blocks, 64 blocks 20% slower; principle 6 of structure.md).
inline constexpr int64_t kColumnThreadsPerSm = 384;
/// Rows each thread of a split column reduction's slice reads at least.
inline constexpr int64_t kMinRowsPerThread = 16;

class ExpertAgent : public Agent {
public:
  StringRef getName() const override { return "expert"; }

  FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) override;

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel, StructureAttr structure,
                                     TargetAttr target) override;

  /// f32 products and convolutions on FMA tiles: the split TF32 form too
  /// (principle 13 of tuning.md: it wins on a few shapes only).
  SmallVector<TuningAttr> alternativeTunings(KernelOp kernel,
                                             StructureAttr structure,
                                             TargetAttr target) override;

private:
  /// Split-K (principle 9 of structure.md): a product whose 128 x 128
  /// output tiles (the tiles that run FMA and tensor cores at full rate;
  /// the whole product would take smaller, slower ones to reach the SMs)
  /// are fewer than the SMs runs as the fewest K slices (2, 4 or 8) that
  /// give every SM a tile, or 8. A slice must be long enough to pay for
  /// writing and summing its partial results (the sum is a launch of its
  /// own, 3.5-6 us on the H200): at least 512 on tensor cores, 256 on FMA
  /// with K at least 1024 (the slice's flops go 15x faster on tensor
  /// cores), or 128 where the partial products keep thread tiles of at
  /// most 4x4 (8x8 thread tiles at the register cap spilled there). An M
  /// or N below 32 stays whole: its one partial 32-row tile with deep K
  /// steps already runs well. Null when no split applies. Measurements:
  /// docs/benchmarks.md.
  StructureAttr chooseSplit(KernelOp kernel, ArrayRef<StructureAttr> legal,
                            TargetAttr target);

  /// The expert's tuning for `kernel` under `structure`, or null; the
  /// kernel keeps its own structure.
  TuningAttr tuningUnder(KernelOp kernel, StructureAttr structure,
                         TargetAttr target);

  /// Column reductions split along their rows (principle 6 of
  /// structure.md): where the columns alone give fewer than 384 threads
  /// per SM (a block owns 32-128 columns), the fewest slices of the rows
  /// (2 to 64) whose partial reductions reach that, each slice keeping 16
  /// or more rows per thread so that its loads still stream. Null when the
  /// columns are enough or no split applies: a split costs a second launch
  /// and the partial results' round trip, 1-8% on 4096 columns on the
  /// H200 (65536 x 256 f32 ran 5.8x faster split).
  StructureAttr chooseColumnSplit(KernelOp kernel,
                                  ArrayRef<StructureAttr> legal,
                                  TargetAttr target);

  /// Transposes (principle 11 of tuning.md): a map that reads an input
  /// across the loop its results run along stages that input through
  /// shared memory, so that both the loads and the stores are coalesced:
  /// 64x64 tiles (32x32 where 64 does not divide), 256 threads, rows padded
  /// so that reading a column of the tile touches 32 different banks (an
  /// odd number of 4-byte words; with 16-byte runs of 16-bit elements, an
  /// odd number of elements).
  FailureOr<TuningAttr> chooseStagedMap(KernelOp kernel,
                                        StructureAttr structure);

  /// Products through shared memory: warpgroup MMA where it applies, else
  /// mma.sync or FMA tiles. Failure when no tiling is legal. `splitPartial`:
  /// the partial products of a split product.
  FailureOr<TuningAttr> chooseGemm(KernelOp kernel, StructureAttr structure,
                                   TargetAttr target,
                                   bool splitPartial = false);

  /// Hopper's warpgroup MMA (principle 9 of tuning.md) for f16/bf16
  /// products on sm_90a large enough to give three quarters of the SMs a
  /// block with the largest tile that allows it: 128x256 tiles (two
  /// warpgroups of 128x128), else 128x128 or 64x128; K steps of 128 bytes
  /// (64 16-bit elements) in the 128-byte swizzled layout, as many stages
  /// as fit (4, else 3), but 128x128 tiles at 3 where two blocks can share
  /// an SM (short K; see twoPerSm); TMA copies for 128x256 tiles of 16-bit
  /// products with K (a split product's: K per slice) of 1024 or more,
  /// cp.async otherwise; where K >= 2048 and the wide tiles are too few,
  /// a whole K loop per block in a deep TMA pipeline over one wave of
  /// 128x128, 64x128 or 128x64 tiles (longK below). f32 products
  /// too where the module allows TF32 and both tiles are K-major. Smaller
  /// products keep mma.sync, whose smaller tiles reach more SMs (f32 ones FMA
  /// tiles: mma.sync's TF32 form is not implemented).
  /// `elementCopies`: split f32 products also where an input is copied an
  /// element at a time (an NCHW image), which the expert itself never
  /// takes (alternativeTunings offers them to egg-tune).
  FailureOr<TuningAttr> chooseWgmma(KernelOp kernel, StructureAttr structure,
                                    TargetAttr target, bool splitPartial,
                                    bool elementCopies = false);

  /// Matrix products through shared memory (principle 9 of tuning.md): the
  /// largest output tile that still gives every SM a block; f16/bf16 on
  /// tensor cores (four warps, each half the tile along M and N), else 256
  /// threads with a register tile each; K steps of 16 (32-bit) or 32
  /// (16-bit) elements, 16-byte copies, and cp.async with three stages in
  /// flight where the layouts allow it.
  /// `rowTiles`: FMA thread tiles may take whole rows of the block along N
  /// (docs/pipeline.md, "Row thread tiles").
  FailureOr<TuningAttr> chooseSharedGemm(KernelOp kernel,
                                         StructureAttr structure,
                                         TargetAttr target, bool splitPartial,
                                         bool rowTiles = true);

  /// Column reductions (principle 10 of tuning.md): 16-byte loads, 32
  /// threads along the columns (a warp reads 512 contiguous bytes of a row)
  /// and 16 rows in flight; fewer threads along the columns while that
  /// leaves fewer than two blocks per SM, down to 8; then more rows in
  /// flight up to 512 threads.
  FailureOr<TuningAttr> chooseColumns(KernelOp kernel, StructureAttr structure,
                                      TargetAttr target);

  /// Rows shared by lanes: 16-byte accesses (principle 7), four rows (warps)
  /// per block, or for a block per row about four vectors per thread.
  FailureOr<TuningAttr> chooseRow(KernelOp kernel, StructureAttr structure);
  /// Scans (principle 10 of structure.md): a warp per row, 8 rows per
  /// block while the rows fill two blocks per SM, 16-byte lane accesses.
  FailureOr<TuningAttr> chooseScan(KernelOp kernel, StructureAttr structure,
                                   TargetAttr target);
  /// Recurrences (principle 11 of structure.md): up to 8 batch rows per
  /// block (within a thread's sums and shared memory); the units over a
  /// cluster of up to 8 blocks of 16 units or more; a thread per unit and
  /// slice of k, up to 256.
  FailureOr<TuningAttr> chooseRecurrence(KernelOp kernel,
                                         StructureAttr structure);

  /// Maps and loop nests each thread runs (principles 3 to 7 of
  /// tuning.md): up to three loops take the block's threads; the others
  /// take the grid, a block per index, or where the grid cannot take them,
  /// run serially in every thread.
  FailureOr<TuningAttr> choose(KernelOp kernel, StructureAttr structure,
                               TargetAttr target, int64_t vector,
                               bool spreadOverGrid = true);
};

} // namespace mlir::egg::expert

#endif // EGG_AGENTS_EXPERTAGENT_H
