//===- TunerCluster.cpp - egg-tune's candidates on a Ray cluster ----------===//
//
// With --cluster, candidates are compiled and timed by the cluster server
// (ClusterClient.h) instead of this host's threads and GPUs; everything
// else (the agents, the rounds, the records) stays in this process. A
// result is recorded the moment it comes back, so a killed egg-tune
// resumes from its records as it does without a cluster. If the cluster
// goes away the run stops with its records kept: what it did not measure
// is not recorded as failed.
//
//===----------------------------------------------------------------------===//

#include "TunerImpl.h"
#include "egg/Support/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <map>

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::tune;

LogicalResult Tuner::setUpCluster() {
  if (std::error_code ec = llvm::sys::fs::create_directories(opt.outDir)) {
    llvm::errs() << "egg-tune: cannot create " << opt.outDir << ": "
                 << ec.message() << "\n";
    return failure();
  }
  std::string python = opt.clusterPython;
  if (python.empty())
    python = std::getenv("EGG_PYTHON") ? std::getenv("EGG_PYTHON") : "python3";
  // Paths a worker opens are absolute: its tasks start elsewhere.
  auto absolute = [](const std::string &path) {
    if (path.empty())
      return path;
    SmallString<256> p(path);
    llvm::sys::fs::make_absolute(p);
    return p.str().str();
  };
  json::Object setup{
      {"source", source},
      {"source_name", llvm::sys::path::filename(opt.inputPath).str()},
      {"pipeline", json::Object{{"chip", opt.chip},
                                {"split-k", opt.splitK ? "true" : "false"},
                                {"cuda-path", opt.cudaPath}}},
      {"evaluate", opt.evaluator != "model"},
      {"eval_tool", absolute(opt.evalTool)},
      {"eval_timeout", opt.evalTimeout},
      {"bundle", absolute(opt.bundle)}};
  std::string error;
  cluster = ClusterClient::start(python, opt.cluster, std::move(setup),
                                 opt.outDir + "/cluster.log", error);
  if (!cluster) {
    llvm::errs() << "egg-tune: --cluster=" << opt.cluster << ": " << error
                 << "\n";
    return failure();
  }
  const json::Object &ready = cluster->ready();
  int64_t nodes = jsonInteger(ready, "nodes").value_or(0);
  int64_t gpus = jsonInteger(ready, "gpus").value_or(0);
  clusterSize =
      llvm::formatv("a Ray cluster of {0} node(s), {1} CPU(s), "
                    "{2} GPU(s)",
                    nodes, jsonInteger(ready, "cpus").value_or(0), gpus)
          .str();
  int64_t count = 0;
  std::optional<StringRef> info = ready.getString("device_info");
  if (std::optional<std::string> name =
          info ? describeDevice(*info, count) : std::nullopt) {
    // Records are keyed by the device: a cluster's GPUs must be of one kind.
    onGpu = true;
    device = *name;
    numGpus = unsigned(std::clamp<int64_t>(gpus, 1, 1 << 16));
  } else if (opt.evaluator == "gpu") {
    llvm::errs() << "egg-tune: --evaluator=gpu but " << clusterSize
                 << " has no GPU egg-eval can see\n";
    return failure();
  } else {
    device = "model:" + opt.chip + " (" + target.getName().str() + ")";
  }
  return success();
}

void Tuner::evaluateOnCluster(ArrayRef<Candidate *> todo,
                              llvm::function_ref<void(Candidate &)> recordOne) {
  if (!clusterLost.empty())
    return;
  std::map<int64_t, Candidate *> waiting;
  for (Candidate *c : todo) {
    int64_t id = nextRequest++;
    json::Object request{
        {"op", "candidate"}, {"id", id}, {"decisions", c->decisionsText}};
    if (onGpu) {
      json::Array args;
      for (std::string &a : evalOptions(*c))
        args.push_back(std::move(a));
      request["eval_args"] = std::move(args);
    }
    if (!cluster->send(json::Value(std::move(request)))) {
      clusterLost = "the cluster server stopped taking candidates";
      return;
    }
    waiting[id] = c;
  }
  while (!waiting.empty()) {
    std::optional<json::Object> message = cluster->next(clusterLost);
    if (!message)
      return;
    std::optional<int64_t> id = jsonInteger(*message, "id");
    auto it = id ? waiting.find(*id) : waiting.end();
    if (it == waiting.end())
      continue; // Not a result this batch waits for.
    Candidate &c = *it->second;
    waiting.erase(it);
    readClusterResult(c, *message);
    recordOne(c);
  }
}

void Tuner::readClusterResult(Candidate &c, const json::Object &message) {
  std::string error;
  const json::Object *compiled = message.getObject("compile");
  bool ok = compiled && compiled->getBoolean("ok").value_or(false);
  c.record.diagnostics =
      compiled ? compiled->getString("diagnostics").value_or("").str()
               : "the cluster sent no compile result";
  c.manifestText = ok ? compiled->getString("manifest").value_or("").str() : "";
  if (ok && !writeFile(c.dir + "/manifest.json", c.manifestText, error)) {
    ok = false;
    c.record.diagnostics = error;
  }
  c.record.compileStatus = ok ? "ok" : "error";
  if (!ok) {
    c.record.status = "compile-error";
    return;
  }
  if (!onGpu) {
    estimate(c);
    return;
  }
  const json::Object *ev = message.getObject("eval");
  if (!ev) {
    readEvalResult(c, -1, "the cluster sent no timing result", std::nullopt);
    return;
  }
  std::optional<std::string> text;
  if (auto result = ev->getString("result")) {
    text = result->str();
    (void)writeFile(c.dir + "/eval.json", *text, error);
  }
  (void)writeFile(c.dir + "/eval.log", ev->getString("log").value_or(""),
                  error);
  bool timedOut = ev->getBoolean("timed_out").value_or(false);
  bool crashed = ev->getBoolean("crashed").value_or(false);
  int rc = int(jsonInteger(*ev, "rc").value_or(-1));
  std::string why =
      timedOut  ? llvm::formatv("killed after {0} s", opt.evalTimeout).str()
      : crashed ? "killed by a signal on the cluster"
                : "";
  readEvalResult(c, timedOut ? kTimedOut : rc, why, text);
  // A fault that another GPU did not repeat says so.
  if (jsonInteger(message, "attempts").value_or(1) > 1)
    c.record.diagnostics +=
        (c.record.diagnostics.empty() ? "" : "; ") +
        std::string("timed a second time, on another node where there was "
                    "one, after the first run faulted");
}
