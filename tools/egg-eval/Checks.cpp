//===- Checks.cpp - egg-eval: correctness against the reference
//------------===//

#include "Evaluation.h"

#include "egg/Eval/Check.h"
#include "egg/Eval/Inputs.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir::egg::eval;
namespace json = llvm::json;

namespace {
bool anyNonFinite(const std::vector<RefTensor> &tensors) {
  return llvm::any_of(tensors, [](const RefTensor &r) {
    return llvm::any_of(r.data, [](double x) { return !std::isfinite(x); });
  });
}
} // namespace

std::vector<RefTensor>
Evaluation::kernelOutputs(const std::vector<RefTensor> &args) {
  for (auto [k, id] : llvm::enumerate(inputs)) {
    const Buffer &b = function->buffers[id];
    std::vector<uint8_t> bytes = encode(args[k].data, b.elementType);
    check(cu.cuMemcpyHtoD(ptrs[id], bytes.data(), b.bytes), "upload");
  }
  check(cu.cuCtxSynchronize(), "upload");
  runOnce("reference run");
  std::vector<RefTensor> out;
  for (int64_t id : outputs) {
    const Buffer &b = function->buffers[id];
    std::vector<uint8_t> bytes(b.bytes);
    check(cu.cuMemcpyDtoH(bytes.data(), ptrs[id], b.bytes), "download");
    out.push_back({b.shape, decode(bytes, b.elementType)});
  }
  return out;
}

