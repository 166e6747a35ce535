// A linear layer with 1000 outputs (a classifier head), bf16: no tile of
// 128 divides N. The expert takes partial 128 x 256 tiles (two warpgroups
// of 128 x 128, TMA copies as K is long; docs/pipeline.md, "Partial
// tiles"). Replayed from Inputs/classifier-n200.json, the lowering also
// builds whole 128 x 200 tiles: one warpgroup's m64n200k16 per 64 rows,
// where a 200 x 64 tile of B is 1600 16-byte pieces over 256 threads, so
// the last round of copies is guarded (slower on the H200: 0.0855 ms
// against 0.0488).
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.expert.mlir
// RUN: FileCheck %s --check-prefix=TUNING < %t.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.expert.mlir.ptx.d %t.expert.mlir | xargs cat | FileCheck %s --check-prefix=EXPERT
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/classifier-n200.json" -o %t.mlir
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/classifier-n200.json" --mlir-print-ir-after=egg-lower-shared-gemm -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// TUNING: "tuning": "#egg.tuning<threads = [128, 2, 1], block = [128, 256], warp = [128, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, mma = wgmma>"
// EXPERT-NOT: cp.async.cg.shared.global
// EXPERT: cp.async.bulk.tensor.2d.shared::cluster.global.tile
// EXPERT-NOT: cp.async.cg.shared.global
// EXPERT: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// IR: %[[HAS:.*]] = arith.cmpi ult, %{{.*}}, %c1600
// IR-NEXT: scf.if %[[HAS]] {
// IR: nvgpu.device_async_copy
// PTX: wgmma.mma_async.sync.aligned.m64n200k16.f32.bf16.bf16
func.func @classifier(%x: tensor<4096x4096xbf16>, %w: tensor<1000x4096xbf16>) -> tensor<4096x1000xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x1000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4096x1000xf32>) -> tensor<4096x1000xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4096x4096xbf16>, tensor<1000x4096xbf16>) outs(%f : tensor<4096x1000xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %t = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<4096x1000xf32>
  return %g : tensor<4096x1000xf32>
}
