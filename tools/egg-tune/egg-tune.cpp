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

#include "egg/Agents/LlmClient.h"
#include "egg/Tune/Tuner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdlib>

namespace cl = llvm::cl;

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
static cl::opt<double> giveUp(
    "give-up",
    cl::desc("Stop a candidate after one timed run when it exceeds the best "
             "function time so far by this share of the best kernel's time "
             "(default 0.5: a kernel 1.5x the best; 0: measure every "
             "candidate in full)"),
    cl::init(0.5), cl::cat(tuneCategory));
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
static cl::opt<std::string> clusterSpec(
    "cluster",
    cl::desc("Compile candidates as CPU tasks and time them as one-GPU tasks "
             "on a Ray cluster: ray (RAY_ADDRESS, else a local one), "
             "ray:auto or ray:ADDRESS (docs/cluster.md)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> clusterPython(
    "cluster-python",
    cl::desc("Python with Ray and the egg package, for --cluster (default: "
             "$EGG_PYTHON, else python3)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string>
    bundlePath("bundle",
               cl::desc("Static tool archive shipped to the cluster's workers "
                        "(scripts/build-bundle.sh; default: $EGG_BUNDLE; "
                        "without one, workers run the tools this host finds)"),
               cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> checkAgainst(
    "check",
    cl::desc("What candidates' outputs are checked against: reference (the "
             "float64 interpretation of the input, once a trial per run), "
             "expert (the expert's kernels' outputs, for inputs too large "
             "to interpret) or auto (expert above 2e9 loop iterations)"),
    cl::init("auto"), cl::cat(tuneCategory));
static cl::opt<bool> quiet("quiet", cl::desc("No progress lines"),
                           cl::init(false), cl::cat(tuneCategory));
static cl::opt<bool>
    jsonLines("json-lines",
              cl::desc("Events as JSON lines on stdout (implies --quiet)"),
              cl::init(false), cl::cat(tuneCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::egg::registerLlmCLOptions();
  cl::HideUnrelatedOptions({&tuneCategory, &mlir::egg::getLlmOptionCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "egg-tune: find the fastest correct kernels for an input, with "
      "records, a decisions file and a report\n");
  mlir::egg::TuneOptions options;
  options.inputPath = inputPath;
  options.outDir = outDir;
  options.agentName = agentName;
  options.chip = chip;
  options.splitK = splitK;
  options.evaluator = evaluator;
  options.evalTool = evalTool;
  options.dbPath = dbPath;
  options.maxCandidates = maxCandidates;
  options.timeBudget = timeBudget;
  options.jobs = jobs;
  options.gpus = gpus;
  options.batchSize = batchSize;
  options.trials = trials;
  options.kernelTimeout = kernelTimeout;
  options.evalTimeout = evalTimeout;
  options.minGain = minGain;
  options.giveUp = giveUp;
  options.evalArgs.assign(evalArgs.begin(), evalArgs.end());
  options.baselinesPath = baselinesPath;
  options.cudaPath = cudaPath;
  options.quiet = quiet;
  options.jsonLines = jsonLines;
  options.check = checkAgainst;
  options.cluster = clusterSpec;
  options.clusterPython = clusterPython;
  options.bundle = bundlePath.empty() && std::getenv("EGG_BUNDLE")
                       ? std::getenv("EGG_BUNDLE")
                       : bundlePath.getValue();
  return mlir::egg::runTuner(options);
}
