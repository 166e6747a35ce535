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
#include "egg/Agents/KernelWork.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Agents/Prompt.h"
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
    std::optional<Prompt> prompt =
        render(kernel, "tuning",
               {{"principles", kTuningPrinciples},
                {"kernel", describeKernel(kernel, structure, target)},
                {"stage1", describeStage1(kernel, structure)},
                {"rules", describeRules(kernel, structure)},
                {"proposal", printDecision(*fallback)},
                {"measurements", measurements}});
    if (!prompt)
      return fallback;
    AnswerSchema schema =
        answerSchema("egg_tuning", "tuning", json::Object{{"type", "string"}});
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
    if (networkDown)
      return std::nullopt;
    std::string error;
    std::optional<PromptTemplate> tmpl =
        loadPromptTemplate(name, config.promptDir, error);
    std::optional<std::string> system, user;
    if (tmpl)
      system = renderPrompt(tmpl->system, values, error);
    if (system)
      user = renderPrompt(tmpl->user, values, error);
    if (!user) {
      networkDown = true;
      kernel.emitWarning("llm agent: ")
          << error << "; using the expert's choices for this and later "
          << "kernels";
      return std::nullopt;
    }
    return Prompt{*system, *user};
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
  /// model twice, then a warning at the kernel and failure. Network
  /// trouble and spent budgets end the asking for this and later kernels.
  template <typename AttrT>
  FailureOr<AttrT> ask(KernelOp kernel, const Prompt &prompt,
                       const AnswerSchema &schema, StringRef field,
                       std::string &why,
                       function_ref<std::string(AttrT)> check) {
    if (networkDown)
      return failure();
    std::vector<ChatMessage> messages = {{"user", prompt.user}};
    std::string reason;
    for (int round = 0; round < 3; ++round) {
      if (std::string spent = budgetSpent(); !spent.empty()) {
        if (!budgetWarned)
          kernel.emitWarning("llm agent: ")
              << spent << "; using the expert's choices from here on";
        budgetWarned = true;
        return failure();
      }
      LlmReply reply = chat(config, prompt.system, messages, schema);
      ++requests;
      cachedRequests += reply.cached;
      promptTokens += reply.promptTokens;
      completionTokens += reply.completionTokens;
      if (!reply.ok) {
        networkDown = true;
        kernel.emitWarning("llm agent: ")
            << reply.error
            << "; using the expert's choices for this and later kernels";
        return failure();
      }
      FailureOr<AttrT> answer =
          parseAnswer<AttrT>(kernel, reply.content, field, why, reason);
      if (succeeded(answer)) {
        reason = check(*answer);
        if (reason.empty())
          return answer;
      }
      messages.push_back({"assistant", reply.content});
      std::optional<Prompt> retry =
          render(kernel, "retry", {{"reason", reason}, {"field", field.str()}});
      if (!retry)
        return failure();
      messages.push_back({"user", retry->user});
    }
    kernel.emitWarning("llm agent: three invalid answers (last: ")
        << reason << "); using the expert's " << field;
    return failure();
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

  /// Keeps the model's reason on the kernel (egg.rationale), where the next
  /// stage's request and the user read it.
  static void setRationale(KernelOp kernel, StringRef stage, StringRef why) {
    if (why.empty())
      return;
    MLIRContext *ctx = kernel.getContext();
    NamedAttrList entries;
    if (auto old = kernel->getAttrOfType<DictionaryAttr>(
            EggDialect::getRationaleAttrName()))
      entries.append(old.getValue());
    // Bounded: a rambling model does not bloat the IR.
    entries.set(stage, StringAttr::get(ctx, why.take_front(500)));
    kernel->setAttr(EggDialect::getRationaleAttrName(),
                    entries.getDictionary(ctx));
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
    if (isCooperativeRow(structure))
      return "Rules of the row lowering: `block` has one entry per parallel "
             "loop of the root op, tiles divide the extents, no thread "
             "tiles, one-dimensional `threads`; a warp per row: warp tile 1 "
             "on every row loop and threads = 32 x rows per block, except "
             "that short rows may share a warp (a warp tile G, a power of two "
             "of at most 32 rows, then 32 / G lanes per row and threads = 32 "
             "x rows per block / G); a block "
             "per row: block tile 1 on every row loop; `vector` divides the "
             "row and moves 16 bytes at most of the kernel's narrowest "
             "input or result type. A block per row whose row is read by "
             "several ops holds each thread's part of it across them; "
             "`row_shared = K` keeps the last K of those row steps (each "
             "threads x vector elements) in shared memory instead of "
             "registers, so that two blocks share an SM where the held row "
             "takes more than a quarter of the register file (a 128 KB "
             "group norm row over 1024 threads: 6 of 8 steps).";
    if (structure &&
        structure.getFormulation() == Formulation::reduce_two_stage)
      return "Rules of the column reduction: `block` has one entry per "
             "parallel loop of the root op, 1 on all but the innermost, whose "
             "tile BN divides its extent; `threads` = [BN / vector, R] (R "
             "rows in flight), at most 1024; no thread, warp or reduction "
             "tiles; `vector` moves 16 bytes at most.";
    std::string why;
    std::string gemm;
    if (succeeded(analyzeGemmLoops(kernel.getAnchorOp(), why)))
      gemm = " A matrix product may instead go through shared memory: "
             "`shared = [0, 1]`, `block` BM/BN on its M/N loops (1 on batch "
             "loops), `thread` TM/TN (at most 128 accumulators; 8x8 ran "
             "fastest), `threads` = "
             "[BN/TN, BM/TM], `reduction` = [BK] (a BK that does not divide "
             "K needs cp_async or tma, whose copies zero-fill the last "
             "step), `padding` "
             "elements per shared row, `vector` elements per copy (every "
             "thread the same number), `copy` sync or cp_async (4, 8 or 16 "
             "bytes per copy), `pipeline` stages 2-4 only with cp_async, "
             "shared memory up to the target's limit; with `thread` tiles "
             "and `pipeline` >= 2, `fragments_ahead = 1` loads each K step's "
             "values before the previous step's FMAs, across K tiles (TM x "
             "TN x BK at most 2048; 1-3% faster on f32 convolutions, 3-5% "
             "slower on some plain products). With f16 or bf16 inputs "
             "and an "
             "f32 result it may run on tensor cores (mma.sync m16n8k16): a "
             "`warp` tile WM/WN (multiples of 16, at most 128 accumulators "
             "per thread: WM/16 * WN/8 * 4) instead of `thread`, `threads` = "
             "[32, BN/WN, BM/WM], BK a multiple of 16, `padding` a multiple "
             "of 8; tiles "
             "keep the global layout, so every copy may be a "
             "16-byte cp_async. On sm_90a, warpgroup MMA (wgmma) instead: "
             "`threads` = [128, BN/WN, BM/WM] (a warpgroup per `warp` tile), "
             "WM a multiple of 64, WN a multiple of 8 up to 256 "
             "(WM/64 * WN/2 accumulators per thread, at most 128), "
             "`swizzle = xor128` and no padding, `vector` = 16 bytes, the "
             "tile extent along each operand's contiguous dimension (BK for "
             "K-contiguous, BM/BN and WM/WN for M/N-contiguous) a multiple "
             "of 128 bytes (64 16-bit elements). f32 products may take wgmma "
             "only where the module allows TF32 (`egg.allow_tf32`; the "
             "checker refuses it otherwise), BK a multiple of 32 and `vector` "
             "= 4 (tiles stored K-major; an M/N-contiguous operand is copied "
             "transposed, so cp_async, not tma). With wgmma, `copy = tma` (a "
             "plain 2-D product, "
             "`pipeline` 2-8, at most 896 computing threads) adds a "
             "producer warpgroup that fills the stages through the Tensor "
             "Memory Accelerator (a whole long K loop over few output tiles "
             "runs best at 8 stages in 64x128 tiles of one warpgroup, "
             "128x64 tiles of two where tiles are partial). A "
             "conv_implicit_gemm convolution must take "
             "this path, with M, N and K groups of loops (M: output loops "
             "only the input reads, N: those only the filter reads, K: the "
             "reductions): BM is the product of the block tile over the M "
             "loops, which must cover whole inner loops and part of one "
             "(e.g. [1, 2, 32] on (n, oh, ow) for 64 positions of a 32-wide "
             "output), likewise BN, WM/TM and WN/TN within the block tile; "
             "BK divides the product of the K extents; an input contiguous "
             "along neither group (NCHW) needs vector 1 and FMA tiles.";
    if (!gemm.empty())
      gemm += allowsTf32(kernel)
                  ? " This module allows TF32 (egg.allow_tf32)."
                  : " This module does not allow TF32: f32 products stay "
                    "off tensor cores.";
    SmallVector<int64_t> transposed = transposedInputs(kernel);
    if (!transposed.empty())
      gemm += " This map reads input(s) [" +
              llvm::join(
                  llvm::map_range(transposed,
                                  [](int64_t k) { return std::to_string(k); }),
                  ", ") +
              "] across its results' innermost loop; a kernel of this one op "
              "may stage them through shared memory instead: `shared` lists "
              "them, `block` tiles (whole tiles, 1 on other loops), "
              "one-dimensional `threads` (whole warps, at most 1024, "
              "dividing each tile's elements), `padding` elements per "
              "shared row, no thread tiles, vector 1, at most 48 KB of "
              "shared memory.";
    return "Rules of the generic lowering: `block` and `thread` have one "
           "entry per parallel loop of the root op, tiles divide the "
           "extents, at most 3 tiled loops per level, `threads` (x "
           "innermost) equals the block/thread tile ratios, no warp or "
           "reduction tiles, `vector` > 1 only for elementwise kernels with "
           "the innermost thread tile equal to it and 16 bytes at most." +
           gemm;
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

Attribute mlir::egg::parseLlmAnswer(KernelOp kernel, StringRef content,
                                    StringRef field, std::string &why,
                                    std::string &reason) {
  llvm::Expected<json::Value> value = mlir::egg::parseJson(content);
  if (!value) {
    reason = "not a JSON object: " + llvm::toString(value.takeError());
    return {};
  }
  const json::Object *object = value->getAsObject();
  std::optional<StringRef> text =
      object ? object->getString(field) : std::nullopt;
  if (!text) {
    reason = ("no \"" + field + "\" string in the answer").str();
    return {};
  }
  why = object->getString("why").value_or("").str();
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
