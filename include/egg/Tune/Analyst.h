//===- Analyst.h - Measurements summarised for the next round ---*- C++ -*-===//
//
// The analyst of the method: turns a kernel's evaluated candidates into a
// short text for the agent that proposes the next round: the best so far
// against the roofline floor, the closest competitors, what failed and
// why. Older and slower candidates are folded into counts so the text stays
// within a budget however long the run.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_ANALYST_H
#define EGG_TUNE_ANALYST_H

#include "egg/Tune/TuneDatabase.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace mlir::egg {

std::string summarizeCandidates(llvm::ArrayRef<CandidateRecord> candidates,
                                double floorMs, size_t maxChars = 2000);

} // namespace mlir::egg

#endif // EGG_TUNE_ANALYST_H
