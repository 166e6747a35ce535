//===- Manifest.cpp - PTX and launch manifest -----------------------------===//
//
// After the EGG pipeline, a host function holds only buffer management and
// kernel launches; this file reads it as data (schema: docs/manifest.md) so
// that egg-eval, or any runtime, can replay it with the CUDA driver API.
// Anything else on the host side is an error: it would have to run on the
// CPU, and EGG promises that all work happens in kernels.
//
//===----------------------------------------------------------------------===//

#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Translate/Translations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace mlir;
namespace json = llvm::json;

/// A kernel module's name and PTX text.
using Ptx = std::pair<StringRef, StringRef>;

/// The PTX of every gpu.binary, in module order.
static FailureOr<SmallVector<Ptx>> collectPtx(ModuleOp module) {
  SmallVector<Ptx> result;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    StringRef ptx;
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptx = object.getObject().getValue();
    }
    if (ptx.empty())
      return binary.emitError("has no PTX object: compile with "
                              "gpu-module-to-binary{format=isa}");
    // Math functions come from libdevice; without it they stay external
    // and no driver can load the module.
    size_t pos = ptx.find(".extern .func");
    if (pos != StringRef::npos && ptx.find("__nv_", pos) != StringRef::npos)
      return binary.emitError("calls libdevice functions that were not "
                              "linked: give the pipeline the CUDA toolkit "
                              "(cuda-path=... or $CUDA_HOME)");
    result.push_back({binary.getSymName(), ptx});
  }
  if (result.empty())
    return module.emitError("no gpu.binary in the module: run the EGG "
                            "pipeline (egg-opt --egg-pipeline) first");
  return result;
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

