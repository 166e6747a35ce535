//===- Decisions.cpp - Export the decisions of a module -------------------===//
//
// A decisions file records, per kernel, the attributes the agents chose, in
// the dialect's own syntax: replaying it parses them back through the same
// verifiers, so a file can never carry a decision the IR would reject.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Decisions.h"
#include "egg/Dialect/Egg/IR/EggOps.h"
#include "egg/Support/Hash.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::egg;

std::string mlir::egg::printDecision(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

std::string mlir::egg::kernelSignature(KernelOp kernel) {
  // A detached copy without operands (the body's arguments keep the types),
  // name, decisions or other annotations (an LLM agent's rationale).
  Operation *copy =
      kernel->clone(Operation::CloneOptions::all().cloneOperands(false));
  copy->setDiscardableAttrs(ArrayRef<NamedAttribute>{});
  auto bare = cast<KernelOp>(copy);
  bare.setSymName("kernel");
  bare.removeStructureAttr();
  bare.removeTuningAttr();
  // Every flag set here: the defaults follow the tool's --mlir-print-*
  // options, which would change (or, skipping regions, blur) the signature.
  OpPrintingFlags flags;
  flags.printGenericOpForm()
      .useLocalScope()
      .assumeVerified()
      .enableDebugInfo(false)
      .skipRegions(false)
      .printValueUsers(false)
      .printUniqueSSAIDs(false)
      .printNameLocAsPrefix(false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .printLargeElementsAttrWithHex(-1);
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, flags);
  copy->destroy();
  return sha256Hex(text).substr(0, 16);
}

/// A dictionary of strings, integers and dictionaries of them, as JSON.
static llvm::json::Object toJson(DictionaryAttr dict) {
  llvm::json::Object object;
  for (NamedAttribute entry : dict) {
    Attribute value = entry.getValue();
    if (auto text = dyn_cast<StringAttr>(value))
      object[entry.getName().getValue()] = text.getValue();
    else if (auto number = dyn_cast<IntegerAttr>(value))
      object[entry.getName().getValue()] = number.getInt();
    else if (auto nested = dyn_cast<DictionaryAttr>(value))
      object[entry.getName().getValue()] = toJson(nested);
  }
  return object;
}

LogicalResult mlir::egg::exportDecisions(Operation *op, raw_ostream &os) {
  llvm::json::Array kernels;
  op->walk([&](KernelOp kernel) {
    llvm::json::Object entry{{"name", kernel.getSymName()},
                             {"signature", kernelSignature(kernel)}};
    if (Operation *anchor = kernel.getAnchorOp())
      entry["anchor"] = anchor->getName().getStringRef();
    if (StructureAttr s = kernel.getStructureAttr())
      entry["structure"] = printDecision(s);
    if (TuningAttr t = kernel.getTuningAttr())
      entry["tuning"] = printDecision(t);
    // Who decided each stage and why, where an agent recorded it.
    if (auto decidedBy = kernel->getAttrOfType<DictionaryAttr>(
            EggDialect::getDecidedByAttrName()))
      entry["decided_by"] = toJson(decidedBy);
    if (auto rationale = kernel->getAttrOfType<DictionaryAttr>(
            EggDialect::getRationaleAttrName()))
      entry["rationale"] = toJson(rationale);
    kernels.push_back(std::move(entry));
  });
  llvm::json::Object root{{"format", "egg-decisions"},
                          {"version", 1},
                          {"kernels", std::move(kernels)}};
  if (TargetAttr target = lookupTarget(op))
    root["target"] = printDecision(target);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}
