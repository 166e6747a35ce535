//===- egg-tune.cpp - The closed expert-guided optimisation loop ----------===//
//
// egg-tune input.mlir -o outdir/ : per kernel, stage 1 (each legal
// structure with the expert's tuning for it, measured, the best kept), then
// stage-2 rounds (the agent proposes tunings, sees the measurements,
// proposes again) until the budget is spent or a round brings nothing.
// Kernels are tuned one at a time, the others held at their best choice so
// far, so each measurement changes one kernel's decisions only.
//
// Candidates compile in parallel in-process (one MLIRContext each) and run
// under egg-eval, its own process, one per visible GPU: a candidate that
// faults or hangs is recorded and skipped. Without a GPU the analytic cost
// model ranks them and every figure says it is an estimate. Every result
// goes into an SQLite file the moment it is known; that file is the cache
// (same kernel fingerprint, device and decisions: not measured again) and
// what an interrupted run resumes from. docs/egg-tune.md has the details.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Pipelines/Pipelines.h"
#include "egg/Support/Hash.h"
#include "egg/Support/Json.h"
#include "egg/Target/Profiles.h"
#include "egg/Tools/Registration.h"
#include "egg/Translate/Translations.h"
#include "egg/Tune/Analyst.h"
#include "egg/Tune/CostModel.h"
#include "egg/Tune/Report.h"
#include "egg/Tune/SearchSpace.h"
#include "egg/Tune/TuneDatabase.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::egg;
namespace cl = llvm::cl;
namespace json = llvm::json;

static cl::OptionCategory tuneCategory("egg-tune options");
static cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                                      cl::desc("<input.mlir>"),
                                      cl::cat(tuneCategory));
static cl::opt<std::string> outDir("o", cl::Required,
                                   cl::desc("Output directory"),
                                   cl::value_desc("dir"),
                                   cl::cat(tuneCategory));
static cl::opt<std::string>
    agentName("agent",
              cl::desc("Who proposes: expert (principled neighbourhood of "
                       "the best so far), search (the legal space in the "
                       "expert's order) or llm (the LLM's proposal first)"),
              cl::init("expert"), cl::cat(tuneCategory));
static cl::opt<std::string> chip("chip", cl::desc("Target chip"),
                                 cl::init("sm_90a"), cl::cat(tuneCategory));
static cl::opt<bool>
    splitK("split-k",
           cl::desc("Let products and column reductions split into slices "
                    "(false: candidates keep them whole, as "
                    "--egg-pipeline=\"split-k=false\")"),
           cl::init(true), cl::cat(tuneCategory));
static cl::opt<std::string>
    evaluator("evaluator",
              cl::desc("gpu (egg-eval), model (analytic estimates) or auto "
                       "(gpu when egg-eval sees one)"),
              cl::init("auto"), cl::cat(tuneCategory));
