//===- FormKernels.cpp - Partition functions into egg.kernel groups -------===//
//
// The default fusion rules of the expert (docs/principles/fusion.md):
//  * an elementwise consumer joins the kernel of its producer (epilogues and
//    elementwise chains), except a map that spreads a reduction's results
//    over loops the reduction never walked;
//  * a reduction joins the kernel of a producing reduction over the same rows
//    (normalisations and decomposed softmax stay one kernel);
//  * a group without a reduction/contraction whose results all feed one other
//    kernel joins it (prologues: fills, scales, masks), except before a
//    product's inputs;
//  * a zero pad of a convolution's image joins the convolution, a pad of
//    any value a pooling's or depthwise convolution's image;
// and every merge keeps the group convex (no path leaves it and comes back),
// so the partition can always be scheduled.
//
//===----------------------------------------------------------------------===//

#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Support/Saturating.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <functional>

#define DEBUG_TYPE "egg-form-kernels"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGFORMKERNELS
#include "egg/Dialect/Egg/Transforms/Passes.h.inc"
} // namespace mlir::egg

using namespace mlir;
using namespace mlir::egg;

/// Ops that become part of a kernel.
static bool isComputeOp(Operation *op) {
  return isa<linalg::LinalgDialect>(op->getDialect()) ||
         isa<tensor::PadOp, ScanOp, RecurrenceOp>(op);
}

/// Ops that are a kernel alone: their lowerings (egg-lower-scans,
/// egg-lower-recurrences) build the whole kernel around the one op.
static bool isAlone(Operation *op) { return isa<ScanOp, RecurrenceOp>(op); }

/// All loops parallel: fills, broadcasts, transposes, elementwise generics.
static bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// Contractions, convolutions, reductions and aggregate ops (softmax).
static bool isAnchor(Operation *op) {
  return isComputeOp(op) && !isElementwise(op) && !isa<tensor::PadOp>(op);
}

/// Contractions and convolutions the GEMM lowering can take: their inputs
/// may go through shared memory. (Not matrix-vector products or depthwise
/// convolutions, whose loops lack an M, N or K: they run as row reductions
/// or direct loop nests, which fuse prologues per thread.)
static bool isProduct(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  std::string why;
  return linalgOp &&
         (linalg::isaContractionOpInterface(linalgOp) ||
          linalg::isaConvolutionOpInterface(linalgOp)) &&
         succeeded(analyzeGemmLoops(op, why));
}

/// Static ranges of the parallel loops of a reduction that is not a
/// contraction or convolution; empty when the op does not qualify.
static SmallVector<int64_t> rowSpace(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0 ||
      linalg::isaContractionOpInterface(linalgOp) ||
      linalg::isaConvolutionOpInterface(linalgOp))
    return {};
  SmallVector<int64_t> rows;
  for (auto [range, it] : llvm::zip(linalgOp.getStaticLoopRanges(),
                                    linalgOp.getIteratorTypesArray()))
    if (it == utils::IteratorType::parallel)
      rows.push_back(range);
  if (llvm::any_of(rows, ShapedType::isDynamic))
    return {};
  return rows;
}

/// A reduction of a whole tensor to one value (every parallel loop of
/// extent 1), not a contraction or convolution.
static bool reducesToOneValue(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0 ||
      linalg::isaContractionOpInterface(linalgOp) ||
      linalg::isaConvolutionOpInterface(linalgOp))
    return false;
  for (auto [range, it] : llvm::zip(linalgOp.getStaticLoopRanges(),
                                    linalgOp.getIteratorTypesArray()))
    if (it == utils::IteratorType::parallel && range != 1)
      return false;
  return true;
}

/// The number of iterations of a linalg op's loop nest with static ranges
/// (saturating); 0 when it has none or they are dynamic.
static int64_t iterationCount(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0;
  int64_t count = 1;
  for (int64_t range : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return 0;
    count = mulSat(count, range);
  }
  return count;
}

/// Values an op reads: its operands and the values its regions capture.
static SmallVector<Value> readValues(Operation *op) {
  SetVector<Value> values(op->getOperands().begin(), op->getOperands().end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, values);
  return values.takeVector();
}

