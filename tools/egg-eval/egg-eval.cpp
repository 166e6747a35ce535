//===- egg-eval.cpp - Run, check and time compiled kernels on the GPU -----===//
//
//   egg-eval kernels.manifest.json --source=input.mlir [--json=result.json]
//
// Runs the manifest's launch sequence on fresh random inputs, checks every
// output against the float64 reference interpretation of the source, then
// times the whole function and each kernel with CUDA events. What it checks
// and why: docs/egg-eval.md. Exit status: 0 correct, 1 incorrect, 2 fault or
// timeout, 3 usage or setup error.
//
//===----------------------------------------------------------------------===//

#include "Evaluation.h"
#include "egg/Eval/ReferenceCache.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>
#include <thread>

using namespace mlir::egg::eval;
namespace json = llvm::json;
namespace cl = llvm::cl;

static cl::OptionCategory evalCategory("egg-eval options");

static cl::opt<std::string> manifestPath(cl::Positional, cl::Optional,
                                         cl::desc("<manifest.json>"),
                                         cl::cat(evalCategory));
static cl::opt<bool>
    deviceInfo("device-info",
               cl::desc("Print the GPUs this process sees (JSON: name, "
                        "compute_capability, sm_count, count) and exit"),
               cl::init(false), cl::cat(evalCategory));
static cl::opt<std::string> referenceIo(
    "reference-io",
    cl::desc("Only run the float64 reference of --source on the CPU: read "
             "DIR/arg<N>.f64 (raw little-endian float64, the argument's "
             "shape), write DIR/result<N>.f64; no GPU, no manifest"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(evalCategory));
static cl::opt<std::string> sourcePath(
    "source",
    cl::desc("The input MLIR the manifest was compiled from (reference)"),
    cl::cat(evalCategory));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("Function to evaluate (default: the first)"),
                 cl::init(""), cl::cat(evalCategory));
static cl::opt<unsigned> trials("trials",
                                cl::desc("Correctness trials, fresh inputs "
                                         "each (at least 5 recommended)"),
                                cl::init(5), cl::cat(evalCategory));
static cl::opt<unsigned> seed("seed", cl::desc("Random seed"), cl::init(0),
                              cl::cat(evalCategory));
static cl::opt<bool> timing("timing", cl::desc("Time the function"),
                            cl::init(true), cl::cat(evalCategory));
static cl::opt<bool> overlapLaunches(
    "overlap-launches",
    cl::desc("Launch a step the manifest marks waits_for_previous while the "
             "kernel before it runs (programmatic dependent launch, sm_90+)"),
    cl::init(true), cl::cat(evalCategory));
static cl::opt<bool> hotCache("hot-cache",
                              cl::desc("Do not flush L2 between timed runs"),
                              cl::init(false), cl::cat(evalCategory));

static cl::opt<L2Flush> l2Flush(
    "l2-flush", cl::desc("How L2 is flushed before each timed run"),
    cl::values(
        clEnumValN(L2Flush::Write, "write",
                   "write a buffer of twice L2's size (what PyTorch's and "
                   "Triton's timers do): L2 is left full of dirty lines, "
                   "which the timed run writes back as it evicts them"),
        clEnumValN(L2Flush::Read, "read",
                   "read such a buffer (written once, untimed): L2 is left "
                   "clean, as after ncu's cache flush")),
    cl::init(L2Flush::Write), cl::cat(evalCategory));
static cl::opt<double> budgetMs("timing-budget-ms",
                                cl::desc("Time spent in timed runs"),
                                cl::init(300), cl::cat(evalCategory));
static cl::opt<double> giveUpMs(
    "give-up-ms",
    cl::desc("Before the checks, time one run of the function; when it takes "
             "longer than this many ms, stop with status 'slower' (egg-tune "
             "passes its best so far: such a candidate cannot win). 0: never"),
    cl::init(0), cl::cat(evalCategory));
static cl::opt<double> timeoutS("timeout",
                                cl::desc("Seconds before a run counts as hung"),
                                cl::init(10), cl::cat(evalCategory));
static cl::opt<std::string> jsonPath("json",
                                     cl::desc("Write the result as JSON here"),
                                     cl::init(""), cl::cat(evalCategory));
static cl::opt<bool>
    cudaGraph("cuda-graph",
              cl::desc("Time replays of a CUDA graph of the launch sequence"),
              cl::init(false), cl::cat(evalCategory));
static cl::opt<bool> baseline(
    "baseline",
    cl::desc("Time cuBLAS on the function's contraction in the same run"),
    cl::init(true), cl::cat(evalCategory));
static cl::opt<std::string> ceilings(
    "ceilings",
    cl::desc("Roofline ceilings: 'measure' (once per device, cached in "
             "~/.cache/egg) or 'profile' (the manifest's target profile)"),
    cl::init("measure"), cl::cat(evalCategory));
