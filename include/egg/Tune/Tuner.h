//===- Tuner.h - egg-tune's loop as a library -------------------*- C++ -*-===//
//
// egg-tune (docs/egg-tune.md) is this loop behind a command line: stage-1
// and stage-2 rounds of candidates, compiled in parallel, measured by
// egg-eval on the GPU (or ranked by the cost model), recorded in SQLite,
// and written out as a decisions file, a bundle and a report.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_TUNER_H
#define EGG_TUNE_TUNER_H

#include <string>
#include <vector>

namespace mlir::egg {

/// What one tuning run does; the fields are egg-tune's options, with its
/// defaults (tools/egg-tune/egg-tune.cpp documents each).
struct TuneOptions {
  std::string inputPath, outDir;
  std::string agentName = "expert";
  std::string chip = "sm_90a";
  bool splitK = true;
  std::string evaluator = "auto";
  std::string evalTool, dbPath;
  unsigned maxCandidates = 24;
  double timeBudget = 0;
  unsigned jobs = 0, gpus = 0, batchSize = 0, trials = 2;
  double kernelTimeout = 10, evalTimeout = 600, minGain = 0.02;
  /// A candidate whose first timed run exceeds the best function time so
  /// far plus this share of the best kernel's time stops there (egg-eval
  /// --give-up-ms): it cannot win. 0: every candidate is checked and timed
  /// in full.
  double giveUp = 0.5;
  std::vector<std::string> evalArgs;
  std::string baselinesPath, cudaPath;
  bool quiet = false, jsonLines = false;
  /// `ray[:ADDRESS]`: compile and time on a Ray cluster (TunerCluster.cpp);
  /// empty: on this host.
  std::string cluster, clusterPython, bundle;
  /// What candidates are checked against: auto, reference (float64) or
  /// expert (the expert's kernels' outputs).
  std::string check = "auto";
};

/// Runs the loop; the process exit status (0 when the outputs were written).
int runTuner(const TuneOptions &options);

} // namespace mlir::egg

#endif // EGG_TUNE_TUNER_H
