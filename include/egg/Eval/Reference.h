//===- Reference.h - Independent float64 reference --------------*- C++ -*-===//
//
// Evaluates the *source* function (linalg on tensors, before any EGG pass)
// in float64 on the CPU, by direct interpretation of its ops. It shares no
// code with the compile path beyond MLIR's parser and the upstream
// generalization of named ops, so a bug in fusion, tiling or lowering cannot
// hide in the reference.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_EVAL_REFERENCE_H
#define EGG_EVAL_REFERENCE_H

#include "egg/Eval/Manifest.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::egg::eval {

struct RefTensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

class Reference {
public:
  virtual ~Reference();

  /// Parses `source` and prepares `function` (empty: the first public
  /// function). Unsupported ops are reported here, with their location.
  static llvm::Expected<std::unique_ptr<Reference>>
  create(llvm::StringRef source, llvm::StringRef function);

  /// Shapes and element types of the function's arguments and results.
  virtual const std::vector<std::vector<int64_t>> &argShapes() const = 0;
  virtual const std::vector<ElementType> &argTypes() const = 0;
  virtual const std::vector<std::vector<int64_t>> &resultShapes() const = 0;
  virtual const std::vector<ElementType> &resultTypes() const = 0;

  /// Evaluates the function on `args` with up to `threads` CPU threads.
  virtual llvm::Expected<std::vector<RefTensor>>
  run(const std::vector<RefTensor> &args, unsigned threads) = 0;

  /// Loop iterations one evaluation takes (sum over its generics), known
  /// before running: callers refuse references that would take too long.
  virtual double iterations() const = 0;

  /// Floating-point operations of one evaluation (counted by `run`).
  virtual double flops() const = 0;

  /// The function's contraction when it has exactly one whose operands are
  /// function arguments: what a cuBLAS baseline of the same problem runs.
  struct Contraction {
    int64_t batch = 1, m = 0, n = 0, k = 0;
    bool transA = false, transB = false;
    int64_t argA = -1, argB = -1;
    ElementType aType = ElementType::F32, bType = ElementType::F32,
                cType = ElementType::F32;
  };
  virtual std::optional<Contraction> contraction() const = 0;
};

} // namespace mlir::egg::eval

#endif // EGG_EVAL_REFERENCE_H
