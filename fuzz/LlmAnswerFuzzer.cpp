//===- LlmAnswerFuzzer.cpp - libFuzzer target for LLM answers -------------===//
//
// Any bytes as what an LLM endpoint sends back: the response body of either
// protocol (parseChatResponse), then the model's text as an answer for
// either stage (parseLlmAnswer: JSON, the dialect's attribute parser and
// verifiers), then the legal-space check and the critic on a GEMM and a
// row-wise kernel. Everything must end in a decision or a reason, never a
// crash. The raw bytes are also tried as the model's text directly.
// Built and run by fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "egg/Agents/Agent.h"
#include "egg/Agents/Critic.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

static const char *kKernels = R"mlir(
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>, %x: tensor<64x1024xf32>) -> (tensor<64x16xf32>, tensor<64x1024xf32>) {
  %r = egg.kernel @f_k0 ins(%a, %b, %c : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> attributes {structure = #egg.structure<gemm_direct>} {
  ^bb0(%p: tensor<64x32xf32>, %q: tensor<32x16xf32>, %z: tensor<64x16xf32>):
    %m = linalg.matmul ins(%p, %q : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
    egg.yield %m : tensor<64x16xf32>
  }
  %s = egg.kernel @f_k1 ins(%x : tensor<64x1024xf32>) -> tensor<64x1024xf32> attributes {structure = #egg.structure<reduce_row_per_warp>} {
  ^bb0(%y: tensor<64x1024xf32>):
    %e = tensor.empty() : tensor<64x1024xf32>
    %o = linalg.softmax dimension(1) ins(%y : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    egg.yield %o : tensor<64x1024xf32>
  }
  return %r, %s : tensor<64x16xf32>, tensor<64x1024xf32>
})mlir";

/// One model text as an answer of either stage for every kernel.
static void tryAnswer(ModuleOp module, const std::string &content) {
  module->walk([&](egg::KernelOp kernel) {
    std::string why, reason;
    Attribute s =
        egg::parseLlmAnswer(kernel, content, "structure", why, reason);
    if (auto structure = dyn_cast_or_null<egg::StructureAttr>(s))
      (void)llvm::is_contained(egg::enumerateStructures(kernel), structure);
    Attribute t = egg::parseLlmAnswer(kernel, content, "tuning", why, reason);
    if (auto tuning = dyn_cast_or_null<egg::TuningAttr>(t)) {
      egg::TargetAttr target = egg::lookupTarget(kernel);
      if (succeeded(egg::checkLowerable(
              kernel, tuning, [&]() { return kernel.emitOpError(); })))
        (void)egg::critique(kernel, kernel.getStructureAttr(), tuning, target);
    }
  });
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ScopedDiagnosticHandler quiet(egg_fuzz::getContext(),
                                [](Diagnostic &) { return success(); });
  // Parsed once: answers are only parsed and checked, never set.
  static OwningOpRef<ModuleOp> module = egg_fuzz::parseKernels(kKernels);
  std::string bytes(reinterpret_cast<const char *>(data), size);
  for (const char *protocol : {"openai", "anthropic"}) {
    egg::LlmConfig config;
    config.protocol = protocol;
    egg::LlmReply reply;
    if (egg::parseChatResponse(config, bytes, reply))
      tryAnswer(*module, reply.content);
  }
  tryAnswer(*module, bytes);
  return 0;
}