namespace {
/// A partition of one block's compute ops into fusion groups.
class Partition {
public:
  explicit Partition(Block &block) : block(block) {
    for (Operation &op : block)
      if (isComputeOp(&op)) {
        ops.push_back(&op);
        classes.insert(&op);
      }
  }

  Operation *leader(Operation *op) { return classes.getLeaderValue(op); }
  bool sameGroup(Operation *a, Operation *b) { return leader(a) == leader(b); }
  SmallVector<Operation *> members(Operation *op) {
    SmallVector<Operation *> result;
    for (Operation *o : ops)
      if (sameGroup(o, op))
        result.push_back(o);
    return result;
  }
  SmallVector<Operation *> anchors(Operation *op) {
    return llvm::filter_to_vector(members(op), isAnchor);
  }

  /// The compute op in this block that defines `v`, if any.
  Operation *computeDef(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return nullptr;
    def = block.findAncestorOpInBlock(*def);
    return def && classes.contains(def) ? def : nullptr;
  }

  /// True if `op` reads, directly or through other ops, a value of `group`.
  bool dependsOn(Operation *op, Operation *group,
                 DenseSet<Operation *> &visited) {
    if (!visited.insert(op).second)
      return false;
    for (Value v : readValues(op)) {
      Operation *def = v.getDefiningOp();
      if (!def || !(def = block.findAncestorOpInBlock(*def)))
        continue;
      if (classes.contains(def) && sameGroup(def, group))
        return true;
      if (dependsOn(def, group, visited))
        return true;
    }
    return false;
  }

  /// Merging `a`'s and `b`'s groups keeps them convex: no op outside both
  /// reads one of them and is read by the other.
  bool canMergeConvexly(Operation *a, Operation *b) {
    for (auto [from, to] : {std::make_pair(a, b), std::make_pair(b, a)})
      for (Operation *m : members(to))
        for (Value v : readValues(m)) {
          Operation *def = computeDef(v);
          Operation *inBlock =
              v.getDefiningOp()
                  ? block.findAncestorOpInBlock(*v.getDefiningOp())
                  : nullptr;
          if (!inBlock || (def && (sameGroup(def, from) || sameGroup(def, to))))
            continue;
          DenseSet<Operation *> visited;
          if (dependsOn(inBlock, from, visited))
            return false;
        }
    return true;
  }

  bool tryMerge(Operation *a, Operation *b) {
    if (sameGroup(a, b) || !canMergeConvexly(a, b))
      return false;
    classes.unionSets(a, b);
    return true;
  }

  /// Epilogue and row fusion, in program order.
  void fuseWithProducers() {
    for (Operation *op : ops) {
      bool elementwise = isElementwise(op);
      SmallVector<int64_t> rows = rowSpace(op);
      if (!elementwise && rows.empty())
        continue;
      // Operands only: a value a payload gathers from (tensor.extract) is
      // read at any element, so its producer's loop nest stays apart.
      for (Value v : op->getOperands()) {
        Operation *producer = computeDef(v);
        if (!producer || sameGroup(producer, op))
          continue;
        SmallVector<Operation *> producerAnchors = anchors(producer);
        if (llvm::any_of(producerAnchors, isAlone))
          continue; // A scan's or recurrence's kernel is that op alone.
        if (!elementwise) {
          // A reduction joins only a group whose anchors reduce the same rows.
          if (producerAnchors.empty() ||
              !llvm::all_of(producerAnchors,
                            [&](Operation *a) { return rowSpace(a) == rows; }))
            continue;
        } else if (!anchors(op).empty() && !producerAnchors.empty()) {
          continue; // Already holds an anchor: one contraction per kernel.
        } else if (llvm::any_of(producerAnchors, [&](Operation *a) {
                     return !rowSpace(a).empty() &&
                            iterationCount(op) > iterationCount(a);
                   })) {
          // A map that spreads a reduction's results over loops the
          // reduction never walked (batch norm's statistics over N, read
          // across N, H and W) is no row epilogue: fused, every thread
          // would walk those loops for its row alone.
          continue;
        } else if (llvm::any_of(producerAnchors, reducesToOneValue)) {
          // One row: its epilogue would run in the one block that reduces
          // it, and a map over a tensor that reads the value (x / |x|)
          // has no rows to spread. It reads the value from memory.
          continue;
        } else if (llvm::any_of(producerAnchors, isProduct) &&
                   !readsGroupInOrder(op, producer)) {
          // A product's epilogue runs over its result tile by tile: one
          // that reads it transposed (an NHWC convolution's result written
          // NCHW) is a kernel of its own.
          continue;
        }
        if (tryMerge(producer, op))
          break;
      }
    }
  }

