//===- TuningQueries.h - Which lowering a tuning takes ----------*- C++ -*-===//
//
// Which lowering a kernel's decisions select, and the resources (shared
// memory, registers) that lowering needs for them.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_ANALYSIS_TUNINGQUERIES_H
#define EGG_ANALYSIS_TUNINGQUERIES_H

#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Target/Limits.h"

namespace mlir::egg {

/// Whether a tuning stages inputs of a map through shared memory
/// (`elementwise_flat` with `shared`; docs/pipeline.md, "Transposes through
/// shared memory"): egg-lower-staged-maps copies each block's tile of them
/// along their contiguous dimension, then computes along the results'.
bool isStagedMap(StructureAttr structure, TuningAttr tuning);

/// Whether a tuning takes the shared-memory GEMM lowering: it promotes
/// operands to shared memory (and is not a staged map).
bool isSharedGemm(TuningAttr tuning);

/// Whether a shared-memory GEMM tuning computes on tensor cores: it states
/// `mma = mma_sync` (each warp issues mma.sync m16n8k16 on fragments loaded
/// with ldmatrix; docs/pipeline.md, "Tensor cores") or `mma = wgmma`.
bool isMmaGemm(TuningAttr tuning);

/// Whether a shared-memory GEMM tuning uses Hopper's warpgroup MMA
/// (`mma = wgmma`): its threads are [128, N, M], a warpgroup's 128 then the
/// warpgroups along N and M; its warp tile is each warpgroup's piece, and
/// the tiles are stored with the 128-byte swizzle that wgmma.mma_async
/// reads through matrix descriptors (docs/pipeline.md, "Warpgroup MMA").
bool isWgmmaGemm(TuningAttr tuning);

/// Registers per thread of a shared-memory GEMM launch: ptxas caps a launch
/// of T threads at 64K / T registers each (in steps of 8, at most 255), and
/// the block owns those. With TMA (`producer`, a warpgroup added to the
/// `computing` threads) and two or more computing warpgroups, setmaxnreg
/// gives the producer `producerRegisters` and the computing threads what the
/// block owns beyond that (at most 232); else every thread has the cap.
struct GemmRegisterBudget {
  int64_t launchCap = 0;
  int64_t computing = 0;
  int64_t producerRegisters = 0;
  bool split = false;
};
GemmRegisterBudget gemmRegisterBudget(int64_t computing, bool producer);

/// Accumulators a thread of a shared-memory GEMM tuning holds: its thread
/// tile, or its share of its warp's (mma.sync) or warpgroup's (wgmma) tile.
int64_t gemmAccumulatorsPerThread(TuningAttr tuning);

/// Largest per-thread temporary a kernel keeps on the stack
/// (egg-map-to-gpu's default `max-private-bytes`): a thread of the generic
/// lowering keeps its temporaries for every iteration of its untiled loops.
inline constexpr int64_t kMaxPrivateBytes = 8192;

/// Alignment of the shared tiles that wgmma reads with the 128-byte
/// swizzle: the swizzle pattern repeats every 8 rows of 128 bytes.
inline constexpr int64_t kWgmmaSwizzleAtom = 1024;

/// Whether the block's ops stay whole through the mapping and are lowered
/// to thread code afterwards (a GEMM through shared memory, a column
/// reduction): no thread-level tiling, no per-thread temporaries.
/// Sums a recurrence_block thread carries through its dot products (rows
/// per block x gates): more would spill out of registers.
inline constexpr int64_t kMaxRecurrenceAccumulators = 64;

/// How a recurrence_block block shares a step: a cluster's blocks take
/// equal slices of the units; a block's threads cover its units, splitting
/// k into `kSlices` equal slices where they outnumber them (threads =
/// units per block x slices), else each takes units in turn (one slice).
struct RecurrenceSplit {
  int64_t unitsPerBlock;
  int64_t kSlices;
};
RecurrenceSplit splitRecurrence(int64_t units, int64_t threads,
                                int64_t cluster);
/// Shared memory a recurrence_block block of `rows` batch rows holds (f32):
/// the rows' h, and the slices' sums where k is split.
int64_t recurrenceSharedBytes(int64_t rows, int64_t units, int64_t gates,
                              RecurrenceSplit split);

bool lowersBlockOpsWhole(StructureAttr structure, TuningAttr tuning);

/// `fragments_ahead = 1` unrolls an FMA tile's whole K tile: at most this
/// many multiply-adds per thread (TM x TN x BK).
inline constexpr int64_t kFragmentsAheadFmas = 2048;

/// Bytes of shared memory the shared-memory GEMM lowering allocates:
/// `stages` copies of a tile of A ([bk][bm + padding], or [bm][bk + padding]
/// when `lhsKFast`) and of B (likewise with bn).
int64_t sharedGemmBytes(int64_t bm, int64_t bn, int64_t bk, int64_t padding,
                        int64_t stages, Type lhs, Type rhs, bool lhsKFast,
                        bool rhsKFast);

} // namespace mlir::egg

#endif // EGG_ANALYSIS_TUNINGQUERIES_H
