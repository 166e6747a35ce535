//===- TunerImpl.h - egg-tune's loop, inside lib/Tune -----------*- C++ -*-===//
//
// The Tuner behind runTuner (Tuner.h), in four files: Tuner.cpp sets up
// and runs the stage-1/stage-2 rounds, TunerOutput.cpp writes progress,
// the decisions file, the bundle and the report, TuneProcesses.cpp compiles
// candidates and runs egg-eval with a deadline, TunerCluster.cpp hands
// candidates to a Ray cluster instead (--cluster).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_TUNERIMPL_H
#define EGG_TUNE_TUNERIMPL_H

#include "ClusterClient.h"
#include "egg/Agents/Agent.h"
#include "egg/Agents/KernelWork.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Support/Hash.h"
#include "egg/Tune/TuneDatabase.h"
#include "egg/Tune/Tuner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <mutex>
#include <optional>

namespace mlir::egg::tune {

namespace json = llvm::json;

using Clock = std::chrono::steady_clock;

bool writeFile(const std::string &path, StringRef text, std::string &error);

/// Exit status runWithTimeout gives a program it had to kill.
constexpr int kTimedOut = -1000;

/// Runs a program and waits at most `seconds` for it, then kills it
/// (kTimedOut); a program that dies of a signal gives -2 and `crashed`.
/// ExecuteAndWait's own timeout relies on SIGALRM reaching the waiting
/// thread, which it does not in a worker thread; so poll instead.
int runWithTimeout(StringRef program, ArrayRef<StringRef> args,
                   ArrayRef<StringRef> env,
                   ArrayRef<std::optional<StringRef>> redirects, double seconds,
                   std::string &message, bool &crashed);

/// "<name> (cc <major.minor>)" from egg-eval's --device-info JSON, with
/// `count` its GPUs; nullopt where it names no GPU.
std::optional<std::string> describeDevice(StringRef info, int64_t &count);

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
CompileResult compileCandidate(const TuneOptions &opt,
                               const std::string &source,
                               const std::string &decisionsPath);

class Tuner {
public:
  explicit Tuner(const TuneOptions &opt) : opt(opt) {}
  int run();

private:
  // Set-up.
  LogicalResult analyze();
  LogicalResult setUpEvaluator();
  /// --check: whether candidates are checked against the expert's kernels.
  LogicalResult chooseCheck();
  // The loop.
  void tuneKernel(size_t k);
  void evaluate(std::vector<Candidate> &batch);
  void evaluateHere(ArrayRef<Candidate *> todo,
                    llvm::function_ref<void(Candidate &)> recordOne);
  void evaluateOnGpu(Candidate &c, unsigned gpu);
  /// egg-eval on `dir`/manifest.json with `options`, on GPU `gpu` of this
  /// host: its exit status, its message and its JSON result (eval.json in
  /// `dir`, the log beside it).
  struct EvalRun {
    int rc = -1;
    std::string message;
    std::optional<std::string> result;
  };
  EvalRun runEval(const std::string &dir, ArrayRef<std::string> options,
                  unsigned gpu);
  /// egg-eval's environment on GPU `gpu` of this host.
  std::vector<std::string> evalEnvironment(unsigned gpu) const;
  /// egg-eval's options after the manifest, source and result paths (the
  /// first evaluation of a run also times the baselines).
  /// egg-eval's options for candidate `c` (with --give-up-ms once its
  /// kernel has a best).
  std::vector<std::string> evalOptions(const Candidate &c);
  /// Fills `c.record` from egg-eval's exit status and its JSON result.
  void readEvalResult(Candidate &c, int rc, StringRef message,
                      std::optional<std::string> text);
  /// Where egg-eval keeps the float64 references of this run.
  std::string referenceCacheDir() const;
  /// With the expert's check: its kernels' outputs become the reference
  /// every candidate is checked against, once per run.
  void seedReference();
  // On a cluster (TunerCluster.cpp).
  LogicalResult setUpCluster();
  void evaluateOnCluster(ArrayRef<Candidate *> todo,
                         llvm::function_ref<void(Candidate &)> recordOne);
  void readClusterResult(Candidate &c, const json::Object &message);
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
    return opt.outDir + "/candidates/" +
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
    return opt.timeBudget <= 0 ||
           std::chrono::duration<double>(Clock::now() - start).count() <
               opt.timeBudget;
  }

  const TuneOptions &opt;
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
  std::unique_ptr<ClusterClient> cluster;
  /// Why the cluster can no longer be used; the run stops, its records kept.
  std::string clusterLost;
  int64_t nextRequest = 0;
  std::string clusterSize;
  /// Candidates are checked against the expert's kernels instead of the
  /// float64 reference (--check; too large to interpret even once a run).
  bool expertCheck = false, referenceSeeded = false;
  double referenceIterations = 0;
  bool firstEvaluation = true;
  std::mutex mutex; // Guards the database and the counters below.
  int64_t measured = 0, cached = 0, failedCount = 0, stoppedCount = 0;
  json::Object baselines;
  double bandwidthGbps = 0, peakGflops = 0;
};

} // namespace mlir::egg::tune

#endif // EGG_TUNE_TUNERIMPL_H
