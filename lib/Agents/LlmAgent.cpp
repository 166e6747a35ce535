//===- LlmAgent.cpp - Decisions from an LLM -------------------------------===//
//
// Both stages ask. The LLM sees the stage's principles (docs/principles/,
// compiled in), a summary of the kernel (body, work, roofline floor), the
// target, the legal choices and the expert's proposal; stage 2 also sees
// what stage 1 chose and why, and egg-tune's measurements. It answers with
// a decision in the dialect's syntax, asked for as JSON-schema structured
// output. Answers are data: parsed with the dialect's parser and verifiers,
// checked against the legal set or the lowering and reviewed by the critic
// (Critic.h); an answer that fails goes back with the reasons (two more
// tries), then the expert's choice is used and the fallback reported.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/Critic.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/ExchangeLog.h"
#include "egg/Agents/KernelWork.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Agents/Prompt.h"
#include "egg/Agents/TuningAnswer.h"
#include "egg/Analysis/GemmAnalysis.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Support/Json.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::egg;
namespace json = llvm::json;

#include "Principles.inc"

namespace {
class LlmAgent : public Agent {
public:
  explicit LlmAgent(LlmConfig config)
      : config(std::move(config)), expert(createExpertAgent()) {
    // Held for the run, so the cache is opened once and closed cleanly
    // when the run ends (chat reports a cache that cannot be opened).
    std::string error;
    if (!this->config.cachePath.empty())
      cache = ExchangeLog::acquire(this->config.cachePath, error);
  }

  /// One line for the whole run: what was asked, what it cost, and how
  /// many decisions the model made.
  ~LlmAgent() override {
    if (asked == 0)
      return;
    llvm::errs() << llvm::formatv(
        "llm agent: {0} request(s) ({1} from the cache), {2} prompt + {3} "
        "completion tokens, cost {4:f4}; the model decided {5} of {6} "
        "choice(s), the expert the rest\n",
        requests, cachedRequests, int64_t(promptTokens),
        int64_t(completionTokens), cost(), answered, asked);
  }

  StringRef getName() const override { return "llm"; }

  FailureOr<StructureAttr>
  chooseStructure(KernelOp kernel, ArrayRef<StructureAttr> legal) override {
    FailureOr<StructureAttr> fallback = expert->chooseStructure(kernel, legal);
    // One legal structure leaves nothing to ask.
    if (failed(fallback) || legal.size() < 2)
      return fallback;
    std::string list;
    json::Array names;
    for (StructureAttr s : legal) {
      list += "- " + printDecision(s) + "\n";
      names.push_back(printDecision(s));
    }
    std::optional<Prompt> prompt =
        render(kernel, "structure",
               {{"principles", kStructurePrinciples},
                {"kernel",
                 describeKernel(kernel, StructureAttr(), lookupTarget(kernel))},
                {"legal", list},
                {"proposal", printDecision(*fallback)}});
    if (!prompt)
      return fallback;
    AnswerSchema schema = answerSchema(
        "egg_structure", "structure",
        json::Object{{"type", "string"}, {"enum", std::move(names)}});
    std::string why;
    FailureOr<StructureAttr> answer = ask<StructureAttr>(
        kernel, *prompt, schema, "structure", why,
        [&](StructureAttr s) -> std::string {
          return llvm::is_contained(legal, s)
                     ? ""
                     : "not one of the legal structures listed";
        });
    setDecidedBy(kernel, "structure", succeeded(answer));
    if (failed(answer))
      return fallback;
    setRationale(kernel, "structure", why);
    return answer;
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel, StructureAttr structure,
                                     TargetAttr target) override {
    FailureOr<TuningAttr> fallback =
        expert->chooseTuning(kernel, structure, target);
    if (failed(fallback))
      return failure();
    std::string measurements;
    if (auto it = observations.find(kernel.getSymName().str());
        it != observations.end())
      measurements = "\n\n## Measurements so far (egg-tune's analyst)\n" +
                     it->second +
                     "\nPropose a tuning that has not been tried and is "
                     "likely to beat the best so far.";
    TuningKnobs knobs = describeTuningKnobs(kernel, structure);
    std::optional<Prompt> prompt =
        render(kernel, "tuning",
               {{"principles", kTuningPrinciples},
                {"kernel", describeKernel(kernel, structure, target)},
                {"stage1", describeStage1(kernel, structure)},
                {"rules", describeRules(kernel, structure)},
                {"proposal", printDecision(*fallback)},
                {"answer", tuningAnswerFormat(knobs, *fallback)},
                {"measurements", measurements}});
    if (!prompt)
      return fallback;
    AnswerSchema schema =
        answerSchema("egg_tuning", "tuning", tuningSchema(knobs, *fallback));
    std::string why;
    FailureOr<TuningAttr> answer = ask<TuningAttr>(
        kernel, *prompt, schema, "tuning", why,
        [&](TuningAttr t) -> std::string {
          std::string message;
          ScopedDiagnosticHandler capture(kernel.getContext(),
                                          [&](Diagnostic &d) {
                                            if (message.empty())
                                              message = d.str();
                                            return success();
                                          });
          if (failed(checkLowerable(kernel, structure, t,
                                    [&]() { return kernel.emitOpError(); })))
            return message;
          // The critic reviews what the verifiers let through.
          std::vector<std::string> objections =
              critique(kernel, structure, t, target);
          return objections.empty()
                     ? ""
                     : "the critic objects: " + llvm::join(objections, "; ");
        });
    setDecidedBy(kernel, "tuning", succeeded(answer));
    if (failed(answer))
      return fallback;
    setRationale(kernel, "tuning", why);
    return answer;
  }

