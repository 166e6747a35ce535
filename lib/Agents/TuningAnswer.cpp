//===- TuningAnswer.cpp - Stage 2's answer as knobs -----------------------===//

#include "egg/Agents/TuningAnswer.h"
#include "egg/Dialect/Egg/IR/TuningBuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::egg;
namespace json = llvm::json;

/// `values` with `extra` added, sorted and unique.
static SmallVector<int64_t> withValues(ArrayRef<int64_t> values,
                                       ArrayRef<int64_t> extra) {
  SmallVector<int64_t> all(values.begin(), values.end());
  all.append(extra.begin(), extra.end());
  llvm::sort(all);
  all.erase(llvm::unique(all), all.end());
  return all;
}

static json::Object integerOf(ArrayRef<int64_t> values) {
  json::Array list;
  for (int64_t v : values)
    list.push_back(v);
  return json::Object{{"type", "integer"}, {"enum", std::move(list)}};
}

static json::Object listOf(ArrayRef<int64_t> values, unsigned least,
                           unsigned most) {
  return json::Object{{"type", "array"},
                      {"items", integerOf(values)},
                      {"minItems", int64_t(least)},
                      {"maxItems", int64_t(most)}};
}

static json::Object stringOf(ArrayRef<StringRef> values) {
  json::Array list;
  for (StringRef v : values)
    list.push_back(v);
  return json::Object{{"type", "string"}, {"enum", std::move(list)}};
}

json::Object mlir::egg::tuningSchema(const TuningKnobs &knobs,
                                     TuningAttr proposal) {
  json::Object properties;
  auto add = [&](StringRef name, json::Object schema) {
    properties[name] = std::move(schema);
  };
  // Threads per block dimension: whole warps, warpgroups and their thirds.
  SmallVector<int64_t> threads;
  for (int64_t base : {1, 3})
    for (int64_t v = base; v <= 1024; v *= 2)
      threads.push_back(v);
  add("threads", listOf(withValues(threads, proposal.getThreads()), 1, 3));
  SmallVector<int64_t> tiles = withValues(knobs.tiles, proposal.getBlock());
  tiles = withValues(tiles, proposal.getWarp());
  tiles = withValues(tiles, proposal.getThread());
  add("block", listOf(tiles, knobs.parallelLoops, knobs.parallelLoops));
  // Optional lists: empty means "no tile at this level".
  if (knobs.warp)
    add("warp", listOf(tiles, 0, knobs.parallelLoops));
  if (knobs.thread)
    add("thread", listOf(tiles, 0, knobs.parallelLoops));
  if (knobs.reductionLoops)
    add("reduction",
        listOf(withValues(knobs.reductionTiles, proposal.getReduction()), 0,
               knobs.reductionLoops));
  if (knobs.operands) {
    SmallVector<int64_t> operands;
    for (unsigned i = 0; i < knobs.operands; ++i)
      operands.push_back(i);
    add("shared", listOf(operands, 0, knobs.operands));
    if (knobs.warp)
      add("registers", listOf(operands, 0, knobs.operands));
  }
  if (knobs.padding)
    add("padding",
        integerOf(withValues({0, 1, 2, 4, 8}, {proposal.getPadding()})));
  if (knobs.swizzle)
    add("swizzle", stringOf({"none", "xor128"}));
  add("vector", integerOf(withValues(knobs.vectors, {proposal.getVector()})));
  if (knobs.copy)
    add("copy", stringOf({"sync", "cp_async", "tma"}));
  if (knobs.pipeline)
    add("pipeline", integerOf(withValues({1, 2, 3, 4, 5, 6, 7, 8},
                                         {proposal.getPipeline()})));
  if (knobs.cluster)
    add("cluster",
        integerOf(withValues({1, 2, 4, 8}, {proposal.getCluster()})));
  if (knobs.rowShared)
    add("row_shared", integerOf(withValues({0, 1, 2, 3, 4, 5, 6, 7, 8},
                                           {proposal.getRowShared()})));
  if (knobs.fragmentsAhead)
    add("fragments_ahead", integerOf({0, 1}));
  if (knobs.tf32Terms)
    add("tf32_terms", integerOf({1, 3}));
  if (knobs.mma)
    add("mma", stringOf({"fma", "mma_sync", "wgmma"}));
  // Strict schemas (OpenAI) need every property required.
  json::Array required;
  for (const auto &entry : properties)
    required.push_back(entry.first.str());
  llvm::sort(required, [](const json::Value &a, const json::Value &b) {
    return *a.getAsString() < *b.getAsString();
  });
  return json::Object{{"type", "object"},
                      {"properties", std::move(properties)},
                      {"required", std::move(required)},
                      {"additionalProperties", false}};
}

