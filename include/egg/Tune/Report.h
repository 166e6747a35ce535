//===- Report.h - egg-tune's HTML report ------------------------*- C++ -*-===//
//
// The report is one self-contained HTML page (no network, no libraries):
// the report's JSON embedded in it and a small script that draws the
// plots as SVG. The JSON's fields: docs/egg-tune.md.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_REPORT_H
#define EGG_TUNE_REPORT_H

#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::egg {

std::string renderReportHtml(const llvm::json::Value &report);

} // namespace mlir::egg

#endif // EGG_TUNE_REPORT_H