  void observe(KernelOp kernel, StringRef summary) override {
    observations[kernel.getSymName().str()] = summary.str();
  }

private:
  /// Analyst summaries per kernel (egg-tune), sent with the next request.
  std::map<std::string, std::string> observations;
  /// The version of each prompt template rendered (by name).
  std::map<std::string, int> promptVersions;

  /// A rendered request: the system text and the first user message.
  struct Prompt {
    std::string system, user;
  };

  /// Renders template `name` (Prompt.h) with `values`. A template that
  /// cannot be read or filled is a located warning, once; the expert then
  /// decides everything, as when the network is down.
  std::optional<Prompt>
  render(KernelOp kernel, const std::string &name,
         const std::map<std::string, std::string> &values) {
    if (promptsBroken)
      return std::nullopt;
    std::string error;
    std::optional<PromptTemplate> tmpl =
        loadPromptTemplate(name, config.promptDir, error);
    std::optional<std::string> system, user;
    if (tmpl) {
      promptVersions[name] = tmpl->version;
      system = renderPrompt(tmpl->system, values, error);
    }
    if (system)
      user = renderPrompt(tmpl->user, values, error);
    if (!user) {
      promptsBroken = true;
      emitWarning(kernel.getLoc(), "llm agent: ")
          << error << "; using the expert's choices for this and later "
          << "kernels";
      return std::nullopt;
    }
    return Prompt{*system, *user};
  }

  /// How the prompt asks for a tuning: as knobs where the request carries
  /// their schema (which the endpoint enforces), else in the attribute's
  /// syntax.
  std::string tuningAnswerFormat(const TuningKnobs &knobs,
                                 TuningAttr proposal) const {
    if (config.output == "schema") {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << json::Value(tuningToJson(proposal, knobs));
      return "Answer with one JSON object: {\"tuning\": {one property per "
             "knob, as the answer schema lists them; [] for a tile level or "
             "promotion not used}, \"why\": \"one sentence\"}. The "
             "proposal in that form: " +
             text;
    }
    return "Answer with one JSON object: {\"tuning\": \"#egg.tuning<...>\", "
           "\"why\": \"one sentence\"}.";
  }

