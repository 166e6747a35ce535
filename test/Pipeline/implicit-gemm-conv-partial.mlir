// Implicit-GEMM convolutions whose output positions no block tile divides
// take partial tiles (docs/pipeline.md, "Partial tiles"): a block's
// row-major range over (n, oh, ow) covers whole inner loops and a part of
// the next, whose last part is cut short. Here 4 rows of 30 columns (30
// rows: the eighth block along oh holds 2), and 64 of 136 columns (the
// third block holds 8). Copies past the cut read 0 bytes (cp.async with a
// source size in a register) and the epilogue stores nothing there.
// Replaying the decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// DECISIONS: "name": "rows_30_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [20, 4], block = [1, 16, 4, 30], thread = [1, 4, 1, 6], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>"
// DECISIONS: "name": "columns_136_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [16, 16], block = [1, 64, 1, 64], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>"
// DECISIONS: "name": "bias_c11_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NOT: "name": "bias_c11_k1"

// PTX-LABEL: .entry rows_30_k0_kernel
// PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// PTX: fma.rn.f32
// PTX-LABEL: .entry columns_136_k0_kernel
// PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// PTX: fma.rn.f32

func.func @rows_30(%x: tensor<128x16x32x32xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<128x16x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x16x30x30xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x16x30x30xf32>) -> tensor<128x16x30x30xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<128x16x32x32xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<128x16x30x30xf32>) -> tensor<128x16x30x30xf32>
  return %r : tensor<128x16x30x30xf32>
}

func.func @columns_136(%x: tensor<2x8x40x139xf32>, %w: tensor<64x8x3x4xf32>) -> tensor<2x64x38x136xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x38x136xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x38x136xf32>) -> tensor<2x64x38x136xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x40x139xf32>, tensor<64x8x3x4xf32>) outs(%f : tensor<2x64x38x136xf32>) -> tensor<2x64x38x136xf32>
  return %r : tensor<2x64x38x136xf32>
}

// PyTorch's per-channel bias of shape C x 1 x 1 (read at 0 along its unit
// dims) joins the product's epilogue: one kernel, whose stores follow the
// partial tile's guard.
func.func @bias_c11(%x: tensor<128x16x32x32xf32>, %w: tensor<16x16x3x3xf32>, %bias: tensor<16x1x1xf32>) -> tensor<128x16x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x16x30x30xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x16x30x30xf32>) -> tensor<128x16x30x30xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<128x16x32x32xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<128x16x30x30xf32>) -> tensor<128x16x30x30xf32>
  %e2 = tensor.empty() : tensor<128x16x30x30xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<128x16x30x30xf32>, tensor<16x1x1xf32>) outs(%e2 : tensor<128x16x30x30xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<128x16x30x30xf32>
  return %r : tensor<128x16x30x30xf32>
}
