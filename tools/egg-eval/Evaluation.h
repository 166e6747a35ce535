//===- Evaluation.h - One egg-eval run --------------------------*- C++ -*-===//
//
// egg-eval (docs/egg-eval.md) in phases, each in its own file:
//   DeviceSetup.cpp  context, modules, buffers, arguments, launches
//   Checks.cpp       correctness trials against the float64 reference
//   Ceilings.cpp     bandwidth and peak rates, measured or from the profile
//   Timing.cpp       timed runs, roofline, same-size copy, cuBLAS baseline
//   Counters.cpp     hardware counters through Nsight Compute
// egg-eval.cpp reads the options, the manifest and the source and runs the
// phases in order; any phase may end the process with the report.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TOOLS_EGG_EVAL_EVALUATION_H
#define EGG_TOOLS_EGG_EVAL_EVALUATION_H

#include "Cublas.h"
#include "CudaDriver.h"
#include "egg/Eval/Check.h"
#include "egg/Eval/Manifest.h"
#include "egg/Eval/Reference.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace mlir::egg::eval {

namespace json = llvm::json;

/// The result, filled as the run goes and written however it ends.
struct Report {
  json::Object root{{"format", "egg-eval"}, {"version", 1}};
  std::string status = "error";
  std::string reason;
  /// Where the JSON result goes (--json); empty: stdout only.
  std::string jsonPath;

  void print() {
    root["status"] = status;
    if (!reason.empty())
      root["reason"] = reason;
    if (!jsonPath.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(jsonPath, ec);
      if (!ec)
        os << llvm::formatv("{0:2}", json::Value(json::Object(root))) << "\n";
      else
        llvm::errs() << "egg-eval: cannot write " << jsonPath << ": "
                     << ec.message() << "\n";
    }
    llvm::outs() << "status: " << status;
    if (!reason.empty())
      llvm::outs() << " (" << reason << ")";
    llvm::outs() << "\n";
    llvm::outs().flush();
  }

  [[noreturn]] void finish(const std::string &s, const std::string &why,
                           int code) {
    status = s;
    reason = why;
    print();
    // Quick exit: after a fault the CUDA context cannot be torn down
    // cleanly, and a hung kernel may still be running.
    std::_Exit(code);
  }
};

/// How the L2 cache is flushed between timed runs (--l2-flush).
enum class L2Flush { Write, Read };

/// The options the phases read (egg-eval's command line).
struct EvalOptions {
  std::string manifestPath, sourcePath;
  unsigned trials = 5, seed = 0;
  bool timing = true, overlapLaunches = true, hotCache = false;
  L2Flush l2Flush = L2Flush::Write;
  double budgetMs = 0, timeoutS = 0;
  /// With a positive value: stop as "slower" when a first timed run of the
  /// function takes longer (--give-up-ms).
  double giveUpMs = 0;
  bool baseline = false;
  std::string ceilings;
  bool useNcu = false, cudaGraph = false;
  /// --reference=kernels: each trial's reference is this manifest's own
  /// output, handed to `keepReference` (the reference cache) so later
  /// evaluations check against it; nothing is judged in this run.
  std::function<void(const std::vector<RefTensor> &,
                     const std::vector<RefTensor> &)>
      keepReference;
};

class Evaluation {
public:
  Evaluation(Report &report, const EvalOptions &opts, const Manifest &manifest,
             const Function &function, Reference &reference, unsigned threads)
      : report(report), opts(opts), manifest(manifest), function(&function),
        reference(reference), threads(threads), inputs(function.inputs()),
        outputs(function.outputs()) {}

  /// The CUDA context, stream and device attributes.
  void setUpDevice();
  /// JIT of the manifest's PTX; the kernels of its launches.
  void loadKernels();
  /// The function's buffers and the L2 flush buffer.
  void allocateBuffers();
  /// Each launch's parameters (TMA tensor maps encoded once).
  void bindArguments();
  /// The correctness trials; ends the process "incorrect" on a failure.
  void checkTrials();
  /// Puts trial 0's inputs (or fresh normal(0,1) ones) back for timing.
  void uploadTimingInputs();
  /// Events and cuBLAS for the timed phases (once; later calls do nothing).
  void prepareTiming();
  /// Bandwidth and peak rates: measured once per device and cached, or
  /// the target profile's.
  void measureCeilings();
  /// The timed runs, the roofline and the baselines (with --timing).
  void time();
  /// With --give-up-ms, before the checks: a warmed-up run of the function;
  /// when it takes longer than the limit, ends the process with status
  /// "slower" and that run's time (the caller's best is out of reach).
  void giveUpIfSlower();
  /// Nsight Compute's counters for one run of this same binary.
  void collectCounters(const char *argv0);

private:
  /// This manifest's outputs for `args` (uploaded, run, downloaded).
  std::vector<RefTensor> kernelOutputs(const std::vector<RefTensor> &args);
  void check(CUresult r, const char *what);
  CUresult flushL2(int64_t r);
  CUdeviceptr encodeTensorMap(const KernelArg &arg);
  /// Whether step `i` launches while the kernel before it runs
  /// (programmatic dependent launch).
  bool overlaps(size_t i);
  CUresult launch(size_t i);
  /// Every step of the function, in order on the stream.
  CUresult launchAll();
  /// Waits for the stream; a fault or a hang ends the process.
  void waitOrDie(const char *what);
  void runOnce(const char *what);
  /// Times `body` the way every figure here is timed (docs/egg-eval.md):
  /// L2 flushed before each run unless --hot-cache, events around the work,
  /// warm-up, adaptive number of runs, median. `prepare` (untimed) runs
  /// after the flush, before the start event.
  Stats timeLoop(const std::function<CUresult()> &body, int64_t fixedRuns,
                 const std::function<void()> &prepare = nullptr);

  Report &report;
  const EvalOptions &opts;
  const Manifest &manifest;
  const Function *function;
  Reference &reference;
  unsigned threads;
  std::vector<int64_t> inputs, outputs;

  ::egg::cuda::Driver cu;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  char deviceName[256] = {0};
  int major = 0, minor = 0, smCount = 0, l2Bytes = 0;
  llvm::StringMap<CUmodule> modules;
  std::vector<CUfunction> kernels;
  std::vector<CUdeviceptr> ptrs;
  size_t flushBytes = 0;
  CUdeviceptr flush = 0;
  CUfunction sweep = nullptr;
  uint64_t sweepPieces = 0;
  uint32_t never = 1;
  std::vector<void *> sweepArgs;
  std::vector<std::vector<void *>> params;
  std::vector<std::vector<uint64_t>> storage;
  std::vector<CUdeviceptr> tensorMaps;

  bool half = false, tf32 = false;
  std::mt19937_64 rng;
  std::string timingDistribution;
  std::vector<std::vector<uint8_t>> timingInputs;

  CUevent start = nullptr, stop = nullptr;
  ::egg::cuda::Cublas blas;
  std::string blasWhy;
  bool haveBlas = false;
  double bandwidthGbps = 0, fp32Gflops = 0, tensorGflops = 0;
  std::string ceilingSource = "target profile";
};

} // namespace mlir::egg::eval

#endif // EGG_TOOLS_EGG_EVAL_EVALUATION_H