  /// The JSON schema of an answer {"<field>": ..., "why": "..."}.
  static AnswerSchema answerSchema(StringRef name, StringRef field,
                                   json::Object fieldSchema) {
    json::Object schema{
        {"type", "object"},
        {"properties", json::Object{{field, std::move(fieldSchema)},
                                    {"why", json::Object{{"type", "string"}}}}},
        {"required", json::Array{field, "why"}},
        {"additionalProperties", false}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << json::Value(std::move(schema));
    return {name.str(), text};
  }

  /// Asks until an answer parses as an `AttrT` in `field` and `check`
  /// accepts it (returns why not, or empty): the reasons go back to the
  /// model twice, then a warning at the kernel and failure. An accepted
  /// answer's conversation is kept in the response cache. Network trouble
  /// and spent budgets end the network requests for this and later
  /// kernels, with one warning; the cache still answers what it holds.
  template <typename AttrT>
  FailureOr<AttrT> ask(KernelOp kernel, const Prompt &prompt,
                       const AnswerSchema &schema, StringRef field,
                       std::string &why,
                       function_ref<std::string(AttrT)> check) {
    ++asked;
    std::vector<ChatMessage> messages = {{"user", prompt.user}};
    /// This conversation's answers, kept in the cache if one is accepted.
    std::vector<LlmReply> answers;
    std::string reason;
    for (int round = 0; round < 3; ++round) {
      bool offline = networkDown || budgetWarned;
      if (std::string spent = budgetSpent(prompt.system, messages);
          !offline && !spent.empty()) {
        emitWarning(kernel.getLoc(), "llm agent: ")
            << spent << "; using " << cachedOr() << "from here on";
        budgetWarned = offline = true;
      }
      LlmReply reply = chat(config, prompt.system, messages, schema, offline);
      if (offline && !reply.ok)
        return failure(); // Not in the cache: the expert's, already warned.
      ++requests;
      cachedRequests += reply.cached;
      promptTokens += reply.promptTokens;
      completionTokens += reply.completionTokens;
      if (!reply.ok) {
        networkDown = true;
        emitWarning(kernel.getLoc(), "llm agent: ")
            << reply.error << "; using " << cachedOr()
            << "for this and later kernels";
        return failure();
      }
      answers.push_back(reply);
      FailureOr<AttrT> answer =
          parseAnswer<AttrT>(kernel, reply.content, field, why, reason);
      if (succeeded(answer)) {
        reason = check(*answer);
        if (reason.empty()) {
          for (const LlmReply &kept : answers)
            keepAnswer(config, kept);
          ++answered;
          return answer;
        }
      }
      messages.push_back({"assistant", reply.content});
      std::optional<Prompt> retry =
          render(kernel, "retry", {{"reason", reason}, {"field", field.str()}});
      if (!retry)
        return failure();
      messages.push_back({"user", retry->user});
    }
    emitWarning(kernel.getLoc(), "llm agent: three invalid answers (last: ")
        << reason << "); using the expert's " << field;
    return failure();
  }

  /// Who decides once the network may not be asked.
  StringRef cachedOr() const {
    return config.cachePath.empty() ? "the expert's choices "
                                    : "cached answers or the expert's choices ";
  }

  /// The answer's attribute, if it is an `AttrT`.
  template <typename AttrT>
  static FailureOr<AttrT> parseAnswer(KernelOp kernel, StringRef content,
                                      StringRef field, std::string &why,
                                      std::string &reason) {
    Attribute attr = parseLlmAnswer(kernel, content, field, why, reason);
    if (!attr)
      return failure();
    if (auto typed = dyn_cast<AttrT>(attr))
      return typed;
    reason = ("not an #egg." + field + " attribute").str();
    return failure();
  }

  /// Records who took `stage`'s decision (egg.decided_by, for the
  /// decisions file): the model, under its name and the prompt's version,
  /// or the expert in its place.
  void setDecidedBy(KernelOp kernel, StringRef stage, bool byModel) const {
    MLIRContext *ctx = kernel.getContext();
    Builder b(ctx);
    NamedAttrList who;
    if (byModel) {
      who.set("agent", b.getStringAttr("llm"));
      who.set("model", b.getStringAttr(config.model));
      if (auto it = promptVersions.find(stage.str());
          it != promptVersions.end())
        who.set("prompt", b.getI64IntegerAttr(it->second));
    } else {
      who.set("agent", b.getStringAttr("expert"));
      who.set("fallback_from", b.getStringAttr("llm"));
    }
    setStageEntry(kernel, EggDialect::getDecidedByAttrName(), stage,
                  who.getDictionary(ctx));
  }

  /// Keeps the model's reason on the kernel (egg.rationale), where the next
  /// stage's request and the user read it.
  static void setRationale(KernelOp kernel, StringRef stage, StringRef why) {
    // Bounded: a rambling model does not bloat the IR.
    if (!why.empty())
      setStageEntry(kernel, EggDialect::getRationaleAttrName(), stage,
                    StringAttr::get(kernel.getContext(), why.take_front(500)));
  }

  /// Sets `stage`'s entry of the kernel's dictionary attribute `name`.
  static void setStageEntry(KernelOp kernel, StringRef name, StringRef stage,
                            Attribute value) {
    NamedAttrList entries;
    if (auto old = kernel->getAttrOfType<DictionaryAttr>(name))
      entries.append(old.getValue());
    entries.set(stage, value);
    kernel->setAttr(name, entries.getDictionary(kernel.getContext()));
  }

  /// The kernel as the model sees it: ops, shapes and types, the least
  /// work and its roofline floor, and the loops of the root op.
  static std::string describeKernel(KernelOp kernel, StructureAttr structure,
                                    TargetAttr target) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "Kernel @" << kernel.getSymName() << " ("
       << stringifyKernelClass(classifyKernel(kernel)) << ")";
    if (structure)
      os << ", structure " << printDecision(structure);
    os << ".\nIts body:\n";
    kernel.getBodyBlock().print(os);
    KernelWork work = measureWork(kernel);
    os << llvm::formatv("\nLeast work: {0:f2} MB moved, {1:f3} GFLOP, "
                        "arithmetic intensity {2:f2} FLOP/byte",
                        work.bytes / 1e6, work.flops / 1e9,
                        work.bytes > 0 ? work.flops / work.bytes : 0.0);
    if (target)
      os << llvm::formatv("; roofline floor {0:f4} ms on this target",
                          rooflineFloorMs(work, target));
    ScopedDiagnosticHandler silence(kernel.getContext(),
                                    [](Diagnostic &) { return success(); });
    FailureOr<RootLoops> loops =
        analyzeRootLoops(kernel, [&]() { return kernel.emitOpError(); });
    if (succeeded(loops)) {
      os << "\nRoot op loops (extent, p = parallel, r = reduction):";
      for (auto [e, p] : llvm::zip(loops->extents, loops->parallel))
        os << " " << e << (p ? "p" : "r");
    }
    if (target)
      os << "\nTarget: " << printDecision(target);
    return text;
  }

