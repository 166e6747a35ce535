//===- Tuner.cpp - egg-tune's stage-1/stage-2 loop ------------------------===//

#include "TunerImpl.h"
#include "egg/Agents/Agent.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Eval/Reference.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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
using namespace mlir::egg::tune;

LogicalResult Tuner::analyze() {
  auto buffer = llvm::MemoryBuffer::getFile(opt.inputPath);
  if (!buffer) {
    llvm::errs() << "egg-tune: cannot read " << opt.inputPath << ": "
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
      llvm::MemoryBuffer::getMemBufferCopy(source, opt.inputPath),
      llvm::SMLoc());
  diagnosticHandler =
      std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, ctx.get());
  module = parseSourceFile<ModuleOp>(sourceMgr, ctx.get());
  if (!module)
    return failure();
  PassManager pm(ctx.get());
  EggAttachTargetOptions attach;
  attach.chip = opt.chip;
  attach.splitK = opt.splitK;
  pm.addPass(createEggAttachTarget(attach));
  pm.addNestedPass<func::FuncOp>(createEggCollapseReducedLoops());
  pm.addNestedPass<func::FuncOp>(createEggFormKernels());
  if (failed(pm.run(*module)))
    return failure();
  target = lookupTarget(*module);
  expert = createExpertAgent();
  if (opt.agentName == "llm") {
    FailureOr<std::unique_ptr<Agent>> llm =
        createAgent("llm", "", ctx.get(), module->getLoc());
    if (failed(llm))
      return failure();
    proposer = std::move(*llm);
  } else if (opt.agentName != "expert" && opt.agentName != "search") {
    llvm::errs() << "egg-tune: unknown --agent=" << opt.agentName
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
    info.fingerprint = sha256Hex(kernelSignature(op) + "|" + opt.chip +
                                 (allowsTf32(op) ? "|tf32" : ""))
                           .substr(0, 32);
    info.work = measureWork(op);
    info.structures = enumerateStructures(op);
    FailureOr<StructureAttr> s = expert->chooseStructure(op, info.structures);
    if (failed(s))
      return WalkResult::interrupt();
    info.initial.structure = *s;
    op.setStructureAttr(*s);
    FailureOr<TuningAttr> t = expert->chooseTuning(op, *s, target);
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
    llvm::errs() << "egg-tune: " << opt.inputPath
                 << " has no kernels to tune\n";
    return failure();
  }
  bandwidthGbps = double(target.getDramGbps());
  peakGflops = double(target.getFp32Gflops());
  // Products tensor cores may compute are bounded by their rate.
  for (KernelInfo &k : kernels)
    k.floorMs = rooflineFloorMs(k.work, target);
  return success();
}

std::optional<std::string> mlir::egg::tune::describeDevice(StringRef info,
                                                           int64_t &count) {
  llvm::Expected<json::Value> parsed = mlir::egg::parseJson(info);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *obj = parsed->getAsObject();
  if (!obj || !obj->getString("name"))
    return std::nullopt;
  count = egg::jsonInteger(*obj, "count").value_or(1);
  return llvm::formatv("{0} (cc {1})", *obj->getString("name"),
                       obj->getString("compute_capability").value_or("?"))
      .str();
}

std::string Tuner::referenceCacheDir() const {
  SmallString<256> dir(opt.outDir);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::append(dir, "reference-cache");
  return dir.str().str();
}

/// Loop iterations above which the float64 reference (egg-eval's CPU
/// interpreter, some 1e9 a second) is not run even once a trial per run:
/// candidates are then checked against the expert's kernels instead.
static constexpr double kInterpretedIterations = 2e9;

LogicalResult Tuner::chooseCheck() {
  if (opt.check != "auto" && opt.check != "reference" &&
      opt.check != "expert") {
    llvm::errs() << "egg-tune: unknown --check=" << opt.check
                 << " (auto, reference or expert)\n";
    return failure();
  }
  if (!onGpu)
    return success();
  auto reference = eval::Reference::create(source, "");
  if (reference)
    referenceIterations = (*reference)->iterations();
  else
    llvm::consumeError(reference.takeError());
  expertCheck =
      opt.check == "expert" ||
      (opt.check == "auto" && referenceIterations > kInterpretedIterations);
  if (expertCheck && cluster) {
    // The kept reference lives on one host's disk.
    if (opt.check == "expert") {
      llvm::errs() << "egg-tune: --check=expert is not supported with "
                      "--cluster yet\n";
      return failure();
    }
    expertCheck = false;
  }
  return success();
}

