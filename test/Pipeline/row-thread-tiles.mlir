// Output rows too narrow or odd for FMA thread tiles of 8 along them (34
// wide: 2 per thread) take row thread tiles (docs/pipeline.md, "Row thread
// tiles"): the block holds 4 whole rows and each thread 8 filters x 2
// positions of each row, its 4 runs 34 positions apart, read from shared
// memory as 8-byte vectors. Replaying the decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// DECISIONS: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [17, 8], block = [1, 64, 4, 34], thread = [1, 8, 4, 2],
// PTX: .entry rows_34_k0_kernel
// PTX: .maxntid 17, 8, 1
// PTX: ld.shared.v2.b32
// PTX: fma.rn.f32

func.func @rows_34(%x: tensor<16x8x36x36xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<16x64x34x34xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64x34x34xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64x34x34xf32>) -> tensor<16x64x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<16x8x36x36xf32>, tensor<64x8x3x3xf32>) outs(%init : tensor<16x64x34x34xf32>) -> tensor<16x64x34x34xf32>
  return %y : tensor<16x64x34x34xf32>
}
