//===- Check.cpp - Numbers that decide pass/fail and report times ---------===//

#include "egg/Eval/Check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir::egg::eval;

uint16_t mlir::egg::eval::floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exponent = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mantissa = x & 0x7FFFFF;
  if (((x >> 23) & 0xFF) == 0xFF) // Inf or NaN.
    return sign | 0x7C00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31)
    return sign | 0x7C00; // Overflow to Inf.
  if (exponent <= 0) {
    if (exponent < -10)
      return sign; // Underflow to zero.
    mantissa |= 0x800000;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent: still correct rounding.
  return half;
}

float mlir::egg::eval::halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t mantissa = bits & 0x3FF;
  uint32_t x;
  if (exponent == 0x1F) {
    x = sign | 0x7F800000 | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      x = sign;
    } else {
      float f = std::ldexp(float(mantissa), -24);
      return (bits & 0x8000) ? -f : f;
    }
  } else {
    x = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t mlir::egg::eval::floatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7F800000) == 0x7F800000 && (x & 0x7FFFFF))
    return uint16_t((x >> 16) | 0x40); // Keep NaN a NaN.
  uint32_t rounding = 0x7FFF + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

float mlir::egg::eval::bfloat16ToFloat(uint16_t bits) {
  uint32_t x = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::vector<uint8_t> mlir::egg::eval::encode(const std::vector<double> &values,
                                             ElementType type) {
  std::vector<uint8_t> bytes(values.size() * elementBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    switch (type) {
    case ElementType::F64:
      std::memcpy(&bytes[i * 8], &values[i], 8);
      break;
    case ElementType::F32: {
      float f = float(values[i]);
      std::memcpy(&bytes[i * 4], &f, 4);
      break;
    }
    case ElementType::F16: {
      uint16_t h = floatToHalf(float(values[i]));
      std::memcpy(&bytes[i * 2], &h, 2);
      break;
    }
    case ElementType::BF16: {
      uint16_t h = floatToBFloat16(float(values[i]));
      std::memcpy(&bytes[i * 2], &h, 2);
      break;
    }
    }
  }
  return bytes;
}

std::vector<double> mlir::egg::eval::decode(const std::vector<uint8_t> &bytes,
                                            ElementType type) {
  size_t n = bytes.size() / elementBytes(type);
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    switch (type) {
    case ElementType::F64:
      std::memcpy(&values[i], &bytes[i * 8], 8);
      break;
    case ElementType::F32: {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      values[i] = f;
      break;
    }
    case ElementType::F16: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = halfToFloat(h);
      break;
    }
    case ElementType::BF16: {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = bfloat16ToFloat(h);
      break;
    }
    }
  }
  return values;
}

std::vector<double> mlir::egg::eval::roundTo(const std::vector<double> &values,
                                             ElementType type) {
  return decode(encode(values, type), type);
}

int64_t mlir::egg::eval::countPoison(const std::vector<uint8_t> &bytes,
                                     ElementType type) {
  int64_t width = elementBytes(type), count = 0;
  for (size_t i = 0; i + width <= bytes.size(); i += width)
    count += std::all_of(bytes.begin() + i, bytes.begin() + i + width,
                         [](uint8_t b) { return b == kPoisonByte; });
  return count;
}

Tolerance mlir::egg::eval::toleranceFor(bool halfPrecision, bool tf32) {
  if (halfPrecision)
    return {1e-2, 5e-2};
  // Measured on the H200: relative L2 6.5e-4 to 7.7e-4 (K = 256, five
  // input distributions), elementwise at most 3.4e-3 of |ref| + rms.
  if (tf32)
    return {3e-3, 2e-2};
  return {1e-5, 1e-4};
}

Comparison mlir::egg::eval::compare(const std::vector<double> &out,
                                    const std::vector<double> &ref,
                                    Tolerance tolerance) {
  Comparison c;
  if (out.size() != ref.size()) {
    c.reason = "output and reference sizes differ";
    return c;
  }
  int64_t refNonFinite = 0;
  double refSq = 0, errSq = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(ref[i])) {
      ++refNonFinite;
      continue;
    }
    refSq += ref[i] * ref[i];
  }
  if (refNonFinite) {
    c.reason = std::to_string(refNonFinite) +
               " reference values are not finite: the inputs are outside "
               "the function's domain";
    return c;
  }
  double rms = ref.empty() ? 0 : std::sqrt(refSq / double(ref.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      if (c.nonFinite++ == 0 && c.firstBad < 0)
        c.firstBad = int64_t(i);
      continue;
    }
    double err = std::fabs(out[i] - ref[i]);
    errSq += err * err;
    c.maxAbsError = std::max(c.maxAbsError, err);
    if (err > tolerance.elementwise * (std::fabs(ref[i]) + rms)) {
      if (c.badElements++ == 0 && c.firstBad < 0)
        c.firstBad = int64_t(i);
    }
  }
  c.relativeL2 = refSq > 0 ? std::sqrt(errSq / refSq) : std::sqrt(errSq);
  std::ostringstream reason;
  if (c.nonFinite)
    reason << c.nonFinite << " output values are NaN or Inf";
  else if (c.relativeL2 > tolerance.relativeL2)
    reason << "relative error " << c.relativeL2 << " exceeds "
           << tolerance.relativeL2;
  else if (c.badElements)
    reason << c.badElements << " elements outside the elementwise bound "
           << "(first at " << c.firstBad << ")";
  c.reason = reason.str();
  c.pass = c.reason.empty();
  return c;
}

Stats mlir::egg::eval::summarize(std::vector<double> samples) {
  Stats s;
  s.count = int64_t(samples.size());
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  auto quantile = [&](double q) {
    double pos = q * double(samples.size() - 1);
    size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
    return samples[lo] + (samples[hi] - samples[lo]) * (pos - double(lo));
  };
  s.median = quantile(0.5);
  s.p10 = quantile(0.1);
  s.p90 = quantile(0.9);
  s.min = samples.front();
  s.max = samples.back();
  double sum = 0;
  for (double v : samples)
    sum += v;
  s.mean = sum / double(samples.size());
  double var = 0;
  for (double v : samples)
    var += (v - s.mean) * (v - s.mean);
  s.stddev =
      samples.size() > 1 ? std::sqrt(var / double(samples.size() - 1)) : 0;
  return s;
}

int64_t mlir::egg::eval::adaptiveRuns(double estimateMs, double budgetMs,
                                      int64_t minRuns, int64_t maxRuns) {
  if (!(estimateMs > 0))
    return maxRuns;
  double runs = std::ceil(budgetMs / estimateMs);
  return std::clamp<int64_t>(int64_t(std::min(runs, 1e9)), minRuns, maxRuns);
}

Roofline mlir::egg::eval::roofline(double flops, double bytes,
                                   double bandwidthGbps, double peakGflops) {
  Roofline r;
  r.flops = flops;
  r.bytes = bytes;
  if (bandwidthGbps > 0)
    r.memoryFloorMs = bytes / (bandwidthGbps * 1e9) * 1e3;
  if (peakGflops > 0)
    r.computeFloorMs = flops / (peakGflops * 1e9) * 1e3;
  return r;
}
