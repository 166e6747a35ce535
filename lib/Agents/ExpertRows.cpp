//===- ExpertRows.cpp - The built-in expert: rows and columns -------------===//

#include "ExpertAgent.h"
#include "egg/Agents/Agent.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/SplitK.h"
#include "egg/Support/Saturating.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

#define DEBUG_TYPE "egg-expert"

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::expert;

FailureOr<TuningAttr> ExpertAgent::chooseStagedMap(KernelOp kernel,
                                                   StructureAttr structure) {
  SmallVector<int64_t> staged = transposedInputs(kernel);
  if (staged.empty())
    return failure();
  auto quiet = [&]() { return kernel.emitOpError(); };
  ScopedDiagnosticHandler silence(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, quiet);
  if (failed(loops))
    return failure();
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<unsigned> across = stagedTileLoops(kernel, staged);
  int64_t bits = 64;
  for (int64_t k : staged)
    bits = std::min<int64_t>(
        bits, getElementTypeOrSelf(op->getOpOperand(k).get().getType())
                  .getIntOrFloatBitWidth());
  // 16-bit inputs move 2 bytes per scalar access: runs of 16 bytes
  // (principle 7) along the staged inputs' rows and the results' rows.
  // Rows padded by an odd number of 16-bit elements then keep stage 2's
  // reads across the runs free of bank conflicts (a 32-lane model of the
  // 64x64 tile: padding 1 or 3 conflict-free, 2 two-way).
  int64_t widest = 8;
  for (OpOperand &operand : op->getOpOperands())
    if (Type element = getElementTypeOrSelf(operand.get().getType());
        element.isIntOrFloat())
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth());
  SmallVector<int64_t, 2> vectors = {1};
  if (bits < 32 && widest <= 64)
    vectors.insert(vectors.begin(), 128 / widest);
  for (int64_t vector : vectors) {
    int64_t padding = vector > 1 ? 1 : std::max<int64_t>(1, 32 / bits);
    for (int64_t t : {64, 32}) {
      SmallVector<int64_t> block;
      for (unsigned pos : loops->parallelPositions)
        block.push_back(llvm::is_contained(across, pos) ? t : 1);
      TuningAttr tuning =
          TuningBuilder(kernel.getContext())
              .threads({256})
              .block(block)
              .shared(staged)
              .padding(padding)
              .vector(vector)
              .getChecked(function_ref<InFlightDiagnostic()>(quiet));
      if (tuning && succeeded(checkLowerable(kernel, structure, tuning, quiet)))
        return tuning;
    }
  }
  return failure();
}

FailureOr<TuningAttr> ExpertAgent::chooseColumns(KernelOp kernel,
                                                 StructureAttr structure,
                                                 TargetAttr target) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  auto op = cast<linalg::LinalgOp>(kernel.getAnchorOp());
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  std::optional<unsigned> reduced = columnReductionLoop(kernel);
  if (!reduced)
    return failure();
  int64_t last = extents.back(), outer = 1;
  for (unsigned d = 0; d + 1 < extents.size(); ++d)
    if (d != *reduced)
      outer = mulSat(outer, extents[d]);
  int64_t v = widestVectorDividing(last, widestElementBits(kernel));
  int64_t tx = 32;
  while (tx > 1 && (last % (tx * v) != 0 || tx * v > last))
    tx /= 2;
  // Odd column counts (4095) take the largest divisor up to 64 instead
  // of one column per block, whose lanes each read a column alone: the
  // wider a block's unaligned row segment, the fewer sectors it shares
  // with its neighbours (H100, min over 4096 rows of 128 x 4095: 63
  // columns 3.59 ms, 21 columns 4.53 ms).
  if (tx < 8)
    tx = std::max(tx, largestDivisorAtMost(last / v, 64));
  while (tx > 8 && tx % 2 == 0 &&
         mulSat(outer, last / (tx * v)) < 2 * target.getSmCount())
    tx /= 2;
  int64_t rows = 1;
  while (tx * rows * 2 <= 512 && rows * 2 <= extents[*reduced])
    rows *= 2;
  SmallVector<int64_t> block(extents.size() - 1, 1);
  block.back() = tx * v;
  TuningAttr tuning =
      TuningBuilder(kernel.getContext())
          .threads({tx, rows})
          .block(block)
          .vector(v)
          .getChecked(function_ref<InFlightDiagnostic()>(emitError));
  if (!tuning || failed(checkLowerable(kernel, structure, tuning, emitError)))
    return failure();
  return tuning;
}

