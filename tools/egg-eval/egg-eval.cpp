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

#include "Cublas.h"
#include "CudaDriver.h"

#include "egg/Eval/Check.h"
#include "egg/Eval/Manifest.h"
#include "egg/Eval/Reference.h"
#include "egg/Support/Json.h"
#include "egg/Target/Limits.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
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
/// The read flush's kernel: threads stride over `pieces` 16-byte pieces of
/// `buffer`, XOR what they load, and store the result only if it equals
/// `never`, which the caller makes impossible; the store keeps the loads.
static const char *const kL2SweepPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry egg_l2_sweep(.param .u64 buffer, .param .u64 pieces,
                             .param .u32 never) {
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buffer];
  ld.param.u64 %rd2, [pieces];
  ld.param.u32 %r1, [never];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.u32 %r6, %r6, %r3;
  cvt.u64.u32 %rd3, %r5;
  cvt.u64.u32 %rd4, %r6;
  mov.u32 %r7, 0;
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
LOOP:
  shl.b64 %rd5, %rd3, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd6];
  xor.b32 %r7, %r7, %r8;
  xor.b32 %r7, %r7, %r9;
  xor.b32 %r7, %r7, %r10;
  xor.b32 %r7, %r7, %r11;
  add.u64 %rd3, %rd3, %rd4;
  setp.lt.u64 %p2, %rd3, %rd2;
  @%p2 bra LOOP;
DONE:
  setp.ne.u32 %p1, %r7, %r1;
  @%p1 bra END;
  st.global.u32 [%rd1], %r7;
END:
  ret;
}
)";

enum class L2Flush { Write, Read };
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
static cl::opt<unsigned>
    cpuThreads("cpu-threads",
               cl::desc("CPU threads for the reference (0: all)"), cl::init(0),
               cl::cat(evalCategory));

namespace {
/// The result, filled as the run goes and written however it ends.
struct Report {
  json::Object root{{"format", "egg-eval"}, {"version", 1}};
  std::string status = "error";
  std::string reason;

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

/// Input values of trial `t`: each trial draws from another distribution
/// (docs/egg-eval.md), so a kernel must be right for all of them.
std::vector<double> drawInputs(int64_t n, unsigned t, std::mt19937_64 &rng,
                               std::string &name) {
  std::vector<double> v(n);
  auto fill = [&](const char *label, auto distribution) {
    name = label;
    for (double &x : v)
      x = distribution(rng);
  };
  switch (t % 5) {
  case 0:
    fill("normal(0,1)", std::normal_distribution<double>(0, 1));
    break;
  case 1:
    fill("uniform(-1,1)", std::uniform_real_distribution<double>(-1, 1));
    break;
  case 2:
    fill("uniform(-8,8)", std::uniform_real_distribution<double>(-8, 8));
    break;
  case 3:
    fill("normal(1,3)", std::normal_distribution<double>(1, 3));
    break;
  default:
    fill("uniform(0,1)", std::uniform_real_distribution<double>(0, 1));
    break;
  }
  return v;
}

/// Inputs inside the domain of functions that take square roots, logarithms
/// or divisions of their inputs (a batch norm's variance), for a trial whose
/// own distribution gave a non-finite reference.
std::vector<double> drawPositiveInputs(int64_t n, std::mt19937_64 &rng) {
  std::vector<double> v(n);
  std::uniform_real_distribution<double> distribution(0.5, 2);
  for (double &x : v)
    x = distribution(rng);
  return v;
}

bool anyNonFinite(const std::vector<RefTensor> &tensors) {
  return llvm::any_of(tensors, [](const RefTensor &r) {
    return llvm::any_of(r.data, [](double x) { return !std::isfinite(x); });
  });
}
} // namespace

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
  auto reference = Reference::create(readFile(sourcePath), function->name);
  if (!reference)
    report.finish("error", llvm::toString(reference.takeError()), 3);
  // --trials=0 times without checking: the reference is only read for the
  // signature and the roofline's flop count, never run, so its size does
  // not matter.
  if (trials > 0 && (*reference)->iterations() > maxReferenceIterations)
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

