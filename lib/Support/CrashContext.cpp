//===- CrashContext.cpp - Crash reports that say what crashed -------------===//

#include "egg/Support/CrashContext.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <memory>
#include <vector>

using namespace mlir;
using namespace mlir::egg;

namespace {
/// Passes running in the process, on any thread.
std::atomic<int> runningPasses{0};

/// One running pass in this thread's crash report.
class PassEntry : public llvm::PrettyStackTraceEntry {
public:
  explicit PassEntry(std::string text) : text(std::move(text)) {}
  void print(llvm::raw_ostream &os) const override { os << text << "\n"; }
  std::string text;
};

/// This thread's running passes, outermost first (entries must be
/// destroyed in the reverse order of their construction).
thread_local std::vector<std::unique_ptr<PassEntry>> passEntries;

class CrashContextInstrumentation : public PassInstrumentation {
public:
  void runBeforePass(Pass *pass, Operation *op) override {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "egg: running pass '"
       << (pass->getArgument().empty() ? pass->getName() : pass->getArgument())
       << "' on '" << op->getName() << "'";
    if (auto name =
            op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      os << " @" << name.getValue();
    os << " at " << op->getLoc();
    ++runningPasses;
    passEntries.push_back(std::make_unique<PassEntry>(std::move(text)));
  }
  void runAfterPass(Pass *, Operation *) override { pop(); }
  void runAfterPassFailed(Pass *, Operation *) override { pop(); }

private:
  static void pop() {
    if (passEntries.empty())
      return;
    passEntries.pop_back();
    --runningPasses;
  }
};
} // namespace

struct CrashReporting::Entry : public llvm::PrettyStackTraceEntry {
  explicit Entry(llvm::StringRef tool) : tool(tool.str()) {}
  void print(llvm::raw_ostream &os) const override {
    if (runningPasses > 0)
      return; // The passes' own entries say what ran.
    os << tool
       << ": no pass was running, so the crash is in reading, verifying or "
          "writing IR. Known: MLIR 22's parsers of linalg.transpose and "
          "linalg.broadcast crash on a malformed permutation/dimensions list "
          "(docs/reliability.md).\n";
  }
  std::string tool;
};

CrashReporting::CrashReporting(llvm::StringRef tool) : entry(new Entry(tool)) {
  llvm::setBugReportMsg("egg: internal error (a crash, which is always a "
                        "bug). Please report it with the input and the "
                        "command; the stack dump below says what ran.\n");
}

CrashReporting::~CrashReporting() { delete entry; }

void mlir::egg::addCrashContext(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<CrashContextInstrumentation>());
}

std::string mlir::egg::describeRunningPasses() {
  std::string text;
  for (const std::unique_ptr<PassEntry> &entry : passEntries)
    text += entry->text + "\n";
  return text;
}
