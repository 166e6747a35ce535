//===- TuneProcesses.cpp - Compiling candidates, running egg-eval ---------===//

#include "TunerImpl.h"
#include "egg/Agents/Agent.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Analysis/KernelAnalysis.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Dialect/Egg/Transforms/Legality.h"
#include "egg/Dialect/Egg/Transforms/Passes.h"
#include "egg/Pipelines/Pipelines.h"
#include "egg/Support/Hash.h"
#include "egg/Support/Json.h"
#include "egg/Target/Profiles.h"
#include "egg/Tools/Registration.h"
#include "egg/Translate/Translations.h"
#include "egg/Tune/Analyst.h"
#include "egg/Tune/CostModel.h"
#include "egg/Tune/Report.h"
#include "egg/Tune/SearchSpace.h"
#include "egg/Tune/TuneDatabase.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include <algorithm>
#include <chrono>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::egg;
using namespace mlir::egg::tune;

bool mlir::egg::tune::writeFile(const std::string &path, StringRef text,
                                std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  os << text;
  return true;
}

int mlir::egg::tune::runWithTimeout(
    StringRef program, ArrayRef<StringRef> args, ArrayRef<StringRef> env,
    ArrayRef<std::optional<StringRef>> redirects, double seconds,
    std::string &message, bool &crashed) {
  bool failedToStart = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      program, args, env, redirects, 0, &message, &failedToStart);
  if (failedToStart)
    return -1;
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    llvm::sys::ProcessInfo done = llvm::sys::Wait(child, 0u, &message);
    if (done.Pid != 0) {
      crashed = done.ReturnCode == -2;
      return done.ReturnCode;
    }
    if (Clock::now() > deadline) {
      ::kill(child.Pid, SIGKILL);
      llvm::sys::Wait(child, std::nullopt, &message);
      message = llvm::formatv("killed after {0} s", seconds).str();
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

CompileResult
mlir::egg::tune::compileCandidate(const TuneOptions &opt,
                                  const std::string &source,
                                  const std::string &decisionsPath) {
  CompileResult result;
  DialectRegistry registry;
  registerToolExtensions(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, opt.inputPath),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagnostics);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return result;
  PassManager pm(&ctx);
  EggPipelineOptions options;
  options.chip = opt.chip;
  options.splitK = opt.splitK;
  options.agent = "replay";
  options.decisions = decisionsPath;
  options.cudaPath = opt.cudaPath;
  buildEggPipeline(pm, options);
  if (failed(pm.run(*module)))
    return result;
  llvm::raw_string_ostream manifest(result.manifest);
  result.ok = succeeded(translateToManifest(*module, manifest));
  return result;
}
