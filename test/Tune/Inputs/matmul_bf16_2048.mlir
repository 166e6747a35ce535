func.func @matmul_bf16(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16>) -> (tensor<2048x2048xbf16>) {
  %c1 = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2048x2048xf32>
  %f2 = linalg.fill ins(%c1 : f32) outs(%e3 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) outs(%f2 : tensor<2048x2048xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %acc: f32):
    %x5 = arith.extf %a0 : bf16 to f32
    %x6 = arith.extf %a1 : bf16 to f32
    %t7 = arith.mulf %x5, %x6 : f32
    %t8 = arith.addf %acc, %t7 : f32
    linalg.yield %t8 : f32
  } -> tensor<2048x2048xf32>
  %e9 = tensor.empty() : tensor<2048x2048xbf16>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g4 : tensor<2048x2048xf32>) outs(%e9 : tensor<2048x2048xbf16>) {
  ^bb0(%a0: f32, %acc: bf16):
    %t11 = arith.truncf %a0 : f32 to bf16
    linalg.yield %t11 : bf16
  } -> tensor<2048x2048xbf16>
  return %g10 : tensor<2048x2048xbf16>
}
