//===- EggAttrs.cpp - EGG decision attributes -----------------------------===//

#include "egg/Dialect/Egg/IR/EggAttrs.h"
#include "egg/Dialect/Egg/IR/EggDialect.h"
#include "egg/Support/Saturating.h"
#include "egg/Target/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::egg;

#include "egg/Dialect/Egg/IR/EggEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "egg/Dialect/Egg/IR/EggAttrs.cpp.inc"

void EggDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "egg/Dialect/Egg/IR/EggAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

FailureOr<std::pair<int64_t, bool>> mlir::egg::parseChip(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return failure();
  bool archSpecific = chip.consume_back("a");
  int64_t version;
  if (chip.empty() || chip.getAsInteger(10, version) || version < 10)
    return failure();
  return std::make_pair(version, archSpecific);
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef chip,
                   StringRef name, int64_t smCount, int64_t warpSize,
                   int64_t maxThreadsPerBlock, int64_t sharedMemoryPerBlock,
                   int64_t registersPerBlock, int64_t maxRegistersPerThread,
                   int64_t l2Bytes, int64_t dramGbps, int64_t fp32Gflops,
                   int64_t tensorGflops) {
  if (failed(parseChip(chip)))
    return emitError() << "chip must look like 'sm_90' or 'sm_90a', got '"
                       << chip << "'";
  if (warpSize != 32)
    return emitError() << "warp_size must be 32 on NVIDIA GPUs, got "
                       << warpSize;
  std::pair<StringRef, int64_t> positives[] = {
      {"sm_count", smCount},
      {"max_threads_per_block", maxThreadsPerBlock},
      {"shared_memory_per_block", sharedMemoryPerBlock},
      {"registers_per_block", registersPerBlock},
      {"max_registers_per_thread", maxRegistersPerThread},
      {"l2_bytes", l2Bytes},
      {"dram_gbps", dramGbps},
      {"fp32_gflops", fp32Gflops},
      {"tensor_gflops", tensorGflops}};
  for (auto [field, value] : positives)
    if (value <= 0)
      return emitError() << field << " must be positive, got " << value;
  if (maxThreadsPerBlock % warpSize != 0)
    return emitError() << "max_threads_per_block (" << maxThreadsPerBlock
                       << ") must be a multiple of warp_size";
  return success();
}

int64_t TargetAttr::getSmVersion() const { return parseChip(getChip())->first; }

bool TargetAttr::hasArchSpecificFeatures() const {
  return parseChip(getChip())->second;
}

//===----------------------------------------------------------------------===//
// StructureAttr
//===----------------------------------------------------------------------===//

LogicalResult
StructureAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      Formulation formulation, int64_t splitK) {
  if (splitK < 1)
    return emitError() << "split_k must be at least 1, got " << splitK;
  if (formulation == Formulation::gemm_split_k && splitK < 2)
    return emitError() << "gemm_split_k needs split_k >= 2, got " << splitK;
  if (formulation != Formulation::gemm_split_k &&
      formulation != Formulation::reduce_two_stage && splitK != 1)
    return emitError()
           << "split_k only applies to gemm_split_k and reduce_two_stage, not "
           << stringifyFormulation(formulation);
  return success();
}

bool StructureAttr::isSplit() const {
  return getFormulation() == Formulation::gemm_split_k ||
         (getFormulation() == Formulation::reduce_two_stage && getSplitK() > 1);
}

//===----------------------------------------------------------------------===//
// TuningAttr
//===----------------------------------------------------------------------===//

int64_t TuningAttr::getNumThreads() const {
  int64_t n = 1;
  for (int64_t t : getThreads())
    n *= t;
  return n;
}

static LogicalResult
checkNonNegative(function_ref<InFlightDiagnostic()> emitError, StringRef what,
                 ArrayRef<int64_t> values) {
  for (int64_t v : values)
    if (v < 0)
      return emitError() << what << " entries must be non-negative, got " << v;
  return success();
}