  // GPU setup.
  egg::cuda::Driver cu;
  std::string why;
  if (!cu.load(why))
    report.finish("error", why, 3);
  auto check = [&](CUresult r, const char *what) {
    if (r != CUDA_SUCCESS)
      report.finish("error", std::string(what) + ": " + cu.describe(r), 3);
  };
  check(cu.cuInit(0), "cuInit");
  CUdevice device;
  check(cu.cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cu.cuDevicePrimaryCtxRetain(&context, device), "context");
  check(cu.cuCtxSetCurrent(context), "context");
  // Everything runs on one created stream: graphs can capture it.
  CUstream stream;
  check(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  char deviceName[256] = {0};
  cu.cuDeviceGetName(deviceName, sizeof(deviceName), device);
  int major = 0, minor = 0, smCount = 0, l2Bytes = 0;
  cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          device);
  cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          device);
  cu.cuDeviceGetAttribute(&smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          device);
  cu.cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  report.root["device"] = json::Object{
      {"name", deviceName},
      {"compute_capability", llvm::formatv("{0}.{1}", major, minor).str()},
      {"sm_count", smCount}};

  // Modules: JIT the PTX; its log goes into the error.
  llvm::StringMap<CUmodule> modules;
  for (const Module &m : manifest->modules) {
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
    CUmodule module;
    CUresult r =
        cu.cuModuleLoadDataEx(&module, m.ptx.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS)
      report.finish(
          "error",
          "loading module " + m.name + ": " + cu.describe(r) + " " + log, 3);
    modules[m.name] = module;
  }
  std::vector<CUfunction> kernels(function->steps.size(), nullptr);
  for (auto [i, step] : llvm::enumerate(function->steps)) {
    if (step.kind != Step::Kind::Launch)
      continue;
    check(cu.cuModuleGetFunction(&kernels[i], modules[step.module],
                                 step.kernel.c_str()),
          "cuModuleGetFunction");
    if (step.sharedBytes > mlir::egg::kStaticSharedMemoryPerBlock)
      check(cu.cuFuncSetAttribute(
                kernels[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(step.sharedBytes)),
            "shared memory limit");
  }
  std::vector<CUdeviceptr> ptrs(function->buffers.size());
  for (auto [i, b] : llvm::enumerate(function->buffers))
    check(cu.cuMemAlloc(&ptrs[i], b.bytes), "cuMemAlloc");
  size_t flushBytes = std::max<size_t>(size_t(l2Bytes) * 2, 64 << 20);
  CUdeviceptr flush;
  check(cu.cuMemAlloc(&flush, flushBytes), "cuMemAlloc");
  // The read flush: a kernel that sweeps the buffer with 16-byte loads (its
  // one store never happens: the buffer holds zeros, `never` is 1).
  CUfunction sweep = nullptr;
  uint64_t sweepPieces = flushBytes / 16;
  uint32_t never = 1;
  std::vector<void *> sweepArgs = {&flush, &sweepPieces, &never};
  if (l2Flush == L2Flush::Read) {
    CUmodule module;
    check(cu.cuModuleLoadDataEx(&module, kL2SweepPtx, 0, nullptr, nullptr),
          "L2 sweep module");
    check(cu.cuModuleGetFunction(&sweep, module, "egg_l2_sweep"),
          "L2 sweep kernel");
    check(cu.cuMemsetD32Async(flush, 0, flushBytes / 4, stream),
          "L2 flush buffer");
  }
  auto flushL2 = [&](int64_t r) {
    if (sweep)
      return cu.cuLaunchKernel(sweep, unsigned(smCount) * 4, 1, 1, 512, 1, 1, 0,
                               stream, sweepArgs.data(), nullptr);
    return cu.cuMemsetD32Async(flush, unsigned(r), flushBytes / 4, stream);
  };

  // One run of the function: launches and copies in order, on stream 0.
  std::vector<std::vector<void *>> params(function->steps.size());
  std::vector<std::vector<uint64_t>> storage(function->steps.size());
  // TMA tensor maps: encoded for their buffer's address once, kept in
  // device memory for the kernels that read them.
  std::vector<CUdeviceptr> tensorMaps;
  auto encodeTensorMap = [&](const KernelArg &arg) -> CUdeviceptr {
    const Buffer &b = function->buffers[arg.buffer];
    CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    if (b.elementType == ElementType::F16)
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    else if (b.elementType == ElementType::BF16)
      type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    else if (b.elementType != ElementType::F32)
      report.finish("error",
                    "a tensor map of buffer " + std::to_string(b.id) +
                        ": only f32, f16 and bf16 buffers are supported",
                    3);
    // The map views the buffer as `mapShape` (checked to cover it exactly
    // when the manifest was read).
    int64_t bytes = elementBytes(b.elementType);
    const std::vector<int64_t> &shape = arg.mapShape;
    cuuint64_t dims[2] = {cuuint64_t(shape[1]), cuuint64_t(shape[0])};
    cuuint64_t strides[1] = {cuuint64_t(shape[1] * bytes)};
    cuuint32_t box[2] = {cuuint32_t(arg.box[1]), cuuint32_t(arg.box[0])};
    cuuint32_t elementStrides[2] = {1, 1};
    CUtensorMap map;
    check(cu.cuTensorMapEncodeTiled(
              &map, type, 2, reinterpret_cast<void *>(ptrs[arg.buffer]), dims,
              strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
              CU_TENSOR_MAP_SWIZZLE_128B,
              arg.l2Promotion256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                 : CU_TENSOR_MAP_L2_PROMOTION_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          "cuTensorMapEncodeTiled");
    CUdeviceptr device;
    check(cu.cuMemAlloc(&device, sizeof(map)), "cuMemAlloc");
    check(cu.cuMemcpyHtoD(device, &map, sizeof(map)), "tensor map copy");
    tensorMaps.push_back(device);
    return device;
  };
  for (auto [i, step] : llvm::enumerate(function->steps)) {
    storage[i].resize(step.args.size());
    for (auto [j, arg] : llvm::enumerate(step.args)) {
      uint64_t &slot = storage[i][j];
      if (arg.isTensorMap) {
        slot = encodeTensorMap(arg);
      } else if (arg.isBuffer) {
        slot = ptrs[arg.buffer];
      } else if (arg.scalarType == "f32") {
        float f = float(arg.value);
        std::memcpy(&slot, &f, 4);
      } else if (arg.scalarType == "i32") {
        int32_t v = int32_t(arg.value);
        std::memcpy(&slot, &v, 4);
      } else {
        int64_t v = int64_t(arg.value);
        std::memcpy(&slot, &v, 8);
      }
      params[i].push_back(&slot);
    }
  }
  // A kernel that waits for the one before it (griddepcontrol.wait) may
  // launch while that one runs: its launch and ramp-up overlap the other's
  // tail (programmatic dependent launch).
  auto overlaps = [&](size_t i) {
    return overlapLaunches && function->steps[i].waitsForPrevious && i > 0 &&
           function->steps[i - 1].kind == Step::Kind::Launch;
  };
  auto launch = [&](size_t i) {
    const Step &s = function->steps[i];
    if (s.kind == Step::Kind::Copy)
      return cu.cuMemcpyDtoDAsync(ptrs[s.dst], ptrs[s.src],
                                  function->buffers[s.src].bytes, stream);
    if (overlaps(i)) {
      CUlaunchAttribute attr{};
      attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attr.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config{};
      config.gridDimX = unsigned(s.grid[0]);
      config.gridDimY = unsigned(s.grid[1]);
      config.gridDimZ = unsigned(s.grid[2]);
      config.blockDimX = unsigned(s.block[0]);
      config.blockDimY = unsigned(s.block[1]);
      config.blockDimZ = unsigned(s.block[2]);
      config.sharedMemBytes = unsigned(s.sharedBytes);
      config.hStream = stream;
      config.attrs = &attr;
      config.numAttrs = 1;
      return cu.cuLaunchKernelEx(&config, kernels[i], params[i].data(),
                                 nullptr);
    }
    return cu.cuLaunchKernel(
        kernels[i], s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
        s.block[2], unsigned(s.sharedBytes), stream, params[i].data(), nullptr);
  };
  // Waits for the stream; a fault or a hang ends the process with a report.
  auto waitOrDie = [&](const char *what) {
    auto start = std::chrono::steady_clock::now();
    while (true) {
      CUresult r = cu.cuStreamQuery(stream);
      if (r == CUDA_SUCCESS)
        return;
      if (r != CUDA_ERROR_NOT_READY)
        report.finish("fault", std::string(what) + ": " + cu.describe(r), 2);
      double s = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
      if (s > timeoutS)
        report.finish("timeout",
                      llvm::formatv("{0} did not finish within {1} s", what,
                                    timeoutS.getValue()),
                      2);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  };
  auto runOnce = [&](const char *what) {
    for (size_t i = 0; i < function->steps.size(); ++i) {
      CUresult r = launch(i);
      if (r != CUDA_SUCCESS)
        report.finish(
            "fault",
            llvm::formatv("launching step {0}: {1}", i, cu.describe(r)), 2);
    }
    waitOrDie(what);
  };

  // Correctness.
  bool half = false;
  for (const Buffer &b : function->buffers)
    half |= isHalfPrecision(b.elementType);
  // Judged at TF32 precision only where a launched kernel computes on
  // TF32, not wherever the module allowed it.
  bool tf32 = manifest->launchesTf32(*function);
  Tolerance tolerance = toleranceFor(half, tf32);
  if (manifest->allowTf32)
    report.root["allow_tf32"] = true;
  report.root["tf32"] = tf32;
  json::Array trialReports;
  bool correct = true;
  std::string firstFailure;
  std::vector<std::vector<uint8_t>> previousOut;
  std::vector<RefTensor> previousRef;
  std::mt19937_64 rng(seed);
  // The timed runs' inputs: trial 0's (normal(0,1), or what its domain
  // needed), or fresh normal(0,1) ones without trials.
  std::string timingDistribution;
  std::vector<std::vector<uint8_t>> timingInputs;
  for (unsigned t = 0; t < trials; ++t) {
    std::string distribution;
    std::vector<RefTensor> args;
    auto draw = [&](bool positive) {
      args.clear();
      for (int64_t id : inputs) {
        const Buffer &b = function->buffers[id];
        std::vector<double> values =
            positive ? drawPositiveInputs(b.numElements(), rng)
                     : drawInputs(b.numElements(), t, rng, distribution);
        args.push_back({b.shape, roundTo(values, b.elementType)});
      }
    };
    // The reference first: where the trial's distribution leaves the
    // function's domain (a negative variance under a square root), the
    // trial draws again from uniform(0.5,2) rather than fail every kernel.
    draw(/*positive=*/false);
    auto computed = (*reference)->run(args, threads);
    if (!computed)
      report.finish("error", llvm::toString(computed.takeError()), 3);
    std::vector<RefTensor> ref = std::move(*computed);
    if (anyNonFinite(ref)) {
      std::vector<RefTensor> first = std::move(args);
      draw(/*positive=*/true);
      auto again = (*reference)->run(args, threads);
      if (!again)
        report.finish("error", llvm::toString(again.takeError()), 3);
      if (anyNonFinite(*again)) {
        args = std::move(first); // Report the trial's own distribution.
      } else {
        distribution =
            "uniform(0.5,2) (" + distribution + " left the function's domain)";
        ref = std::move(*again);
      }
    }
    std::vector<std::vector<uint8_t>> uploaded;
    for (auto [k, id] : llvm::enumerate(inputs)) {
      const Buffer &b = function->buffers[id];
      uploaded.push_back(encode(args[k].data, b.elementType));
      check(cu.cuMemcpyHtoD(ptrs[id], uploaded.back().data(), b.bytes),
            "upload");
    }
    // A copy from pageable memory may return before its DMA lands, and
    // `stream` does not wait for the legacy stream.
    check(cu.cuCtxSynchronize(), "upload");
    if (t == 0) {
      timingDistribution = distribution;
      // Later trials overwrite the inputs: keep trial 0's for the timing.
      if (timing && trials > 1)
        timingInputs = uploaded;
    }
    for (const Buffer &b : function->buffers)
      if (b.role != Buffer::Role::Input)
        check(cu.cuMemsetD8Async(ptrs[b.id], kPoisonByte, b.bytes, stream),
              "poison");
    runOnce("correctness run");
    json::Array outputReports;
    std::vector<std::vector<uint8_t>> outBytes;
    std::string failure;
    for (auto [k, id] : llvm::enumerate(outputs)) {
      const Buffer &b = function->buffers[id];
      std::vector<uint8_t> bytes(b.bytes);
      check(cu.cuMemcpyDtoH(bytes.data(), ptrs[id], b.bytes), "download");
      int64_t unwritten = countPoison(bytes, b.elementType);
      Comparison c =
          compare(decode(bytes, b.elementType), ref[k].data, tolerance);
      if (unwritten)
        c.pass = false, c.reason = llvm::formatv("{0} of {1} elements were "
                                                 "never written",
                                                 unwritten, b.numElements());
      bool refChanged = t > 0 && previousRef[k].data != ref[k].data;
      if (c.pass && refChanged && previousOut[k] == bytes)
        c.pass = false, c.reason = "the output did not change with new "
                                   "inputs (stale or cached result)";
      if (!c.pass && failure.empty())
        failure = llvm::formatv("output {0}: {1}", k, c.reason);
      outputReports.push_back(json::Object{{"output", int64_t(k)},
                                           {"pass", c.pass},
                                           {"relative_l2", c.relativeL2},
                                           {"max_abs_error", c.maxAbsError},
                                           {"bad_elements", c.badElements},
                                           {"non_finite", c.nonFinite},
                                           {"unwritten", unwritten},
                                           {"reason", c.reason}});
      outBytes.push_back(std::move(bytes));
    }
    for (auto [k, id] : llvm::enumerate(inputs)) {
      std::vector<uint8_t> after(function->buffers[id].bytes);
      check(cu.cuMemcpyDtoH(after.data(), ptrs[id], after.size()), "download");
      if (after != uploaded[k] && failure.empty())
        failure = llvm::formatv("input {0} was modified by the kernels", k);
    }
    trialReports.push_back(json::Object{{"trial", int64_t(t)},
                                        {"distribution", distribution},
                                        {"pass", failure.empty()},
                                        {"outputs", std::move(outputReports)}});
    llvm::outs() << llvm::formatv("trial {0} {1,-14} {2}\n", t, distribution,
                                  failure.empty() ? "pass" : failure);
    if (!failure.empty() && correct) {
      correct = false;
      firstFailure =
          llvm::formatv("trial {0} ({1}): {2}", t, distribution, failure);
    }
    previousOut = std::move(outBytes);
    previousRef = std::move(ref);
  }
  report.root["correctness"] = json::Object{
      {"trials", std::move(trialReports)},
      {"tolerance", json::Object{{"relative_l2", tolerance.relativeL2},
                                 {"elementwise", tolerance.elementwise}}}};
  if (!correct)
    report.finish("incorrect", firstFailure, 1);

  // Timed runs read trial 0's inputs (random normal(0,1) values), never
  // the allocation's contents (zeros, with --trials=0) nor the last
  // trial's distribution: tensor-core products draw less power, and run
  // faster, on zeros (H200: a 4096^3 bf16 product took 0.165 ms on fresh
  // allocations against 0.188 on normal(0,1) data).
  if (timing) {
    if (trials == 0) {
      for (int64_t id : inputs) {
        const Buffer &b = function->buffers[id];
        timingInputs.push_back(
            encode(drawInputs(b.numElements(), 0, rng, timingDistribution),
                   b.elementType));
      }
    }
    for (auto [k, bytes] : llvm::enumerate(timingInputs)) {
      const Buffer &b = function->buffers[inputs[k]];
      check(cu.cuMemcpyHtoD(ptrs[inputs[k]], bytes.data(), b.bytes), "upload");
    }
    check(cu.cuCtxSynchronize(), "upload");
    report.root["timing_inputs"] =
        timingDistribution.empty() ? "none" : timingDistribution;
  }

  // Roofline: fewest bytes (inputs read once, outputs written once) and the
  // reference's operation count, against measured or profile ceilings.
  double bytes = 0;
  for (const Buffer &b : function->buffers)
    if (b.role != Buffer::Role::Temp)
      bytes += double(b.bytes);

  CUevent start, stop;
  check(cu.cuEventCreate(&start, CU_EVENT_DEFAULT), "event");
  check(cu.cuEventCreate(&stop, CU_EVENT_DEFAULT), "event");
  // Times `body` (work enqueued on `stream`) the way every figure here is
  // timed: L2 flushed before each run unless --hot-cache, events around the
  // work, warm-up, adaptive number of runs, median.
  // `prepare` (untimed) runs after the flush, before the start event.
  auto timeLoop = [&](const std::function<CUresult()> &body, int64_t fixedRuns,
                      const std::function<void()> &prepare = nullptr) {
    auto once = [&](int64_t r) {
      if (!hotCache)
        check(flushL2(r), "L2 flush");
      if (prepare)
        prepare();
      check(cu.cuEventRecord(start, stream), "event");
      CUresult res = body();
      if (res != CUDA_SUCCESS)
        report.finish("fault", "timed run: " + cu.describe(res), 2);
      check(cu.cuEventRecord(stop, stream), "event");
      waitOrDie("timed run");
      float ms = 0;
      check(cu.cuEventElapsedTime(&ms, start, stop), "event");
      return double(ms);
    };
    std::vector<double> warm;
    for (int i = 0; i < 3; ++i)
      warm.push_back(once(i));
    int64_t runs = fixedRuns > 0
                       ? fixedRuns
                       : adaptiveRuns(summarize(warm).median, budgetMs);
    std::vector<double> samples;
    for (int64_t r = 0; r < runs; ++r)
      samples.push_back(once(r));
    return summarize(samples);
  };

  egg::cuda::Cublas blas;
  std::string blasWhy;
  bool haveBlas = (baseline || ceilings == "measure") && blas.load(blasWhy);

  // Ceilings: measured once per device and cached; the profile otherwise.
  double bandwidthGbps = double(manifest->dramGbps);
  double fp32Gflops = double(manifest->fp32Gflops);
  double tensorGflops = double(manifest->tensorGflops);
  std::string ceilingSource = "target profile";
  if (ceilings == "measure") {
    llvm::SmallString<256> cache;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
      cache = xdg;
    else if (const char *home = std::getenv("HOME"))
      llvm::sys::path::append(cache, home, ".cache");
    std::string key = llvm::formatv("ceilings-v2-{0}-sm{1}{2}.json", deviceName,
                                    major, minor);
    std::replace(key.begin(), key.end(), ' ', '_');
    llvm::sys::path::append(cache, "egg", key);
    auto cached = llvm::MemoryBuffer::getFile(cache);
    std::optional<json::Value> value;
    if (cached)
      if (auto parsed = mlir::egg::parseJson((*cached)->getBuffer()))
        value = std::move(*parsed);
    if (value && value->getAsObject()) {
      const json::Object &o = *value->getAsObject();
      bandwidthGbps = o.getNumber("copy_gbps").value_or(bandwidthGbps);
      fp32Gflops = o.getNumber("fp32_gflops").value_or(fp32Gflops);
      tensorGflops = o.getNumber("tensor_gflops").value_or(tensorGflops);
      ceilingSource = "measured (cached in " + cache.str().str() + ")";
    } else {
      // Copy bandwidth: a 1 GiB device-to-device copy, read + write bytes.
      size_t copyBytes = size_t(1) << 30;
      CUdeviceptr src, dst;
      check(cu.cuMemAlloc(&src, copyBytes), "cuMemAlloc");
      check(cu.cuMemAlloc(&dst, copyBytes), "cuMemAlloc");
      Stats copy = timeLoop(
          [&] { return cu.cuMemcpyDtoDAsync(dst, src, copyBytes, stream); },
          10);
      bandwidthGbps = 2.0 * double(copyBytes) / (copy.median * 1e-3) / 1e9;
      json::Object measured{{"copy_gbps", bandwidthGbps}};
      if (haveBlas) {
        // SGEMM (TF32 off) at 4096^3 and bf16 GEMM at 8192^3 through cuBLAS.
        auto rate = [&](int64_t size, ElementType type) {
          Stats s = timeLoop(
              [&] {
                return blas.rowMajorGemm(stream, 1, size, size, size, false,
                                         false, src, type, src, type, dst, type,
                                         /*tf32=*/false) ==
                               CUBLAS_STATUS_SUCCESS
                           ? CUDA_SUCCESS
                           : CUDA_ERROR_UNKNOWN;
              },
              10);
          return 2.0 * double(size) * size * size / (s.median * 1e-3) / 1e9;
        };
        // Random data (constant data runs faster than real data): bf16
        // values in [-1, 1], which read as f32 are finite values in [-1, 1].
        std::vector<uint16_t> host(size_t(8192) * 8192 * 2);
        std::mt19937 gen(1);
        std::uniform_real_distribution<float> dist(-1, 1);
        for (uint16_t &h : host)
          h = floatToBFloat16(dist(gen));
        check(cu.cuMemcpyHtoD(src, host.data(), host.size() * 2), "upload");
        fp32Gflops = rate(4096, ElementType::F32);
        tensorGflops = rate(8192, ElementType::BF16);
        measured["fp32_gflops"] = fp32Gflops;
        measured["tensor_gflops"] = tensorGflops;
      }
      cu.cuMemFree(src);
      cu.cuMemFree(dst);
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(cache));
      std::error_code ec;
      llvm::raw_fd_ostream os(cache, ec);
      if (!ec)
        os << json::Value(std::move(measured)) << "\n";
      ceilingSource = haveBlas ? "measured"
                               : "measured bandwidth; compute "
                                 "rates from the target profile";
    }
  }
  // Hopper's dense TF32 rate is half its 16-bit rate.
  double peak = half ? tensorGflops : tf32 ? tensorGflops / 2 : fp32Gflops;
  Roofline roof = roofline((*reference)->flops(), bytes, bandwidthGbps, peak);

  if (timing) {
    Stats total;
    std::string mode = "stream";
    if (cudaGraph) {
      // One graph of the whole launch sequence, replayed.
      check(cu.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL),
            "capture");
      for (size_t i = 0; i < function->steps.size(); ++i)
        check(launch(i), "capture");
      CUgraph graph;
      check(cu.cuStreamEndCapture(stream, &graph), "capture");
      CUgraphExec exec;
      check(cu.cuGraphInstantiate(&exec, graph, 0), "graph");
      total = timeLoop([&] { return cu.cuGraphLaunch(exec, stream); }, 0);
      mode = "cuda-graph";
      cu.cuGraphExecDestroy(exec);
      cu.cuGraphDestroy(graph);
    } else {
      total = timeLoop(
          [&] {
            for (size_t i = 0; i < function->steps.size(); ++i)
              if (CUresult r = launch(i); r != CUDA_SUCCESS)
                return r;
            return CUDA_SUCCESS;
          },
          0);
    }

    // Per kernel: events around each launch, the steps before it untimed.
    json::Array perKernel;
    int64_t kernelRuns = std::min<int64_t>(total.count, 50);
    for (size_t i = 0; i < function->steps.size(); ++i) {
      Stats ks = timeLoop([&] { return launch(i); }, kernelRuns,
                          [&] {
                            for (size_t j = 0; j < i; ++j)
                              check(launch(j), "launch");
                          });
      const Step &step = function->steps[i];
      perKernel.push_back(json::Object{
          {"step", int64_t(i)},
          {"kernel", step.kind == Step::Kind::Launch ? step.kernel : "copy"},
          {"median_ms", ks.median}});
    }
    // A device-to-device copy that moves the function's bytes (half read,
    // half written), timed the same way: the floor at this size. The floor
    // above is set by a 1 GiB copy; a smaller transfer also pays the ramp-up
    // and the drain of a short run, which no kernel of its size avoids
    // (H200, session 19: copies moving 64 MB took 1.13x the floor, moving
    // 256 MB 1.02x).
    std::optional<double> sizedCopyMs;
    if (llvm::StringRef(roof.bound()) == "memory" && roof.bytes >= (1 << 20)) {
      size_t half = size_t(roof.bytes / 2) / 16 * 16;
      CUdeviceptr src, dst;
      if (cu.cuMemAlloc(&src, half) == CUDA_SUCCESS) {
        if (cu.cuMemAlloc(&dst, half) == CUDA_SUCCESS) {
          check(cu.cuMemsetD32Async(src, 0x3f800000u, half / 4, stream),
                "copy source");
          sizedCopyMs =
              timeLoop(
                  [&] { return cu.cuMemcpyDtoDAsync(dst, src, half, stream); },
                  0)
                  .median;
          cu.cuMemFree(dst);
        }
        cu.cuMemFree(src);
      }
    }
    int64_t overlapped = 0;
    for (size_t i = 0; i < function->steps.size(); ++i)
      overlapped += overlaps(i);
    double gbps = roof.bytes / (total.median * 1e-3) / 1e9;
    double tflops = roof.flops / (total.median * 1e-3) / 1e12;
    double fraction = roof.floorMs() > 0 ? roof.floorMs() / total.median : 0;
    report.root["timing"] =
        json::Object{{"mode", mode},
                     {"overlapped_launches", overlapped},
                     {"cold_cache", !hotCache},
                     {"l2_flush", l2Flush == L2Flush::Read ? "read" : "write"},
                     {"runs", total.count},
                     {"median_ms", total.median},
                     {"mean_ms", total.mean},
                     {"min_ms", total.min},
                     {"max_ms", total.max},
                     {"p10_ms", total.p10},
                     {"p90_ms", total.p90},
                     {"stddev_ms", total.stddev},
                     {"per_kernel", std::move(perKernel)}};
    report.root["roofline"] =
        json::Object{{"flops", roof.flops},
                     {"bytes", roof.bytes},
                     {"ceilings", ceilingSource},
                     {"bandwidth_gbps", bandwidthGbps},
                     {"peak_gflops", peak},
                     {"memory_floor_ms", roof.memoryFloorMs},
                     {"compute_floor_ms", roof.computeFloorMs},
                     {"bound", roof.bound()},
                     {"achieved_gbps", gbps},
                     {"achieved_tflops", tflops},
                     {"fraction_of_floor", fraction}};
    if (sizedCopyMs) {
      json::Object &r = *report.root.getObject("roofline");
      r["same_size_copy_ms"] = *sizedCopyMs;
      r["fraction_of_same_size_copy"] = *sizedCopyMs / total.median;
    }
    llvm::outs() << llvm::formatv(
        "time: median {0:f4} ms (p10 {1:f4}, p90 {2:f4}, {3} runs, {4} "
        "cache, {10})  {5:f1} GB/s  {6:f2} TFLOP/s  floor {7:f4} ms "
        "({8}-bound), {9:p} of floor\n",
        total.median, total.p10, total.p90, total.count,
        hotCache ? "hot" : "cold", gbps, tflops, roof.floorMs(), roof.bound(),
        fraction, mode);
    if (sizedCopyMs)
      llvm::outs() << llvm::formatv(
          "a copy of the same bytes: {0:f4} ms, {1:p} of its speed\n",
          *sizedCopyMs, *sizedCopyMs / total.median);

    // Baseline: cuBLAS on the same contraction, same buffers, same timing.
    json::Object baselines;
    auto gemm = (*reference)->contraction();
    if (!baseline) {
      baselines["cublas"] = "not requested";
    } else if (!gemm) {
      baselines["cublas"] = "not applicable: no single contraction of two "
                            "function arguments";
    } else if (!haveBlas) {
      baselines["cublas"] = "skipped: " + blasWhy;
    } else {
      CUdeviceptr c;
      check(cu.cuMemAlloc(&c, gemm->batch * gemm->m * gemm->n * 8), "alloc");
      CUdeviceptr a = ptrs[inputs[gemm->argA]], b = ptrs[inputs[gemm->argB]];
      Stats s = timeLoop(
          [&] {
            return blas.rowMajorGemm(stream, gemm->batch, gemm->m, gemm->n,
                                     gemm->k, gemm->transA, gemm->transB, a,
                                     gemm->aType, b, gemm->bType, c,
                                     gemm->cType, manifest->allowTf32) ==
                           CUBLAS_STATUS_SUCCESS
                       ? CUDA_SUCCESS
                       : CUDA_ERROR_UNKNOWN;
          },
          0);
      cu.cuMemFree(c);
      baselines["cublas"] = json::Object{
          {"what", std::string("cublasGemmStridedBatchedEx on the "
                               "contraction alone (f32 accumulation, TF32 ") +
                       (manifest->allowTf32 ? "allowed" : "off") + "), " +
                       blas.library},
          {"median_ms", s.median},
          {"egg_over_cublas", total.median / s.median}};
      llvm::outs() << llvm::formatv(
          "cuBLAS (contraction alone): median {0:f4} ms; egg takes {1:f2}x\n",
          s.median, total.median / s.median);
    }
    report.root["baselines"] = std::move(baselines);
  }

  // Hardware counters: the same binary under Nsight Compute, one run.
  if (useNcu) {
    std::optional<std::string> ncu;
    for (const char *candidate : {"ncu", "/usr/local/cuda/bin/ncu"})
      if (auto found = llvm::sys::findProgramByName(candidate))
        ncu = *found;
    if (!ncu) {
      report.root["counters"] = "skipped: ncu (Nsight Compute) not found";
      llvm::outs() << "counters: skipped, ncu not found\n";
    } else {
      llvm::SmallString<128> csv;
      llvm::sys::fs::createTemporaryFile("egg-ncu", "csv", csv);
      const char *metrics =
          "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
          "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
          "sm__warps_active.avg.pct_of_peak_sustained_active,"
          "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_"
          "active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";
      std::string self = llvm::sys::fs::getMainExecutable(argv[0], nullptr);
      // The profiled child runs one checked trial whatever the parent's
      // count: with none and no timing it would launch no kernel (and ncu
      // would report nothing). Same seed: the parent's first inputs.
      std::string seedArg = "--seed=" + std::to_string(seed);
      std::vector<llvm::StringRef> args = {*ncu,
                                           "--csv",
                                           "--page",
                                           "raw",
                                           "--clock-control",
                                           "none",
                                           "--metrics",
                                           metrics,
                                           self,
                                           manifestPath,
                                           "--source",
                                           sourcePath,
                                           "--trials=1",
                                           seedArg,
                                           "--timing=false",
                                           "--baseline=false",
                                           "--ceilings=profile"};
      std::string err;
      int rc = llvm::sys::ExecuteAndWait(*ncu, args, std::nullopt,
                                         {std::nullopt, csv.str(), csv.str()},
                                         600, 0, &err);
      json::Array kernelsOut;
      auto text = llvm::MemoryBuffer::getFile(csv);
      if (rc == 0 && text) {
        // Rows after the header that start with a quoted ID are kernels.
        std::vector<std::vector<std::string>> rows;
        std::istringstream in((*text)->getBuffer().str());
        std::string line;
        while (std::getline(in, line)) {
          if (line.empty() || line[0] != '"')
            continue;
          std::vector<std::string> cells;
          std::string cell;
          bool quoted = false;
          for (char ch : line) {
            if (ch == '"')
              quoted = !quoted;
            else if (ch == ',' && !quoted)
              cells.push_back(cell), cell.clear();
            else
              cell += ch;
          }
          cells.push_back(cell);
          rows.push_back(cells);
        }
        if (rows.size() > 2) {
          const std::vector<std::string> &header = rows[0];
          for (size_t r = 2; r < rows.size(); ++r) { // rows[1]: units.
            json::Object k;
            for (size_t c = 0; c < header.size() && c < rows[r].size(); ++c)
              if (header[c] == "Kernel Name" ||
                  llvm::StringRef(metrics).contains(header[c]))
                k[header[c]] = rows[r][c];
            kernelsOut.push_back(std::move(k));
          }
        }
        report.root["counters"] = std::move(kernelsOut);
      } else {
        report.root["counters"] =
            "ncu failed (exit " + std::to_string(rc) + "): " + err;
      }
      llvm::outs() << "counters: see the JSON result\n";
    }
  }
  report.status = "ok";
  report.print();
  return 0;
}
