//===- TuningAnswer.h - Stage 2's answer as knobs ----------------*- C++
//-*-===//
//
// The LLM's stage-2 answer is a JSON object with one property per knob the
// kernel's lowering reads (describeTuningKnobs), each restricted to the
// values that lowering takes, so a constrained decoder (OpenAI strict
// schemas, Anthropic tools, llama.cpp and vLLM grammars) can only write
// well-formed tunings; checkLowerable and the critic judge the rest.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_TUNINGANSWER_H
#define EGG_AGENTS_TUNINGANSWER_H

#include "egg/Dialect/Egg/IR/EggAttrs.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::egg {

/// The JSON schema of a tuning with `knobs`; every value of `proposal` (the
/// expert's) is among the allowed ones, so the model can always take it.
llvm::json::Object tuningSchema(const TuningKnobs &knobs, TuningAttr proposal);

/// `tuning` as an answer of `knobs`' schema (the expert's proposal, shown
/// to the model in the form it answers in).
llvm::json::Object tuningToJson(TuningAttr tuning, const TuningKnobs &knobs);

/// The tuning an answer object describes (the schema's knob names, as in
/// the attribute's syntax), or null with the reason in `reason`. Knobs it
/// leaves out keep the attribute's defaults.
TuningAttr tuningFromJson(const llvm::json::Object &object, MLIRContext *ctx,
                          std::string &reason);

} // namespace mlir::egg

#endif // EGG_AGENTS_TUNINGANSWER_H
