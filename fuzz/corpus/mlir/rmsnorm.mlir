// RMS norm over the last axis with a weight, f32.
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @rmsnorm(%in: tensor<2048x1024xf32>, %w: tensor<1024xf32>) -> tensor<2048x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %e1 = tensor.empty() : tensor<2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2048xf32>) -> tensor<2048xf32>
  %ss = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in : tensor<2048x1024xf32>) outs(%acc : tensor<2048xf32>) {
  ^bb0(%a: f32, %b: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %b : f32
    linalg.yield %t : f32
  } -> tensor<2048xf32>
  %e2 = tensor.empty() : tensor<2048x1024xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #col, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in, %ss, %w : tensor<2048x1024xf32>, tensor<2048xf32>, tensor<1024xf32>) outs(%e2 : tensor<2048x1024xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %ms = arith.divf %s, %n : f32
    %me = arith.addf %ms, %eps : f32
    %r = math.rsqrt %me : f32
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  } -> tensor<2048x1024xf32>
  return %y : tensor<2048x1024xf32>
}
