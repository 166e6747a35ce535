//===- Agent.h - Who takes the decisions ------------------------*- C++ -*-===//
//
// The stage passes ask an Agent and do not know which one answers: the
// built-in expert (default, offline), a decisions file (replay), and later
// LLM agents and measured search. An agent returns attributes; the passes
// check them against the legal space and the dialect's verifiers.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_AGENT_H
#define EGG_AGENTS_AGENT_H

#include "egg/Dialect/Egg/IR/EggOps.h"

#include <memory>

namespace mlir::egg {

class Agent {
public:
  virtual ~Agent();
  virtual llvm::StringRef getName() const = 0;

  /// Stage 1: the algorithm structure of `kernel`, one of `legal`.
  virtual FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) = 0;

  /// Stage 2: mapping, tiling and memory for `kernel` built as `structure`
  /// (chosen in stage 1), on `target`. A query: agents read the kernel's
  /// IR, never its own decision attributes, and change nothing in it.
  virtual FailureOr<TuningAttr>
  chooseTuning(KernelOp kernel, StructureAttr structure, TargetAttr target) = 0;

  /// Tunings of `kernel` as `structure` in another form than
  /// chooseTuning's (another engine), which only a measurement can rank
  /// against it: egg-tune's first stage measures them beside it. A query
  /// like chooseTuning. None by default.
  virtual SmallVector<TuningAttr> alternativeTunings(KernelOp kernel,
                                                     StructureAttr structure,
                                                     TargetAttr target) {
    return {};
  }

  /// What earlier candidates of `kernel` measured, summarised by egg-tune's
  /// analyst, for agents that learn from it (the LLM agent). Others ignore
  /// it: the expert's rules do not depend on measurements.
  virtual void observe(KernelOp kernel, llvm::StringRef summary) {}
};

/// The built-in expert: implements docs/principles/.
std::unique_ptr<Agent> createExpertAgent();

/// Replays a decisions file (docs/decisions.md). Fails with a diagnostic at
/// `loc` when the file cannot be read or is not a decisions file.
FailureOr<std::unique_ptr<Agent>>
createReplayAgent(llvm::StringRef path, MLIRContext *ctx, Location loc);

struct LlmConfig;

/// An LLM over HTTP (docs/agents.md), falling back to the expert when the
/// endpoint is unreachable or answers badly.
std::unique_ptr<Agent> createLlmAgent(LlmConfig config);

/// The attribute in `field` ("structure" or "tuning") of an LLM's JSON
/// answer, parsed with the dialect's parser and verifiers; null with the
/// reason in `reason` when there is none. `why` gets the answer's reason.
/// (The LLM agent's parser, public for its fuzzer.)
Attribute parseLlmAnswer(KernelOp kernel, llvm::StringRef content,
                         llvm::StringRef field, std::string &why,
                         std::string &reason);

/// "expert", "replay" (with `decisionsPath`) or "llm" (configured from the
/// environment, LlmConfig::fromEnvironment).
FailureOr<std::unique_ptr<Agent>> createAgent(llvm::StringRef name,
                                              llvm::StringRef decisionsPath,
                                              MLIRContext *ctx, Location loc);

/// The agent of the run in `ctx`: every stage pass asking for the same
/// agent (name and decisions file) while another still holds it gets the
/// same one, so an LLM's budgets, request counts and fallback state span
/// both stages and its summary is printed once, when the run's passes are
/// destroyed.
FailureOr<std::shared_ptr<Agent>> getRunAgent(llvm::StringRef name,
                                              llvm::StringRef decisionsPath,
                                              MLIRContext *ctx, Location loc);

} // namespace mlir::egg

#endif // EGG_AGENTS_AGENT_H