namespace {
/// Reads one host function into the manifest's buffers and steps.
class HostReader {
public:
  FailureOr<json::Object> read(func::FuncOp func) {
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      bool isOutput = func.getArgAttr(i, "bufferize.result") != nullptr;
      if (failed(addBuffer(arg, isOutput ? "output" : "input", i, func)))
        return failure();
    }
    for (Operation &op : func.getBody().front())
      if (failed(readOp(op)))
        return failure();
    return json::Object{{"name", func.getSymName()},
                        {"buffers", std::move(buffers)},
                        {"steps", std::move(steps)}};
  }

private:
  LogicalResult addBuffer(Value v, StringRef role, int64_t arg,
                          func::FuncOp func) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return func.emitError("host value of type ")
             << v.getType()
             << " is not a static, contiguous buffer the manifest can bind";
    Type element = type.getElementType();
    if (!element.isIntOrFloat())
      return func.emitError("unsupported element type ") << element;
    int64_t id = buffers.size();
    json::Object buffer{
        {"id", id},
        {"role", role},
        {"shape", json::Array(type.getShape())},
        {"element_type", typeName(element)},
        {"bytes",
         type.getNumElements() * ((element.getIntOrFloatBitWidth() + 7) / 8)}};
    if (arg >= 0)
      buffer["arg"] = arg;
    buffers.push_back(std::move(buffer));
    bufferIds[v] = id;
    return success();
  }

  FailureOr<int64_t> bufferOf(Value v, Operation *user) {
    auto it = bufferIds.find(v);
    if (it == bufferIds.end())
      return user->emitError("uses a buffer the manifest cannot trace");
    return it->second;
  }

  FailureOr<int64_t> constantOf(Value v, Operation *user) {
    APInt value;
    if (!matchPattern(v, m_ConstantInt(&value)))
      return user->emitError("needs a constant launch dimension");
    return value.getSExtValue();
  }

  LogicalResult readOp(Operation &op) {
    if (isa<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(op))
      return success();
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return addBuffer(alloc, "temp", -1, op.getParentOfType<func::FuncOp>());
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            op)) {
      FailureOr<int64_t> id = bufferOf(op.getOperand(0), &op);
      if (failed(id))
        return failure();
      bufferIds[op.getResult(0)] = *id; // A view of the same bytes.
      return success();
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      FailureOr<int64_t> src = bufferOf(copy.getSource(), &op);
      FailureOr<int64_t> dst = bufferOf(copy.getTarget(), &op);
      if (failed(src) || failed(dst))
        return failure();
      steps.push_back(
          json::Object{{"kind", "copy"}, {"src", *src}, {"dst", *dst}});
      return success();
    }
    if (auto map = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op))
      return readTensorMap(map);
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return readLaunch(launch);
    if (auto call = dyn_cast<func::CallOp>(op))
      return readCall(call);
    return op.emitError("cannot be expressed in the manifest: only buffer "
                        "allocation, copies and kernel launches may remain "
                        "on the host");
  }

  /// A call to a kernel function: its launches, with its arguments bound to
  /// the caller's buffers.
  LogicalResult readCall(func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isDeclaration() || call.getNumResults() != 0 ||
        !callee.getBody().hasOneBlock())
      return call.emitError("calls a function the manifest cannot inline");
    for (auto [arg, operand] :
         llvm::zip(callee.getArguments(), call.getOperands())) {
      if (!isa<MemRefType>(arg.getType()))
        return call.emitError("passes a non-buffer argument to a kernel "
                              "function");
      FailureOr<int64_t> id = bufferOf(operand, call);
      if (failed(id))
        return failure();
      bufferIds[arg] = *id;
    }
    for (Operation &op : callee.getBody().front())
      if (failed(readOp(op)))
        return failure();
    return success();
  }

  /// A TMA tensor map of a whole buffer (docs/manifest.md): the runtime
  /// encodes it for the buffer's address and passes the kernel a pointer
  /// to it in device memory.
  LogicalResult readTensorMap(nvgpu::TmaCreateDescriptorOp op) {
    FailureOr<int64_t> id = bufferOf(op.getTensor(), op);
    if (failed(id))
      return failure();
    nvgpu::TensorMapDescriptorType type = op.getTensorMap().getType();
    json::Array box;
    for (Value dim : op.getBoxDimensions()) {
      FailureOr<int64_t> c = constantOf(dim, op);
      if (failed(c))
        return failure();
      box.push_back(*c);
    }
    if (type.getSwizzle() != nvgpu::TensorMapSwizzleKind::SWIZZLE_128B ||
        type.getOob() != nvgpu::TensorMapOOBKind::OOB_ZERO ||
        type.getInterleave() != nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE)
      return op.emitError("tensor maps other than 128-byte swizzled, "
                          "zero-filled and not interleaved cannot be "
                          "expressed in the manifest");
    // The map's shape is the viewed one (a reshape of the buffer may
    // reach the kernel), which the runtimes encode over the buffer's bytes.
    auto viewed = op.getTensor().getDefiningOp<memref::CastOp>();
    auto shape = viewed ? dyn_cast<MemRefType>(viewed.getSource().getType())
                        : MemRefType();
    if (!shape || !shape.hasStaticShape() || shape.getRank() != 2 ||
        !shape.getLayout().isIdentity())
      return op.emitError("a tensor map must view a static, contiguous 2-D "
                          "buffer");
    tensorMaps[op.getTensorMap()] = json::Object{
        {"buffer", *id},
        {"shape", json::Array(shape.getShape())},
        {"box", std::move(box)},
        {"swizzle", "128B"},
        {"l2_promotion",
         type.getL2promo() == nvgpu::TensorMapL2PromoKind::L2PROMO_256B
             ? "256B"
             : "none"}};
    return success();
  }

  /// The kernel a launch was outlined as, which reports name: the kernel
  /// it calls, unless that is another's identical code.
  static StringRef launchName(gpu::LaunchFuncOp launch) {
    if (auto name = launch->getAttrOfType<StringAttr>(
            egg::EggDialect::getLaunchNameAttrName()))
      return name.getValue();
    return launch.getKernelName().getValue();
  }

  LogicalResult readLaunch(gpu::LaunchFuncOp launch) {
    json::Array grid, block, args;
    gpu::KernelDim3 g = launch.getGridSizeOperandValues();
    gpu::KernelDim3 b = launch.getBlockSizeOperandValues();
    for (Value v : {g.x, g.y, g.z, b.x, b.y, b.z}) {
      FailureOr<int64_t> c = constantOf(v, launch);
      if (failed(c))
        return failure();
      (grid.size() < 3 ? grid : block).push_back(*c);
    }
    int64_t shared = 0;
    if (Value dyn = launch.getDynamicSharedMemorySize()) {
      FailureOr<int64_t> c = constantOf(dyn, launch);
      if (failed(c))
        return failure();
      shared = *c;
    }
    for (Value arg : launch.getKernelOperands()) {
      if (auto it = tensorMaps.find(arg); it != tensorMaps.end()) {
        args.push_back(json::Object{{"tensor_map", json::Object(it->second)}});
        continue;
      }
      if (isa<MemRefType>(arg.getType())) {
        FailureOr<int64_t> id = bufferOf(arg, launch);
        if (failed(id))
          return failure();
        args.push_back(json::Object{{"buffer", *id}});
        continue;
      }
      APInt intValue;
      APFloat floatValue(0.0);
      if (matchPattern(arg, m_ConstantInt(&intValue))) {
        unsigned width = arg.getType().isIndex()
                             ? 64
                             : arg.getType().getIntOrFloatBitWidth();
        args.push_back(
            json::Object{{"scalar", llvm::formatv("i{0}", width).str()},
                         {"value", intValue.getSExtValue()}});
      } else if (matchPattern(arg, m_ConstantFloat(&floatValue)) &&
                 arg.getType().isF32()) {
        args.push_back(json::Object{{"scalar", "f32"},
                                    {"value", floatValue.convertToFloat()}});
      } else {
        return launch.emitError("passes a kernel argument that is not a "
                                "buffer or a constant");
      }
    }
    json::Object step{{"kind", "launch"},
                      {"module", launch.getKernelModuleName().getValue()},
                      {"kernel", launch.getKernelName().getValue()},
                      {"name", launchName(launch)},
                      {"grid", std::move(grid)},
                      {"block", std::move(block)},
                      {"shared_bytes", shared},
                      {"args", std::move(args)}};
    if (launch->hasAttr(egg::EggDialect::getWaitsForPreviousAttrName()))
      step["waits_for_previous"] = true;
    steps.push_back(std::move(step));
    return success();
  }

  json::Array buffers, steps;
  DenseMap<Value, int64_t> bufferIds;
  DenseMap<Value, json::Object> tensorMaps;
};
} // namespace

