//===- DeviceSetup.cpp - egg-eval: modules, buffers and launches
//-----------===//

#include "Evaluation.h"

#include "egg/Target/Limits.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cstring>
#include <map>
#include <thread>

using namespace mlir::egg::eval;
namespace json = llvm::json;

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

void Evaluation::check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS)
    report.finish("error", std::string(what) + ": " + cu.describe(r), 3);
}

void Evaluation::setUpDevice() {
  std::string why;
  if (!cu.load(why))
    report.finish("error", why, 3);
  check(cu.cuInit(0), "cuInit");
  check(cu.cuDeviceGet(&device, 0), "cuDeviceGet");
  check(cu.cuDevicePrimaryCtxRetain(&context, device), "context");
  check(cu.cuCtxSetCurrent(context), "context");
  // Everything runs on one created stream: graphs can capture it.
  check(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
  cu.cuDeviceGetName(deviceName, sizeof(deviceName), device);
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
}

void Evaluation::loadKernels() {
  for (const Module &m : manifest.modules) {
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
  // Launches of one kernel (identical kernels share one) may ask for
  // different dynamic shared memory: its limit is the largest.
  std::map<CUfunction, int64_t> sharedLimit;
  kernels.assign(function->steps.size(), nullptr);
  for (auto [i, step] : llvm::enumerate(function->steps)) {
    if (step.kind != Step::Kind::Launch)
      continue;
    check(cu.cuModuleGetFunction(&kernels[i], modules[step.module],
                                 step.kernel.c_str()),
          "cuModuleGetFunction");
    int64_t &limit = sharedLimit[kernels[i]];
    limit = std::max(limit, step.sharedBytes);
  }
  for (auto [kernel, limit] : sharedLimit)
    if (limit > mlir::egg::kStaticSharedMemoryPerBlock)
      check(cu.cuFuncSetAttribute(
                kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(limit)),
            "shared memory limit");
}

void Evaluation::allocateBuffers() {
  ptrs.resize(function->buffers.size());
  for (auto [i, b] : llvm::enumerate(function->buffers))
    check(cu.cuMemAlloc(&ptrs[i], b.bytes), "cuMemAlloc");
  flushBytes = std::max<size_t>(size_t(l2Bytes) * 2, 64 << 20);
  check(cu.cuMemAlloc(&flush, flushBytes), "cuMemAlloc");
  // The read flush: a kernel that sweeps the buffer with 16-byte loads (its
  // one store never happens: the buffer holds zeros, `never` is 1).
  sweepPieces = flushBytes / 16;
  sweepArgs = {&flush, &sweepPieces, &never};
  if (opts.l2Flush == L2Flush::Read) {
    CUmodule module;
    check(cu.cuModuleLoadDataEx(&module, kL2SweepPtx, 0, nullptr, nullptr),
          "L2 sweep module");
    check(cu.cuModuleGetFunction(&sweep, module, "egg_l2_sweep"),
          "L2 sweep kernel");
    check(cu.cuMemsetD32Async(flush, 0, flushBytes / 4, stream),
          "L2 flush buffer");
  }
}

CUresult Evaluation::flushL2(int64_t r) {
  if (sweep)
    return cu.cuLaunchKernel(sweep, unsigned(smCount) * 4, 1, 1, 512, 1, 1, 0,
                             stream, sweepArgs.data(), nullptr);
  return cu.cuMemsetD32Async(flush, unsigned(r), flushBytes / 4, stream);
}

CUdeviceptr Evaluation::encodeTensorMap(const KernelArg &arg) {
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
  CUdeviceptr onDevice;
  check(cu.cuMemAlloc(&onDevice, sizeof(map)), "cuMemAlloc");
  check(cu.cuMemcpyHtoD(onDevice, &map, sizeof(map)), "tensor map copy");
  tensorMaps.push_back(onDevice);
  return onDevice;
}

void Evaluation::bindArguments() {
  // One run of the function: launches and copies in order, on stream 0.
  params.resize(function->steps.size());
  storage.resize(function->steps.size());
  // TMA tensor maps: encoded for their buffer's address once, kept in
  // device memory for the kernels that read them.
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
}

// A kernel that waits for the one before it (griddepcontrol.wait) may
// launch while that one runs: its launch and ramp-up overlap the other's
// tail (programmatic dependent launch).
bool Evaluation::overlaps(size_t i) {
  return opts.overlapLaunches && function->steps[i].waitsForPrevious && i > 0 &&
         function->steps[i - 1].kind == Step::Kind::Launch;
}
CUresult Evaluation::launch(size_t i) {
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
    return cu.cuLaunchKernelEx(&config, kernels[i], params[i].data(), nullptr);
  }
  return cu.cuLaunchKernel(
      kernels[i], s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
      s.block[2], unsigned(s.sharedBytes), stream, params[i].data(), nullptr);
}
// Waits for the stream; a fault or a hang ends the process with a report.
void Evaluation::waitOrDie(const char *what) {
  auto start = std::chrono::steady_clock::now();
  while (true) {
    CUresult r = cu.cuStreamQuery(stream);
    if (r == CUDA_SUCCESS)
      return;
    if (r != CUDA_ERROR_NOT_READY)
      report.finish("fault", std::string(what) + ": " + cu.describe(r), 2);
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (s > opts.timeoutS)
      report.finish(
          "timeout",
          llvm::formatv("{0} did not finish within {1} s", what, opts.timeoutS),
          2);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}
void Evaluation::runOnce(const char *what) {
  for (size_t i = 0; i < function->steps.size(); ++i) {
    CUresult r = launch(i);
    if (r != CUDA_SUCCESS)
      report.finish("fault",
                    llvm::formatv("launching step {0}: {1}", i, cu.describe(r)),
                    2);
  }
  waitOrDie(what);
}