  /// What stage 1 decided and why, for stage 2.
  static std::string describeStage1(KernelOp kernel, StructureAttr structure) {
    std::string text = "Stage 1 chose " + printDecision(structure);
    SmallVector<StructureAttr> legal = enumerateStructures(kernel);
    if (legal.size() > 1)
      text +=
          " out of " + llvm::join(llvm::map_range(legal, printDecision), ", ");
    else
      text += " (the only legal structure)";
    if (auto rationale = kernel->getAttrOfType<DictionaryAttr>(
            EggDialect::getRationaleAttrName()))
      if (auto why = rationale.getAs<StringAttr>("structure"))
        text += ", because: " + why.getValue().str();
    return text + ".";
  }

  /// The rules of the lowering the kernel's structure goes through.
  static std::string describeRules(KernelOp kernel, StructureAttr structure) {
    return describeLoweringRules(kernel, structure);
  }

  double cost() const {
    return promptTokens * config.promptPricePerMTok / 1e6 +
           completionTokens * config.completionPricePerMTok / 1e6;
  }

  /// Why the request of `system` and `messages` may not be sent, or empty.
  /// Its prompt is counted ahead at about four characters a token, so a
  /// budget is not overrun by the request that crosses it.
  std::string budgetSpent(const std::string &system,
                          const std::vector<ChatMessage> &messages) const {
    double next = double(system.size());
    for (const ChatMessage &m : messages)
      next += double(m.content.size());
    next /= 4;
    if (config.maxTokens > 0 &&
        promptTokens + completionTokens + next > config.maxTokens)
      return llvm::formatv("the token budget of {0} is spent ({1} used, the "
                           "next request's prompt is about {2})",
                           int64_t(config.maxTokens),
                           int64_t(promptTokens + completionTokens),
                           int64_t(next));
    if (config.maxCost > 0 &&
        cost() + next * config.promptPricePerMTok / 1e6 > config.maxCost)
      return llvm::formatv("the cost budget of {0} is spent ({1:f4} used)",
                           config.maxCost, cost());
    return "";
  }

  LlmConfig config;
  std::unique_ptr<Agent> expert;
  std::shared_ptr<ExchangeLog> cache;
  bool networkDown = false, budgetWarned = false, promptsBroken = false;
  int64_t requests = 0, cachedRequests = 0;
  /// Choices put to the model, and those it made (validated answers).
  int64_t asked = 0, answered = 0;
  double promptTokens = 0, completionTokens = 0;
};
} // namespace

Attribute mlir::egg::parseLlmAnswer(KernelOp kernel, StringRef content,
                                    StringRef field, std::string &why,
                                    std::string &reason) {
  llvm::Expected<json::Value> value = mlir::egg::parseJson(content);
  if (!value) {
    reason = "not a JSON object: " + llvm::toString(value.takeError());
    return {};
  }
  const json::Object *object = value->getAsObject();
  if (object)
    why = object->getString("why").value_or("").str();
  // A tuning as knobs (the schema's form).
  if (const json::Object *knobs =
          object && field == "tuning" ? object->getObject(field) : nullptr) {
    TuningAttr tuning = tuningFromJson(*knobs, kernel.getContext(), reason);
    return tuning;
  }
  std::optional<StringRef> text =
      object ? object->getString(field) : std::nullopt;
  if (!text) {
    reason = ("no \"" + field + "\" in the answer").str();
    return {};
  }
  std::string message;
  ScopedDiagnosticHandler capture(kernel.getContext(), [&](Diagnostic &d) {
    if (message.empty())
      message = d.str();
    return success();
  });
  Attribute attr = parseAttribute(*text, kernel.getContext());
  if (!attr)
    reason = message.empty() ? ("not an #egg." + field + " attribute").str()
                             : message;
  return attr;
}

std::unique_ptr<Agent> mlir::egg::createLlmAgent(LlmConfig config) {
  return std::make_unique<LlmAgent>(std::move(config));
}
