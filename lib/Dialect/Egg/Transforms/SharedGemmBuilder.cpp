//===- SharedGemmBuilder.cpp - Shared-memory GEMM: ids, tiles, K loop -----===//

#include "SharedGemm.h"

#include "egg/Analysis/TuningQueries.h"
#include "egg/Dialect/Egg/IR/EggOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <functional>

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::gemm;

void GemmBuilder::buildThreadIds(OpBuilder &b) {
  if (plan.tma) {
    // A 1-D block (lowerLaunch): warpgroup w computes the warp tile at
    // (w / threadsN, w % threadsN) of the block tile; the last one is the
    // producer (tz = bm / tm).
    auto c = [&](int64_t v) { return constIndex(b, loc, v); };
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    tx = arith::RemUIOp::create(b, loc, tid, c(128));
    Value warpgroup = arith::DivUIOp::create(b, loc, tid, c(128));
    ty = arith::RemUIOp::create(b, loc, warpgroup, c(plan.threadsN()));
    tz = arith::DivUIOp::create(b, loc, warpgroup, c(plan.threadsN()));
    return;
  }
  tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value row = ty;
  if (plan.wgmma) {
    tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.threadsN())),
        ty);
  } else if (plan.mma) {
    Value eight = constIndex(b, loc, 8), two = constIndex(b, loc, 2);
    Value quad = arith::DivUIOp::create(b, loc, tx, eight);
    lane.row = arith::RemUIOp::create(b, loc, tx, eight);
    lane.lowOffset = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, quad, two), eight);
    lane.highOffset = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, quad, two), eight);
    tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, tz, constIndex(b, loc, plan.threadsN())),
        ty);
  }
  tid = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, row,
          constIndex(b, loc, plan.mma ? plan.group() : plan.threadsN())),
      tx);
}

void GemmBuilder::buildBounds(OpBuilder &b) {
  SmallVector<int64_t> extents = gemm.getStaticLoopRanges();
  bounds.assign(extents.size(), Value());
  SmallVector<Range, 4> ranges;
  if (llvm::any_of(extents, ShapedType::isDynamic))
    ranges =
        cast<linalg::LinalgOp>(gemm.getOperation()).createLoopRanges(b, loc);
  for (unsigned d = 0; d < extents.size(); ++d) {
    if (ShapedType::isDynamic(extents[d])) {
      bounds[d] = getValueOrCreateConstantIndexOp(b, loc, ranges[d].size);
      continue;
    }
    // A tile larger than its whole loop (M = 16 in a 32-row tile): the
    // one block's extent is the loop's.
    if (plan.loops.isMN(d) && extents[d] < plan.blockExtents[d])
      bounds[d] = constIndex(b, loc, extents[d]);
  }
}

Value GemmBuilder::inBounds(OpBuilder &b, ArrayRef<Value> loopIdx,
                            ArrayRef<unsigned> loops) {
  Value inside;
  for (auto [d, bound, idx] : llvm::enumerate(bounds, loopIdx)) {
    if (!bound || (!loops.empty() && !llvm::is_contained(loops, d)))
      continue;
    Value in =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, in) : in;
  }
  return inside;
}

void GemmBuilder::clampToBounds(OpBuilder &b, SmallVector<Value> &loopIdx) {
  for (auto [bound, idx] : llvm::zip(bounds, loopIdx))
    if (bound)
      idx = arith::MinUIOp::create(
          b, loc, idx,
          arith::SubIOp::create(b, loc, bound, constIndex(b, loc, 1)));
}

