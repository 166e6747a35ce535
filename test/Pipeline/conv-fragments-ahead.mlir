// The expert loads an f32 convolution's FMA fragments a K step ahead
// (docs/principles/tuning.md, principle 9; docs/pipeline.md, "GEMM through
// shared memory"): 8x8 tiles per thread over two stages, fragments_ahead = 1;
// replaying its decisions gives the same module, and the PTX keeps one
// barrier in the K loop.
// RUN: egg-opt %s --egg-pipeline="record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// DECISIONS: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [16, 16], block = [1, 128, 4, 32], thread = [1, 8, 1, 8], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>"
// PTX: cp.async.wait_group
// PTX: bar.sync
// PTX: fma.rn.f32
func.func @conv1x1_f32(%w: tensor<256x256x1x1xf32>, %x: tensor<16x256x32x32xf32>) -> tensor<16x256x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x256x32x32xf32>) -> tensor<16x256x32x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%x, %w : tensor<16x256x32x32xf32>, tensor<256x256x1x1xf32>) outs(%f : tensor<16x256x32x32xf32>) -> tensor<16x256x32x32xf32>
  return %c : tensor<16x256x32x32xf32>
}
