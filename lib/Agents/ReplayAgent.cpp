//===- ReplayAgent.cpp - Decisions from a file ----------------------------===//

#include "egg/Agents/Agent.h"
#include "egg/Agents/Decisions.h"
#include "egg/Agents/LlmClient.h"
#include "egg/Support/Json.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::egg;

namespace {
struct Entry {
  std::string name, anchor, signature, structure, tuning;
};

class ReplayAgent : public Agent {
public:
  ReplayAgent(std::string path, std::vector<Entry> entries)
      : path(std::move(path)), entries(std::move(entries)) {
    for (const Entry &e : this->entries)
      byName[e.name] = &e;
  }

  StringRef getName() const override { return "replay"; }

  FailureOr<StructureAttr> chooseStructure(KernelOp kernel,
                                           ArrayRef<StructureAttr>) override {
    FailureOr<const Entry *> entry = lookup(kernel, "structure");
    if (failed(entry))
      return failure();
    return parse<StructureAttr>(kernel, (*entry)->structure, "structure");
  }

  FailureOr<TuningAttr> chooseTuning(KernelOp kernel, StructureAttr,
                                     TargetAttr) override {
    FailureOr<const Entry *> entry = lookup(kernel, "tuning");
    if (failed(entry))
      return failure();
    return parse<TuningAttr>(kernel, (*entry)->tuning, "tuning");
  }

private:
  /// Which entry each kernel of `scope` replays (docs/decisions.md): the one
  /// of its name recorded for the same body; else one recorded for the same
  /// body under another name (kernels are named by position, so a kernel
  /// added or fused away elsewhere renames the others), each such entry
  /// used once while another is left; else the one of its name that no
  /// other kernel took (a file without signatures, or a body changed since
  /// it was recorded).
  void match(Operation *scope) {
    matchedScope = scope;
    matched.clear();
    renamed.clear();
    SmallVector<KernelOp> kernels;
    scope->walk([&](KernelOp k) { kernels.push_back(k); });
    bool anySignature = llvm::any_of(
        entries, [](const Entry &e) { return !e.signature.empty(); });
    SmallVector<std::string> signatures;
    for (KernelOp k : kernels)
      signatures.push_back(anySignature ? kernelSignature(k) : "");
    llvm::DenseSet<const Entry *> used;
    for (auto [k, signature] : llvm::zip(kernels, signatures)) {
      const Entry *e = byName.lookup(k.getSymName());
      if (e && !signature.empty() && e->signature == signature) {
        matched[k] = e;
        used.insert(e);
      }
    }
    for (auto [k, signature] : llvm::zip(kernels, signatures)) {
      if (matched.count(k) || signature.empty())
        continue;
      const Entry *first = nullptr;
      for (const Entry &e : entries) {
        if (e.signature != signature)
          continue;
        if (!first)
          first = &e;
        if (!used.contains(&e)) {
          first = &e;
          break;
        }
      }
      if (first) {
        matched[k] = first;
        used.insert(first);
      }
    }
    for (KernelOp k : kernels) {
      if (matched.count(k))
        continue;
      // Not an entry another kernel took by its signature: a kernel added
      // since the recording has no decisions (an error at the kernel).
      if (const Entry *e = byName.lookup(k.getSymName());
          e && !used.contains(e)) {
        matched[k] = e;
        if (!e->signature.empty())
          renamed.insert(k);
      }
    }
  }

  FailureOr<const Entry *> lookup(KernelOp kernel, StringRef field) {
    Operation *scope = kernel->getParentOfType<ModuleOp>();
    if (!scope)
      scope = kernel;
    if (scope != matchedScope || !matched.count(kernel))
      match(scope);
    const Entry *entry = matched.lookup(kernel);
    if (!entry ||
        (field == "structure" ? entry->structure : entry->tuning).empty())
      return kernel.emitOpError("decisions file '")
             << path << "' has no " << field << " for kernel @"
             << kernel.getSymName();
    Operation *anchor = kernel.getAnchorOp();
    if (anchor && !entry->anchor.empty() &&
        anchor->getName().getStringRef() != entry->anchor)
      return kernel.emitOpError("decisions file '")
             << path << "' was recorded for an anchor '" << entry->anchor
             << "' but this kernel's anchor is '" << anchor->getName() << "'";
    // Said once, at stage 1 (each stage pass has its own agent).
    if (field == "structure" && renamed.erase(kernel))
      kernel.emitWarning("decisions file '")
          << path << "' recorded @" << kernel.getSymName()
          << " with another body; replaying its decisions by name";
    return entry;
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
  std::vector<Entry> entries;
  llvm::StringMap<const Entry *> byName;
  Operation *matchedScope = nullptr;
  llvm::DenseMap<Operation *, const Entry *> matched;
  llvm::DenseSet<Operation *> renamed;
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
      mlir::egg::parseJson((*buffer)->getBuffer());
  if (!json)
    return emitError(loc, "decisions file '")
           << path
           << "' is not valid JSON: " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != "egg-decisions")
    return emitError(loc, "'") << path << "' is not an egg-decisions file";
  if (jsonInteger(*root, "version") != 1)
    return emitError(loc, "decisions file '")
           << path << "' has an unsupported version";
  const llvm::json::Array *kernels = root->getArray("kernels");
  if (!kernels)
    return emitError(loc, "decisions file '") << path << "' has no kernels";
  std::vector<Entry> entries;
  for (const llvm::json::Value &value : *kernels) {
    const llvm::json::Object *k = value.getAsObject();
    std::optional<StringRef> name = k ? k->getString("name") : std::nullopt;
    if (!name)
      return emitError(loc, "decisions file '")
             << path << "' has a kernel entry without a name";
    Entry &entry = entries.emplace_back();
    entry.name = name->str();
    entry.signature = k->getString("signature").value_or("").str();
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