SmallVector<std::pair<Value, Value>>
GemmBuilder::accumulatorPositions(OpBuilder &b) {
  auto add = [&](Value v, int64_t c) {
    return arith::AddIOp::create(b, loc, v, constIndex(b, loc, c)).getResult();
  };
  auto mul = [&](Value v, int64_t c) {
    return arith::MulIOp::create(b, loc, v, constIndex(b, loc, c)).getResult();
  };
  SmallVector<std::pair<Value, Value>> positions;
  if (!plan.mma) {
    // A thread's rows (columns): its runs' positions in order (fmaRuns).
    auto along = [&](bool alongM) {
      SmallVector<Value> at;
      auto [starts, run] = fmaRuns(b, alongM);
      for (Value start : starts)
        for (int64_t i = 0; i < run; ++i)
          at.push_back(add(start, i));
      return at;
    };
    SmallVector<Value> ms = along(/*alongM=*/true), ns = along(false);
    for (int64_t i = 0; i < plan.tm; ++i)
      for (int64_t j = 0; j < plan.tn; ++j)
        positions.push_back({ms[i], ns[j]});
    return positions;
  }
  // An m16n8 accumulator fragment: lane l holds rows l/4 and l/4 + 8,
  // columns 2 (l % 4) and 2 (l % 4) + 1 (PTX ISA, mma.m16n8k16 layout).
  // wgmma's m64nN result stacks the fragments of its four warps (warp w of
  // the warpgroup holds rows 16w to 16w + 15) and repeats them per 8
  // columns, like mma.sync's per-warp fragments do per 16 rows and 8
  // columns.
  Value lane = plan.wgmma
                   ? arith::RemUIOp::create(b, loc, tx, constIndex(b, loc, 32))
                   : tx;
  Value group = arith::DivUIOp::create(b, loc, lane, constIndex(b, loc, 4));
  Value pair =
      mul(arith::RemUIOp::create(b, loc, lane, constIndex(b, loc, 4)), 2);
  Value m0 = mul(tz, plan.tm);
  if (plan.wgmma)
    m0 = arith::AddIOp::create(
        b, loc, m0,
        mul(arith::DivUIOp::create(b, loc, tx, constIndex(b, loc, 32)), 16));
  m0 = arith::AddIOp::create(b, loc, m0, group);
  Value n0 = arith::AddIOp::create(b, loc, mul(ty, plan.tn), pair);
  int64_t fragmentM = plan.wgmma ? 64 : 16;
  for (int64_t mi = 0; mi < plan.tm / fragmentM; ++mi)
    for (int64_t ni = 0; ni < plan.tn / 8; ++ni)
      for (int64_t r = 0; r < 4; ++r)
        positions.push_back(
            {add(m0, mi * fragmentM + 8 * (r / 2)), add(n0, ni * 8 + r % 2)});
  return positions;
}

std::pair<SmallVector<Value, 2>, int64_t> GemmBuilder::fmaRuns(OpBuilder &b,
                                                               bool alongM) {
  int64_t tile = alongM ? plan.tm : plan.tn;
  bool split = alongM ? plan.splitM : plan.splitN;
  int64_t rows = alongM ? 1 : plan.runsN;
  int64_t run = split ? tile / 2 : tile / rows;
  Value first =
      arith::MulIOp::create(b, loc, alongM ? ty : tx, constIndex(b, loc, run));
  SmallVector<Value, 2> starts = {first};
  if (split)
    starts.push_back(arith::AddIOp::create(
        b, loc, first, constIndex(b, loc, (alongM ? plan.bm : plan.bn) / 2)));
  for (int64_t r = 1; r < rows; ++r)
    starts.push_back(arith::AddIOp::create(
        b, loc, first, constIndex(b, loc, r * plan.runStrideN)));
  return {starts, run};
}

void GemmBuilder::decode(OpBuilder &b, ArrayRef<unsigned> loops,
                         ArrayRef<int64_t> extents, Value flat,
                         SmallVector<Value> &loopIdx) {
  for (unsigned i = loops.size(); i-- > 0;) {
    if (i == 0) {
      loopIdx[loops[i]] = flat;
      break;
    }
    Value extent = constIndex(b, loc, extents[loops[i]]);
    loopIdx[loops[i]] = arith::RemUIOp::create(b, loc, flat, extent);
    flat = arith::DivUIOp::create(b, loc, flat, extent);
  }
}

SmallVector<Value> GemmBuilder::productIndices(OpBuilder &b, Value m, Value n) {
  SmallVector<Value> idx(gemm.getNumLoops(), constIndex(b, loc, 0));
  decode(b, plan.loops.mLoops, plan.blockExtents, m, idx);
  decode(b, plan.loops.nLoops, plan.blockExtents, n, idx);
  return idx;
}

