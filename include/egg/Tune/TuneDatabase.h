//===- TuneDatabase.h - egg-tune's records ----------------------*- C++ -*-===//
//
// Every candidate egg-tune builds is recorded in an SQLite file the moment
// its result is known: decisions, compile status and diagnostics, the
// verdict, times, and egg-eval's whole result. The same rows are the cache:
// a candidate (kernel fingerprint, device, decisions) already recorded is
// never built or measured again, which is also how an interrupted run
// resumes. Schema: docs/egg-tune.md.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_TUNEDATABASE_H
#define EGG_TUNE_TUNEDATABASE_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::egg {

struct CandidateRecord {
  // Identity (unique together).
  std::string fingerprint, device, structure, tuning;
  // Where it came from.
  std::string kernel, proposer;
  int64_t stage = 0, round = 0;
  /// "ok" or "error" (diagnostics say why).
  std::string compileStatus;
  std::string diagnostics;
  /// egg-eval's status ("ok", "incorrect", "fault", "timeout", "error"),
  /// "estimate" from the cost model, or "compile-error".
  std::string status;
  /// The kernel's own time and the whole function's, in ms; < 0 if none.
  double kernelMs = -1, functionMs = -1;
  bool estimate = false;
  /// egg-eval's result JSON (or the cost model's figures).
  std::string result;
  /// Set by lookups: the row came from an earlier run.
  bool cached = false;

  bool usable() const { return status == "ok" || status == "estimate"; }
};

class TuneDatabase {
public:
  static std::unique_ptr<TuneDatabase> open(const std::string &path,
                                            std::string &error);
  ~TuneDatabase();

  /// Starts a run; its id tags the candidates it records.
  int64_t beginRun(const std::string &input, const std::string &inputHash,
                   const std::string &agent, const std::string &device,
                   const std::string &options);
  void finishRun(int64_t run, const std::string &status);

  std::optional<CandidateRecord> lookup(const std::string &fingerprint,
                                        const std::string &device,
                                        const std::string &structure,
                                        const std::string &tuning);

  /// Records `c` (ignored if the same candidate is already there). False
  /// with `error` set when the write failed.
  bool record(int64_t run, const CandidateRecord &c, std::string &error);

  /// Number of candidates recorded for `fingerprint` on `device`.
  int64_t count(const std::string &fingerprint, const std::string &device);

private:
  struct Impl;
  explicit TuneDatabase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::egg

#endif // EGG_TUNE_TUNEDATABASE_H
