//===- Pipelines.h - The EGG pass pipelines ---------------------*- C++ -*-===//

#ifndef EGG_PIPELINES_PIPELINES_H
#define EGG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace egg {

struct EggPipelineOptions : public PassPipelineOptions<EggPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip (sm_80, sm_90, sm_90a)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features for the NVVM target"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level for NVPTX"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose libdevice implements math functions "
                     "(default: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> allowTf32{
      *this, "allow-tf32",
      llvm::cl::desc("Allow f32 products to read their inputs as TF32 on "
                     "tensor cores (sets egg.allow_tf32)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> splitK{
      *this, "split-k",
      llvm::cl::desc("Let products with few output tiles split along K, and "
                     "column reductions with few columns along their rows, "
                     "into a workspace (false sets egg.no_split_k)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> agent{
      *this, "agent", llvm::cl::desc("Who decides: expert or replay"),
      llvm::cl::init("expert")};
  PassOptions::Option<std::string> decisions{
      *this, "decisions",
      llvm::cl::desc("Decisions file to replay (with agent=replay)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> record{
      *this, "record", llvm::cl::desc("Write the decisions taken to this file"),
      llvm::cl::init("")};
};

/// linalg on tensors -> egg kernels -> decisions -> PTX in gpu.binary ops,
/// with a host function of launches that egg-translate turns into a
/// manifest. Stages: docs/pipeline.md.
void buildEggPipeline(OpPassManager &pm, const EggPipelineOptions &options);

/// The back half: decided egg kernels -> PTX (egg-apply-schedule onwards).
void buildEggLoweringPipeline(OpPassManager &pm,
                              const EggPipelineOptions &options);

/// Registers --egg-pipeline and --egg-lower-to-nvvm.
void registerEggPipelines();

} // namespace egg
} // namespace mlir

#endif // EGG_PIPELINES_PIPELINES_H
