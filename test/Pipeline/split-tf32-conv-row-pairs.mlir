// Split TF32 tiles of whole short rows (docs/principles/structure.md,
// principle 7): an f32 convolution read through NHWC/FHWC copies whose
// 56-wide output rows fill no 128-position tile takes two whole rows, 112
// positions (a multiple of wgmma's 8), per warpgroup tile.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=EXPERT --input-file=%t.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// EXPERT: "structure": "#egg.structure<conv_implicit_gemm>"
// EXPERT-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [1, 128, 2, 56], warp = [1, 64, 2, 56], {{.*}}, tf32_terms = 3, mma = wgmma>"
// PTX: wgmma.mma_async.sync.aligned.m64n112k8.f32.tf32.tf32
func.func @rows56(%p_conv_weight: tensor<128x64x3x3xf32>, %p_conv_bias: tensor<128xf32>, %x: tensor<8x64x56x56xf32>) -> (tensor<8x128x56x56xf32>) {
  %e1 = tensor.empty() : tensor<8x56x56x64xf32>
  %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<8x64x56x56xf32>) outs(%e1 : tensor<8x56x56x64xf32>) {
  ^bb0(%a0: f32, %acc: f32):
    linalg.yield %a0 : f32
  } -> tensor<8x56x56x64xf32>
  %e3 = tensor.empty() : tensor<128x3x3x64xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p_conv_weight : tensor<128x64x3x3xf32>) outs(%e3 : tensor<128x3x3x64xf32>) {
  ^bb0(%a0: f32, %acc: f32):
    linalg.yield %a0 : f32
  } -> tensor<128x3x3x64xf32>
  %c5 = arith.constant 0.0 : f32
  %p6 = tensor.pad %g2 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %c5 : f32
  } : tensor<8x56x56x64xf32> to tensor<8x58x58x64xf32>
  %c7 = arith.constant 0.0 : f32
  %e9 = tensor.empty() : tensor<8x128x56x56xf32>
  %f8 = linalg.fill ins(%c7 : f32) outs(%e9 : tensor<8x128x56x56xf32>) -> tensor<8x128x56x56xf32>
  %cv10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 1 + d4 * 1, d3 * 1 + d5 * 1, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p6, %g4 : tensor<8x58x58x64xf32>, tensor<128x3x3x64xf32>) outs(%f8 : tensor<8x128x56x56xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %t11 = arith.mulf %a, %b : f32
    %t12 = arith.addf %acc, %t11 : f32
    linalg.yield %t12 : f32
  } -> tensor<8x128x56x56xf32>
  %e13 = tensor.empty() : tensor<8x128x56x56xf32>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cv10, %p_conv_bias : tensor<8x128x56x56xf32>, tensor<128xf32>) outs(%e13 : tensor<8x128x56x56xf32>) {
  ^bb0(%a0: f32, %a1: f32, %acc: f32):
    %t15 = arith.addf %a0, %a1 : f32
    linalg.yield %t15 : f32
  } -> tensor<8x128x56x56xf32>
  return %g14 : tensor<8x128x56x56xf32>
}