Value GemmBuilder::warpTid(OpBuilder &b) {
  // With a cluster barrier at the kernel's end, ptxas serialised every
  // wgmma behind a consumer test it could not prove warp-uniform (its
  // warning C7520); the first lane's `tid` is uniform by construction and
  // on the same side of the warp-aligned producer boundary. (Kept to
  // clusters until the plain TMA kernels are timed with it.)
  if (plan.cluster == 1)
    return tid;
  Value tid32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tid);
  auto lane0 = gpu::ShuffleOp::create(b, loc, tid32, /*offset=*/0,
                                      /*width=*/32, gpu::ShuffleMode::IDX);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                      lane0.getShuffleResult());
}

Value GemmBuilder::isConsumer(OpBuilder &b) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warpTid(b),
                               constIndex(b, loc, plan.numThreads()));
}

void GemmBuilder::computingBarrier(OpBuilder &b) {
  if (!plan.tma) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // Named barrier 1, for the computing threads only.
  NVVM::BarrierOp::create(
      b, loc, Type(), arith::ConstantIntOp::create(b, loc, 1, 32),
      arith::ConstantIntOp::create(b, loc, plan.numThreads(), 32), {}, Value());
}

LogicalResult GemmBuilder::prepare(OpBuilder &b) {
  auto addBuffer = [&](unsigned which, ArrayRef<unsigned> mnLoops,
                       int64_t tileMN) -> MemRefType {
    Value global = gemm.getDpsInputOperand(which)->get();
    AffineMap map = gemm.getMatchingIndexingMap(gemm.getDpsInputOperand(which));
    Type element = getElementTypeOrSelf(global.getType());
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    // An input contiguous along neither (an NCHW input, read along
    // ow * s + kw) is copied an element at a time (checkLowerable).
    bool fastIsMN = contiguousLoop(map) == mnLoops.back();
    int64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
    bool sharedFastIsMN =
        gemmTileAlongMN(plan.mma, plan.wgmma, bytes, fastIsMN);
    SmallVector<int64_t> shape =
        sharedFastIsMN
            ? SmallVector<int64_t>{plan.stages, plan.bk, tileMN + plan.padding}
            : SmallVector<int64_t>{plan.stages, tileMN, plan.bk + plan.padding};
    // wgmma: a flat swizzled tile per stage (swizzledOffset).
    if (plan.wgmma)
      shape = {plan.stages, tileMN * plan.bk};
    auto type =
        MemRefType::get(shape, element, MemRefLayoutAttrInterface(), space);
    operands.push_back({which, mnLoops, tileMN, global, Value(), fastIsMN,
                        sharedFastIsMN, bytes});
    Operand &x = operands.back();
    Tf32Copy tf32Copy =
        plan.wgmma && plan.async
            ? tf32CopyOf(gemm, plan.loops, which, plan.vector, plan.splitTf32)
            : Tf32Copy::pieces;
    x.elements = tf32Copy == Tf32Copy::elements;
    x.staged = tf32Copy == Tf32Copy::transposed;
    x.blocked = x.elements && contiguousLoop(map) != plan.loops.innerK();
    return type;
  };
  SmallVector<MemRefType, 2> types = {
      addBuffer(plan.loops.lhs, plan.loops.mLoops, plan.bm),
      addBuffer(plan.loops.rhs, plan.loops.nLoops, plan.bn)};
  for (Operand &x : operands)
    if (failed(findBorder(x)))
      return failure();
  // Up to 48 KB: static workgroup buffers. Beyond (deep pipelines,
  // checkLowerable): views of the block's dynamic shared
  // memory, whose size the launch carries (the driver needs an opt-in
  // above 48 KB, which egg-eval gives from the manifest).
  SmallVector<int64_t, 2> offsets, lowOffsets;
  int64_t total = 0;
  for (auto [x, type] : llvm::zip(operands, types)) {
    offsets.push_back(total);
    int64_t bytes =
        type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    x.stageBytes = bytes / plan.stages;
    // ldmatrix and cp.async: 16 bytes; wgmma's swizzle: 1024.
    total += llvm::alignTo(bytes, plan.wgmma ? kWgmmaSwizzleAtom : 16);
  }
  // Split TF32 products: each operand's low parts, laid out as its tiles.
  if (plan.splitTf32)
    for (const Operand &x : operands) {
      lowOffsets.push_back(total);
      total += llvm::alignTo(x.stageBytes * plan.stages, kWgmmaSwizzleAtom);
    }
  tilesBytes = total;
  // wgmma tiles always live in dynamic shared memory, whose start is
  // aligned to the swizzle atom at run time (one atom more is allocated).
  Value alignedStart;
  if (total <= kStaticSharedMemoryPerBlock && !plan.wgmma) {
    for (auto [x, type] : llvm::zip(operands, types))
      x.shared = launch.addWorkgroupAttribution(type, loc);
  } else {
    OpBuilder::InsertionGuard guard(b);
    Value bytes = addDynamicSharedMemory(
        b, loc, launch, total + (plan.wgmma ? kWgmmaSwizzleAtom : 0));
    Value start = constIndex(b, loc, 0);
    if (plan.wgmma) {
      // Shared-window address of the buffer, rounded up to the atom.
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, bytes);
      Value atom = constIndex(b, loc, kWgmmaSwizzleAtom);
      Value aligned = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, address, atom), atom);
      start = arith::SubIOp::create(b, loc, aligned, address);
      alignedStart = aligned;
    }
    sharedBytes = bytes;
    for (auto [x, type, offset] : llvm::zip(operands, types, offsets)) {
      x.tileStart =
          arith::AddIOp::create(b, loc, start, constIndex(b, loc, offset));
      x.shared = memref::ViewOp::create(b, loc, type, bytes, x.tileStart,
                                        ValueRange{});
    }
    for (auto [x, type, offset] : llvm::zip(operands, types, lowOffsets))
      x.low = memref::ViewOp::create(
          b, loc, type, bytes,
          arith::AddIOp::create(b, loc, start, constIndex(b, loc, offset)),
          ValueRange{});
  }
  // Descriptors hold absolute addresses; built here, at the product, where
  // the thread ids are defined.
  auto descriptorAt = [&](const Operand &x, int64_t offset) {
    return buildDescriptor(b, x,
                           arith::AddIOp::create(b, loc, alignedStart,
                                                 constIndex(b, loc, offset)));
  };
  if (plan.wgmma)
    for (auto [x, offset] : llvm::zip(operands, offsets))
      x.descriptor = descriptorAt(x, offset);
  for (auto [x, offset] : llvm::zip(operands, lowOffsets))
    x.lowDescriptor = descriptorAt(x, offset);

  int64_t extentK =
      GemmLoops::extent(plan.loops.kLoops, gemm.getStaticLoopRanges());
  // A partial last tile is zero-filled past K (copyTile; TMA fills boxes
  // past the tensor's end with zeros).
  numK = llvm::divideCeil(extentK, plan.bk);

  // TMA: a tensor map per operand (before the launch) and two mbarriers per
  // stage, initialised by thread 0 ("full" for the producer's expect_tx,
  // "empty" for one arrival per consumer warpgroup of each block it feeds)
  // and made visible to the block and to the copy engine before the
  // producer starts.
  if (plan.tma) {
    if (plan.cluster > 1)
      clusterRank = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          NVVM::ClusterId::create(b, loc, b.getI32Type()));
    for (Operand &x : operands)
      if (failed(createTensorMap(b, x)))
        return failure();
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto group =
        nvgpu::MBarrierGroupType::get(b.getContext(), space, plan.stages);
    fullBarriers = nvgpu::MBarrierCreateOp::create(b, loc, group);
    emptyBarriers = nvgpu::MBarrierCreateOp::create(b, loc, group);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                          constIndex(b, loc, 0));
    // With multicast a stage is refilled in every block of the cluster at
    // once: its "empty" barrier counts the consumers of all of them.
    int64_t consumers = plan.numThreads() / 128 * plan.cluster;
    scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &ib, Location) {
      for (int64_t st = 0; st < plan.stages; ++st) {
        nvgpu::MBarrierInitOp::create(ib, loc, fullBarriers,
                                      constIndex(ib, loc, 1),
                                      constIndex(ib, loc, st), Value());
        nvgpu::MBarrierInitOp::create(ib, loc, emptyBarriers,
                                      constIndex(ib, loc, consumers),
                                      constIndex(ib, loc, st), Value());
      }
      // (No `fence.proxy.tensormap` acquire: it needs PTX 8.3 and the
      // pipeline targets 8.0. The host writes each map before the launch
      // that reads it; docs/pipeline.md, "TMA copies".)
      for (const Operand &x : operands)
        nvgpu::TmaPrefetchOp::create(ib, loc, x.tensorMap, Value());
      scf::YieldOp::create(ib, loc);
    });
    NVVM::FenceMbarrierInitOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
    if (plan.cluster > 1) {
      // No block may copy into or arrive on a peer's barriers before the
      // peer initialised them.
      clusterBarrier(b, loc);
    }
    buildProducer(b);
  }
  return success();
}