static cl::opt<std::string>
    evalTool("egg-eval",
             cl::desc("egg-eval to run (default: next to egg-tune, then PATH)"),
             cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string>
    dbPath("db", cl::desc("Records (default: <outdir>/tune.sqlite)"),
           cl::init(""), cl::cat(tuneCategory));
static cl::opt<unsigned> maxCandidates(
    "max-candidates",
    cl::desc("Candidates per kernel, stage 1 included (default 24)"),
    cl::init(24), cl::cat(tuneCategory));
static cl::opt<double>
    timeBudget("time-budget",
               cl::desc("Wall-clock budget in seconds; 0 for none. No new "
                        "round starts after it"),
               cl::init(0), cl::cat(tuneCategory));
static cl::opt<unsigned> jobs("j",
                              cl::desc("Compile threads (default: all cores)"),
                              cl::init(0), cl::cat(tuneCategory));
static cl::opt<unsigned>
    gpus("gpus", cl::desc("GPUs to evaluate on (default: all egg-eval sees)"),
         cl::init(0), cl::cat(tuneCategory));
static cl::opt<unsigned>
    batchSize("batch",
              cl::desc("Candidates per round (default: max(4, threads))"),
              cl::init(0), cl::cat(tuneCategory));
static cl::opt<unsigned>
    trials("trials",
           cl::desc("egg-eval correctness trials per candidate (default 2)"),
           cl::init(2), cl::cat(tuneCategory));
static cl::opt<double> kernelTimeout(
    "kernel-timeout",
    cl::desc("egg-eval's limit on one run of the kernels, seconds"),
    cl::init(10), cl::cat(tuneCategory));
static cl::opt<double> evalTimeout(
    "eval-timeout",
    cl::desc("Limit on one egg-eval process (reference included), seconds"),
    cl::init(600), cl::cat(tuneCategory));
static cl::opt<double>
    minGain("min-gain",
            cl::desc("Relative improvement a round must bring to count (noise "
                     "threshold, default 0.02)"),
            cl::init(0.02), cl::cat(tuneCategory));
static cl::list<std::string>
    evalArgs("eval-arg", cl::desc("Extra argument for egg-eval (repeatable)"),
             cl::cat(tuneCategory));
static cl::opt<std::string> baselinesPath(
    "baselines",
    cl::desc("JSON object of baseline times in ms to report against, e.g. "
             "{\"eager\": 0.2, \"torch.compile\": 0.1} "
             "(bench/torch_baselines.py writes them)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> cudaPath("cuda-path",
                                     cl::desc("CUDA toolkit with libdevice"),
                                     cl::init(""), cl::cat(tuneCategory));
static cl::opt<bool> quiet("quiet", cl::desc("No progress lines"),
                           cl::init(false), cl::cat(tuneCategory));
static cl::opt<bool>
    jsonLines("json-lines",
              cl::desc("Events as JSON lines on stdout (implies --quiet)"),
              cl::init(false), cl::cat(tuneCategory));

namespace {
using Clock = std::chrono::steady_clock;

bool writeFile(const std::string &path, StringRef text, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  os << text;
  return true;
}

/// Exit status runWithTimeout gives a program it had to kill.
constexpr int kTimedOut = -1000;

/// Runs a program and waits at most `seconds` for it, then kills it
/// (kTimedOut); a program that dies of a signal gives -2 and `crashed`.
/// ExecuteAndWait's own timeout relies on SIGALRM reaching the waiting
/// thread, which it does not in a worker thread; so poll instead.
int runWithTimeout(StringRef program, ArrayRef<StringRef> args,
                   ArrayRef<StringRef> env,
                   ArrayRef<std::optional<StringRef>> redirects, double seconds,
                   std::string &message, bool &crashed) {
  bool failedToStart = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      program, args, env, redirects, 0, &message, &failedToStart);
  if (failedToStart)
    return -1;
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    llvm::sys::ProcessInfo done = llvm::sys::Wait(child, 0u, &message);
    if (done.Pid != 0) {
      crashed = done.ReturnCode == -2;
      return done.ReturnCode;
    }
    if (Clock::now() > deadline) {
      ::kill(child.Pid, SIGKILL);
      llvm::sys::Wait(child, std::nullopt, &message);
      message = llvm::formatv("killed after {0} s", seconds).str();
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

struct Decision {
  StructureAttr structure;
  TuningAttr tuning;
};

struct KernelInfo {
  KernelOp op;
  std::string name, kind, fingerprint;
  KernelWork work;
  double floorMs = 0;
  SmallVector<StructureAttr> structures;
  Decision initial, best;
  CandidateRecord initialRecord, bestRecord;
  int64_t candidates = 0;
  json::Array trajectory;
  /// Every candidate evaluated for this kernel in this run, in order.
  std::vector<CandidateRecord> history;
};

struct Candidate {
  size_t kernel = 0;
  Decision decision;
  std::string proposer;
  int64_t stage = 0, round = 0;
  CandidateRecord record;
  std::string dir, decisionsText, manifestText;
};

struct CompileResult {
  bool ok = false;
  std::string diagnostics, manifest;
};

/// Compiles `source` with the decisions in `decisionsPath`, in a context of
/// its own (so candidates compile on several threads at once).
CompileResult compileCandidate(const std::string &source,
                               const std::string &decisionsPath) {
  CompileResult result;
  DialectRegistry registry;
  registerToolExtensions(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputPath), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagnostics);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return result;
  PassManager pm(&ctx);
  EggPipelineOptions options;
  options.chip = chip.getValue();
  options.splitK = splitK;
  options.agent = "replay";
  options.decisions = decisionsPath;
  options.cudaPath = cudaPath.getValue();
  buildEggPipeline(pm, options);
  if (failed(pm.run(*module)))
    return result;
  llvm::raw_string_ostream manifest(result.manifest);
  result.ok = succeeded(translateToManifest(*module, manifest));
  return result;
}

class Tuner {
public:
  int run();

private:
  // Set-up.
  LogicalResult analyze();
  LogicalResult setUpEvaluator();
  // The loop.
  void tuneKernel(size_t k);
  void evaluate(std::vector<Candidate> &batch);
  void evaluateOnGpu(Candidate &c, unsigned gpu);
  void estimate(Candidate &c);
  /// The decisions file with every kernel at its best so far, kernel `k`
  /// (if any) at `d` instead.
  std::string decisionsFor(std::optional<size_t> k, const Decision &d = {});
  /// The whole function's time with every kernel at its initial (expert)
  /// or best decisions: `row`'s, when the candidate it was recorded for
  /// built that same bundle; else measured (or estimated) now, not
  /// recorded. Negative if that fails.
  /// `built`: that bundle's manifest when the caller has compiled it;
  /// `measured` gets the manifest whose time it is.
  double functionMs(bool initial, const KernelInfo &owner,
                    const CandidateRecord &row,
                    const std::string *built = nullptr,
                    std::string *measured = nullptr);
  /// Where a candidate's decisions, manifest and egg-eval output live.
  std::string candidateDir(const KernelInfo &k, StringRef structure,
                           StringRef tuning) const {
    return outDir + "/candidates/" +
           sha256Hex(
               (llvm::Twine(k.fingerprint) + device + structure + tuning).str())
               .substr(0, 16);
  }
  TuningAttr expertTuning(size_t k, StructureAttr structure);
  // Output.
  void progress(size_t k, StringRef what);
  void event(json::Object e);
  int finish();

  bool budgetLeft() const {
    return timeBudget <= 0 ||
           std::chrono::duration<double>(Clock::now() - start).count() <
               timeBudget;
  }

  Clock::time_point start = Clock::now();
  std::string source, inputHash;
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<SourceMgrDiagnosticHandler> diagnosticHandler;
  OwningOpRef<ModuleOp> module;
  TargetAttr target;
  std::vector<KernelInfo> kernels;
  std::unique_ptr<Agent> expert, proposer;
  std::unique_ptr<TuneDatabase> db;
  int64_t runId = -1;
  bool onGpu = false;
  std::string device, evalPath;
  unsigned numGpus = 1;
  bool firstEvaluation = true;
  std::mutex mutex; // Guards the database and the counters below.
  int64_t measured = 0, cached = 0, failedCount = 0;
  json::Object baselines;
  double bandwidthGbps = 0, peakGflops = 0;
};
} // namespace

LogicalResult Tuner::analyze() {
  auto buffer = llvm::MemoryBuffer::getFile(inputPath);
  if (!buffer) {
    llvm::errs() << "egg-tune: cannot read " << inputPath << ": "
                 << buffer.getError().message() << "\n";
    return failure();
  }
  source = (*buffer)->getBuffer().str();
  inputHash = sha256Hex(source);
  registerToolExtensions(registry);
  ctx = std::make_unique<MLIRContext>(registry);
  ctx->printOpOnDiagnostic(false);
  // Kept for the whole run: the agents' warnings (an LLM that falls back
  // to the expert) point into the input.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputPath), llvm::SMLoc());
  diagnosticHandler =
      std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, ctx.get());
  module = parseSourceFile<ModuleOp>(sourceMgr, ctx.get());
  if (!module)
    return failure();
  PassManager pm(ctx.get());
  EggAttachTargetOptions attach;
  attach.chip = chip.getValue();
  attach.splitK = splitK;
  pm.addPass(createEggAttachTarget(attach));
  pm.addNestedPass<func::FuncOp>(createEggFormKernels());
  if (failed(pm.run(*module)))
    return failure();
  target = lookupTarget(*module);
  expert = createExpertAgent();
  if (agentName == "llm") {
    FailureOr<std::unique_ptr<Agent>> llm =
        createAgent("llm", "", ctx.get(), module->getLoc());
    if (failed(llm))
      return failure();
    proposer = std::move(*llm);
  } else if (agentName != "expert" && agentName != "search") {
    llvm::errs() << "egg-tune: unknown --agent=" << agentName
                 << " (expert, search or llm)\n";
    return failure();
  }

  WalkResult walk = module->walk([&](KernelOp op) {
    KernelInfo info;
    info.op = op;
    info.name = op.getSymName().str();
    info.kind = stringifyKernelClass(classifyKernel(op)).str();
    // What the kernel computes, not where it sits or what it is called, so
    // a kernel repeated in the input or met in another input hits the same
    // records. Verdicts depend on the TF32 permission (egg-eval's tolerance).
    info.fingerprint = sha256Hex(kernelSignature(op) + "|" + chip +
                                 (allowsTf32(op) ? "|tf32" : ""))
                           .substr(0, 32);
    info.work = measureWork(op);
    info.structures = enumerateStructures(op);
    FailureOr<StructureAttr> s = expert->chooseStructure(op, info.structures);
    if (failed(s))
      return WalkResult::interrupt();
    info.initial.structure = *s;
    op.setStructureAttr(*s);
    FailureOr<TuningAttr> t = expert->chooseTuning(op, target);
    if (failed(t))
      return WalkResult::interrupt();
    info.initial.tuning = *t;
    info.best = info.initial;
    kernels.push_back(std::move(info));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (kernels.empty()) {
    llvm::errs() << "egg-tune: " << inputPath << " has no kernels to tune\n";
    return failure();
  }
  bandwidthGbps = double(target.getDramGbps());
  peakGflops = double(target.getFp32Gflops());
  // Products tensor cores may compute are bounded by their rate.
  for (KernelInfo &k : kernels)
    k.floorMs = rooflineFloorMs(k.work, target);
  return success();
}

LogicalResult Tuner::setUpEvaluator() {
  if (evaluator != "gpu" && evaluator != "model" && evaluator != "auto") {
    llvm::errs() << "egg-tune: unknown --evaluator=" << evaluator << "\n";
    return failure();
  }
  if (evaluator != "model") {
    evalPath = evalTool;
    if (evalPath.empty()) {
      std::string self = llvm::sys::fs::getMainExecutable(
          "egg-tune", reinterpret_cast<void *>(&compileCandidate));
      SmallString<256> sibling(llvm::sys::path::parent_path(self));
      llvm::sys::path::append(sibling, "egg-eval");
      if (llvm::sys::fs::can_execute(sibling))
        evalPath = sibling.str().str();
      else if (auto found = llvm::sys::findProgramByName("egg-eval"))
        evalPath = *found;
    }
    std::string info;
    if (!evalPath.empty()) {
      SmallString<128> out;
      llvm::sys::fs::createTemporaryFile("egg-tune-device", "json", out);
      std::string outPath = out.str().str(), devNull = "/dev/null";
      std::optional<StringRef> redirects[] = {std::nullopt, StringRef(outPath),
                                              StringRef(devNull)};
      int rc = llvm::sys::ExecuteAndWait(evalPath, {evalPath, "--device-info"},
                                         std::nullopt, redirects, 60);
      if (auto b = llvm::MemoryBuffer::getFile(out); b && rc == 0)
        info = (*b)->getBuffer().str();
      llvm::sys::fs::remove(out);
    }
    llvm::Expected<json::Value> parsed = mlir::egg::parseJson(info);
    const json::Object *obj = parsed ? parsed->getAsObject() : nullptr;
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    if (obj && obj->getString("name")) {
      onGpu = true;
      device = llvm::formatv("{0} (cc {1})", *obj->getString("name"),
                             obj->getString("compute_capability").value_or("?"))
                   .str();
      // At least one GPU, and no count that does not fit an unsigned.
      int64_t count = std::clamp<int64_t>(
          egg::jsonInteger(*obj, "count").value_or(1), 1, 1 << 16);
      numGpus = gpus ? std::min<unsigned>(gpus, count) : unsigned(count);
      numGpus = std::max(1u, numGpus);
    } else if (evaluator == "gpu") {
      llvm::errs() << "egg-tune: --evaluator=gpu but "
                   << (evalPath.empty() ? "egg-eval was not found"
                                        : evalPath + " sees no GPU")
                   << "\n";
      return failure();
    }
  }
  if (!onGpu)
    device = "model:" + chip + " (" + target.getName().str() + ")";
  return success();
}

std::string Tuner::decisionsFor(std::optional<size_t> k, const Decision &d) {
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Decision &use = i == k ? d : kernels[i].best;
    kernels[i].op.setStructureAttr(use.structure);
    kernels[i].op.setTuningAttr(use.tuning);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  (void)exportDecisions(*module, os);
  return text;
}

TuningAttr Tuner::expertTuning(size_t k, StructureAttr structure) {
  KernelOp op = kernels[k].op;
  op.setStructureAttr(structure);
  op.removeTuningAttr();
  ScopedDiagnosticHandler silence(ctx.get(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<TuningAttr> t = expert->chooseTuning(op, target);
  return succeeded(t) ? *t : TuningAttr();
}

void Tuner::estimate(Candidate &c) {
  double total = 0, mine = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Decision &d = i == c.kernel ? c.decision : kernels[i].best;
    kernels[i].op.setStructureAttr(d.structure);
    KernelEstimate e = estimateKernel(kernels[i].op, d.tuning, target);
    total += e.timeMs;
    if (i == c.kernel)
      mine = e.timeMs;
  }
  c.record.status = "estimate";
  c.record.estimate = true;
  c.record.kernelMs = mine;
  c.record.functionMs = total;
  c.record.result =
      llvm::formatv("{0}", json::Value(json::Object{{"estimate", true},
                                                    {"kernel_ms", mine},
                                                    {"function_ms", total}}))
          .str();
}

void Tuner::evaluateOnGpu(Candidate &c, unsigned gpu) {
  std::string manifest = c.dir + "/manifest.json";
  std::string result = c.dir + "/eval.json", log = c.dir + "/eval.log";
  llvm::sys::fs::remove(result);
  bool withBaseline;
  {
    std::lock_guard<std::mutex> lock(mutex);
    withBaseline = firstEvaluation;
    firstEvaluation = false;
  }
  std::vector<std::string> args = {
      evalPath,
      manifest,
      "--source=" + inputPath,
      "--json=" + result,
      "--trials=" + std::to_string(trials),
      llvm::formatv("--timeout={0}", kernelTimeout.getValue()).str(),
      withBaseline ? "--baseline=true" : "--baseline=false"};
  args.insert(args.end(), evalArgs.begin(), evalArgs.end());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  // The GPU this worker owns; everything else of the environment passes.
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (!StringRef(*e).starts_with("CUDA_VISIBLE_DEVICES="))
      env.push_back(*e);
  if (numGpus > 1)
    env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
  else if (const char *v = std::getenv("CUDA_VISIBLE_DEVICES"))
    env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + v);
  SmallVector<StringRef> envRefs(env.begin(), env.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  bool crashed = false;
  int rc = runWithTimeout(evalPath, argRefs, envRefs, redirects, evalTimeout,
                          message, crashed);
  c.record.estimate = false;
  auto buffer = llvm::MemoryBuffer::getFile(result);
  llvm::Expected<json::Value> parsed =
      buffer
          ? mlir::egg::parseJson((*buffer)->getBuffer())
          : llvm::Expected<json::Value>(llvm::createStringError("no result"));
  const json::Object *obj = parsed ? parsed->getAsObject() : nullptr;
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  if (!obj) {
    c.record.status = rc == kTimedOut ? "timeout" : "fault";
    c.record.diagnostics =
        llvm::formatv("egg-eval ended with status {0}{1}{2} and no result", rc,
                      message.empty() ? "" : ": ", message)
            .str();
    return;
  }
  c.record.result = (*buffer)->getBuffer().str();
  c.record.status = obj->getString("status").value_or("error").str();
  if (auto reason = obj->getString("reason"))
    c.record.diagnostics = reason->str();
  const json::Object *timing = obj->getObject("timing");
  if (!timing)
    return;
  c.record.functionMs = timing->getNumber("median_ms").value_or(-1);
  double mine = 0;
  bool found = false;
  // A product split along K launches its partial products and their sum
  // (`<name>_sum`): both are the kernel's time.
  std::string launched = kernels[c.kernel].name + "_kernel";
  std::string sum = kernels[c.kernel].name + "_sum_kernel";
  if (const json::Array *per = timing->getArray("per_kernel"))
    for (const json::Value &v : *per)
      if (const json::Object *o = v.getAsObject();
          o && (o->getString("kernel") == StringRef(launched) ||
                o->getString("kernel") == StringRef(sum))) {
        mine += o->getNumber("median_ms").value_or(0);
        found = true;
      }
  c.record.kernelMs = found ? mine : c.record.functionMs;
  std::lock_guard<std::mutex> lock(mutex);
  if (const json::Object *base = obj->getObject("baselines"))
    if (const json::Object *blas = base->getObject("cublas"))
      if (auto ms = blas->getNumber("median_ms"))
        baselines["cuBLAS (contraction alone)"] = *ms;
  if (const json::Object *roof = obj->getObject("roofline")) {
    if (auto bw = roof->getNumber("bandwidth_gbps"))
      bandwidthGbps = *bw;
    if (auto peak = roof->getNumber("peak_gflops"))
      peakGflops = *peak;
  }
}

void Tuner::evaluate(std::vector<Candidate> &batch) {
  // 1. Records first: what is known is not built or measured again.
  SmallVector<Candidate *> todo;
  for (Candidate &c : batch) {
    KernelInfo &k = kernels[c.kernel];
    std::string s = printDecision(c.decision.structure),
                t = printDecision(c.decision.tuning);
    if (std::optional<CandidateRecord> hit =
            db->lookup(k.fingerprint, device, s, t)) {
      c.record = *hit;
      ++cached;
      continue;
    }
    c.record.fingerprint = k.fingerprint;
    c.record.device = device;
    c.record.structure = s;
    c.record.tuning = t;
    c.record.kernel = k.name;
    c.record.proposer = c.proposer;
    c.record.stage = c.stage;
    c.record.round = c.round;
    c.decisionsText = decisionsFor(c.kernel, c.decision);
    c.dir = candidateDir(k, s, t);
    llvm::sys::fs::create_directories(c.dir);
    std::string error;
    if (!writeFile(c.dir + "/decisions.json", c.decisionsText, error)) {
      c.record.compileStatus = "error";
      c.record.status = "compile-error";
      c.record.diagnostics = error;
      continue;
    }
    todo.push_back(&c);
  }

  // 2. Compile in parallel, each in its own context.
  {
    unsigned threads = jobs ? jobs.getValue()
                            : std::max(1u, std::thread::hardware_concurrency());
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (Candidate *c : todo)
      pool.async([c, this] {
        CompileResult r = compileCandidate(source, c->dir + "/decisions.json");
        c->record.compileStatus = r.ok ? "ok" : "error";
        c->record.diagnostics = r.diagnostics;
        c->manifestText = r.manifest;
        if (!r.ok)
          c->record.status = "compile-error";
      });
    pool.wait();
  }
  SmallVector<Candidate *> compiled;
  for (Candidate *c : todo) {
    std::string error;
    if (c->record.compileStatus == "ok" &&
        !writeFile(c->dir + "/manifest.json", c->manifestText, error)) {
      c->record.compileStatus = "error";
      c->record.status = "compile-error";
      c->record.diagnostics = error;
    }
    if (c->record.compileStatus == "ok")
      compiled.push_back(c);
  }

  // 3. Evaluate: one worker per GPU, or the cost model here.
  auto recordOne = [&](Candidate &c) {
    std::string error;
    std::lock_guard<std::mutex> lock(mutex);
    if (!db->record(runId, c.record, error))
      llvm::errs() << "egg-tune: cannot record a candidate: " << error << "\n";
    ++measured;
    if (!c.record.usable())
      ++failedCount;
  };
  if (onGpu) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (unsigned g = 0; g < numGpus; ++g)
      workers.emplace_back([&, g] {
        for (size_t i; (i = next++) < compiled.size();) {
          evaluateOnGpu(*compiled[i], g);
          recordOne(*compiled[i]);
        }
      });
    for (std::thread &w : workers)
      w.join();
  } else {
    for (Candidate *c : compiled) {
      estimate(*c);
      recordOne(*c);
    }
  }
  for (Candidate *c : todo)
    if (c->record.compileStatus != "ok")
      recordOne(*c);

  for (Candidate &c : batch) {
    KernelInfo &k = kernels[c.kernel];
    ++k.candidates;
    k.history.push_back(c.record);
    if (c.record.usable() && c.record.kernelMs >= 0 &&
        (k.bestRecord.kernelMs < 0 ||
         c.record.kernelMs < k.bestRecord.kernelMs)) {
      k.bestRecord = c.record;
      k.best = c.decision;
    }
    k.trajectory.push_back(json::Object{{"kernel_ms", c.record.kernelMs},
                                        {"best_ms", k.bestRecord.kernelMs},
                                        {"status", c.record.status},
                                        {"stage", c.stage},
                                        {"round", c.round},
                                        {"cached", c.record.cached}});
    event(json::Object{{"event", "candidate"},
                       {"kernel", k.name},
                       {"stage", c.stage},
                       {"round", c.round},
                       {"proposer", c.proposer},
                       {"structure", c.record.structure},
                       {"tuning", c.record.tuning},
                       {"status", c.record.status},
                       {"kernel_ms", c.record.kernelMs},
                       {"estimate", c.record.estimate},
                       {"cached", c.record.cached}});
  }
}

void Tuner::tuneKernel(size_t index) {
  KernelInfo &k = kernels[index];
  unsigned batch =
      batchSize ? batchSize.getValue()
                : std::max(4u, jobs ? jobs.getValue()
                                    : std::thread::hardware_concurrency());
  llvm::DenseSet<Attribute> tried;
  auto makeCandidate = [&](StructureAttr s, TuningAttr t, StringRef who,
                           int64_t stage, int64_t round) {
    Candidate c;
    c.kernel = index;
    c.decision = {s, t};
    c.proposer = who.str();
    c.stage = stage;
    c.round = round;
    return c;
  };

  // Stage 1: the expert's choice, then every other legal structure with the
  // expert's tuning for it.
  std::vector<Candidate> stage1;
  stage1.push_back(
      makeCandidate(k.initial.structure, k.initial.tuning, "expert", 1, 0));
  for (StructureAttr s : k.structures) {
    if (s == k.initial.structure || stage1.size() >= maxCandidates)
      continue;
    if (TuningAttr t = expertTuning(index, s))
      stage1.push_back(makeCandidate(s, t, "expert", 1, 0));
  }
  progress(index, "stage 1");
  evaluate(stage1);
  k.initialRecord = stage1.front().record;
  if (k.bestRecord.kernelMs < 0) {
    // Nothing usable: keep the expert's choice and say so.
    progress(index, "no usable candidate in stage 1");
    return;
  }

  // Stage 2 over the best structure's legal tunings, in the expert's order.
  StructureAttr structure = k.best.structure;
  TuningAttr anchor = expertTuning(index, structure);
  kernels[index].op.setStructureAttr(structure);
  SmallVector<TuningAttr> space =
      enumerateTunings(k.op, target, anchor, /*limit=*/4096);
  tried.insert(k.best.tuning);
  for (Candidate &c : stage1)
    if (c.decision.structure == structure)
      tried.insert(c.decision.tuning);

  for (int64_t round = 1; budgetLeft() && k.candidates < maxCandidates;
       ++round) {
    size_t room = std::min<size_t>(batch, maxCandidates - k.candidates);
    SmallVector<TuningAttr> proposals;
    std::optional<TuningAttr> llmProposal;
    if (proposer) {
      // The LLM's proposal, with the analyst's summary of what was measured
      // so far (it falls back to the expert by itself).
      k.op.setStructureAttr(structure);
      k.op.removeTuningAttr();
      proposer->observe(k.op, summarizeCandidates(k.history, k.floorMs));
      FailureOr<TuningAttr> t = proposer->chooseTuning(k.op, target);
      if (succeeded(t) && !tried.contains(*t) &&
          llvm::is_contained(space, *t)) {
        proposals.push_back(*t);
        llmProposal = *t;
      }
    }
    if (agentName == "search") {
      for (TuningAttr t : space)
        if (proposals.size() < room && !tried.contains(t))
          proposals.push_back(t);
    } else {
      // The neighbourhood of the best so far: one or two halvings or
      // doublings away, nearest first.
      TuningAttr from = k.best.tuning;
      SmallVector<std::pair<double, TuningAttr>> near;
      for (TuningAttr t : space)
        if (!tried.contains(t) && !llvm::is_contained(proposals, t))
          if (double d = tuningDistance(t, from); d <= 2.0)
            near.push_back({d, t});
      std::stable_sort(near.begin(), near.end(),
                       [](auto &a, auto &b) { return a.first < b.first; });
      for (auto &[d, t] : near)
        if (proposals.size() < room)
          proposals.push_back(t);
    }
    if (proposals.empty())
      break;
    double before = k.bestRecord.kernelMs;
    std::vector<Candidate> round2;
    for (TuningAttr t : proposals) {
      tried.insert(t);
      round2.push_back(makeCandidate(structure, t,
                                     llmProposal && t == *llmProposal ? "llm"
                                     : agentName == "search"          ? "search"
                                                             : "expert",
                                     2, round));
    }
    progress(index, llvm::formatv("stage 2 round {0}", round).str());
    evaluate(round2);
    bool improved = k.bestRecord.kernelMs < before * (1.0 - minGain);
    if (!improved && agentName != "search")
      break;
  }
}

void Tuner::progress(size_t k, StringRef what) {
  if (quiet || jsonLines)
    return;
  const KernelInfo &info = kernels[k];
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::string left = timeBudget > 0
                         ? llvm::formatv(", {0:f0} s left",
                                         std::max(0.0, timeBudget - elapsed))
                               .str()
                         : "";
  std::string best =
      info.bestRecord.kernelMs >= 0
          ? llvm::formatv(", best {0:f4} ms{1}", info.bestRecord.kernelMs,
                          onGpu ? "" : " (estimate)")
                .str()
          : "";
  llvm::errs() << llvm::formatv(
      "[{0}/{1}] {2}: {3}, {4}/{5} candidates{6}{7}\n", k + 1, kernels.size(),
      info.name, what, info.candidates, maxCandidates.getValue(), best, left);
}

void Tuner::event(json::Object e) {
  if (!jsonLines)
    return;
  llvm::outs() << json::Value(std::move(e)) << "\n";
  llvm::outs().flush();
}

int Tuner::run() {
  if (failed(analyze()) || failed(setUpEvaluator()))
    return 1;
  std::error_code ec = llvm::sys::fs::create_directories(outDir);
  if (ec) {
    llvm::errs() << "egg-tune: cannot create " << outDir << ": " << ec.message()
                 << "\n";
    return 1;
  }
  std::string error;
  std::string records = dbPath.empty() ? outDir + "/tune.sqlite" : dbPath;
  db = TuneDatabase::open(records, error);
  if (!db) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  if (!baselinesPath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(baselinesPath);
    llvm::Expected<json::Value> parsed =
        buffer ? mlir::egg::parseJson((*buffer)->getBuffer())
               : llvm::Expected<json::Value>(
                     llvm::createStringError(buffer.getError().message()));
    if (!parsed || !parsed->getAsObject()) {
      llvm::errs() << "egg-tune: --baselines=" << baselinesPath
                   << " is not a JSON object of times in ms"
                   << (parsed ? "" : ": " + llvm::toString(parsed.takeError()))
                   << "\n";
      return 1;
    }
    for (auto &[name, value] : *parsed->getAsObject())
      if (auto ms = value.getAsNumber())
        baselines[name] = *ms;
  }
  std::string options =
      llvm::formatv("agent={0} chip={1} max-candidates={2} "
                    "time-budget={3} trials={4}",
                    agentName, chip, maxCandidates, timeBudget, trials)
          .str();
  runId = db->beginRun(inputPath, inputHash, agentName, device, options);
  if (!quiet && !jsonLines)
    llvm::errs() << "egg-tune: " << kernels.size() << " kernel(s), agent "
                 << agentName << ", "
                 << (onGpu ? "measuring on " + device + " (" +
                                 std::to_string(numGpus) + " GPU(s))"
                           : "no GPU: cost-model ESTIMATES (" + device + ")")
                 << ", records " << records << "\n";
  event(json::Object{{"event", "start"},
                     {"kernels", int64_t(kernels.size())},
                     {"device", device},
                     {"estimate", !onGpu},
                     {"records", records}});
  for (size_t k = 0; k < kernels.size(); ++k)
    tuneKernel(k);
  int rc = finish();
  db->finishRun(runId, rc == 0 ? "done" : "failed");
  return rc;
}

double Tuner::functionMs(bool initial, const KernelInfo &owner,
                         const CandidateRecord &row, const std::string *built,
                         std::string *measured) {
  // With `initial`, every kernel at the expert's decisions for the while.
  SmallVector<Decision> saved;
  for (KernelInfo &k : kernels) {
    saved.push_back(k.best);
    if (initial)
      k.best = k.initial;
  }
  llvm::scope_exit restore([&] {
    for (auto [k, best] : llvm::zip(kernels, saved)) {
      k.best = best;
      k.op.setStructureAttr(best.structure);
      k.op.setTuningAttr(best.tuning);
    }
  });
  Candidate c;
  c.kernel = kernels.size() - 1;
  c.decision = kernels.back().best;
  c.dir = outDir + (initial ? "/function-initial" : "/function-best");
  llvm::sys::fs::create_directories(c.dir);
  std::string error;
  CompileResult bundle;
  if (built) {
    bundle = {true, "", *built};
  } else {
    std::string path = c.dir + "/decisions.json";
    if (!writeFile(path, decisionsFor(std::nullopt), error))
      return -1;
    bundle = compileCandidate(source, path);
    if (!bundle.ok)
      return -1;
  }
  auto recorded = llvm::MemoryBuffer::getFile(
      candidateDir(owner, row.structure, row.tuning) + "/manifest.json");
  if (row.usable() && recorded && (*recorded)->getBuffer() == bundle.manifest) {
    if (measured)
      *measured = bundle.manifest;
    return row.functionMs;
  }
  if (!writeFile(c.dir + "/manifest.json", bundle.manifest, error))
    return -1;
  if (measured)
    *measured = bundle.manifest;
  if (onGpu)
    evaluateOnGpu(c, 0);
  else
    estimate(c);
  return c.record.usable() ? c.record.functionMs : -1;
}

int Tuner::finish() {
  std::string error;
  std::string stem = llvm::sys::path::stem(inputPath).str();
  // The best decisions, replayable by egg-opt.
  std::string decisions = decisionsFor(std::nullopt);
  std::string decisionsPath = outDir + "/" + stem + ".decisions.json";
  if (!writeFile(decisionsPath, decisions, error)) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  // Rebuild from the file alone: this is the bundle the user gets, and it
  // must match what was measured byte for byte.
  CompileResult final = compileCandidate(source, decisionsPath);
  if (!final.ok) {
    llvm::errs() << "egg-tune: the best decisions do not compile:\n"
                 << final.diagnostics;
    return 1;
  }
  std::string manifestPath = outDir + "/" + stem + ".manifest.json";
  if (!writeFile(manifestPath, final.manifest, error)) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  llvm::Expected<json::Value> manifest = mlir::egg::parseJson(final.manifest);
  if (manifest) {
    if (const json::Object *m = manifest->getAsObject())
      if (const json::Array *mods = m->getArray("modules"))
        for (const json::Value &v : *mods)
          if (const json::Object *o = v.getAsObject())
            if (auto name = o->getString("name"))
              (void)writeFile(outDir + "/" + name->str() + ".ptx",
                              o->getString("ptx").value_or(""), error);
  } else {
    llvm::consumeError(manifest.takeError());
  }
  // The first kernel's first candidate ran the expert's choices everywhere
  // and the last kernel's best ran every kernel's best, when this run
  // measured them. A row found in the records may have been measured with
  // other decisions elsewhere: for another kernel of the same body, for
  // another input, or in a run that ended elsewhere; then the function is
  // measured again. `replay_identical`: the bundle rebuilt from the
  // decisions file alone is the one whose time is reported.
  std::string measuredBest;
  double initialMs = functionMs(/*initial=*/true, kernels.front(),
                                kernels.front().initialRecord);
  double bestMs =
      functionMs(/*initial=*/false, kernels.back(), kernels.back().bestRecord,
                 &final.manifest, &measuredBest);
  json::Value replay = nullptr;
  if (!measuredBest.empty())
    replay = measuredBest == final.manifest;

  json::Array kernelJson;
  for (const KernelInfo &k : kernels) {
    auto pick = [](const CandidateRecord &r, const Decision &d) {
      return json::Object{{"time_ms", r.kernelMs},
                          {"function_ms", r.functionMs},
                          {"status", r.status},
                          {"structure", printDecision(d.structure)},
                          {"tuning", printDecision(d.tuning)}};
    };
    kernelJson.push_back(
        json::Object{{"name", k.name},
                     {"class", k.kind},
                     {"fingerprint", k.fingerprint},
                     {"bytes", k.work.bytes},
                     {"flops", k.work.flops},
                     {"floor_ms", k.floorMs},
                     {"candidates", k.candidates},
                     {"initial", pick(k.initialRecord, k.initial)},
                     {"best", pick(k.bestRecord, k.best)},
                     {"trajectory", json::Array(k.trajectory)}});
  }
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  json::Object report{
      {"format", "egg-tune-report"},
      {"version", 1},
      {"input", inputPath},
      {"input_sha256", inputHash},
      {"agent", agentName},
      {"device", device},
      {"estimate", !onGpu},
      {"candidates_measured", measured},
      {"candidates_cached", cached},
      {"candidates_failed", failedCount},
      {"wall_seconds", wall},
      {"decisions", decisionsPath},
      {"manifest", manifestPath},
      {"replay_identical", std::move(replay)},
      {"ceilings", json::Object{{"bandwidth_gbps", bandwidthGbps},
                                {"peak_gflops", peakGflops}}},
      {"function",
       json::Object{
           {"name",
            kernels.front().op->getParentOfType<func::FuncOp>().getSymName()},
           {"initial_ms", initialMs},
           {"best_ms", bestMs},
           {"baselines", json::Object(baselines)}}},
      {"kernels", std::move(kernelJson)}};
  json::Value reportValue(std::move(report));
  if (!writeFile(outDir + "/report.json",
                 llvm::formatv("{0:2}\n", reportValue).str(), error) ||
      !writeFile(outDir + "/report.html", renderReportHtml(reportValue),
                 error)) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  event(json::Object{{"event", "done"},
                     {"initial_ms", initialMs},
                     {"best_ms", bestMs},
                     {"estimate", !onGpu},
                     {"report", outDir + "/report.html"}});
  if (jsonLines)
    return 0;
  // Terminal summary.
  const char *est = onGpu ? "" : " (est.)";
  llvm::outs() << llvm::formatv("{0,-24} {1,-14} {2,5} {3,12} {4,12} {5,8}\n",
                                "kernel", "class", "cand.", "expert ms",
                                "best ms", "speedup");
  for (const KernelInfo &k : kernels)
    llvm::outs() << llvm::formatv(
        "{0,-24} {1,-14} {2,5} {3,12:f4} {4,12:f4} {5,7:f2}x\n", k.name, k.kind,
        k.candidates, k.initialRecord.kernelMs, k.bestRecord.kernelMs,
        k.bestRecord.kernelMs > 0
            ? k.initialRecord.kernelMs / k.bestRecord.kernelMs
            : 0.0);
  llvm::outs() << llvm::formatv(
      "function: expert {0:f4} ms -> best {1:f4} ms{2}; {3} measured, {4} "
      "from records, {5} failed; {6:f1} s\n",
      initialMs, bestMs, est, measured, cached, failedCount, wall);
  for (auto &[name, ms] : baselines)
    if (auto v = ms.getAsNumber(); v && bestMs > 0)
      llvm::outs() << llvm::formatv("  vs {0}: {1:f4} ms ({2:f2}x)\n", name, *v,
                                    *v / bestMs);
  llvm::outs() << "decisions: " << decisionsPath << "\nreport: " << outDir
               << "/report.html\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::egg::registerLlmCLOptions();
  cl::HideUnrelatedOptions({&tuneCategory, &mlir::egg::getLlmOptionCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "egg-tune: find the fastest correct kernels for an input, with "
      "records, a decisions file and a report\n");
  return Tuner().run();
}