  /// Whether elementwise `op` reads every value of `group` as an operand in
  /// the order it writes its result (the map of its first init), and none
  /// through its region (a tensor.extract at other indices).
  bool readsGroupInOrder(Operation *op, Operation *group) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (linalgOp.getNumDpsInits() == 0)
      return false;
    AffineMap out =
        linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
    auto fromGroup = [&](Value v) {
      Operation *def = computeDef(v);
      return def && sameGroup(def, group);
    };
    for (OpOperand &operand : linalgOp->getOpOperands())
      if (fromGroup(operand.get()) &&
          linalgOp.getMatchingIndexingMap(&operand) != out)
        return false;
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    return llvm::none_of(captured, fromGroup);
  }

  /// Whether a member of `group` produces an input (not the init) of a
  /// contraction or convolution outside the group. Products read their
  /// inputs from global memory into shared-memory tiles (cp.async, TMA), so
  /// an input computed in the kernel could not be copied: a transpose or
  /// scale before a product stays a kernel of its own. The fill of its init
  /// still joins.
  bool feedsProductInput(Operation *group) {
    // A pad fused into a convolution is read by its copies too: what feeds
    // the pad feeds the product's input.
    std::function<bool(Operation *)> feeds = [&](Operation *m) {
      for (Operation *user : m->getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        if (auto pad = dyn_cast_or_null<tensor::PadOp>(top))
          if (!sameGroup(pad, group) && feeds(pad))
            return true;
        // (A group without an anchor holds no product itself.)
        if (!top || !isProduct(top))
          continue;
        auto product = cast<linalg::LinalgOp>(top);
        for (OpOperand *input : product.getDpsInputOperands())
          if (input->get().getDefiningOp() == m)
            return true;
      }
      return false;
    };
    return llvm::any_of(members(group), feeds);
  }