FailureOr<TuningAttr> ExpertAgent::chooseRow(KernelOp kernel,
                                             StructureAttr structure) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  std::optional<int64_t> row = cooperativeRowLength(kernel);
  if (failed(loops) || !row)
    return failure();
  bool perWarp = structure.getFormulation() == Formulation::reduce_row_per_warp;
  int64_t vector = widestVectorDividing(*row, narrowestElementBits(kernel));
  // Rows shorter than a warp's worth of vectors share a warp: 32 / G
  // lanes per row with about two vectors each (the fewest lanes that
  // cover the row in two steps), G rows per warp (gpu.subgroup_reduce
  // over clusters of lanes). egg-tune on the H200, 20-element f32
  // softmax: 1.35x faster than one vector per lane (principle 8 of
  // tuning.md).
  int64_t rowsPerWarp = 1;
  if (perWarp && *row < 32 * vector)
    while (rowsPerWarp < 32 && *row <= (32 / rowsPerWarp) * vector)
      rowsPerWarp *= 2;

  size_t numParallel = loops->parallelPositions.size();
  SmallVector<int64_t> block(numParallel, 0), warp;
  std::optional<size_t> inner;
  for (size_t p = 0; p < numParallel; ++p) {
    if (loops->reducedByProducer[loops->parallelPositions[p]])
      continue;
    block[p] = 1;
    inner = p;
  }
  if (!inner)
    return kernel.emitOpError("has no loop to spread rows over");
  int64_t threads;
  if (perWarp) {
    int64_t extent = loops->extents[loops->parallelPositions[*inner]];
    // Whole warps of rows: halve G until it divides the rows to spread.
    while (extent % rowsPerWarp != 0)
      rowsPerWarp /= 2;
    // Short rows: narrower accesses until the lanes' steps cover the row
    // whole. A partial last step leaves lanes idle and keeps the rows out
    // of registers (H200: the 20-element f32 softmax 16% faster in whole
    // 4-byte steps; principle 8 of tuning.md). Where no narrower access
    // gets there, the vector stays.
    if (rowsPerWarp > 1)
      for (int64_t v = vector; v >= 1; v /= 2)
        if (*row % ((32 / rowsPerWarp) * v) == 0) {
          vector = v;
          break;
        }
    // Four warps per block; eight when rows are short (more loads in
    // flight per SM for the same number of resident blocks).
    int64_t warps =
        largestDivisorAtMost(extent / rowsPerWarp, *row < 256 ? 8 : 4);
    block[*inner] = warps * rowsPerWarp;
    threads = 32 * warps;
    warp = llvm::map_to_vector(
        block, [](int64_t b) -> int64_t { return b > 0 ? 1 : 0; });
    warp[*inner] = rowsPerWarp;
  } else {
    // About four vectors per thread, which egg-distribute-rows holds in
    // registers between the passes (64 bytes of its 128-byte budget).
    // Rows held: 256 threads for rows of 4096 f32, 64 for 2048 f16
    // (egg-tune on the H200: layer norm + GELU 8% faster than at 512).
    threads = 32;
    while (threads < kMaxThreadsPerBlock && threads * vector * 4 < *row)
      threads *= 2;
    // A plain reduction of a long row (4096 or more) holds nothing
    // between passes: at least 256 threads (H200: matvec_bf16 3% faster
    // than at 128; principle 5 of structure.md).
    bool plain = !llvm::is_contained(loops->reducedByProducer, true);
    if (plain && *row >= 4096)
      threads = std::max<int64_t>(threads, 256);
  }
  // A row held across passes that takes more than a quarter of the SM's
  // registers (a group norm's 128 KB) leaves one block per SM, whose
  // read, reduce and write phases then run in turn: all but 32 bytes per
  // thread of it go to shared memory, so that two blocks share each SM
  // (principle 8 of tuning.md; H200, bench/ceilings/group_norm.cu: 6 of
  // 8 steps in shared memory 11% faster than all in registers).
  int64_t rowShared = 0;
  int64_t held = heldRowElementBytes(kernel);
  TargetAttr target = lookupTarget(kernel);
  if (!perWarp && target && *row % (threads * vector) == 0 &&
      holdsRow(kernel, threads) &&
      // Over a quarter of the register file in bytes (4-byte registers).
      mulSat(*row, held) > target.getRegistersPerBlock() &&
      2 * threads <= kMaxThreadsPerSM) {
    int64_t steps = *row / (threads * vector);
    rowShared = steps - std::max<int64_t>(1, 32 / (vector * held));
  }
  auto build = [&](int64_t shared) {
    TuningAttr tuning =
        TuningBuilder(kernel.getContext())
            .threads({threads})
            .block(block)
            .warp(warp)
            .vector(vector)
            .rowShared(shared)
            .getChecked(function_ref<InFlightDiagnostic()>(emitError));
    if (!tuning || failed(checkLowerable(kernel, structure, tuning, emitError)))
      return TuningAttr();
    return tuning;
  };
  if (rowShared > 0) {
    ScopedDiagnosticHandler silence(kernel.getContext(),
                                    [](Diagnostic &) { return success(); });
    if (TuningAttr tuning = build(rowShared))
      return tuning;
  }
  if (TuningAttr tuning = build(0))
    return tuning;
  return failure();
}

