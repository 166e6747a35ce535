//===- ReferenceCache.h - Float64 reference results kept on disk -*- C++
//-*-===//
//
// egg-tune checks every candidate of a run against the float64 reference on
// the same inputs (egg-eval draws them from one seed), and at KernelBench
// sizes one interpretation on the CPU takes minutes. A cached reference
// keeps each evaluation in a folder, keyed by everything that decides it:
// the source text, the function and the arguments' shapes and values, so
// it runs once per trial and input set instead of once per candidate.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_EVAL_REFERENCECACHE_H
#define EGG_EVAL_REFERENCECACHE_H

#include "egg/Eval/Reference.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir::egg::eval {

class CachedReference : public Reference {
public:
  /// `inner` evaluates; results go to and come from `dir` (created when
  /// first written). `source` and `function` are what `inner` was made from.
  CachedReference(std::unique_ptr<Reference> inner, llvm::StringRef dir,
                  llvm::StringRef source, llvm::StringRef function);

  const std::vector<std::vector<int64_t>> &argShapes() const override {
    return inner->argShapes();
  }
  const std::vector<ElementType> &argTypes() const override {
    return inner->argTypes();
  }
  const std::vector<std::vector<int64_t>> &resultShapes() const override {
    return inner->resultShapes();
  }
  const std::vector<ElementType> &resultTypes() const override {
    return inner->resultTypes();
  }
  double iterations() const override { return inner->iterations(); }
  double flops() const override {
    return cachedFlops ? cachedFlops : inner->flops();
  }
  std::optional<Contraction> contraction() const override {
    return inner->contraction();
  }

  /// The kept result for these arguments, else `inner`'s, then kept. A
  /// folder that cannot be read or written only costs the evaluation.
  llvm::Expected<std::vector<RefTensor>> run(const std::vector<RefTensor> &args,
                                             unsigned threads) override;

  /// Keeps `results` as the evaluation of `args` (where something other
  /// than the interpreter stands in for it: egg-eval --reference=kernels).
  void keep(const std::vector<RefTensor> &args,
            const std::vector<RefTensor> &results) {
    store(keyFor(args), results);
  }

  /// Evaluations served from the folder, and evaluations run, so far.
  int64_t hits() const { return hitCount; }
  int64_t misses() const { return missCount; }

private:
  std::string keyFor(const std::vector<RefTensor> &args) const;
  std::optional<std::vector<RefTensor>> load(const std::string &key);
  void store(const std::string &key, const std::vector<RefTensor> &results);

  std::unique_ptr<Reference> inner;
  std::string dir, sourceKey;
  double cachedFlops = 0;
  int64_t hitCount = 0, missCount = 0;
};

} // namespace mlir::egg::eval

#endif // EGG_EVAL_REFERENCECACHE_H