  /// A zero pad whose one reader is the image of a convolution the GEMM
  /// lowering can take joins that convolution's kernel: an implicit GEMM's
  /// copies then read the unpadded input and zero-fill the border
  /// (egg.padded_view), and a direct convolution gathers through it, so the
  /// padded tensor is never written (docs/principles/fusion.md). A pad of
  /// any value read by a window reduction that is no product (pooling,
  /// depthwise convolution) joins it the same way: those run as direct loop
  /// nests, whose gather selects the pad value at the border.
  void fusePadsIntoConvolutions() {
    for (Operation *op : ops) {
      auto pad = dyn_cast<tensor::PadOp>(op);
      if (!pad || members(op).size() != 1 || !pad.getResult().hasOneUse() ||
          !pad.getLow().empty() || !pad.getHigh().empty())
        continue;
      Value padValue = pad.getConstantPaddingValue();
      if (!padValue)
        continue;
      OpOperand &use = *pad.getResult().getUses().begin();
      auto conv = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!conv || conv->getBlock() != &block ||
          !linalg::isaConvolutionOpInterface(conv) || !conv.isDpsInput(&use))
        continue;
      AffineMap map = conv.getMatchingIndexingMap(&use);
      if (map.isProjectedPermutation())
        continue; // Not the image (read through oh * s + kh).
      // A window reduction that is no product (pooling, depthwise) runs as a
      // direct loop nest, which gathers through a pad of any value.
      if (!isProduct(conv)) {
        tryMerge(conv, op);
        continue;
      }
      if (!matchPattern(padValue, m_PosZeroFloat()))
        continue;
      // A padded innermost dimension read as a loop of its own (channels
      // padded to a multiple of 8) would limit the copies to single
      // elements (no tensor cores): that pad stays a kernel. NCHW images,
      // read along ow * s + kw, are copied an element at a time anyway.
      int64_t last = pad.getSourceType().getRank() - 1;
      bool innermostPadded =
          pad.getStaticLow()[last] != 0 || pad.getStaticHigh()[last] != 0;
      if (innermostPadded && isa<AffineDimExpr>(map.getResults().back()))
        continue;
      tryMerge(conv, op);
    }
  }

  /// Prologue fusion, in reverse program order: a group without an anchor
  /// whose results all feed one other group joins it. Other pads stay
  /// kernels of their own: a padded tile fused into a thread loop would be
  /// materialised per block; and what produces a pad's source does not
  /// join the pad's kernel, since the pad's gather reads its source directly
  /// (a ReLU before a padded pooling stays apart, or joins its own
  /// producer).
  void fuseIntoConsumers() {
    auto hasPad = [&](Operation *group) {
      return llvm::any_of(members(group),
                          [](Operation *m) { return isa<tensor::PadOp>(m); });
    };
    auto feedsPadOf = [&](Operation *group, Operation *consumer) {
      return llvm::any_of(members(consumer), [&](Operation *m) {
        auto pad = dyn_cast<tensor::PadOp>(m);
        Operation *source = pad ? pad.getSource().getDefiningOp() : nullptr;
        return source && classes.contains(source) && sameGroup(source, group);
      });
    };
    for (Operation *op : llvm::reverse(ops)) {
      if (!anchors(op).empty() || hasPad(op) || feedsProductInput(op))
        continue;
      Operation *consumer = nullptr;
      bool single = true;
      for (Operation *m : members(op))
        for (Operation *user : m->getUsers()) {
          Operation *top = block.findAncestorOpInBlock(*user);
          if (!top || !classes.contains(top)) {
            single = false; // Used by a non-kernel op or returned.
            continue;
          }
          if (sameGroup(top, op))
            continue;
          // A gather (tensor.extract in a payload) reads any element of
          // its source: the source's loop nest cannot share its kernel.
          if (user != top)
            single = false;
          if (consumer && !sameGroup(consumer, top))
            single = false;
          consumer = top;
        }
      if (single && consumer && !feedsPadOf(op, consumer) &&
          !llvm::any_of(members(consumer), isAlone))
        tryMerge(consumer, op);
    }
  }

  /// Groups in order of their first op, each in program order.
  SmallVector<SmallVector<Operation *>> groups() {
    SmallVector<SmallVector<Operation *>> result;
    DenseSet<Operation *> done;
    for (Operation *op : ops)
      if (done.insert(leader(op)).second)
        result.push_back(members(op));
    return result;
  }

private:
  Block &block;
  SmallVector<Operation *> ops;
  llvm::EquivalenceClasses<Operation *> classes;
};
} // namespace

/// Values cheaper to recreate inside the kernel than to pass in.
static bool isRematerializable(Operation *op) {
  return op && op->getNumResults() == 1 &&
         (isa<tensor::EmptyOp>(op) || matchPattern(op, m_Constant()));
}

