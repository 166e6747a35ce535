//===- Critic.h - Static review of a proposed decision ----------*- C++ -*-===//
//
// The critic of the method: before a proposal is accepted it is reviewed
// against what makes a kernel fast on the target, beyond what is legal.
// Its reasons go back to the proposing agent.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_CRITIC_H
#define EGG_AGENTS_CRITIC_H

#include "egg/Dialect/Egg/IR/EggOps.h"

#include <string>
#include <vector>

namespace mlir::egg {

/// Reasons `tuning` should not be used for `kernel` built as `structure` on
/// `target` (empty: no objection): whole warps, coalesced innermost
/// accesses, enough blocks to occupy the GPU, the register budget of the
/// thread tiles.
std::vector<std::string> critique(KernelOp kernel, StructureAttr structure,
                                  TuningAttr tuning, TargetAttr target);

} // namespace mlir::egg

#endif // EGG_AGENTS_CRITIC_H
