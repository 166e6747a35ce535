// A masked cumulative sum end to end (docs/pipeline.md, "Scans"): the mask's
// product, the scan and the scale after it are three kernels, since a scan's
// kernel holds the scan alone; the scan is `scan_warp`, a warp per row of
// 1000 (eight steps of 128, the last partial), 16-byte lane accesses, eight
// rows per block. Replaying the decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-module=masked_cumsum_k1_kernel %t.mlir | FileCheck %s --check-prefix=PTX

// DECISIONS: "name": "masked_cumsum_k0"
// DECISIONS: "structure": "#egg.structure<elementwise_flat>"
// DECISIONS: "name": "masked_cumsum_k1"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<scan_warp>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [256], block = [8], warp = [1], vector = 4>"
// DECISIONS: "name": "masked_cumsum_k2"
// DECISIONS: "structure": "#egg.structure<elementwise_flat>"

// PTX: .maxntid 256, 1, 1
// PTX: %laneid
// PTX: ld.global.v4.b32
// PTX-COUNT-6: shfl.sync.up.b32
// PTX: shfl.sync.idx.b32
// PTX: st.global.v4.b32

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @masked_cumsum(%x: tensor<4096x1000xf32>, %m: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %e = tensor.empty() : tensor<4096x1000xf32>
  %masked = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4096x1000xf32>, tensor<4096x1000xf32>) outs(%e : tensor<4096x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4096x1000xf32>
  %e2 = tensor.empty() : tensor<4096x1000xf32>
  %s = egg.scan add %masked into %e2 : tensor<4096x1000xf32>, tensor<4096x1000xf32> -> tensor<4096x1000xf32>
  %e3 = tensor.empty() : tensor<4096x1000xf32>
  %half = arith.constant 0.5 : f32
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4096x1000xf32>) outs(%e3 : tensor<4096x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.mulf %a, %half : f32
    linalg.yield %q : f32
  } -> tensor<4096x1000xf32>
  return %y : tensor<4096x1000xf32>
}
