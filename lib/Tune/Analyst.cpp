//===- Analyst.cpp - Measurements summarised for the next round -----------===//

#include "egg/Tune/Analyst.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace mlir::egg;

std::string
mlir::egg::summarizeCandidates(llvm::ArrayRef<CandidateRecord> candidates,
                               double floorMs, size_t maxChars) {
  std::vector<const CandidateRecord *> usable, failed;
  for (const CandidateRecord &c : candidates)
    (c.usable() && c.kernelMs >= 0 ? usable : failed).push_back(&c);
  llvm::stable_sort(usable,
                    [](auto *a, auto *b) { return a->kernelMs < b->kernelMs; });
  bool estimate = !candidates.empty() && candidates.front().estimate;
  const char *unit = estimate ? " ms (cost-model estimate)" : " ms (measured)";
  std::string text =
      llvm::formatv("{0} candidates evaluated, {1} usable, {2} "
                    "failed.\n",
                    candidates.size(), usable.size(), failed.size())
          .str();
  if (!usable.empty()) {
    const CandidateRecord &best = *usable.front();
    text += llvm::formatv("Best so far: {0} at {1:f4}{2}", best.tuning,
                          best.kernelMs, unit)
                .str();
    if (floorMs > 0)
      text += llvm::formatv(", {0:f1}x the roofline floor of {1:f4} ms",
                            best.kernelMs / floorMs, floorMs)
                  .str();
    text += ".\n";
    if (const CandidateRecord *first = &candidates.front(); first->usable())
      text += llvm::formatv("The expert's first choice {0} took {1:f4} ms.\n",
                            first->tuning, first->kernelMs)
                  .str();
  }
  // The fastest first; the rest as a count.
  std::string lines;
  size_t shown = 0;
  for (const CandidateRecord *c : llvm::drop_begin(usable)) {
    std::string line =
        llvm::formatv("- {0}: {1:f4} ms ({2:f2}x the best)\n", c->tuning,
                      c->kernelMs, c->kernelMs / usable.front()->kernelMs)
            .str();
    if (text.size() + lines.size() + line.size() > maxChars * 2 / 3)
      break;
    lines += line;
    ++shown;
  }
  if (!lines.empty())
    text += "Next fastest:\n" + lines;
  if (usable.size() > shown + 1)
    text += llvm::formatv("({0} slower candidates not listed.)\n",
                          usable.size() - shown - 1)
                .str();
  // Failures grouped by status, one example reason each.
  std::map<std::string, std::vector<const CandidateRecord *>> byStatus;
  for (const CandidateRecord *c : failed)
    byStatus[c->status].push_back(c);
  for (auto &[status, list] : byStatus) {
    std::string reason = list.front()->diagnostics;
    reason = reason.substr(0, reason.find('\n'));
    std::string line =
        llvm::formatv("Failed ({0}) x{1}, e.g. {2}: {3}\n", status, list.size(),
                      list.front()->tuning, reason)
            .str();
    if (text.size() + line.size() > maxChars)
      break;
    text += line;
  }
  if (text.size() > maxChars)
    text.resize(maxChars);
  return text;
}
