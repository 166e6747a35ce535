//===- LowerRecurrencesLegality.cpp - Recurrences: legality ---------------===//

#include "LegalityChecks.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Target/Limits.h"
#include "egg/Target/Profiles.h"

using namespace mlir;
using namespace mlir::egg;

LogicalResult
mlir::egg::checkRecurrence(KernelOp kernel, TuningAttr tuning,
                           function_ref<InFlightDiagnostic()> emitError) {
  auto recurrence = dyn_cast_or_null<RecurrenceOp>(kernel.getRootOp());
  if (!recurrence || classifyKernel(kernel) != KernelClass::Recurrence)
    return emitError() << "recurrence_block needs a kernel whose root is an "
                          "egg.recurrence";
  if (!tuning.getThread().empty() || !tuning.getWarp().empty() ||
      !tuning.getReduction().empty() || !tuning.getShared().empty() ||
      !tuning.getRegisters().empty() || tuning.getPipeline() != 1 ||
      tuning.getVector() != 1)
    return emitError() << "recurrence_block takes a block tile, threads and "
                          "a cluster only";
  ArrayRef<int64_t> block = tuning.getBlock();
  int64_t batch = recurrence.getBatch(), units = recurrence.getUnits();
  if (block.size() != 1 || block[0] < 1 || batch % block[0] != 0)
    return emitError() << "recurrence_block takes block = [rows per block], "
                          "a divisor of the batch of "
                       << batch;
  int64_t rows = block[0], gates = recurrence.getGates();
  if (rows * gates > kMaxRecurrenceAccumulators)
    return emitError() << "a thread holds rows per block x gates = "
                       << rows * gates << " sums, at most "
                       << kMaxRecurrenceAccumulators;
  ArrayRef<int64_t> threads = tuning.getThreads();
  if (threads.size() != 1 || threads[0] < 1 || threads[0] > kMaxThreadsPerBlock)
    return emitError() << "recurrence_block takes threads = [N], at most "
                       << kMaxThreadsPerBlock;
  int64_t cluster = tuning.getCluster();
  if (cluster != 1) {
    if (!supportsClusters(lookupTarget(kernel)))
      return emitError() << "cluster = " << cluster
                         << " needs thread-block clusters (sm_90 or later)";
    if (cluster > kMaxPortableClusterSize || units % cluster != 0)
      return emitError() << "cluster = " << cluster << " must divide the "
                         << units << " units into equal slices, at most "
                         << kMaxPortableClusterSize << " blocks";
  }
  RecurrenceSplit split = splitRecurrence(units, threads[0], cluster);
  if (split.kSlices > 1 &&
      (threads[0] % split.unitsPerBlock != 0 || units % split.kSlices != 0))
    return emitError() << threads[0] << " threads for " << split.unitsPerBlock
                       << " units per block: more threads than units must "
                          "split k ("
                       << units
                       << ") into equal slices, threads = units per "
                          "block x slices";
  int64_t bytes = recurrenceSharedBytes(rows, units, gates, split);
  if (bytes > kStaticSharedMemoryPerBlock)
    return emitError() << "the block's hidden states and partial sums take "
                       << bytes << " bytes of shared memory, more than "
                       << kStaticSharedMemoryPerBlock;
  return success();
}

std::string mlir::egg::describeRecurrenceRules() {
  return "Rules of the recurrence lowering (recurrence_block): a block runs "
         "every step for `block` = [rows] batch rows (a divisor of the "
         "batch); `cluster` = C blocks (sm_90, at most " +
         std::to_string(kMaxPortableClusterSize) +
         ", dividing the H units) split the units of those rows, a barrier "
         "of the cluster between steps; `threads` = [N] cover a block's H / "
         "C units, a thread per unit (units past N loop) or, with more "
         "threads, N = H / C x S threads that split k into S equal slices; "
         "rows x gates <= " +
         std::to_string(kMaxRecurrenceAccumulators) +
         " (each thread's sums); the rows' h (rows x H x 4 bytes) and the "
         "slices' sums (S x rows x gates x H / C x 4 bytes) within " +
         std::to_string(kStaticSharedMemoryPerBlock) +
         " bytes of shared memory; no other tiles.";
}
