//===- ReferenceCache.cpp - Float64 reference results kept on disk --------===//

#include "egg/Eval/ReferenceCache.h"
#include "egg/Support/Hash.h"
#include "egg/Support/Json.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <unistd.h>

#define DEBUG_TYPE "egg-reference-cache"

using namespace mlir::egg;
using namespace mlir::egg::eval;
namespace json = llvm::json;

/// Bumped whenever the interpreter's results could change for the same
/// source and inputs, so older entries are never read again.
static constexpr int kFormatVersion = 1;

CachedReference::CachedReference(std::unique_ptr<Reference> inner,
                                 llvm::StringRef dir, llvm::StringRef source,
                                 llvm::StringRef function)
    : inner(std::move(inner)), dir(dir.str()) {
  sourceKey = sha256Hex(
      (llvm::Twine(kFormatVersion) + "|" + function + "|" + sha256Hex(source))
          .str());
}

std::string CachedReference::keyFor(const std::vector<RefTensor> &args) const {
  std::string text = sourceKey;
  for (const RefTensor &a : args) {
    for (int64_t d : a.shape)
      text += llvm::formatv("{0},", d).str();
    llvm::XXH128_hash_t h = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(a.data.data()),
        a.data.size() * sizeof(double)));
    text += llvm::formatv("{0:x16}{1:x16}|", h.high64, h.low64).str();
  }
  return sha256Hex(text).substr(0, 32);
}

std::optional<std::vector<RefTensor>>
CachedReference::load(const std::string &key) {
  auto meta = llvm::MemoryBuffer::getFile(dir + "/" + key + ".json");
  if (!meta)
    return std::nullopt;
  llvm::Expected<json::Value> parsed = parseJson((*meta)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *obj = parsed->getAsObject();
  const json::Array *results = obj ? obj->getArray("results") : nullptr;
  if (!results || jsonInteger(*obj, "version") != kFormatVersion)
    return std::nullopt;
  std::vector<RefTensor> out;
  for (auto [k, r] : llvm::enumerate(*results)) {
    const json::Array *shape =
        r.getAsObject() ? r.getAsObject()->getArray("shape") : nullptr;
    if (!shape)
      return std::nullopt;
    RefTensor t;
    int64_t count = 1;
    for (const json::Value &d : *shape) {
      std::optional<int64_t> v = jsonInteger(d);
      if (!v || *v < 0)
        return std::nullopt;
      t.shape.push_back(*v);
      count *= *v;
    }
    auto data = llvm::MemoryBuffer::getFile(
        llvm::formatv("{0}/{1}.{2}.f64", dir, key, k).str(),
        /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!data || (*data)->getBufferSize() != size_t(count) * sizeof(double))
      return std::nullopt;
    t.data.resize(size_t(count));
    std::memcpy(t.data.data(), (*data)->getBufferStart(),
                t.data.size() * sizeof(double));
    out.push_back(std::move(t));
  }
  if (out.size() != inner->resultShapes().size())
    return std::nullopt;
  cachedFlops = obj->getNumber("flops").value_or(0);
  return out;
}

void CachedReference::store(const std::string &key,
                            const std::vector<RefTensor> &results) {
  // Data first, each renamed into place whole; the index last, so a reader
  // that finds the index finds complete data (or, after a crash, nothing).
  auto fail = [&](const llvm::Twine &why) {
    llvm::errs() << "egg-eval: warning: cannot keep the reference in " << dir
                 << ": " << why << "\n";
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail(ec.message());
  auto writeWhole = [&](const std::string &path,
                        llvm::StringRef bytes) -> bool {
    std::string partial = path + llvm::formatv(".{0}.tmp", ::getpid()).str();
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(partial, ec, llvm::sys::fs::OF_None);
      if (ec) {
        fail(ec.message());
        return false;
      }
      os << bytes;
      os.close();
      if (os.has_error()) {
        fail(os.error().message());
        os.clear_error();
        llvm::sys::fs::remove(partial);
        return false;
      }
    }
    if (std::error_code ec = llvm::sys::fs::rename(partial, path)) {
      fail(ec.message());
      llvm::sys::fs::remove(partial);
      return false;
    }
    return true;
  };
  json::Array entries;
  for (auto [k, t] : llvm::enumerate(results)) {
    llvm::StringRef bytes(reinterpret_cast<const char *>(t.data.data()),
                          t.data.size() * sizeof(double));
    if (!writeWhole(llvm::formatv("{0}/{1}.{2}.f64", dir, key, k).str(), bytes))
      return;
    json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    entries.push_back(json::Object{{"shape", std::move(shape)}});
  }
  json::Object meta{{"version", kFormatVersion},
                    {"flops", inner->flops()},
                    {"results", std::move(entries)}};
  (void)writeWhole(dir + "/" + key + ".json",
                   llvm::formatv("{0}", json::Value(std::move(meta))).str());
}

llvm::Expected<std::vector<RefTensor>>
CachedReference::run(const std::vector<RefTensor> &args, unsigned threads) {
  std::string key = keyFor(args);
  if (std::optional<std::vector<RefTensor>> kept = load(key)) {
    LLVM_DEBUG(llvm::dbgs() << "reference " << key << " from " << dir << "\n");
    ++hitCount;
    return std::move(*kept);
  }
  ++missCount;
  llvm::Expected<std::vector<RefTensor>> computed = inner->run(args, threads);
  if (computed)
    store(key, *computed);
  return computed;
}