/// A tile level below another must have one entry per loop and divide it.
static LogicalResult
checkNestedTile(function_ref<InFlightDiagnostic()> emitError, StringRef inner,
                ArrayRef<int64_t> innerTile, StringRef outer,
                ArrayRef<int64_t> outerTile) {
  if (innerTile.size() != outerTile.size())
    return emitError() << inner << " tile has " << innerTile.size()
                       << " entries but " << outer << " tile has "
                       << outerTile.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(innerTile, outerTile))) {
    auto [in, out] = pair;
    if (in > 0 && out > 0 && out % in != 0)
      return emitError() << inner << " tile " << in << " does not divide "
                         << outer << " tile " << out << " in loop " << i;
  }
  return success();
}

LogicalResult TuningAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> threads,
    ArrayRef<int64_t> block, ArrayRef<int64_t> warp, ArrayRef<int64_t> thread,
    ArrayRef<int64_t> reduction, ArrayRef<int64_t> shared,
    ArrayRef<int64_t> registers, int64_t padding, Swizzle swizzle,
    int64_t vector, CopyEngine copy, int64_t pipeline, int64_t cluster,
    int64_t rowShared, int64_t fragmentsAhead, int64_t tf32Terms, MmaKind mma) {
  // Mapping: CUDA block dimensions.
  if (threads.empty() || threads.size() > 3)
    return emitError() << "threads must have 1 to 3 entries, got "
                       << threads.size();
  int64_t numThreads = 1;
  for (auto [i, t] : llvm::enumerate(threads)) {
    if (t < 1)
      return emitError() << "threads entries must be positive, got " << t;
    if (t > kMaxBlockDims[i])
      return emitError() << "threads[" << i << "] = " << t
                         << " exceeds the CUDA limit of " << kMaxBlockDims[i];
    numThreads *= t;
  }
  if (numThreads > kMaxThreadsPerBlock)
    return emitError() << "a block of " << numThreads
                       << " threads exceeds the CUDA limit of "
                       << kMaxThreadsPerBlock;

  // The multiplying units: tensor cores own warp tiles, CUDA cores thread
  // tiles, so a shared-memory GEMM's tiles must name the units it states.
  if (mma == MmaKind::fma) {
    if (!shared.empty() && !warp.empty() && thread.empty())
      return emitError() << "a shared-memory GEMM with a warp tile and no "
                            "thread tile multiplies on tensor cores: set mma "
                            "= mma_sync or wgmma";
  } else {
    StringRef kind = stringifyMmaKind(mma);
    if (shared.empty() || warp.empty() || !thread.empty())
      return emitError() << "mma = " << kind
                         << " needs an operand in shared memory, a warp tile "
                            "and no thread tile";
    bool warpgroups = threads.size() == 3 && threads[0] == 128;
    if (mma == MmaKind::wgmma && !warpgroups)
      return emitError() << "mma = wgmma needs threads = [128, N, M]: a "
                            "warpgroup, then the warpgroups along N and M";
    if (mma == MmaKind::mma_sync && warpgroups)
      return emitError() << "threads = [128, N, M] lays out warpgroups: "
                            "mma_sync takes warps (use mma = wgmma)";
  }

  // Tiling.
  if (block.empty())
    return emitError() << "block tile must have one entry per parallel loop";
  if (failed(checkNonNegative(emitError, "block tile", block)) ||
      failed(checkNonNegative(emitError, "warp tile", warp)) ||
      failed(checkNonNegative(emitError, "thread tile", thread)) ||
      failed(checkNonNegative(emitError, "reduction tile", reduction)))
    return failure();
  if (!warp.empty()) {
    if (failed(checkNestedTile(emitError, "warp", warp, "block", block)))
      return failure();
    // Each warp owns one warp tile (with threads = [128, N, M] and no
    // thread tile, each warpgroup of 4 warps): the tiles must account for
    // every warp.
    int64_t owners = 1;
    for (auto [w, b] : llvm::zip(warp, block))
      if (w > 0 && b > 0)
        owners = mulSat(owners, b / w);
    int64_t perOwner = mma == MmaKind::wgmma ? 4 : 1;
    if (numThreads % 32 != 0)
      return emitError() << "threads give " << numThreads
                         << " threads, not a whole number of warps, but a "
                            "warp tile is set";
    if (mulSat(owners, perOwner) != numThreads / 32)
      return emitError() << "block and warp tiles give " << owners
                         << (perOwner == 4 ? " warpgroups" : " warps")
                         << " but threads give " << numThreads << " threads ("
                         << numThreads / 32 << " warps)";
  }
  if (!thread.empty()) {
    ArrayRef<int64_t> outer = warp.empty() ? block : warp;
    if (failed(checkNestedTile(emitError, "thread", thread,
                               warp.empty() ? "block" : "warp", outer)))
      return failure();
  }

  // Promotion.
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t o : shared) {
    if (o < 0)
      return emitError() << "shared operand numbers must be non-negative";
    if (!seen.insert(o).second)
      return emitError() << "operand " << o << " is listed twice in shared";
  }
  for (int64_t o : registers) {
    if (o < 0)
      return emitError() << "registers operand numbers must be non-negative";
    if (!seen.insert(o).second)
      return emitError() << "operand " << o
                         << " cannot be both in shared memory and registers";
  }
  if (padding < 0)
    return emitError() << "padding must be non-negative, got " << padding;
  if (padding > 0 && swizzle != Swizzle::none)
    return emitError() << "padding and swizzle are exclusive ways to avoid "
                          "bank conflicts: pick one";
  if ((padding > 0 || swizzle != Swizzle::none) && shared.empty())
    return emitError() << "padding/swizzle need an operand in shared memory";
  if (!llvm::is_contained({1, 2, 4, 8, 16}, vector))
    return emitError() << "vector width must be 1, 2, 4, 8 or 16, got "
                       << vector;
  if (copy != CopyEngine::sync && shared.empty())
    return emitError() << "copy engine " << stringifyCopyEngine(copy)
                       << " needs an operand in shared memory";
  if (copy == CopyEngine::tma && padding > 0)
    return emitError() << "tma writes dense tiles: use swizzle, not padding";
  if (pipeline < 1 || pipeline > 8)
    return emitError() << "pipeline depth must be in [1, 8], got " << pipeline;
  if (pipeline > 1 && copy == CopyEngine::sync)
    return emitError() << "pipeline depth " << pipeline
                       << " needs an asynchronous copy (cp_async or tma)";
  // Eight blocks is the portable cluster size (more needs a launch
  // attribute the runtimes do not set).
  if (!llvm::is_contained({1, 2, 4, 8}, cluster))
    return emitError() << "cluster must be 1, 2, 4 or 8 blocks, got "
                       << cluster;
  if (rowShared < 0)
    return emitError() << "row_shared must be non-negative, got " << rowShared;
  if (fragmentsAhead != 0 && fragmentsAhead != 1)
    return emitError() << "fragments_ahead must be 0 or 1, got "
                       << fragmentsAhead;
  if (tf32Terms != 1 && tf32Terms != 3)
    return emitError() << "tf32_terms must be 1 or 3, got " << tf32Terms;
  return success();
}

