//===- Passes.td - The agent-driven decision passes ----------*- tablegen -*-===//
//
// The passes that ask an agent (include/egg/Agents/Agent.h) for decisions and
// record them. They live with the agents so that the lowering passes
// (include/egg/Dialect/Egg/Transforms/Passes.td) never depend on who decides.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_PASSES_TD
#define EGG_AGENTS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EggAlgorithmStructure : Pass<"egg-algorithm-structure", "::mlir::ModuleOp"> {
  let summary = "Stage 1: an agent picks each kernel's algorithm structure";
  let description = [{
    For every `egg.kernel` without a `structure` (all of them with
    `override`), asks the agent for one of the structures the compiler can
    build (the legal set, see docs/principles/structure.md) and records it as
    `structure = #egg.structure<...>`. An answer outside the legal set is an
    error located at the kernel.
  }];
  let options = [
    Option<"agentName", "agent", "std::string", /*default=*/"\"expert\"",
           "Who decides: expert (built-in) or replay (a decisions file)">,
    Option<"decisionsPath", "decisions", "std::string", /*default=*/"\"\"",
           "Decisions file for the replay agent">,
    Option<"overrideExisting", "override", "bool", /*default=*/"false",
           "Decide again for kernels that already have a structure">
  ];
  // Split-K legality builds a split copy of a kernel (egg-split-k's rewrite).
  let dependentDialects = [
    "::mlir::egg::EggDialect", "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def EggHardwareTuning : Pass<"egg-hardware-tuning", "::mlir::ModuleOp"> {
  let summary = "Stage 2: an agent picks mapping, tiling and memory decisions";
  let description = [{
    For every `egg.kernel` with a structure and without a `tuning` (all of
    them with `override`), asks the agent for `#egg.tuning` decisions,
    checks them against the module's `egg.target` (the dialect verifier) and
    against what the lowering implements, and records them.
  }];
  let options = [
    Option<"agentName", "agent", "std::string", /*default=*/"\"expert\"",
           "Who decides: expert (built-in) or replay (a decisions file)">,
    Option<"decisionsPath", "decisions", "std::string", /*default=*/"\"\"",
           "Decisions file for the replay agent">,
    Option<"overrideExisting", "override", "bool", /*default=*/"false",
           "Decide again for kernels that already have a tuning">
  ];
  // Split-K legality builds a split copy of a kernel (egg-split-k's rewrite).
  let dependentDialects = [
    "::mlir::egg::EggDialect", "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def EggRecordDecisions : Pass<"egg-record-decisions", "::mlir::ModuleOp"> {
  let summary = "Write the module's decisions to a decisions file";
  let description = [{
    Writes the same JSON as `egg-translate --egg-to-decisions` to `path`,
    so that a pipeline run can be replayed with `agent=replay`.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"\"",
           "Where to write the decisions file">
  ];
}

#endif // EGG_AGENTS_PASSES_TD
