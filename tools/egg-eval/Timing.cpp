//===- Timing.cpp - egg-eval: timed runs, roofline, baselines ------------===//

#include "Evaluation.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir::egg::eval;
namespace json = llvm::json;

void Evaluation::prepareTiming() {
  if (start)
    return; // Already prepared (the --give-up-ms probe comes first).
  check(cu.cuEventCreate(&start, CU_EVENT_DEFAULT), "event");
  check(cu.cuEventCreate(&stop, CU_EVENT_DEFAULT), "event");
  haveBlas =
      (opts.baseline || opts.ceilings == "measure") && blas.load(blasWhy);
}

Stats Evaluation::timeLoop(const std::function<CUresult()> &body,
                           int64_t fixedRuns,
                           const std::function<void()> &prepare) {
  auto once = [&](int64_t r) {
    if (!opts.hotCache)
      check(flushL2(r), "L2 flush");
    if (prepare)
      prepare();
    check(cu.cuEventRecord(start, stream), "event");
    CUresult res = body();
    if (res != CUDA_SUCCESS)
      report.finish("fault", "timed run: " + cu.describe(res), 2);
    check(cu.cuEventRecord(stop, stream), "event");
    waitOrDie("timed run");
    float ms = 0;
    check(cu.cuEventElapsedTime(&ms, start, stop), "event");
    return double(ms);
  };
  std::vector<double> warm;
  for (int i = 0; i < 3; ++i)
    warm.push_back(once(i));
  int64_t runs = fixedRuns > 0
                     ? fixedRuns
                     : adaptiveRuns(summarize(warm).median, opts.budgetMs);
  std::vector<double> samples;
  for (int64_t r = 0; r < runs; ++r)
    samples.push_back(once(r));
  return summarize(samples);
}