//===----------------------------------------------------------------------===//
// TuningAttr assembly: `<key = value, ...>` in any order.
//===----------------------------------------------------------------------===//

static ParseResult parseIntList(AsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                        [&]() -> ParseResult {
                                          int64_t v;
                                          if (parser.parseInteger(v))
                                            return failure();
                                          values.push_back(v);
                                          return success();
                                        });
}

template <typename EnumT>
static ParseResult
parseEnumKeyword(AsmParser &parser, EnumT &value,
                 std::optional<EnumT> (*symbolize)(StringRef)) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc) << "unknown value '" << keyword << "'";
  value = *parsed;
  return success();
}

Attribute TuningAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> threads, block, warp, thread, reduction, shared,
      registers;
  int64_t padding = 0, vector = 1, pipeline = 1, cluster = 1, rowShared = 0,
          fragmentsAhead = 0, tf32Terms = 1;
  Swizzle swizzle = Swizzle::none;
  MmaKind mma = MmaKind::fma;
  CopyEngine copy = CopyEngine::sync;
  llvm::StringSet<> seen;
  SMLoc start = parser.getCurrentLocation();
  auto parseEntry = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "'" << key << "' is given twice";
    if (key == "threads")
      return parseIntList(parser, threads);
    if (key == "block")
      return parseIntList(parser, block);
    if (key == "warp")
      return parseIntList(parser, warp);
    if (key == "thread")
      return parseIntList(parser, thread);
    if (key == "reduction")
      return parseIntList(parser, reduction);
    if (key == "shared")
      return parseIntList(parser, shared);
    if (key == "registers")
      return parseIntList(parser, registers);
    if (key == "padding")
      return parser.parseInteger(padding);
    if (key == "vector")
      return parser.parseInteger(vector);
    if (key == "pipeline")
      return parser.parseInteger(pipeline);
    if (key == "cluster")
      return parser.parseInteger(cluster);
    if (key == "row_shared")
      return parser.parseInteger(rowShared);
    if (key == "fragments_ahead")
      return parser.parseInteger(fragmentsAhead);
    if (key == "tf32_terms")
      return parser.parseInteger(tf32Terms);
    if (key == "swizzle")
      return parseEnumKeyword(parser, swizzle, symbolizeSwizzle);
    if (key == "copy")
      return parseEnumKeyword(parser, copy, symbolizeCopyEngine);
    if (key == "mma")
      return parseEnumKeyword(parser, mma, symbolizeMmaKind);
    return parser.emitError(loc)
           << "unknown tuning key '" << key
           << "'; expected threads, block, warp, thread, reduction, shared, "
              "registers, padding, swizzle, vector, copy, pipeline, cluster, "
              "row_shared, fragments_ahead, tf32_terms or mma";
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  for (StringRef required : {"threads", "block"})
    if (!seen.contains(required)) {
      parser.emitError(start) << "#egg.tuning needs '" << required << "'";
      return {};
    }
  return getChecked([&]() { return parser.emitError(start); },
                    parser.getContext(), threads, block, warp, thread,
                    reduction, shared, registers, padding, swizzle, vector,
                    copy, pipeline, cluster, rowShared, fragmentsAhead,
                    tf32Terms, mma);
}

