//===- DecisionPasses.cpp - The two agent-driven decision stages ----------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/Passes.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::egg {
#define GEN_PASS_DEF_EGGALGORITHMSTRUCTURE
#define GEN_PASS_DEF_EGGHARDWARETUNING
#define GEN_PASS_DEF_EGGRECORDDECISIONS
#include "egg/Agents/Passes.h.inc"
} // namespace mlir::egg

#define DEBUG_TYPE "egg-decisions"

using namespace mlir;
using namespace mlir::egg;

/// Fills `agent` with the run's agent (getRunAgent) unless it holds one.
static LogicalResult holdRunAgent(std::shared_ptr<Agent> &agent, StringRef name,
                                  StringRef decisionsPath, ModuleOp module) {
  if (agent)
    return success();
  FailureOr<std::shared_ptr<Agent>> runAgent =
      getRunAgent(name, decisionsPath, module.getContext(), module.getLoc());
  if (failed(runAgent))
    return failure();
  agent = *runAgent;
  return success();
}

namespace {
struct AlgorithmStructurePass
    : public egg::impl::EggAlgorithmStructureBase<AlgorithmStructurePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(holdRunAgent(agent, agentName, decisionsPath, module)))
      return signalPassFailure();
    WalkResult result = module.walk([&](KernelOp kernel) {
      if (kernel.getStructureAttr() && !overrideExisting)
        return WalkResult::advance();
      SmallVector<StructureAttr> legal = enumerateStructures(kernel);
      FailureOr<StructureAttr> choice = agent->chooseStructure(kernel, legal);
      if (failed(choice))
        return WalkResult::interrupt();
      if (!llvm::is_contained(legal, *choice)) {
        kernel.emitOpError("agent '")
            << agent->getName() << "' chose " << *choice
            << ", which is not in the legal set for this "
            << stringifyKernelClass(classifyKernel(kernel)) << " kernel: "
            << llvm::join(llvm::map_range(legal, printDecision), ", ");
        return WalkResult::interrupt();
      }
      LLVM_DEBUG(llvm::dbgs() << "[egg-decisions] " << kernel.getSymName()
                              << ": " << agent->getName() << " chose "
                              << *choice << " of " << legal.size() << "\n");
      kernel.setStructureAttr(*choice);
      return succeeded(verify(kernel)) ? WalkResult::advance()
                                       : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  /// The run's agent, shared with the other stage pass (getRunAgent).
  std::shared_ptr<Agent> agent;
};

struct HardwareTuningPass
    : public egg::impl::EggHardwareTuningBase<HardwareTuningPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> undecided;
    module.walk([&](KernelOp kernel) {
      if (!kernel.getTuningAttr() || overrideExisting)
        undecided.push_back(kernel);
    });
    // A decided module (egg-lower-to-nvvm's input) needs neither a profile
    // nor an agent here.
    if (undecided.empty())
      return;
    TargetAttr target = lookupTarget(module);
    if (!target) {
      module.emitError("egg-hardware-tuning needs a hardware profile: run "
                       "egg-attach-target first");
      return signalPassFailure();
    }
    if (failed(holdRunAgent(agent, agentName, decisionsPath, module)))
      return signalPassFailure();
    for (KernelOp kernel : undecided) {
      if (!kernel.getStructureAttr()) {
        kernel.emitOpError("has no structure: run egg-algorithm-structure "
                           "before egg-hardware-tuning");
        return signalPassFailure();
      }
      FailureOr<TuningAttr> choice =
          agent->chooseTuning(kernel, kernel.getStructureAttr(), target);
      if (failed(choice) || failed(checkLowerable(kernel, *choice, [&]() {
            return kernel.emitOpError();
          })))
        return signalPassFailure();
      LLVM_DEBUG(llvm::dbgs()
                 << "[egg-decisions] " << kernel.getSymName() << ": "
                 << agent->getName() << " chose " << *choice << "\n");
      kernel.setTuningAttr(*choice);
      if (failed(verify(kernel)))
        return signalPassFailure();
    }
  }

private:
  /// The run's agent, shared with the other stage pass (getRunAgent).
  std::shared_ptr<Agent> agent;
};

struct RecordDecisionsPass
    : public egg::impl::EggRecordDecisionsBase<RecordDecisionsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
    if (!file) {
      getOperation().emitError("cannot write decisions file '")
          << path << "': " << message;
      return signalPassFailure();
    }
    if (failed(exportDecisions(getOperation(), file->os())))
      return signalPassFailure();
    file->keep();
  }
};
} // namespace