FailureOr<TuningAttr> ExpertAgent::chooseScan(KernelOp kernel,
                                              StructureAttr structure,
                                              TargetAttr target) {
  auto emitError = [&]() { return kernel.emitOpError(); };
  FailureOr<RootLoops> loops = analyzeRootLoops(kernel, emitError);
  auto scan = dyn_cast_or_null<ScanOp>(kernel.getRootOp());
  if (failed(loops) || !scan || loops->parallelPositions.empty())
    return failure();
  int64_t n = scan.getScanLength();
  int64_t vector = widestVectorDividing(
      n, cast<ShapedType>(scan.getInput().getType()).getElementTypeBitWidth());
  size_t numParallel = loops->parallelPositions.size();
  int64_t rows = 1;
  for (unsigned pos : loops->parallelPositions)
    rows = mulSat(rows, loops->extents[pos]);
  // Rows per block on the innermost row loop: 8 warps, fewer where the
  // rows would not give two blocks per SM.
  int64_t inner = loops->extents[loops->parallelPositions.back()];
  int64_t perBlock = largestDivisorAtMost(inner, 8);
  int64_t sms = target ? target.getSmCount() : 1;
  while (perBlock > 1 && rows / perBlock < 2 * sms)
    perBlock = largestDivisorAtMost(inner, perBlock / 2);
  SmallVector<int64_t> block(numParallel, 1), warp(numParallel, 1);
  block.back() = perBlock;
  EXPERT_TRACE(kernel, "scan: " << rows << " rows of " << n << ", " << perBlock
                                << " per block, vector " << vector);
  TuningAttr tuning =
      TuningBuilder(kernel.getContext())
          .threads({32 * perBlock})
          .block(block)
          .warp(warp)
          .vector(vector)
          .getChecked(function_ref<InFlightDiagnostic()>(emitError));
  if (!tuning || failed(checkLowerable(kernel, structure, tuning, emitError)))
    return failure();
  return tuning;
}