void Tuner::seedReference() {
  referenceSeeded = true;
  // The bundle with every kernel at the expert's decisions.
  SmallVector<Decision> saved;
  for (KernelInfo &k : kernels) {
    saved.push_back(k.best);
    k.best = k.initial;
  }
  std::string decisions = decisionsFor(std::nullopt);
  for (auto [k, best] : llvm::zip(kernels, saved)) {
    k.best = best;
    k.op.setStructureAttr(best.structure);
    k.op.setTuningAttr(best.tuning);
  }
  std::string dir = opt.outDir + "/reference-seed", error;
  llvm::sys::fs::create_directories(dir);
  auto giveUp = [&](const std::string &why) {
    expertCheck = false;
    llvm::errs() << "egg-tune: warning: the expert's kernels cannot stand in "
                    "for the reference ("
                 << why
                 << "): candidates are checked against the float64 "
                    "reference\n";
  };
  if (!writeFile(dir + "/decisions.json", decisions, error))
    return giveUp(error);
  CompileResult bundle = compileCandidate(opt, source, dir + "/decisions.json");
  if (!bundle.ok)
    return giveUp("they do not compile");
  if (!writeFile(dir + "/manifest.json", bundle.manifest, error))
    return giveUp(error);
  std::vector<std::string> options = {
      "--trials=" + std::to_string(opt.trials), "--timing=false",
      "--reference=kernels", "--reference-cache=" + referenceCacheDir()};
  // The candidates' own options (a seed) draw the same inputs.
  options.insert(options.end(), opt.evalArgs.begin(), opt.evalArgs.end());
  EvalRun run = runEval(dir, options, 0);
  llvm::Expected<json::Value> parsed =
      run.result ? mlir::egg::parseJson(*run.result)
                 : llvm::Expected<json::Value>(llvm::createStringError("none"));
  const json::Object *obj = parsed ? parsed->getAsObject() : nullptr;
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  if (!obj || obj->getString("status") != StringRef("ok"))
    return giveUp(llvm::formatv("egg-eval ended with status {0}: {1}", run.rc,
                                obj ? obj->getString("reason").value_or("")
                                    : StringRef(run.message))
                      .str());
}