void TuningAttr::print(AsmPrinter &printer) const {
  auto list = [&](StringRef key, ArrayRef<int64_t> values, bool always) {
    if (values.empty() && !always)
      return;
    if (key != "threads")
      printer << ", ";
    printer << key << " = [";
    llvm::interleaveComma(values, printer);
    printer << "]";
  };
  printer << "<";
  list("threads", getThreads(), true);
  list("block", getBlock(), true);
  list("warp", getWarp(), false);
  list("thread", getThread(), false);
  list("reduction", getReduction(), false);
  list("shared", getShared(), false);
  list("registers", getRegisters(), false);
  if (getPadding() != 0)
    printer << ", padding = " << getPadding();
  if (getSwizzle() != Swizzle::none)
    printer << ", swizzle = " << stringifySwizzle(getSwizzle());
  if (getVector() != 1)
    printer << ", vector = " << getVector();
  if (getCopy() != CopyEngine::sync)
    printer << ", copy = " << stringifyCopyEngine(getCopy());
  if (getPipeline() != 1)
    printer << ", pipeline = " << getPipeline();
  if (getCluster() != 1)
    printer << ", cluster = " << getCluster();
  if (getRowShared() != 0)
    printer << ", row_shared = " << getRowShared();
  if (getFragmentsAhead() != 0)
    printer << ", fragments_ahead = " << getFragmentsAhead();
  if (getTf32Terms() != 1)
    printer << ", tf32_terms = " << getTf32Terms();
  if (getMma() != MmaKind::fma)
    printer << ", mma = " << stringifyMmaKind(getMma());
  printer << ">";
}
