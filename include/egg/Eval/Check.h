//===- Check.h - Numbers that decide pass/fail and report times -*- C++ -*-===//
//
// Everything here is plain CPU arithmetic, unit-tested in CI: element type
// conversions, the correctness verdict, timing statistics and roofline floors.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_EVAL_CHECK_H
#define EGG_EVAL_CHECK_H

#include "egg/Eval/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::egg::eval {

//===----------------------------------------------------------------------===//
// Element storage
//===----------------------------------------------------------------------===//

uint16_t floatToHalf(float value); ///< IEEE binary16, round to nearest even.
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value); ///< Round to nearest even.
float bfloat16ToFloat(uint16_t bits);

/// Encodes `values` in `type` (little-endian bytes).
std::vector<uint8_t> encode(const std::vector<double> &values,
                            ElementType type);
/// Decodes bytes of `type` into doubles.
std::vector<double> decode(const std::vector<uint8_t> &bytes, ElementType type);
/// The values `type` can hold closest to `values` (what the GPU will see).
std::vector<double> roundTo(const std::vector<double> &values,
                            ElementType type);

/// Poison written into outputs before a run: all bits set, a NaN in every
/// floating-point type.
constexpr uint8_t kPoisonByte = 0xFF;
/// Elements of `bytes` still holding poison.
int64_t countPoison(const std::vector<uint8_t> &bytes, ElementType type);

//===----------------------------------------------------------------------===//
// Correctness verdict
//===----------------------------------------------------------------------===//

struct Tolerance {
  double relativeL2;  ///< ||out - ref|| / ||ref|| must not exceed this.
  double elementwise; ///< |out - ref| <= elementwise * (|ref| + rms(ref)).
};
/// f32: 1e-5 / 1e-4; f16, bf16 anywhere in the function: 1e-2 / 5e-2;
/// f32 products that ran as TF32 (truncated to 10-bit mantissas): 3e-3 /
/// 2e-2.
Tolerance toleranceFor(bool halfPrecision, bool tf32 = false);

struct Comparison {
  bool pass = false;
  double relativeL2 = 0;
  double maxAbsError = 0;
  int64_t badElements = 0; ///< Outside the elementwise bound.
  int64_t firstBad = -1;
  int64_t nonFinite = 0; ///< NaN or Inf in the output.
  std::string reason;    ///< Empty when it passes.
};
/// Compares one output with its float64 reference. NaN or Inf never pass; a
/// non-finite reference is reported as such (the inputs left the domain).
Comparison compare(const std::vector<double> &out,
                   const std::vector<double> &ref, Tolerance tolerance);

//===----------------------------------------------------------------------===//
// Timing statistics and roofline
//===----------------------------------------------------------------------===//

struct Stats {
  int64_t count = 0;
  double median = 0, mean = 0, min = 0, max = 0, p10 = 0, p90 = 0, stddev = 0;
};
/// Summary of samples (empty input gives count 0).
Stats summarize(std::vector<double> samples);

/// Number of timed runs for a kernel that takes `estimateMs`: enough for
/// about `budgetMs` of timing, at least `minRuns`, at most `maxRuns`.
int64_t adaptiveRuns(double estimateMs, double budgetMs = 300,
                     int64_t minRuns = 20, int64_t maxRuns = 2000);

struct Roofline {
  double flops = 0; ///< Floating-point operations of one evaluation.
  double bytes = 0; ///< Fewest bytes moved: inputs read once, outputs
                    ///< written once.
  double memoryFloorMs = 0, computeFloorMs = 0;
  double floorMs() const {
    return memoryFloorMs > computeFloorMs ? memoryFloorMs : computeFloorMs;
  }
  const char *bound() const {
    return memoryFloorMs >= computeFloorMs ? "memory" : "compute";
  }
};
/// Floors from the ceilings in GB/s and GFLOP/s (0 ceilings give 0 floors).
Roofline roofline(double flops, double bytes, double bandwidthGbps,
                  double peakGflops);

} // namespace mlir::egg::eval

#endif // EGG_EVAL_CHECK_H