json::Object mlir::egg::tuningToJson(TuningAttr tuning,
                                     const TuningKnobs &knobs) {
  auto list = [](ArrayRef<int64_t> values) {
    json::Array array;
    for (int64_t v : values)
      array.push_back(v);
    return array;
  };
  json::Object object{{"threads", list(tuning.getThreads())},
                      {"block", list(tuning.getBlock())},
                      {"vector", tuning.getVector()}};
  if (knobs.warp)
    object["warp"] = list(tuning.getWarp());
  if (knobs.thread)
    object["thread"] = list(tuning.getThread());
  if (knobs.reductionLoops)
    object["reduction"] = list(tuning.getReduction());
  if (knobs.operands) {
    object["shared"] = list(tuning.getShared());
    if (knobs.warp)
      object["registers"] = list(tuning.getRegisters());
  }
  if (knobs.padding)
    object["padding"] = tuning.getPadding();
  if (knobs.swizzle)
    object["swizzle"] = stringifySwizzle(tuning.getSwizzle());
  if (knobs.copy)
    object["copy"] = stringifyCopyEngine(tuning.getCopy());
  if (knobs.pipeline)
    object["pipeline"] = tuning.getPipeline();
  if (knobs.cluster)
    object["cluster"] = tuning.getCluster();
  if (knobs.rowShared)
    object["row_shared"] = tuning.getRowShared();
  if (knobs.fragmentsAhead)
    object["fragments_ahead"] = tuning.getFragmentsAhead();
  if (knobs.tf32Terms)
    object["tf32_terms"] = tuning.getTf32Terms();
  if (knobs.mma)
    object["mma"] = stringifyMmaKind(tuning.getMma());
  return object;
}

/// Sets an enum knob named by one of its keywords; false with `why` as the
/// reason where `text` is none of them.
template <typename EnumT>
static bool readEnumKnob(TuningBuilder &builder, std::string &reason,
                         std::optional<StringRef> text,
                         std::optional<EnumT> (*symbolize)(StringRef),
                         TuningBuilder &(TuningBuilder::*setter)(EnumT),
                         StringRef why) {
  std::optional<EnumT> value = text ? symbolize(*text) : std::nullopt;
  if (!value) {
    reason = why.str();
    return false;
  }
  (builder.*setter)(*value);
  return true;
}

TuningAttr mlir::egg::tuningFromJson(const json::Object &object,
                                     MLIRContext *ctx, std::string &reason) {
  TuningBuilder builder(ctx);
  auto integer = [&](StringRef name, const json::Value &v,
                     int64_t &out) -> bool {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      reason = ("\"" + name + "\" must be an integer").str();
      return false;
    }
    out = *i;
    return true;
  };
  auto list = [&](StringRef name, const json::Value &v,
                  SmallVector<int64_t> &out) -> bool {
    const json::Array *array = v.getAsArray();
    if (!array) {
      reason = ("\"" + name + "\" must be a list of integers").str();
      return false;
    }
    for (const json::Value &e : *array)
      if (!integer(name, e, out.emplace_back()))
        return false;
    return true;
  };
  // In name order, so that the same answer always gives the same reason.
  SmallVector<StringRef> names;
  for (const auto &entry : object)
    names.push_back(entry.first);
  llvm::sort(names);
  // Each knob's setter, by its name in the answer.
  using ListKnob = TuningBuilder &(TuningBuilder::*)(ArrayRef<int64_t>);
  using IntegerKnob = TuningBuilder &(TuningBuilder::*)(int64_t);
  static const llvm::StringMap<ListKnob> listKnobs = {
      {"threads", &TuningBuilder::threads},
      {"block", &TuningBuilder::block},
      {"warp", &TuningBuilder::warp},
      {"thread", &TuningBuilder::thread},
      {"reduction", &TuningBuilder::reduction},
      {"shared", &TuningBuilder::shared},
      {"registers", &TuningBuilder::registers}};
  static const llvm::StringMap<IntegerKnob> integerKnobs = {
      {"padding", &TuningBuilder::padding},
      {"vector", &TuningBuilder::vector},
      {"pipeline", &TuningBuilder::pipeline},
      {"cluster", &TuningBuilder::cluster},
      {"row_shared", &TuningBuilder::rowShared},
      {"fragments_ahead", &TuningBuilder::fragmentsAhead},
      {"tf32_terms", &TuningBuilder::tf32Terms}};
  for (StringRef name : names) {
    const json::Value &value = *object.get(name);
    SmallVector<int64_t> values;
    int64_t number = 0;
    std::optional<StringRef> text = value.getAsString();
    if (auto knob = listKnobs.find(name); knob != listKnobs.end()) {
      if (!list(name, value, values))
        return {};
      (builder.*knob->second)(values);
    } else if (name == "swizzle") {
      if (!readEnumKnob(builder, reason, text, symbolizeSwizzle,
                        &TuningBuilder::swizzle,
                        "\"swizzle\" must be \"none\" or \"xor128\""))
        return {};
    } else if (name == "copy") {
      if (!readEnumKnob(builder, reason, text, symbolizeCopyEngine,
                        &TuningBuilder::copy,
                        "\"copy\" must be \"sync\", \"cp_async\" or \"tma\""))
        return {};
    } else if (name == "mma") {
      if (!readEnumKnob(builder, reason, text, symbolizeMmaKind,
                        &TuningBuilder::mma,
                        "\"mma\" must be \"fma\", \"mma_sync\" or \"wgmma\""))
        return {};
    } else if (auto knob = integerKnobs.find(name);
               knob != integerKnobs.end()) {
      if (!integer(name, value, number))
        return {};
      (builder.*knob->second)(number);
    } else {
      reason = ("unknown knob \"" + name + "\"").str();
      return {};
    }
  }
  std::string message;
  ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
    if (message.empty())
      message = d.str();
    return success();
  });
  TuningAttr tuning =
      builder.getChecked([&]() { return emitError(UnknownLoc::get(ctx)); });
  if (!tuning)
    reason = message.empty() ? "not a valid #egg.tuning" : message;
  return tuning;
}
