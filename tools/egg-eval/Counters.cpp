//===- Counters.cpp - egg-eval: hardware counters through ncu -------------===//

#include "Evaluation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <sstream>

using namespace mlir::egg::eval;
namespace json = llvm::json;

void Evaluation::collectCounters(const char *argv0) {
  if (opts.useNcu) {
    std::optional<std::string> ncu;
    for (const char *candidate : {"ncu", "/usr/local/cuda/bin/ncu"})
      if (auto found = llvm::sys::findProgramByName(candidate))
        ncu = *found;
    if (!ncu) {
      report.root["counters"] = "skipped: ncu (Nsight Compute) not found";
      llvm::outs() << "counters: skipped, ncu not found\n";
    } else {
      llvm::SmallString<128> csv;
      llvm::sys::fs::createTemporaryFile("egg-ncu", "csv", csv);
      const char *metrics =
          "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
          "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
          "sm__warps_active.avg.pct_of_peak_sustained_active,"
          "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_"
          "active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";
      std::string self = llvm::sys::fs::getMainExecutable(argv0, nullptr);
      // The profiled child runs one checked trial whatever the parent's
      // count: with none and no timing it would launch no kernel (and ncu
      // would report nothing). Same seed: the parent's first inputs.
      std::string seedArg = "--seed=" + std::to_string(opts.seed);
      std::vector<llvm::StringRef> args = {*ncu,
                                           "--csv",
                                           "--page",
                                           "raw",
                                           "--clock-control",
                                           "none",
                                           "--metrics",
                                           metrics,
                                           self,
                                           opts.manifestPath,
                                           "--source",
                                           opts.sourcePath,
                                           "--trials=1",
                                           seedArg,
                                           "--timing=false",
                                           "--baseline=false",
                                           "--ceilings=profile"};
      std::string err;
      int rc = llvm::sys::ExecuteAndWait(*ncu, args, std::nullopt,
                                         {std::nullopt, csv.str(), csv.str()},
                                         600, 0, &err);
      json::Array kernelsOut;
      auto text = llvm::MemoryBuffer::getFile(csv);
      if (rc == 0 && text) {
        // Rows after the header that start with a quoted ID are kernels.
        std::vector<std::vector<std::string>> rows;
        std::istringstream in((*text)->getBuffer().str());
        std::string line;
        while (std::getline(in, line)) {
          if (line.empty() || line[0] != '"')
            continue;
          std::vector<std::string> cells;
          std::string cell;
          bool quoted = false;
          for (char ch : line) {
            if (ch == '"')
              quoted = !quoted;
            else if (ch == ',' && !quoted)
              cells.push_back(cell), cell.clear();
            else
              cell += ch;
          }
          cells.push_back(cell);
          rows.push_back(cells);
        }
        if (rows.size() > 2) {
          const std::vector<std::string> &header = rows[0];
          for (size_t r = 2; r < rows.size(); ++r) { // rows[1]: units.
            json::Object k;
            for (size_t c = 0; c < header.size() && c < rows[r].size(); ++c)
              if (header[c] == "Kernel Name" ||
                  llvm::StringRef(metrics).contains(header[c]))
                k[header[c]] = rows[r][c];
            kernelsOut.push_back(std::move(k));
          }
        }
        report.root["counters"] = std::move(kernelsOut);
      } else {
        report.root["counters"] =
            "ncu failed (exit " + std::to_string(rc) + "): " + err;
      }
      llvm::outs() << "counters: see the JSON result\n";
    }
  }
}