LogicalResult Tuner::setUpEvaluator() {
  if (opt.evaluator != "gpu" && opt.evaluator != "model" &&
      opt.evaluator != "auto") {
    llvm::errs() << "egg-tune: unknown --evaluator=" << opt.evaluator << "\n";
    return failure();
  }
  if (!opt.cluster.empty())
    return failure(failed(setUpCluster()) || failed(chooseCheck()));
  if (opt.evaluator != "model") {
    evalPath = opt.evalTool;
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
    int64_t count = 1;
    if (std::optional<std::string> name = describeDevice(info, count)) {
      onGpu = true;
      device = *name;
      // At least one GPU, and no count that does not fit an unsigned.
      count = std::clamp<int64_t>(count, 1, 1 << 16);
      numGpus =
          opt.gpus ? std::min<unsigned>(opt.gpus, count) : unsigned(count);
      numGpus = std::max(1u, numGpus);
    } else if (opt.evaluator == "gpu") {
      llvm::errs() << "egg-tune: --evaluator=gpu but "
                   << (evalPath.empty() ? "egg-eval was not found"
                                        : evalPath + " sees no GPU")
                   << "\n";
      return failure();
    }
  }
  if (!onGpu)
    device = "model:" + opt.chip + " (" + target.getName().str() + ")";
  return chooseCheck();
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
  ScopedDiagnosticHandler silence(ctx.get(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<TuningAttr> t =
      expert->chooseTuning(kernels[k].op, structure, target);
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

std::vector<std::string> Tuner::evalOptions(const Candidate &c) {
  bool withBaseline;
  CandidateRecord best;
  {
    std::lock_guard<std::mutex> lock(mutex);
    withBaseline = firstEvaluation;
    firstEvaluation = false;
    best = kernels[c.kernel].bestRecord;
  }
  std::vector<std::string> args = {
      "--trials=" + std::to_string(opt.trials),
      llvm::formatv("--timeout={0}", opt.kernelTimeout).str(),
      withBaseline ? "--baseline=true" : "--baseline=false"};
  // Clearly slower than the best so far: one timed run, no checks and no
  // full statistics (the candidate cannot win; docs/egg-tune.md).
  if (opt.giveUp > 0 && best.kernelMs > 0 && best.functionMs > 0)
    args.push_back(llvm::formatv("--give-up-ms={0}",
                                 best.functionMs + opt.giveUp * best.kernelMs)
                       .str());
  // Every candidate is checked on the same inputs: the float64 reference
  // runs once a trial for the run, not once a candidate.
  if (llvm::none_of(opt.evalArgs, [](const std::string &a) {
        return StringRef(a).starts_with("--reference-cache");
      }))
    args.push_back("--reference-cache=" + referenceCacheDir());
  args.insert(args.end(), opt.evalArgs.begin(), opt.evalArgs.end());
  return args;
}

std::vector<std::string> Tuner::evalEnvironment(unsigned gpu) const {
  // The GPU this worker owns; everything else of the environment passes.
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (!StringRef(*e).starts_with("CUDA_VISIBLE_DEVICES="))
      env.push_back(*e);
  if (numGpus > 1)
    env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
  else if (const char *v = std::getenv("CUDA_VISIBLE_DEVICES"))
    env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + v);
  return env;
}

Tuner::EvalRun Tuner::runEval(const std::string &dir,
                              ArrayRef<std::string> options, unsigned gpu) {
  std::string result = dir + "/eval.json", log = dir + "/eval.log";
  llvm::sys::fs::remove(result);
  std::vector<std::string> args = {evalPath, dir + "/manifest.json",
                                   "--source=" + opt.inputPath,
                                   "--json=" + result};
  args.insert(args.end(), options.begin(), options.end());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::vector<std::string> env = evalEnvironment(gpu);
  SmallVector<StringRef> envRefs(env.begin(), env.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  EvalRun run;
  bool crashed = false;
  run.rc = runWithTimeout(evalPath, argRefs, envRefs, redirects,
                          opt.evalTimeout, run.message, crashed);
  if (auto buffer = llvm::MemoryBuffer::getFile(result))
    run.result = (*buffer)->getBuffer().str();
  return run;
}

void Tuner::evaluateOnGpu(Candidate &c, unsigned gpu) {
  EvalRun run = runEval(c.dir, evalOptions(c), gpu);
  readEvalResult(c, run.rc, run.message, std::move(run.result));
}

void Tuner::readEvalResult(Candidate &c, int rc, StringRef message,
                           std::optional<std::string> text) {
  c.record.estimate = false;
  llvm::Expected<json::Value> parsed =
      text ? mlir::egg::parseJson(*text)
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
  c.record.result = *text;
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

/// Compiles on this host's threads and times on its GPUs (or estimates),
/// recording each candidate as its result is known.
void Tuner::evaluateHere(ArrayRef<Candidate *> todo,
                         llvm::function_ref<void(Candidate &)> recordOne) {
  // 2. Compile in parallel, each in its own context.
  {
    unsigned threads =
        opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (Candidate *c : todo)
      pool.async([c, this] {
        CompileResult r =
            compileCandidate(opt, source, c->dir + "/decisions.json");
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
  if (expertCheck && !referenceSeeded && !todo.empty())
    seedReference();

  auto recordOne = [&](Candidate &c) {
    std::string error;
    std::lock_guard<std::mutex> lock(mutex);
    if (!db->record(runId, c.record, error))
      llvm::errs() << "egg-tune: cannot record a candidate: " << error << "\n";
    ++measured;
    if (c.record.status == "slower")
      ++stoppedCount;
    else if (!c.record.usable())
      ++failedCount;
  };
  if (cluster)
    evaluateOnCluster(todo, recordOne);
  else
    evaluateHere(todo, recordOne);

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
  // A round keeps every compile thread busy, or every GPU of a cluster.
  unsigned batch =
      opt.batchSize
          ? opt.batchSize
          : std::max({4u,
                      opt.jobs ? opt.jobs : std::thread::hardware_concurrency(),
                      cluster ? numGpus : 0u});
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
  // Other forms of the expert's tuning that only a measurement ranks (split
  // TF32 products beside FMA tiles).
  // (The expert's queries are quiet.)
  SmallVector<TuningAttr> alternatives =
      expert->alternativeTunings(k.op, k.initial.structure, target);
  for (TuningAttr t : alternatives)
    if (stage1.size() < opt.maxCandidates)
      stage1.push_back(makeCandidate(k.initial.structure, t, "expert", 1, 0));
  for (StructureAttr s : k.structures) {
    if (s == k.initial.structure || stage1.size() >= opt.maxCandidates)
      continue;
    if (TuningAttr t = expertTuning(index, s))
      stage1.push_back(makeCandidate(s, t, "expert", 1, 0));
  }
  progress(index, "stage 1");
  evaluate(stage1);
  if (!clusterLost.empty())
    return;
  k.initialRecord = stage1.front().record;
  if (k.bestRecord.kernelMs < 0) {
    // Nothing usable: keep the expert's choice and say so.
    progress(index, "no usable candidate in stage 1");
    return;
  }

  // Stage 2 over the best structure's legal tunings, in the expert's order.
  StructureAttr structure = k.best.structure;
  TuningAttr anchor = expertTuning(index, structure);
  // An alternative form that won stage 1 anchors the neighbourhood.
  if (llvm::is_contained(alternatives, k.best.tuning))
    anchor = k.best.tuning;
  kernels[index].op.setStructureAttr(structure);
  SmallVector<TuningAttr> space =
      enumerateTunings(k.op, target, anchor, /*limit=*/4096);
  tried.insert(k.best.tuning);
  for (Candidate &c : stage1)
    if (c.decision.structure == structure)
      tried.insert(c.decision.tuning);

  for (int64_t round = 1; budgetLeft() && k.candidates < opt.maxCandidates;
       ++round) {
    size_t room = std::min<size_t>(batch, opt.maxCandidates - k.candidates);
    SmallVector<TuningAttr> proposals;
    std::optional<TuningAttr> llmProposal;
    if (proposer) {
      // The LLM's proposal, with the analyst's summary of what was measured
      // so far (it falls back to the expert by itself).
      k.op.setStructureAttr(structure);
      k.op.removeTuningAttr();
      proposer->observe(k.op, summarizeCandidates(k.history, k.floorMs));
      FailureOr<TuningAttr> t = proposer->chooseTuning(k.op, structure, target);
      if (succeeded(t) && !tried.contains(*t) &&
          llvm::is_contained(space, *t)) {
        proposals.push_back(*t);
        llmProposal = *t;
      }
    }
    if (opt.agentName == "search") {
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
                                     : opt.agentName == "search"      ? "search"
                                                                 : "expert",
                                     2, round));
    }
    progress(index, llvm::formatv("stage 2 round {0}", round).str());
    evaluate(round2);
    if (!clusterLost.empty())
      return;
    bool improved = k.bestRecord.kernelMs < before * (1.0 - opt.minGain);
    if (!improved && opt.agentName != "search")
      break;
  }
}

int Tuner::run() {
  if (failed(analyze()) || failed(setUpEvaluator()))
    return 1;
  std::error_code ec = llvm::sys::fs::create_directories(opt.outDir);
  if (ec) {
    llvm::errs() << "egg-tune: cannot create " << opt.outDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  std::string error;
  std::string records =
      opt.dbPath.empty() ? opt.outDir + "/tune.sqlite" : opt.dbPath;
  db = TuneDatabase::open(records, error);
  if (!db) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  if (!opt.baselinesPath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(opt.baselinesPath);
    llvm::Expected<json::Value> parsed =
        buffer ? mlir::egg::parseJson((*buffer)->getBuffer())
               : llvm::Expected<json::Value>(
                     llvm::createStringError(buffer.getError().message()));
    if (!parsed || !parsed->getAsObject()) {
      llvm::errs() << "egg-tune: --baselines=" << opt.baselinesPath
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
                    opt.agentName, opt.chip, opt.maxCandidates, opt.timeBudget,
                    opt.trials)
          .str();
  runId =
      db->beginRun(opt.inputPath, inputHash, opt.agentName, device, options);
  if (!opt.quiet && !opt.jsonLines)
    llvm::errs() << "egg-tune: " << kernels.size() << " kernel(s), agent "
                 << opt.agentName << ", "
                 << (onGpu
                         ? "measuring on " + device + " (" +
                               (cluster ? clusterSize
                                        : std::to_string(numGpus) + " GPU(s)") +
                               ")"
                         : "no GPU: cost-model ESTIMATES (" + device + ")" +
                               (cluster ? ", compiling on " + clusterSize : ""))
                 << ", records " << records << "\n";
  event(json::Object{{"event", "start"},
                     {"kernels", int64_t(kernels.size())},
                     {"device", device},
                     {"estimate", !onGpu},
                     {"records", records}});
  for (size_t k = 0; k < kernels.size() && clusterLost.empty(); ++k)
    tuneKernel(k);
  if (!clusterLost.empty()) {
    llvm::errs() << "egg-tune: the cluster cannot be used any more: "
                 << clusterLost << "\negg-tune: what was measured is in "
                 << records << "; run again to resume\n";
    db->finishRun(runId, "failed");
    return 1;
  }
  int rc = finish();
  db->finishRun(runId, rc == 0 ? "done" : "failed");
  return rc;
}

int mlir::egg::runTuner(const TuneOptions &options) {
  return Tuner(options).run();
}