static cl::opt<bool>
    useNcu("ncu",
           cl::desc("Read hardware counters of each kernel with Nsight "
                    "Compute when it is installed"),
           cl::init(false), cl::cat(evalCategory));
static cl::opt<double> maxReferenceIterations(
    "max-reference-iterations",
    cl::desc("Refuse sources whose float64 reference takes more loop "
             "iterations than this per trial (it runs on the CPU)"),
    cl::init(1e11), cl::cat(evalCategory));
static cl::opt<std::string> referenceCache(
    "reference-cache",
    cl::desc("Keep the float64 reference's results in DIR and reuse them for "
             "the same source and inputs (egg-tune passes one per run)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(evalCategory));
static cl::opt<std::string> referenceSource(
    "reference",
    cl::desc("interpreter (default): check against the float64 reference; "
             "kernels: keep this manifest's outputs in --reference-cache as "
             "the reference later runs check against (egg-tune, for sources "
             "too large to interpret once per run)"),
    cl::init("interpreter"), cl::cat(evalCategory));
static cl::opt<unsigned>
    cpuThreads("cpu-threads",
               cl::desc("CPU threads for the reference (0: all)"), cl::init(0),
               cl::cat(evalCategory));

/// The phases' options, from the command line.
static EvalOptions evalOptions() {
  EvalOptions o;
  o.manifestPath = manifestPath;
  o.sourcePath = sourcePath;
  o.trials = trials;
  o.seed = seed;
  o.timing = timing;
  o.overlapLaunches = overlapLaunches;
  o.hotCache = hotCache;
  o.l2Flush = l2Flush;
  o.budgetMs = budgetMs;
  o.giveUpMs = giveUpMs;
  o.timeoutS = timeoutS;
  o.baseline = baseline;
  o.ceilings = ceilings;
  o.useNcu = useNcu;
  o.cudaGraph = cudaGraph;
  return o;
}

/// --reference-io: the reference alone, for front ends that check their
/// importer on machines without a GPU (python/tests).
static int runReferenceOnly() {
  auto fail = [](const llvm::Twine &why) {
    llvm::errs() << "egg-eval: " << why << "\n";
    return 3;
  };
  auto source = llvm::MemoryBuffer::getFile(sourcePath);
  if (!source)
    return fail("cannot read " + sourcePath);
  auto reference = Reference::create((*source)->getBuffer(), functionName);
  if (!reference)
    return fail(llvm::toString(reference.takeError()));
  if ((*reference)->iterations() > maxReferenceIterations)
    return fail("the reference is too large for the CPU");
  std::vector<RefTensor> args;
  const auto &shapes = (*reference)->argShapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::string path = referenceIo + "/arg" + std::to_string(i) + ".f64";
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buffer)
      return fail("cannot read " + path);
    RefTensor t;
    t.shape = shapes[i];
    size_t n = 1;
    for (int64_t d : t.shape)
      n *= size_t(d);
    if ((*buffer)->getBufferSize() != n * sizeof(double))
      return fail(path + " does not hold " + std::to_string(n) + " float64s");
    t.data.resize(n);
    std::memcpy(t.data.data(), (*buffer)->getBufferStart(), n * sizeof(double));
    args.push_back(std::move(t));
  }
  unsigned threads = cpuThreads
                         ? cpuThreads.getValue()
                         : std::max(1u, std::thread::hardware_concurrency());
  auto results = (*reference)->run(args, threads);
  if (!results)
    return fail(llvm::toString(results.takeError()));
  for (size_t i = 0; i < results->size(); ++i) {
    std::string path = referenceIo + "/result" + std::to_string(i) + ".f64";
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return fail("cannot write " + path + ": " + ec.message());
    os.write(reinterpret_cast<const char *>((*results)[i].data.data()),
             (*results)[i].data.size() * sizeof(double));
  }
  return 0;
}

