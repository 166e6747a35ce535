//===- ReplayAgent.cpp - Decisions from a file ----------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/LlmClient.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::egg;

namespace {
struct Entry {
  std::string anchor, structure, tuning;
};

class ReplayAgent : public Agent {
public:
  ReplayAgent(std::string path, llvm::StringMap<Entry> entries)
      : path(std::move(path)), entries(std::move(entries)) {}

  StringRef getName() const override { return "replay"; }

  FailureOr<StructureAttr> chooseStructure(KernelOp kernel,
                                           ArrayRef<StructureAttr>) override {
    FailureOr<const Entry *> entry = lookup(kernel, "structure");
    if (failed(entry))
      return failure();
    return parse<StructureAttr>(kernel, (*entry)->structure, "structure");
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel, TargetAttr) override {
    FailureOr<const Entry *> entry = lookup(kernel, "tuning");
    if (failed(entry))
      return failure();
    return parse<TuningAttr>(kernel, (*entry)->tuning, "tuning");
  }

private:
  FailureOr<const Entry *> lookup(KernelOp kernel, StringRef field) {
    auto it = entries.find(kernel.getSymName());
    if (it == entries.end() ||
        (field == "structure" ? it->second.structure : it->second.tuning)
            .empty())
      return kernel.emitOpError("decisions file '")
             << path << "' has no " << field << " for kernel @"
             << kernel.getSymName();
    Operation *anchor = kernel.getAnchorOp();
    if (anchor && !it->second.anchor.empty() &&
        anchor->getName().getStringRef() != it->second.anchor)
      return kernel.emitOpError("decisions file '")
             << path << "' was recorded for an anchor '" << it->second.anchor
             << "' but this kernel's anchor is '" << anchor->getName() << "'";
    return &it->second;
  }

  /// Parses with the dialect's own parser, so the verifiers run; parse errors
  /// are reported at the kernel.
  template <typename AttrT>
  FailureOr<AttrT> parse(KernelOp kernel, StringRef text, StringRef field) {
    std::string message;
    Attribute attr;
    {
      ScopedDiagnosticHandler handler(kernel.getContext(), [&](Diagnostic &d) {
        message = d.str();
        return success();
      });
      attr = parseAttribute(text, kernel.getContext());
    }
    auto typed = dyn_cast_or_null<AttrT>(attr);
    if (!typed)
      return kernel.emitOpError("invalid ")
             << field << " in decisions file '" << path
             << "': " << (message.empty() ? "wrong attribute kind" : message);
    return typed;
  }

  std::string path;
  llvm::StringMap<Entry> entries;
};
} // namespace

FailureOr<std::unique_ptr<Agent>>
mlir::egg::createReplayAgent(StringRef path, MLIRContext *ctx, Location loc) {
  if (path.empty())
    return emitError(loc, "the replay agent needs a decisions file");
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc, "cannot read decisions file '")
           << path << "': " << buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return emitError(loc, "decisions file '")
           << path
           << "' is not valid JSON: " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != "egg-decisions")
    return emitError(loc, "'") << path << "' is not an egg-decisions file";
  if (root->getInteger("version") != 1)
    return emitError(loc, "decisions file '")
           << path << "' has an unsupported version";
  const llvm::json::Array *kernels = root->getArray("kernels");
  if (!kernels)
    return emitError(loc, "decisions file '") << path << "' has no kernels";
  llvm::StringMap<Entry> entries;
  for (const llvm::json::Value &value : *kernels) {
    const llvm::json::Object *k = value.getAsObject();
    std::optional<StringRef> name = k ? k->getString("name") : std::nullopt;
    if (!name)
      return emitError(loc, "decisions file '")
             << path << "' has a kernel entry without a name";
    Entry &entry = entries[*name];
    entry.anchor = k->getString("anchor").value_or("").str();
    entry.structure = k->getString("structure").value_or("").str();
    entry.tuning = k->getString("tuning").value_or("").str();
  }
  return std::unique_ptr<Agent>(
      std::make_unique<ReplayAgent>(path.str(), std::move(entries)));
}

FailureOr<std::unique_ptr<Agent>>
mlir::egg::createAgent(StringRef name, StringRef decisionsPath,
                       MLIRContext *ctx, Location loc) {
  if (name == "expert")
    return createExpertAgent();
  if (name == "replay")
    return createReplayAgent(decisionsPath, ctx, loc);
  if (name == "llm")
    return createLlmAgent(LlmConfig::fromEnvironment());
  return emitError(loc, "unknown agent '")
         << name << "'; expected expert, replay or llm";
}
