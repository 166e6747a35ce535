//===- Report.cpp - egg-tune's HTML report --------------------------------===//

#include "egg/Tune/Report.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir::egg;

static const char kTemplate[] =
#include "ReportTemplate.inc"
    ;

std::string mlir::egg::renderReportHtml(const llvm::json::Value &report) {
  std::string data = llvm::formatv("{0}", report).str();
  // Inside <script> only "</" can end the element early: escape it (JSON
  // allows "\/").
  std::string safe;
  safe.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    safe += data[i];
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/')
      safe += "\\";
  }
  std::string page = kTemplate;
  const std::string marker = "{{EGG_REPORT_DATA}}";
  size_t at = page.find(marker);
  if (at != std::string::npos)
    page.replace(at, marker.size(), safe);
  return page;
}