static KernelOp buildKernel(OpBuilder &builder, ArrayRef<Operation *> group,
                            StringRef name) {
  Block *block = group.front()->getBlock();
  DenseSet<Operation *> inGroup(group.begin(), group.end());
  auto isInside = [&](Operation *user) {
    Operation *top = block->findAncestorOpInBlock(*user);
    return top && inGroup.contains(top);
  };

  // Inputs, and defs to clone in.
  SetVector<Value> inputs;
  SetVector<Operation *> remat;
  for (Operation *op : group)
    for (Value v : readValues(op)) {
      Operation *def = v.getDefiningOp();
      if (def && inGroup.contains(block->findAncestorOpInBlock(*def)))
        continue;
      if (isRematerializable(def) && def->getBlock() == block) {
        remat.insert(def);
        inputs.insert(def->getOperands().begin(), def->getOperands().end());
        continue;
      }
      inputs.insert(v);
    }

  // Results: values of the group used outside it, and every result of a
  // recurrence: the blocks of a step share its sequence and states, which
  // need buffers of the whole function, never ones the launch allocates.
  SmallVector<Value> escaping;
  for (Operation *op : group)
    for (Value r : op->getResults())
      if (isa<RecurrenceOp>(op) ||
          llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !isInside(u); }))
        escaping.push_back(r);

  builder.setInsertionPoint(group.back());
  auto kernel = KernelOp::create(
      builder, group.back()->getLoc(), name,
      llvm::map_to_vector(escaping, [](Value v) { return v.getType(); }),
      inputs.getArrayRef());
  OpBuilder body = OpBuilder::atBlockBegin(&kernel.getBodyBlock());
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), kernel.getBodyBlock().getArguments());
  for (Operation *op : remat)
    body.clone(*op, mapping);
  for (Operation *op : group)
    body.clone(*op, mapping);
  YieldOp::create(body, kernel.getLoc(),
                  llvm::map_to_vector(
                      escaping, [&](Value v) { return mapping.lookup(v); }));

  for (auto [value, result] : llvm::zip(escaping, kernel.getResults()))
    value.replaceUsesWithIf(
        result, [&](OpOperand &use) { return !isInside(use.getOwner()); });
  for (Operation *op : llvm::reverse(group))
    op->erase();
  return kernel;
}

/// EGG's input language: linalg on static tensors of f32, f16 or bf16, with
/// the tensor ops front ends put around it. Anything else is named in a
/// located error rather than compiled into something wrong.
static LogicalResult checkSupported(func::FuncOp func) {
  auto supportedType = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return !isa<ShapedType>(type);
    Type e = tensor.getElementType();
    return tensor.hasStaticShape() && (e.isF32() || e.isF16() || e.isBF16());
  };
  for (Type t : func.getFunctionType().getInputs())
    if (!supportedType(t))
      return func.emitError("unsupported argument type ")
             << t << ": EGG compiles static tensors of f32, f16 and bf16";
  WalkResult result = func.walk([&](Operation *op) {
    if (op == func.getOperation() || op->getParentOp() != func)
      return WalkResult::advance(); // Payloads are checked with their op.
    bool known =
        isComputeOp(op) ||
        isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
            tensor::CastOp, func::ReturnOp, KernelOp>(op) ||
        (isa<arith::ConstantOp>(op) &&
         !isa<ShapedType>(op->getResult(0).getType()));
    if (!known) {
      op->emitError("unsupported op '")
          << op->getName()
          << "': EGG compiles linalg on tensors (linalg ops, tensor.pad, "
             "egg.scan, egg.recurrence, tensor.empty, reshapes, scalar "
             "constants)";
      return WalkResult::interrupt();
    }
    for (Type t : op->getResultTypes())
      if (!supportedType(t)) {
        op->emitError("unsupported result type ")
            << t << " of '" << op->getName()
            << "': EGG compiles static tensors of f32, f16 and bf16";
        return WalkResult::interrupt();
      }
    return WalkResult::skip();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct FormKernelsPass : public egg::impl::EggFormKernelsBase<FormKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(checkSupported(func)))
      return signalPassFailure();
    OpBuilder builder(&getContext());
    unsigned counter = 0;
    for (Block &block : func.getBody()) {
      // Work whose result nothing reads (a fill left by a front end) would
      // be a kernel that writes nothing: drop it (tensor ops are pure).
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (isOpTriviallyDead(&op)) {
          LLVM_DEBUG(llvm::dbgs()
                     << "dropping unused " << op.getName() << "\n");
          op.erase();
        }
      Partition partition(block);
      if (fuse) {
        partition.fuseWithProducers();
        partition.fusePadsIntoConvolutions();
        partition.fuseIntoConsumers();
      }
      for (SmallVector<Operation *> &group : partition.groups())
        buildKernel(builder, group,
                    (func.getSymName() + "_k" + Twine(counter++)).str());
      // Producers left behind (empties, constants) die once cloned in.
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (isRematerializable(&op) && isOpTriviallyDead(&op))
          op.erase();
      if (!sortTopologically(&block)) {
        func.emitError("egg-form-kernels produced a cyclic partition");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
