//===- ExpertRecurrence.cpp - The expert's recurrence tunings -------------===//
//
// A recurrence_block block runs every step of its batch rows; per step it
// reads its units' slice of the hidden weight once, whatever its rows. That
// read bounds a step once a block holds a few rows (a thread's sums per
// weight element read): more rows per block then cost nothing. A cluster's
// blocks split the units, so that each reads a slice of the weight and the
// step's products spread over several SMs.
//
//===----------------------------------------------------------------------===//

#include "ExpertAgent.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Target/Profiles.h"

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::expert;

/// Rows per block past which the weight reads bound a step rather than the
/// products (a thread's sums per element read).
static constexpr int64_t kRecurrenceRowsPerBlock = 8;
/// Threads per block: a thread per unit and slice of k, with registers left
/// for its sums and the weights in flight.
static constexpr int64_t kRecurrenceThreads = 256;
/// Units a block of a cluster keeps at least: fewer leave its threads
/// little to do between barriers.
static constexpr int64_t kRecurrenceUnitsPerBlock = 16;

FailureOr<TuningAttr> ExpertAgent::chooseRecurrence(KernelOp kernel,
                                                    StructureAttr structure) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  auto recurrence = dyn_cast_or_null<RecurrenceOp>(kernel.getRootOp());
  if (!recurrence)
    return failure();
  int64_t units = recurrence.getUnits(), gates = recurrence.getGates();
  int64_t limit =
      std::min(kRecurrenceRowsPerBlock, kMaxRecurrenceAccumulators / gates);
  int64_t rows = largestDivisorAtMost(recurrence.getBatch(), limit);
  // The units over a cluster (each block then reads its slice of the
  // weight a step), the most blocks that leave each enough units.
  int64_t cluster = 1;
  if (supportsClusters(lookupTarget(kernel)))
    for (int64_t c = kMaxPortableClusterSize; c > 1; c /= 2)
      if (units % c == 0 && units / c >= kRecurrenceUnitsPerBlock) {
        cluster = c;
        break;
      }
  // A thread per unit, k split into the most equal slices that keep the
  // block within kRecurrenceThreads.
  int64_t own = units / cluster, threads = std::min(own, kRecurrenceThreads);
  for (int64_t s = kRecurrenceThreads / std::max<int64_t>(own, 1); s > 1; --s)
    if (units % s == 0) {
      threads = own * s;
      break;
    }
  // Shared memory bounds the rows (h, and the slices' sums).
  RecurrenceSplit split = splitRecurrence(units, threads, cluster);
  while (rows > 1 && recurrenceSharedBytes(rows, units, gates, split) >
                         kStaticSharedMemoryPerBlock)
    rows = largestDivisorAtMost(recurrence.getBatch(), rows - 1);
  EXPERT_TRACE(kernel,
               "recurrence: " << recurrence.getBatch() << " rows of " << units
                              << " units x " << gates << " gates: " << rows
                              << " rows per block, clusters of " << cluster
                              << ", " << threads << " threads");
  TuningAttr tuning =
      TuningBuilder(kernel.getContext())
          .threads({threads})
          .block({rows})
          .cluster(cluster)
          .getChecked(function_ref<InFlightDiagnostic()>(emitError));
  if (!tuning || failed(checkLowerable(kernel, structure, tuning, emitError)))
    return failure();
  return tuning;
}