void Evaluation::checkTrials() {
  half = false;
  for (const Buffer &b : function->buffers)
    half |= isHalfPrecision(b.elementType);
  // Judged at TF32 precision only where the module allowed TF32 and a
  // launched kernel computes on it: split products (tf32_terms = 3) hold
  // TF32 instructions too, but owe f32's precision.
  tf32 = manifest.allowTf32 && manifest.launchesTf32(*function);
  Tolerance tolerance = toleranceFor(half, tf32);
  if (manifest.allowTf32)
    report.root["allow_tf32"] = true;
  report.root["tf32"] = tf32;
  json::Array trialReports;
  bool correct = true;
  std::string firstFailure;
  std::vector<std::vector<uint8_t>> previousOut;
  std::vector<RefTensor> previousRef;
  rng.seed(opts.seed);
  // The timed runs' inputs: trial 0's (normal(0,1), or what its domain
  // needed), or fresh normal(0,1) ones without trials.
  for (unsigned t = 0; t < opts.trials; ++t) {
    std::string distribution;
    std::vector<RefTensor> args;
    auto draw = [&](bool positive) {
      args.clear();
      for (int64_t id : inputs) {
        const Buffer &b = function->buffers[id];
        std::vector<double> values =
            positive
                ? drawPositiveInputs(b.numElements(), rng, threads)
                : drawInputs(b.numElements(), t, rng, distribution, threads);
        args.push_back({b.shape, roundTo(values, b.elementType)});
      }
    };
    // The reference first: where the trial's distribution leaves the
    // function's domain (a negative variance under a square root), the
    // trial draws again from uniform(0.5,2) rather than fail every kernel.
    draw(/*positive=*/false);
    if (opts.keepReference) {
      // The kernels are the reference: kept for later runs, not judged.
      std::vector<RefTensor> out = kernelOutputs(args);
      if (anyNonFinite(out))
        report.finish("error",
                      llvm::formatv("trial {0}: the kernels' output is not "
                                    "finite and cannot serve as a reference",
                                    t),
                      3);
      opts.keepReference(args, out);
      if (t == 0) {
        timingDistribution = distribution;
        timingInputs.clear();
        for (auto [k, id] : llvm::enumerate(inputs))
          timingInputs.push_back(
              encode(args[k].data, function->buffers[id].elementType));
      }
      trialReports.push_back(json::Object{{"trial", int64_t(t)},
                                          {"distribution", distribution},
                                          {"kept_as_reference", true}});
      continue;
    }
    auto computed = reference.run(args, threads);
    if (!computed)
      report.finish("error", llvm::toString(computed.takeError()), 3);
    std::vector<RefTensor> ref = std::move(*computed);
    if (anyNonFinite(ref)) {
      std::vector<RefTensor> first = std::move(args);
      draw(/*positive=*/true);
      auto again = reference.run(args, threads);
      if (!again)
        report.finish("error", llvm::toString(again.takeError()), 3);
      if (anyNonFinite(*again)) {
        args = std::move(first); // Report the trial's own distribution.
      } else {
        distribution =
            "uniform(0.5,2) (" + distribution + " left the function's domain)";
        ref = std::move(*again);
      }
    }
    std::vector<std::vector<uint8_t>> uploaded;
    for (auto [k, id] : llvm::enumerate(inputs)) {
      const Buffer &b = function->buffers[id];
      uploaded.push_back(encode(args[k].data, b.elementType));
      check(cu.cuMemcpyHtoD(ptrs[id], uploaded.back().data(), b.bytes),
            "upload");
    }
    // A copy from pageable memory may return before its DMA lands, and
    // `stream` does not wait for the legacy stream.
    check(cu.cuCtxSynchronize(), "upload");
    if (t == 0) {
      timingDistribution = distribution;
      // Later trials overwrite the inputs: keep trial 0's for the timing.
      if (opts.timing && opts.trials > 1)
        timingInputs = uploaded;
    }
    for (const Buffer &b : function->buffers)
      if (b.role != Buffer::Role::Input)
        check(cu.cuMemsetD8Async(ptrs[b.id], kPoisonByte, b.bytes, stream),
              "poison");
    runOnce("correctness run");
    json::Array outputReports;
    std::vector<std::vector<uint8_t>> outBytes;
    std::string failure;
    for (auto [k, id] : llvm::enumerate(outputs)) {
      const Buffer &b = function->buffers[id];
      std::vector<uint8_t> bytes(b.bytes);
      check(cu.cuMemcpyDtoH(bytes.data(), ptrs[id], b.bytes), "download");
      int64_t unwritten = countPoison(bytes, b.elementType);
      Comparison c =
          compare(decode(bytes, b.elementType), ref[k].data, tolerance);
      if (unwritten)
        c.pass = false, c.reason = llvm::formatv("{0} of {1} elements were "
                                                 "never written",
                                                 unwritten, b.numElements());
      bool refChanged = t > 0 && previousRef[k].data != ref[k].data;
      if (c.pass && refChanged && previousOut[k] == bytes)
        c.pass = false, c.reason = "the output did not change with new "
                                   "inputs (stale or cached result)";
      if (!c.pass && failure.empty())
        failure = llvm::formatv("output {0}: {1}", k, c.reason);
      outputReports.push_back(json::Object{{"output", int64_t(k)},
                                           {"pass", c.pass},
                                           {"relative_l2", c.relativeL2},
                                           {"max_abs_error", c.maxAbsError},
                                           {"bad_elements", c.badElements},
                                           {"non_finite", c.nonFinite},
                                           {"unwritten", unwritten},
                                           {"reason", c.reason}});
      outBytes.push_back(std::move(bytes));
    }
    for (auto [k, id] : llvm::enumerate(inputs)) {
      std::vector<uint8_t> after(function->buffers[id].bytes);
      check(cu.cuMemcpyDtoH(after.data(), ptrs[id], after.size()), "download");
      if (after != uploaded[k] && failure.empty())
        failure = llvm::formatv("input {0} was modified by the kernels", k);
    }
    trialReports.push_back(json::Object{{"trial", int64_t(t)},
                                        {"distribution", distribution},
                                        {"pass", failure.empty()},
                                        {"outputs", std::move(outputReports)}});
    llvm::outs() << llvm::formatv("trial {0} {1,-14} {2}\n", t, distribution,
                                  failure.empty() ? "pass" : failure);
    if (!failure.empty() && correct) {
      correct = false;
      firstFailure =
          llvm::formatv("trial {0} ({1}): {2}", t, distribution, failure);
    }
    previousOut = std::move(outBytes);
    previousRef = std::move(ref);
  }
  report.root["correctness"] = json::Object{
      {"trials", std::move(trialReports)},
      {"tolerance", json::Object{{"relative_l2", tolerance.relativeL2},
                                 {"elementwise", tolerance.elementwise}}}};
  if (!correct)
    report.finish("incorrect", firstFailure, 1);
}

void Evaluation::uploadTimingInputs() {
  // Timed runs read trial 0's inputs (random normal(0,1) values), never
  // the allocation's contents (zeros, with --trials=0) nor the last
  // trial's distribution: tensor-core products draw less power, and run
  // faster, on zeros (H200: a 4096^3 bf16 product took 0.165 ms on fresh
  // allocations against 0.188 on normal(0,1) data).
  if (opts.timing) {
    if (opts.trials == 0) {
      for (int64_t id : inputs) {
        const Buffer &b = function->buffers[id];
        timingInputs.push_back(encode(
            drawInputs(b.numElements(), 0, rng, timingDistribution, threads),
            b.elementType));
      }
    }
    for (auto [k, bytes] : llvm::enumerate(timingInputs)) {
      const Buffer &b = function->buffers[inputs[k]];
      check(cu.cuMemcpyHtoD(ptrs[inputs[k]], bytes.data(), b.bytes), "upload");
    }
    check(cu.cuCtxSynchronize(), "upload");
    report.root["timing_inputs"] =
        timingDistribution.empty() ? "none" : timingDistribution;
  }
}
