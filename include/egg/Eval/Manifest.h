//===- Manifest.h - Reading an EGG manifest ---------------------*- C++ -*-===//
//
// The manifest written by egg-translate --egg-to-manifest (docs/manifest.md),
// read back as plain data with every reference checked, so that the runner
// never indexes out of range on a malformed file.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_EVAL_MANIFEST_H
#define EGG_EVAL_MANIFEST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::egg::eval {

enum class ElementType { F64, F32, F16, BF16 };
llvm::StringRef stringifyElementType(ElementType type);
/// Bytes per element.
int64_t elementBytes(ElementType type);
/// True for f16 and bf16.
bool isHalfPrecision(ElementType type);

struct Buffer {
  int64_t id = 0;
  enum class Role { Input, Output, Temp } role = Role::Temp;
  int64_t arg = -1; ///< Position among the function's arguments, or -1.
  std::vector<int64_t> shape;
  ElementType elementType = ElementType::F32;
  int64_t bytes = 0;
  int64_t numElements() const;
};

struct KernelArg {
  bool isBuffer = true;
  int64_t buffer = -1;
  std::string scalarType; ///< i32, i64 or f32 for scalars.
  double value = 0;
  /// A TMA tensor map of buffer `buffer` viewed as the 2-D `mapShape`
  /// (128-byte swizzle, boxes of `box` = [rows, columns], zero fill),
  /// passed as a device pointer.
  bool isTensorMap = false;
  std::vector<int64_t> mapShape, box;
  bool l2Promotion256 = false;
};

struct Step {
  enum class Kind { Launch, Copy } kind = Step::Kind::Launch;
  std::string module, kernel;
  /// The kernel the launch was outlined as, for reports: `kernel` unless
  /// the launch calls another kernel's identical code.
  std::string name;
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t sharedBytes = 0;
  /// The kernel begins with griddepcontrol.wait (egg-overlap-launches): it
  /// may be launched while the step before it runs.
  bool waitsForPrevious = false;
  std::vector<KernelArg> args;
  int64_t src = -1, dst = -1;
};

struct Function {
  std::string name;
  std::vector<Buffer> buffers;
  std::vector<Step> steps;
  /// Buffers by role, in argument order.
  std::vector<int64_t> inputs() const;
  std::vector<int64_t> outputs() const;
};

struct Module {
  std::string name, ptx;
};

struct Manifest {
  std::vector<Module> modules;
  std::vector<Function> functions;
  std::string target;
  /// Numbers from the target profile (0 when absent).
  int64_t dramGbps = 0, fp32Gflops = 0, tensorGflops = 0;
  /// The module allowed f32 products on TF32 tensor cores (egg.allow_tf32).
  bool allowTf32 = false;
  const Function *findFunction(llvm::StringRef name) const;
  /// Whether a kernel `function` launches computes on TF32 (its PTX holds
  /// a tf32 matrix instruction): what actually ran, not what was allowed.
  bool launchesTf32(const Function &function) const;
};

/// Parses and checks a manifest; the error names the offending field.
llvm::Expected<Manifest> parseManifest(llvm::StringRef text);

} // namespace mlir::egg::eval

#endif // EGG_EVAL_MANIFEST_H
