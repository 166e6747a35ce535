//===- MlirPipelineFuzzer.cpp - libFuzzer target for egg-opt's input ------===//
//
// Any bytes as egg-opt's input: parsed as MLIR, verified, then compiled by
// the whole EGG pipeline with the built-in expert (what `egg-opt
// --egg-pipeline` does), PTX included. Input EGG does not take must end in
// a diagnostic, never a crash. Seeded with the examples and lit inputs
// (fuzz/corpus/mlir/), which libFuzzer mutates. Built and run by
// fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#include "egg/Pipelines/Pipelines.h"
#include "egg/Tools/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Regex.h"

using namespace mlir;

/// MLIR 22's parsers of linalg.transpose and linalg.broadcast dereference a
/// null attribute when the `permutation` / `dimensions` list is malformed,
/// an integer in it too large for 64 bits included (an upstream bug this
/// fuzzer found first; egg-opt shares it, see docs/reliability.md). Such
/// inputs are skipped so that the campaign goes on to find EGG's own bugs.
static bool hitsUpstreamParserCrash(llvm::StringRef text) {
  static llvm::Regex list(
      "^(permutation|dimensions)[[:space:]]*=[[:space:]]*\\[[[:space:]]*"
      "(-?[0-9]{1,18}([[:space:]]*,[[:space:]]*-?[0-9]{1,18})*)?[[:space:]]*"
      "\\]");
  for (llvm::StringRef key : {"permutation", "dimensions"}) {
    size_t pos = 0;
    while ((pos = text.find(key, pos)) != llvm::StringRef::npos) {
      llvm::StringRef rest = text.drop_front(pos);
      // A well-formed list right after the key is fine.
      if (!list.match(rest.take_front(rest.find_first_of("\n}"))))
        return true;
      pos += key.size();
    }
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    egg::registerToolExtensions(*r);
    egg::registerToolPasses();
    return r;
  }();
  // A fresh context per input: a half-built module must not leak into the
  // next one. Single-threaded, like most egg-opt runs on small inputs.
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  ctx.allowUnregisteredDialects(false);
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // MLIR's lexer reads up to a terminating NUL, as files read by egg-opt
  // have; the fuzzer's buffer has none, so parse a NUL-terminated copy.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (hitsUpstreamParserCrash(text))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module || failed(verify(*module)))
    return 0;
  PassManager pm(&ctx);
  egg::EggPipelineOptions options;
  egg::buildEggPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
