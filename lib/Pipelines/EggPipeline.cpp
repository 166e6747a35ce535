//===- EggPipeline.cpp - The EGG pass pipelines ---------------------------===//

#include "egg/Agents/Passes.h"
#include "egg/Dialect/Egg/IR/EggAttrs.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Pipelines/Pipelines.h"
#include "egg/Target/Profiles.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::egg;

/// The CUDA toolkit to take libdevice from: the option, else the usual
/// environment variables, else the default install location.
static std::string findCudaToolkit(StringRef option) {
  if (!option.empty())
    return option.str();
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
  if (llvm::sys::fs::exists("/usr/local/cuda/nvvm/libdevice"))
    return "/usr/local/cuda";
  return "";
}

void mlir::egg::buildEggLoweringPipeline(OpPassManager &pm,
                                         const EggPipelineOptions &options) {
  // Decisions -> tiled tensor IR, one private function per kernel (a
  // product split along K becomes two kernels first, the sum's mapping
  // chosen by the built-in expert: it is part of the split formulation).
  pm.addPass(createEggSplitK());
  pm.addPass(createEggHardwareTuning());
  pm.addPass(createEggApplySchedule());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Tensors -> buffers. Kernel functions write their results in place;
  // the host function's results become out-parameters tagged
  // `bufferize.result` for the manifest.
  // A tile computed into a fresh empty tensor and inserted into the
  // kernel's output is computed in the output instead (no private copy).
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  // CSE then canonicalize: removes the self-copies bufferization leaves,
  // which would otherwise become host-only memrefCopy calls in kernels.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  outParams.addResultAttribute = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addNestedPass<func::FuncOp>(createEggForwardResultCopies());

  // Loops -> gpu.launch; per-thread temporaries move to the stack there;
  // rows shared by lanes get their own loops.
  pm.addPass(createEggMapToGPU());
  pm.addPass(createEggDistributeRows());
  pm.addPass(createEggLowerSharedGemm());
  pm.addPass(createEggLowerColumnReductions());
  pm.addPass(createEggLowerScans());
  pm.addPass(createEggLowerRecurrences());
  pm.addPass(createEggLowerStagedMaps());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createEggUnrollPrivateTiles());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createEggClusterKernels());
  pm.addPass(createEggMinBlocksPerSM());
  // Hopper and later: a split product's sum launches while its partial
  // products run (programmatic dependent launch; docs/pipeline.md). Before
  // inlining, while each launch is still in its kernel's function.
  if (chipSupportsDependentLaunch(options.chip))
    pm.addPass(createEggOverlapLaunches());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Once kernels are final but before their lowering: everything after
  // this runs once per distinct kernel.
  pm.addPass(createEggMergeIdenticalKernels());
  // Only kernels get their memref views expanded into address arithmetic:
  // the host function keeps its reshapes as views the manifest can read.
  OpPassManager &kernelPm = pm.nest<gpu::GPUModuleOp>();
  kernelPm.addPass(memref::createExpandStridedMetadataPass());
  // No canonicalisation here: folding the expanded index arithmetic made
  // the GEMM kernels' address computation 64-bit and 22% slower (measured).
  kernelPm.addPass(createLowerAffinePass());
  kernelPm.addPass(createSCFToControlFlowPass());

  // Kernels -> NVVM -> PTX.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createEggAlignWorkgroupMemory());
  // Before libdevice's erff would take math.erf (docs/pipeline.md).
  gpuPm.addPass(createEggExpandErf());
  // Asynchronous copies (the shared-memory GEMM) first: they need the
  // memrefs still typed as memrefs.
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  gpuPm.addPass(createEggLowerTensorMapArgs());
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // Dynamic shared memory as an external declaration: ptxas places it after
  // the static variables (mbarriers) instead of around them.
  gpuPm.addPass(createEggExternDynamicSharedMemory());
  // NVVM ops with no LLVM intrinsic (wgmma.mma_async) become inline PTX.
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  EggSerializeKernelsOptions toBinary;
  toBinary.format = "isa";
  toBinary.toolkitPath = findCudaToolkit(options.cudaPath);
  pm.addPass(createEggSerializeKernels(toBinary));
  pm.addPass(createEggStripCompileTimes());
}

void mlir::egg::buildEggPipeline(OpPassManager &pm,
                                 const EggPipelineOptions &options) {
  EggAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.allowTf32 = options.allowTf32;
  attach.splitK = options.splitK;
  pm.addPass(createEggAttachTarget(attach));
  pm.addNestedPass<func::FuncOp>(createEggCollapseReducedLoops());
  pm.addNestedPass<func::FuncOp>(createEggFormKernels());
  EggAlgorithmStructureOptions stage1;
  stage1.agentName = options.agent;
  stage1.decisionsPath = options.decisions;
  pm.addPass(createEggAlgorithmStructure(stage1));
  EggHardwareTuningOptions stage2;
  stage2.agentName = options.agent;
  stage2.decisionsPath = options.decisions;
  pm.addPass(createEggHardwareTuning(stage2));
  if (!options.record.empty()) {
    EggRecordDecisionsOptions record;
    record.path = options.record;
    pm.addPass(createEggRecordDecisions(record));
  }
  buildEggLoweringPipeline(pm, options);
}

void mlir::egg::registerEggPipelines() {
  PassPipelineRegistration<EggPipelineOptions>(
      "egg-pipeline",
      "linalg on tensors to PTX: kernels, agent decisions, lowering",
      buildEggPipeline);
  PassPipelineRegistration<EggPipelineOptions>(
      "egg-lower-to-nvvm", "decided egg kernels to PTX",
      [](OpPassManager &pm, const EggPipelineOptions &options) {
        // The permission is checked where the decisions are applied; a
        // profile already attached stays.
        if (options.allowTf32) {
          EggAttachTargetOptions attach;
          attach.chip = options.chip;
          attach.allowTf32 = true;
          pm.addPass(createEggAttachTarget(attach));
        }
        buildEggLoweringPipeline(pm, options);
      });
}
