//===- LlmAgent.cpp - Decisions from an LLM -------------------------------===//
//
// The LLM sees the stage's principles (docs/principles/, compiled in), a
// summary of the kernel, the target, the rules of the legal space and the
// expert's proposal, and answers with a decision in the dialect's syntax.
// Answers are data: parsed with the dialect's parser and verifiers, checked
// against the lowering and reviewed by the critic (Critic.h); an answer
// that fails goes back with the reasons (two more tries), then the expert's
// choice is used and the fallback reported.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/Critic.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/LegalSpace.h"
#include "egg/Agents/LlmClient.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::egg;

#include "Principles.inc"

namespace {
class LlmAgent : public Agent {
public:
  explicit LlmAgent(LlmConfig config)
      : config(std::move(config)), expert(createExpertAgent()) {}

  ~LlmAgent() override {
    if (requests == 0)
      return;
    llvm::errs() << llvm::formatv(
        "llm agent: {0} request(s) ({1} from the cache), {2} prompt + {3} "
        "completion tokens, cost {4:f4}\n",
        requests, cachedRequests, int64_t(promptTokens),
        int64_t(completionTokens), cost());
  }

  StringRef getName() const override { return "llm"; }

  FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) override {
    // One legal structure leaves nothing to ask.
    return expert->chooseStructure(kernel, legal);
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel,
                                     TargetAttr target) override {
    FailureOr<TuningAttr> fallback = expert->chooseTuning(kernel, target);
    if (failed(fallback))
      return failure();
    if (networkDown)
      return fallback;
    std::string system =
        std::string("You are the hardware-tuning stage of EGG, an MLIR GPU "
                    "kernel compiler. You choose one #egg.tuning attribute "
                    "for a kernel. Principles:\n\n") +
        kTuningPrinciples;
    std::string request = describe(kernel, target, *fallback);
    if (auto it = observations.find(kernel.getSymName().str());
        it != observations.end())
      request += "\n\n## Measurements so far (egg-tune's analyst)\n" +
                 it->second +
                 "\nPropose a tuning that has not been tried and is likely "
                 "to beat the best so far.";
    std::vector<ChatMessage> messages = {{"user", request}};
    std::string reason;
    for (int round = 0; round < 3; ++round) {
      if (std::string spent = budgetSpent(); !spent.empty()) {
        if (!budgetWarned)
          kernel.emitWarning("llm agent: ")
              << spent << "; using the expert's choices from here on";
        budgetWarned = true;
        return fallback;
      }
      LlmReply reply = chat(config, system, messages);
      ++requests;
      cachedRequests += reply.cached;
      promptTokens += reply.promptTokens;
      completionTokens += reply.completionTokens;
      if (!reply.ok) {
        networkDown = true;
        kernel.emitWarning("llm agent: ")
            << reply.error
            << "; using the expert's choices for this and later kernels";
        return fallback;
      }
      FailureOr<TuningAttr> answer = parseAnswer(kernel, reply.content, reason);
      if (succeeded(answer)) {
        // The critic reviews what the verifiers let through.
        std::vector<std::string> objections = critique(kernel, *answer, target);
        if (objections.empty())
          return answer;
        reason = "the critic objects: " + llvm::join(objections, "; ");
      }
      messages.push_back({"assistant", reply.content});
      messages.push_back(
          {"user",
           "That answer is invalid: " + reason +
               ". Answer again with one JSON object "
               "{\"tuning\": \"#egg.tuning<...>\", \"why\": \"...\"}."});
    }
    kernel.emitWarning("llm agent: three invalid answers (last: ")
        << reason << "); using the expert's choice "
        << printDecision(*fallback);
    return fallback;
  }

  void observe(KernelOp kernel, StringRef summary) override {
    observations[kernel.getSymName().str()] = summary.str();
  }

private:
  /// Analyst summaries per kernel (egg-tune), sent with the next request.
  std::map<std::string, std::string> observations;

  /// The kernel as the model sees it.
  static std::string describe(KernelOp kernel, TargetAttr target,
                              TuningAttr proposal) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "Kernel @" << kernel.getSymName() << " ("
       << stringifyKernelClass(classifyKernel(kernel)) << ", structure "
       << printDecision(kernel.getStructureAttr()) << ").\nIts body:\n";
    kernel.getBodyBlock().print(os);
    FailureOr<RootLoops> loops =
        analyzeRootLoops(kernel, [&]() { return kernel.emitOpError(); });
    if (succeeded(loops)) {
      os << "\nRoot op loops (extent, parallel?):";
      for (auto [e, p] : llvm::zip(loops->extents, loops->parallel))
        os << " " << e << (p ? "p" : "r");
    }
    os << "\nTarget: " << printDecision(target)
       << "\nRules of the generic lowering: `block` and `thread` have one "
          "entry per parallel loop of the root op, tiles divide the extents, "
          "at most 3 tiled loops per level, `threads` (x innermost) equals "
          "the block/thread tile ratios, no warp/reduction tiles, no shared "
          "memory, `vector` > 1 only for elementwise kernels with the "
          "innermost thread tile equal to it and 16 bytes at most.\n"
          "The built-in expert proposes: "
       << printDecision(proposal)
       << "\nAnswer with one JSON object: {\"tuning\": \"#egg.tuning<...>\", "
          "\"why\": \"one sentence\"}.";
    return text;
  }

  /// Parses and checks an answer; `reason` says why when it fails.
  FailureOr<TuningAttr> parseAnswer(KernelOp kernel, StringRef content,
                                    std::string &reason) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(content);
    if (!value) {
      reason = "not a JSON object: " + llvm::toString(value.takeError());
      return failure();
    }
    const llvm::json::Object *object = value->getAsObject();
    std::optional<StringRef> text =
        object ? object->getString("tuning") : std::nullopt;
    if (!text) {
      reason = "no \"tuning\" string in the answer";
      return failure();
    }
    std::string message;
    ScopedDiagnosticHandler capture(kernel.getContext(), [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    auto tuning = dyn_cast_or_null<TuningAttr>(
        parseAttribute(*text, kernel.getContext()));
    if (!tuning) {
      reason = message.empty() ? "not an #egg.tuning attribute" : message;
      return failure();
    }
    if (failed(checkLowerable(kernel, tuning,
                              [&]() { return kernel.emitOpError(); }))) {
      reason = message;
      return failure();
    }
    return tuning;
  }

  double cost() const {
    return promptTokens * config.promptPricePerMTok / 1e6 +
           completionTokens * config.completionPricePerMTok / 1e6;
  }

  /// Why no more requests may be sent, or empty.
  std::string budgetSpent() const {
    if (config.maxTokens > 0 &&
        promptTokens + completionTokens >= config.maxTokens)
      return llvm::formatv("the token budget of {0} is spent",
                           int64_t(config.maxTokens));
    if (config.maxCost > 0 && cost() >= config.maxCost)
      return llvm::formatv("the cost budget of {0} is spent", config.maxCost);
    return "";
  }

  LlmConfig config;
  std::unique_ptr<Agent> expert;
  bool networkDown = false, budgetWarned = false;
  int64_t requests = 0, cachedRequests = 0;
  double promptTokens = 0, completionTokens = 0;
};
} // namespace

std::unique_ptr<Agent> mlir::egg::createLlmAgent(LlmConfig config) {
  return std::make_unique<LlmAgent>(std::move(config));
}