CUresult Evaluation::launchAll() {
  for (size_t i = 0; i < function->steps.size(); ++i)
    if (CUresult r = launch(i); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}

void Evaluation::giveUpIfSlower() {
  if (opts.giveUpMs <= 0)
    return;
  uploadTimingInputs();
  prepareTiming();
  // One run after the warm-up: a candidate several times slower than the
  // limit pays a few of its runs, not the checks and full statistics.
  Stats probe = timeLoop([&] { return launchAll(); }, 1);
  if (probe.median <= opts.giveUpMs)
    return;
  report.root["timing"] = json::Object{{"mode", "stream"},
                                       {"cold_cache", !opts.hotCache},
                                       {"runs", probe.count},
                                       {"median_ms", probe.median},
                                       {"give_up_ms", opts.giveUpMs}};
  report.finish("slower",
                llvm::formatv("a run took {0:f4} ms, over --give-up-ms={1:f4}: "
                              "not checked, not timed further",
                              probe.median, opts.giveUpMs)
                    .str(),
                4);
}

void Evaluation::time() {
  // Roofline: fewest bytes (inputs read once, outputs written once) and the
  // reference's operation count, against measured or profile ceilings.
  double bytes = 0;
  for (const Buffer &b : function->buffers)
    if (b.role != Buffer::Role::Temp)
      bytes += double(b.bytes);
  // Hopper's dense TF32 rate is half its 16-bit rate.
  double peak = half ? tensorGflops : tf32 ? tensorGflops / 2 : fp32Gflops;
  Roofline roof = roofline(reference.flops(), bytes, bandwidthGbps, peak);

  if (opts.timing) {
    Stats total;
    std::string mode = "stream";
    if (opts.cudaGraph) {
      // One graph of the whole launch sequence, replayed.
      check(cu.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL),
            "capture");
      for (size_t i = 0; i < function->steps.size(); ++i)
        check(launch(i), "capture");
      CUgraph graph;
      check(cu.cuStreamEndCapture(stream, &graph), "capture");
      CUgraphExec exec;
      check(cu.cuGraphInstantiate(&exec, graph, 0), "graph");
      total = timeLoop([&] { return cu.cuGraphLaunch(exec, stream); }, 0);
      mode = "cuda-graph";
      cu.cuGraphExecDestroy(exec);
      cu.cuGraphDestroy(graph);
    } else {
      total = timeLoop([&] { return launchAll(); }, 0);
    }

    // Per kernel: events around each launch, the steps before it untimed.
    json::Array perKernel;
    int64_t kernelRuns = std::min<int64_t>(total.count, 50);
    for (size_t i = 0; i < function->steps.size(); ++i) {
      Stats ks = timeLoop([&] { return launch(i); }, kernelRuns,
                          [&] {
                            for (size_t j = 0; j < i; ++j)
                              check(launch(j), "launch");
                          });
      const Step &step = function->steps[i];
      perKernel.push_back(json::Object{
          {"step", int64_t(i)},
          {"kernel", step.kind == Step::Kind::Launch ? step.name : "copy"},
          {"median_ms", ks.median}});
    }
    // A device-to-device copy that moves the function's bytes (half read,
    // half written), timed the same way: the floor at this size. The floor
    // above is set by a 1 GiB copy; a smaller transfer also pays the ramp-up
    // and the drain of a short run, which no kernel of its size avoids
    // (H200: copies moving 64 MB took 1.13x the floor; docs/egg-eval.md,
    // "Roofline").
    std::optional<double> sizedCopyMs;
    if (llvm::StringRef(roof.bound()) == "memory" && roof.bytes >= (1 << 20)) {
      size_t half = size_t(roof.bytes / 2) / 16 * 16;
      CUdeviceptr src, dst;
      if (cu.cuMemAlloc(&src, half) == CUDA_SUCCESS) {
        if (cu.cuMemAlloc(&dst, half) == CUDA_SUCCESS) {
          check(cu.cuMemsetD32Async(src, 0x3f800000u, half / 4, stream),
                "copy source");
          sizedCopyMs =
              timeLoop(
                  [&] { return cu.cuMemcpyDtoDAsync(dst, src, half, stream); },
                  0)
                  .median;
          cu.cuMemFree(dst);
        }
        cu.cuMemFree(src);
      }
    }
    int64_t overlapped = 0;
    for (size_t i = 0; i < function->steps.size(); ++i)
      overlapped += overlaps(i);
    double gbps = roof.bytes / (total.median * 1e-3) / 1e9;
    double tflops = roof.flops / (total.median * 1e-3) / 1e12;
    double fraction = roof.floorMs() > 0 ? roof.floorMs() / total.median : 0;
    report.root["timing"] = json::Object{
        {"mode", mode},
        {"overlapped_launches", overlapped},
        {"cold_cache", !opts.hotCache},
        {"l2_flush", opts.l2Flush == L2Flush::Read ? "read" : "write"},
        {"runs", total.count},
        {"median_ms", total.median},
        {"mean_ms", total.mean},
        {"min_ms", total.min},
        {"max_ms", total.max},
        {"p10_ms", total.p10},
        {"p90_ms", total.p90},
        {"stddev_ms", total.stddev},
        {"per_kernel", std::move(perKernel)}};
    report.root["roofline"] =
        json::Object{{"flops", roof.flops},
                     {"bytes", roof.bytes},
                     {"ceilings", ceilingSource},
                     {"bandwidth_gbps", bandwidthGbps},
                     {"peak_gflops", peak},
                     {"memory_floor_ms", roof.memoryFloorMs},
                     {"compute_floor_ms", roof.computeFloorMs},
                     {"bound", roof.bound()},
                     {"achieved_gbps", gbps},
                     {"achieved_tflops", tflops},
                     {"fraction_of_floor", fraction}};
    if (sizedCopyMs) {
      json::Object &r = *report.root.getObject("roofline");
      r["same_size_copy_ms"] = *sizedCopyMs;
      r["fraction_of_same_size_copy"] = *sizedCopyMs / total.median;
    }
    llvm::outs() << llvm::formatv(
        "time: median {0:f4} ms (p10 {1:f4}, p90 {2:f4}, {3} runs, {4} "
        "cache, {10})  {5:f1} GB/s  {6:f2} TFLOP/s  floor {7:f4} ms "
        "({8}-bound), {9:p} of floor\n",
        total.median, total.p10, total.p90, total.count,
        opts.hotCache ? "hot" : "cold", gbps, tflops, roof.floorMs(),
        roof.bound(), fraction, mode);
    if (sizedCopyMs)
      llvm::outs() << llvm::formatv(
          "a copy of the same bytes: {0:f4} ms, {1:p} of its speed\n",
          *sizedCopyMs, *sizedCopyMs / total.median);

    // Baseline: cuBLAS on the same contraction, same buffers, same timing.
    json::Object baselines;
    auto gemm = reference.contraction();
    if (!opts.baseline) {
      baselines["cublas"] = "not requested";
    } else if (!gemm) {
      baselines["cublas"] = "not applicable: no single contraction of two "
                            "function arguments";
    } else if (!haveBlas) {
      baselines["cublas"] = "skipped: " + blasWhy;
    } else {
      CUdeviceptr c;
      check(cu.cuMemAlloc(&c, gemm->batch * gemm->m * gemm->n * 8), "alloc");
      CUdeviceptr a = ptrs[inputs[gemm->argA]], b = ptrs[inputs[gemm->argB]];
      Stats s = timeLoop(
          [&] {
            return blas.rowMajorGemm(stream, gemm->batch, gemm->m, gemm->n,
                                     gemm->k, gemm->transA, gemm->transB, a,
                                     gemm->aType, b, gemm->bType, c,
                                     gemm->cType, manifest.allowTf32) ==
                           CUBLAS_STATUS_SUCCESS
                       ? CUDA_SUCCESS
                       : CUDA_ERROR_UNKNOWN;
          },
          0);
      cu.cuMemFree(c);
      baselines["cublas"] = json::Object{
          {"what", std::string("cublasGemmStridedBatchedEx on the "
                               "contraction alone (f32 accumulation, TF32 ") +
                       (manifest.allowTf32 ? "allowed" : "off") + "), " +
                       blas.library},
          {"median_ms", s.median},
          {"egg_over_cublas", total.median / s.median}};
      llvm::outs() << llvm::formatv(
          "cuBLAS (contraction alone): median {0:f4} ms; egg takes {1:f2}x\n",
          s.median, total.median / s.median);
    }
    report.root["baselines"] = std::move(baselines);
  }
}