/// --device-info: what egg-tune keys its measurements by.
static int printDeviceInfo() {
  egg::cuda::Driver cu;
  std::string why;
  int count = 0;
  CUdevice device;
  if (!cu.load(why) || cu.cuInit(0) != CUDA_SUCCESS ||
      cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0 ||
      cu.cuDeviceGet(&device, 0) != CUDA_SUCCESS) {
    llvm::errs() << "egg-eval: no usable CUDA device"
                 << (why.empty() ? "" : ": " + why) << "\n";
    return 3;
  }
  char name[256] = {0};
  int major = 0, minor = 0, smCount = 0;
  cu.cuDeviceGetName(name, sizeof(name), device);
  cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          device);
  cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          device);
  cu.cuDeviceGetAttribute(&smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          device);
  llvm::outs() << json::Value(json::Object{
                      {"name", name},
                      {"compute_capability",
                       llvm::formatv("{0}.{1}", major, minor).str()},
                      {"sm_count", smCount},
                      {"count", count}})
               << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists egg-eval's own options, not every LLVM backend's.
  cl::HideUnrelatedOptions(evalCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "egg-eval: run, check and time EGG kernels\n");
  Report report;
  report.jsonPath = jsonPath;
  if (deviceInfo)
    return printDeviceInfo();
  if (!referenceIo.empty())
    return runReferenceOnly();
  if (manifestPath.empty() || sourcePath.empty())
    report.finish("error",
                  "usage: egg-eval <manifest.json> --source=<input.mlir> "
                  "(or --device-info)",
                  3);
  auto readFile = [&](const std::string &path) -> std::string {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      report.finish("error",
                    "cannot read " + path + ": " + buffer.getError().message(),
                    3);
    return (*buffer)->getBuffer().str();
  };
  llvm::Expected<Manifest> manifest = parseManifest(readFile(manifestPath));
  if (!manifest)
    report.finish("error", llvm::toString(manifest.takeError()), 3);
  const Function *function = manifest->findFunction(functionName);
  if (!function)
    report.finish("error", "no function '" + functionName + "' in manifest", 3);
  report.root["function"] = function->name;

  // The reference must describe the same function: same shapes and types.
  unsigned threads = cpuThreads
                         ? cpuThreads.getValue()
                         : std::max(1u, std::thread::hardware_concurrency());
  std::string sourceText = readFile(sourcePath);
  auto reference = Reference::create(sourceText, function->name);
  if (!reference)
    report.finish("error", llvm::toString(reference.takeError()), 3);
  CachedReference *cached = nullptr;
  if (!referenceCache.empty()) {
    auto wrapped = std::make_unique<CachedReference>(
        std::move(*reference), referenceCache, sourceText, function->name);
    cached = wrapped.get();
    *reference = std::move(wrapped);
  }
  bool kernelsAsReference = referenceSource == "kernels";
  if (!kernelsAsReference && referenceSource != "interpreter")
    report.finish("error",
                  "--reference=" + referenceSource +
                      ": expected interpreter or kernels",
                  3);
  if (kernelsAsReference && referenceCache.empty())
    report.finish("error",
                  "--reference=kernels keeps the kernels' outputs in "
                  "--reference-cache, which is not given",
                  3);
  // --trials=0 times without checking: the reference is only read for the
  // signature and the roofline's flop count, never run, so its size does
  // not matter; neither does it where the kernels stand in for it.
  if (trials > 0 && !kernelsAsReference &&
      (*reference)->iterations() > maxReferenceIterations)
    report.finish(
        "error",
        llvm::formatv("the float64 reference needs {0:e} loop iterations per "
                      "trial, more than --max-reference-iterations={1:e}: "
                      "check a smaller problem of the same kind",
                      (*reference)->iterations(),
                      maxReferenceIterations.getValue()),
        3);
  std::vector<int64_t> inputs = function->inputs(),
                       outputs = function->outputs();
  auto sameSignature = [&](const std::vector<int64_t> &ids,
                           const std::vector<std::vector<int64_t>> &shapes,
                           const std::vector<ElementType> &types) {
    if (ids.size() != shapes.size())
      return false;
    for (size_t i = 0; i < ids.size(); ++i) {
      const Buffer &b = function->buffers[ids[i]];
      if (b.shape != shapes[i] || b.elementType != types[i])
        return false;
    }
    return true;
  };
  if (!sameSignature(inputs, (*reference)->argShapes(),
                     (*reference)->argTypes()) ||
      !sameSignature(outputs, (*reference)->resultShapes(),
                     (*reference)->resultTypes()))
    report.finish("error",
                  "the manifest's buffers do not match the source function's "
                  "arguments and results",
                  3);

  EvalOptions options = evalOptions();
  if (kernelsAsReference) {
    options.keepReference = [cached](const std::vector<RefTensor> &args,
                                     const std::vector<RefTensor> &results) {
      cached->keep(args, results);
    };
    report.root["reference"] = "kernels (kept in --reference-cache)";
  }
  Evaluation evaluation(report, options, *manifest, *function, **reference,
                        threads);
  evaluation.setUpDevice();
  evaluation.loadKernels();
  evaluation.allocateBuffers();
  evaluation.bindArguments();
  evaluation.giveUpIfSlower();
  evaluation.checkTrials();
  if (cached)
    report.root["reference_cache"] =
        json::Object{{"dir", referenceCache.getValue()},
                     {"hits", cached->hits()},
                     {"misses", cached->misses()}};
  evaluation.uploadTimingInputs();
  evaluation.prepareTiming();
  evaluation.measureCeilings();
  evaluation.time();
  if (useNcu)
    evaluation.collectCounters(argv[0]);
  report.status = "ok";
  report.print();
  return 0;
}