static LogicalResult exportManifest(ModuleOp module, ArrayRef<Ptx> ptx,
                                    raw_ostream &os) {
  json::Array modules, functions;
  for (auto [name, text] : ptx)
    modules.push_back(json::Object{{"name", name}, {"ptx", text}});
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isDeclaration())
      continue;
    FailureOr<json::Object> host = HostReader().read(func);
    if (failed(host))
      return failure();
    functions.push_back(std::move(*host));
  }
  json::Object root{{"format", "egg-manifest"},
                    {"version", 1},
                    {"modules", std::move(modules)},
                    {"functions", std::move(functions)}};
  if (Attribute target = module->getAttr("egg.target")) {
    std::string text;
    llvm::raw_string_ostream tos(text);
    target.print(tos);
    root["target"] = text;
  }
  // f32 products may have run as TF32: egg-eval judges them accordingly.
  if (module->hasAttr(egg::EggDialect::getAllowTf32AttrName()))
    root["allow_tf32"] = true;

  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
  return success();
}

static void writePtx(Ptx ptx, raw_ostream &os) {
  os << "// egg-ptx-module: " << ptx.first << "\n" << ptx.second << "\n";
}

static std::string moduleNames(ArrayRef<Ptx> ptx) {
  std::string names;
  for (auto [name, text] : ptx)
    names += (names.empty() ? "" : ", ") + name.str();
  return names;
}

static LogicalResult exportPtx(ModuleOp module, ArrayRef<Ptx> ptx,
                               const egg::PtxOutput &output, raw_ostream &os) {
  if (!output.dir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(output.dir))
      return module.emitError("cannot create --egg-ptx-dir '")
             << output.dir << "': " << ec.message();
    for (Ptx one : ptx) {
      SmallString<128> path(output.dir);
      llvm::sys::path::append(path, one.first + ".ptx");
      std::error_code ec;
      llvm::raw_fd_ostream file(path, ec);
      if (ec)
        return module.emitError("cannot write '")
               << path << "': " << ec.message();
      writePtx(one, file);
      os << path << "\n";
    }
    return success();
  }
  if (!output.module.empty()) {
    for (Ptx one : ptx)
      if (one.first == output.module) {
        writePtx(one, os);
        return success();
      }
    return module.emitError("no kernel module named '")
           << output.module << "' (--egg-ptx-module); the module has "
           << moduleNames(ptx);
  }
  // ptxas rejects a second `.version` in one file.
  if (ptx.size() > 1)
    return module.emitError()
           << ptx.size() << " kernel modules (" << moduleNames(ptx)
           << ") and ptxas takes one a file: pick one with "
              "--egg-ptx-module=NAME or write each to a file with "
              "--egg-ptx-dir=DIR";
  writePtx(ptx.front(), os);
  return success();
}

/// Both translations read a module that went through the pipeline.
static FailureOr<std::pair<ModuleOp, SmallVector<Ptx>>>
readCompiled(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin.module");
  auto ptx = collectPtx(module);
  if (failed(ptx))
    return failure();
  return std::make_pair(module, std::move(*ptx));
}

namespace mlir::egg {
LogicalResult translateToManifest(Operation *op, raw_ostream &os) {
  auto compiled = readCompiled(op);
  return failed(compiled)
             ? failure()
             : exportManifest(compiled->first, compiled->second, os);
}
LogicalResult translateToPtx(Operation *op, raw_ostream &os,
                             const PtxOutput &output) {
  auto compiled = readCompiled(op);
  return failed(compiled)
             ? failure()
             : exportPtx(compiled->first, compiled->second, output, os);
}
} // namespace mlir::egg
