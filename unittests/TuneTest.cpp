//===- TuneTest.cpp - egg-tune's records and analyst ----------------------===//

#include "egg/Tune/Analyst.h"
#include "egg/Tune/TuneDatabase.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace mlir::egg;

static CandidateRecord candidate(const std::string &tuning, double ms,
                                 const std::string &status = "ok") {
  CandidateRecord c;
  c.fingerprint = "fp";
  c.device = "dev";
  c.structure = "#egg.structure<gemm_direct>";
  c.tuning = tuning;
  c.status = status;
  c.kernelMs = ms;
  c.compileStatus = status == "compile-error" ? "error" : "ok";
  if (status != "ok")
    c.diagnostics = "first line of why\nsecond line";
  return c;
}

TEST(TuneDatabase, RecordsOnceAndFindsAgain) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("egg-tune-test", "sqlite", path));
  std::string error;
  auto db = TuneDatabase::open(path.str().str(), error);
  ASSERT_TRUE(db) << error;
  int64_t run = db->beginRun("in.mlir", "sha", "search", "dev", "");
  EXPECT_GT(run, 0);
  CandidateRecord c = candidate("#egg.tuning<threads = [32]>", 0.5);
  ASSERT_TRUE(db->record(run, c, error)) << error;
  // The same candidate again is ignored, not duplicated.
  CandidateRecord again = candidate("#egg.tuning<threads = [32]>", 0.9);
  ASSERT_TRUE(db->record(run, again, error)) << error;
  EXPECT_EQ(db->count("fp", "dev"), 1);
  auto hit = db->lookup("fp", "dev", c.structure, c.tuning);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->cached);
  EXPECT_DOUBLE_EQ(hit->kernelMs, 0.5);
  // Another device is another measurement.
  EXPECT_FALSE(db->lookup("fp", "other", c.structure, c.tuning));
  db->finishRun(run, "done");
  db.reset();
  llvm::sys::fs::remove(path);
}

TEST(Analyst, BestFirstFailuresGroupedWithinBudget) {
  std::vector<CandidateRecord> history = {
      candidate("#egg.tuning<threads = [128]>", 0.30),
      candidate("#egg.tuning<threads = [256]>", 0.20),
      candidate("#egg.tuning<threads = [512]>", -1, "fault"),
      candidate("#egg.tuning<threads = [64]>", 0.40),
      candidate("#egg.tuning<threads = [1024]>", -1, "fault")};
  std::string text = summarizeCandidates(history, /*floorMs=*/0.1);
  EXPECT_NE(text.find("5 candidates evaluated, 3 usable, 2 failed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Best so far: #egg.tuning<threads = [256]> at 0.2000 ms "
                      "(measured), 2.0x the roofline floor"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("The expert's first choice #egg.tuning<threads = [128]>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Failed (fault) x2, e.g. #egg.tuning<threads = [512]>: "
                      "first line of why\n"),
            std::string::npos)
      << text;
  // Many candidates: the text stays within its budget.
  std::vector<CandidateRecord> many;
  for (int i = 0; i < 500; ++i)
    many.push_back(candidate(
        "#egg.tuning<threads = [" + std::to_string(i) + "]>", 1.0 + i));
  EXPECT_LE(summarizeCandidates(many, 0.1, 800).size(), 800u);
  EXPECT_NE(summarizeCandidates(many, 0.1, 800)
                .find("slower candidates not "
                      "listed"),
            std::string::npos);
}
