//===- RuntimeLibrary.h - Optional libraries opened at run time -*- C++ -*-===//
//
// libcurl and SQLite are optional at run time: a machine without them gets
// a clear error from the feature that needs them, and the static tools carry
// no dependency on them. Thin typed wrapper over llvm::sys::DynamicLibrary.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_RUNTIMELIBRARY_H
#define EGG_SUPPORT_RUNTIMELIBRARY_H

#include "llvm/Support/DynamicLibrary.h"

#include <string>

namespace mlir::egg {

class RuntimeLibrary {
public:
  /// Opens `name` (e.g. "libcurl.so.4"); `what` names it in errors.
  RuntimeLibrary(const char *name, const char *what) : what(what) {
    std::string message;
    lib = llvm::sys::DynamicLibrary::getPermanentLibrary(name, &message);
    if (!lib.isValid())
      error = std::string(what) + " (" + name + ") is not installed";
  }

  /// Loads `symbol` into `fn`; a missing symbol is recorded in error().
  template <typename Fn> void load(Fn &fn, const char *symbol) {
    fn = nullptr;
    if (!lib.isValid())
      return;
    fn = reinterpret_cast<Fn>(lib.getAddressOfSymbol(symbol));
    if (!fn && error.empty())
      error = std::string(what) + " lacks " + symbol;
  }

  /// Empty when the library and every symbol asked for were found.
  const std::string &getError() const { return error; }

private:
  llvm::sys::DynamicLibrary lib;
  const char *what;
  std::string error;
};

} // namespace mlir::egg

#endif // EGG_SUPPORT_RUNTIMELIBRARY_H
