//===- TunerOutput.cpp - egg-tune's progress, decisions and report --------===//

#include "TunerImpl.h"
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

void Tuner::progress(size_t k, StringRef what) {
  if (opt.quiet || opt.jsonLines)
    return;
  const KernelInfo &info = kernels[k];
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::string left =
      opt.timeBudget > 0
          ? llvm::formatv(", {0:f0} s left",
                          std::max(0.0, opt.timeBudget - elapsed))
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
      info.name, what, info.candidates, opt.maxCandidates, best, left);
}

void Tuner::event(json::Object e) {
  if (!opt.jsonLines)
    return;
  llvm::outs() << json::Value(std::move(e)) << "\n";
  llvm::outs().flush();
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
  c.dir = opt.outDir + (initial ? "/function-initial" : "/function-best");
  llvm::sys::fs::create_directories(c.dir);
  std::string error;
  CompileResult bundle;
  if (built) {
    bundle = {true, "", *built};
  } else {
    std::string path = c.dir + "/decisions.json";
    if (!writeFile(path, decisionsFor(std::nullopt), error))
      return -1;
    bundle = compileCandidate(opt, source, path);
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
  if (onGpu && cluster) {
    c.decisionsText = decisionsFor(std::nullopt);
    evaluateOnCluster({&c}, [](Candidate &) {});
  } else if (onGpu) {
    evaluateOnGpu(c, 0);
  } else {
    estimate(c);
  }
  return c.record.usable() ? c.record.functionMs : -1;
}

int Tuner::finish() {
  std::string error;
  std::string stem = llvm::sys::path::stem(opt.inputPath).str();
  // The best decisions, replayable by egg-opt.
  std::string decisions = decisionsFor(std::nullopt);
  std::string decisionsPath = opt.outDir + "/" + stem + ".decisions.json";
  if (!writeFile(decisionsPath, decisions, error)) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  // Rebuild from the file alone: this is the bundle the user gets, and it
  // must match what was measured byte for byte.
  CompileResult final = compileCandidate(opt, source, decisionsPath);
  if (!final.ok) {
    llvm::errs() << "egg-tune: the best decisions do not compile:\n"
                 << final.diagnostics;
    return 1;
  }
  std::string manifestPath = opt.outDir + "/" + stem + ".manifest.json";
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
              (void)writeFile(opt.outDir + "/" + name->str() + ".ptx",
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
      {"input", opt.inputPath},
      {"input_sha256", inputHash},
      {"agent", opt.agentName},
      {"device", device},
      {"estimate", !onGpu},
      // What a candidate's outputs were checked against.
      {"check", !onGpu        ? "none (estimates)"
                : expertCheck ? "the expert's kernels (egg-eval "
                                "--reference=kernels)"
                              : "the float64 reference"},
      {"candidates_measured", measured},
      {"candidates_cached", cached},
      {"candidates_failed", failedCount},
      {"candidates_stopped_early", stoppedCount},
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
  if (!writeFile(opt.outDir + "/report.json",
                 llvm::formatv("{0:2}\n", reportValue).str(), error) ||
      !writeFile(opt.outDir + "/report.html", renderReportHtml(reportValue),
                 error)) {
    llvm::errs() << "egg-tune: " << error << "\n";
    return 1;
  }
  event(json::Object{{"event", "done"},
                     {"initial_ms", initialMs},
                     {"best_ms", bestMs},
                     {"estimate", !onGpu},
                     {"report", opt.outDir + "/report.html"}});
  if (opt.jsonLines)
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
      "from records, {5} failed, {7} stopped early; {6:f1} s\n",
      initialMs, bestMs, est, measured, cached, failedCount, wall,
      stoppedCount);
  for (auto &[name, ms] : baselines)
    if (auto v = ms.getAsNumber(); v && bestMs > 0)
      llvm::outs() << llvm::formatv("  vs {0}: {1:f4} ms ({2:f2}x)\n", name, *v,
                                    *v / bestMs);
  llvm::outs() << "decisions: " << decisionsPath << "\nreport: " << opt.outDir
               << "/report.html\n";
  return 0;
}
