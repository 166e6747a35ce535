//===- CrashContext.h - Crash reports that say what crashed -----*- C++ -*-===//
//
// A crash of an EGG tool is a bug. Its report names what was running: each
// pass on the crashing thread, with the op it ran on; or, when no pass was
// running, that the crash came from reading or writing IR, where MLIR 22's
// own parsers have known crashes (docs/reliability.md).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_CRASHCONTEXT_H
#define EGG_SUPPORT_CRASHCONTEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class PassManager;
namespace egg {

/// Sets `tool`'s bug-report message and the report's entry for crashes
/// outside passes. Call once, first thing in main; the returned object must
/// live until main returns.
class CrashReporting {
public:
  explicit CrashReporting(llvm::StringRef tool);
  ~CrashReporting();

private:
  struct Entry;
  Entry *entry;
};

/// Names each pass `pm` runs in the crash report of the thread running it.
void addCrashContext(PassManager &pm);

/// What the crash report of this thread would name now: the passes running
/// on it, innermost last (empty outside passes).
std::string describeRunningPasses();

} // namespace egg
} // namespace mlir

#endif // EGG_SUPPORT_CRASHCONTEXT_H