SmallVector<Value> GemmBuilder::buildMainLoop(OpBuilder &b,
                                              ValueRange initial) {
  int64_t stages = plan.stages;
  auto copyBoth = [&](OpBuilder &nb, Value kt, Value stage) {
    for (const Operand &x : operands)
      copyTile(nb, x, kt, stage);
  };
  auto commit = [&](OpBuilder &nb) {
    NVVM::CpAsyncCommitGroupOp::create(nb, loc);
  };
  // wgmma reads shared memory through the async proxy: each thread's
  // copies (generic proxy) are made visible to it before the barrier.
  auto publish = [&](OpBuilder &nb) {
    if (plan.wgmma)
      NVVM::FenceProxyOp::create(
          nb, loc,
          NVVM::ProxyKindAttr::get(nb.getContext(),
                                   NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(nb.getContext(),
                                     NVVM::SharedSpace::shared_cta));
  };
  // Split TF32 products: each thread splits the pieces it copied once they
  // have landed (its own cp.async writes need no barrier), before the
  // fence that hands the stage to wgmma. Staged tiles (copied along M/N)
  // are read once every thread's copies have landed (a barrier) and
  // written K-major once every thread has read them (another).
  auto split = [&](OpBuilder &nb, Value stage) {
    if (!plan.splitTf32)
      return;
    bool staged =
        llvm::any_of(operands, [](const Operand &x) { return x.staged; });
    SmallVector<SmallVector<Value>> held;
    if (staged) {
      gpu::BarrierOp::create(nb, loc);
      for (const Operand &x : operands)
        held.push_back(x.staged ? readStaged(nb, x, stage)
                                : SmallVector<Value>());
      gpu::BarrierOp::create(nb, loc);
    }
    for (auto [i, x] : llvm::enumerate(operands)) {
      if (x.staged)
        writeStaged(nb, x, stage, held[i]);
      else
        splitTile(nb, x, stage);
    }
  };
  auto computeStep = [&](OpBuilder &nb, Value stage, ValueRange accs,
                         bool last) {
    if (plan.wgmma)
      return computeWgmma(nb, stage, accs, last);
    return plan.mma ? computeMma(nb, stage, accs) : compute(nb, stage, accs);
  };
  // The K loop over `step`. Products left in flight across a step are
  // drained by a last step peeled off the loop: ptxas serialises every
  // wgmma of a kernel where a loop's exit copies accumulators still being
  // written (it did for linear + GELU), and a wait after the loop leaves
  // that to its register allocator.
  using Step =
      function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange, bool)>;
  auto buildLoop = [&](Step step) {
    bool peel = wgmmaInFlight();
    auto loop = scf::ForOp::create(
        b, loc, constIndex(b, loc, 0), constIndex(b, loc, numK - peel),
        constIndex(b, loc, 1), initial,
        [&](OpBuilder &nb, Location, Value kt, ValueRange accs) {
          scf::YieldOp::create(nb, loc, step(nb, kt, accs, false));
        });
    SmallVector<Value> results(loop.getResults());
    if (peel)
      results = step(b, constIndex(b, loc, numK - 1), results, true);
    return results;
  };

  // Tiles copied ahead of the one computed: all other stages, except that
  // wgmma with four or more stages leaves its products in flight across
  // one iteration (computeWgmma), so the stage they read is refilled one
  // iteration later.
  // TMA: the consumers wait for a stage's copies on its "full" mbarrier and,
  // once the products that read it have completed (one K step later, the
  // wgmma wait in computeWgmma), free it on its "empty" one.
  if (plan.tma) {
    return buildLoop([&](OpBuilder &nb, Value kt, ValueRange accs, bool last) {
      Value stage =
          arith::RemUIOp::create(nb, loc, kt, constIndex(nb, loc, stages));
      nvgpu::MBarrierTryWaitParityOp::create(
          nb, loc, fullBarriers, fillParity(nb, kt, 0),
          constIndex(nb, loc, 10000000), stage);
      SmallVector<Value> next = computeWgmma(nb, stage, accs, last);
      if (last) // Nothing is copied after the last tile.
        return next;
      Value isLeader = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                             tx, constIndex(nb, loc, 0));
      Value hasPrevious = arith::CmpIOp::create(
          nb, loc, arith::CmpIPredicate::ugt, kt, constIndex(nb, loc, 0));
      Value frees = arith::AndIOp::create(nb, loc, isLeader, hasPrevious);
      scf::IfOp::create(nb, loc, frees, [&](OpBuilder &ib, Location) {
        Value previous = arith::RemUIOp::create(
            ib, loc,
            arith::AddIOp::create(ib, loc, kt, constIndex(ib, loc, stages - 1)),
            constIndex(ib, loc, stages));
        nvgpu::MBarrierArriveOp::create(
            ib, loc, nvgpu::MBarrierTokenType::get(ib.getContext()),
            emptyBarriers, previous);
        if (plan.cluster > 1)
          arriveOnPeer(ib, previous);
        scf::YieldOp::create(ib, loc);
      });
      return next;
    });
  }

  int64_t ahead = wgmmaInFlight() ? stages - 2 : stages - 1;
  if (stages > 1) {
    // Prologue: tiles 0 .. ahead-1 in flight; a group is committed for
    // each even when K has fewer tiles, so the waits count alike.
    for (int64_t s = 0; s < ahead; ++s) {
      if (s < numK)
        copyBoth(b, constIndex(b, loc, s), constIndex(b, loc, s));
      commit(b);
    }
  }
  // (readPlan: FMA tiles over cp.async in two stages or more.)
  if (plan.fragmentsAhead)
    return buildPrefetchedLoop(b, initial, ahead);
  return buildLoop([&](OpBuilder &nb, Value kt, ValueRange accs, bool last) {
    SmallVector<Value> next;
    if (stages == 1) {
      // The barrier first: no thread may still read the previous tile.
      Value stage = constIndex(nb, loc, 0);
      gpu::BarrierOp::create(nb, loc);
      copyBoth(nb, kt, stage);
      if (plan.async) {
        commit(nb);
        NVVM::CpAsyncWaitGroupOp::create(nb, loc, 0);
      }
      split(nb, stage);
      publish(nb);
      gpu::BarrierOp::create(nb, loc);
      next = computeStep(nb, stage, accs, last);
    } else {
      // Tile kt has landed once at most ahead-1 groups are pending;
      // then tile kt+ahead goes into the stage computed `stages - ahead`
      // iterations ago, which every thread has left (the barrier) and
      // whose wgmma products are complete.
      NVVM::CpAsyncWaitGroupOp::create(nb, loc, ahead - 1);
      if (plan.splitTf32)
        split(nb,
              arith::RemUIOp::create(nb, loc, kt, constIndex(nb, loc, stages)));
      publish(nb);
      gpu::BarrierOp::create(nb, loc);
      Value numStages = constIndex(nb, loc, stages);
      Value stage = arith::RemUIOp::create(nb, loc, kt, numStages);
      auto refill = [&]() {
        Value tile =
            arith::AddIOp::create(nb, loc, kt, constIndex(nb, loc, ahead));
        Value inRange =
            arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult, tile,
                                  constIndex(nb, loc, numK));
        scf::IfOp::create(nb, loc, inRange, [&](OpBuilder &ib, Location) {
          copyBoth(ib, tile, arith::RemUIOp::create(ib, loc, tile, numStages));
          scf::YieldOp::create(ib, loc);
        });
        commit(nb);
      };
      // Products that complete within their step have freed the stage of
      // step kt-1 at the barrier: its refill goes out before this step's
      // products and has the whole step to land. (Refilled after them, the
      // f32 FMA product of 2048^3 waited for its copies at the top of every
      // step: 10.6% of ncu's warp samples.)
      bool early = !wgmmaInFlight();
      if (early && !last)
        refill();
      next = computeStep(nb, stage, accs, last);
      if (!early && !last) // After the last tile nothing is copied.
        refill();
    }
    return next;
  });
}
