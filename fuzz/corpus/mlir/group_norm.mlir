// Group norm (8 groups of 4 channels) with a per-channel scale and shift,
// NCHW f32: reshapes around a two-pass normalisation kernel.
#x = affine_map<(n, g, d) -> (n, g, d)>
#row = affine_map<(n, g, d) -> (n, g)>
#c4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @group_norm(%in: tensor<4x32x16x16xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<4x32x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %g5 = tensor.expand_shape %in [[0], [1, 2], [3], [4]] output_shape [4, 8, 4, 16, 16] : tensor<4x32x16x16xf32> into tensor<4x8x4x16x16xf32>
  %x = tensor.collapse_shape %g5 [[0], [1], [2, 3, 4]] : tensor<4x8x4x16x16xf32> into tensor<4x8x1024xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x8x1024xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %sum : tensor<4x8x1024xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8x1024xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<4x8x1024xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8x1024xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.mulf %d, %rs : f32
    linalg.yield %t : f32
  } -> tensor<4x8x1024xf32>
  %y5 = tensor.expand_shape %y [[0], [1], [2, 3, 4]] output_shape [4, 8, 4, 16, 16] : tensor<4x8x1024xf32> into tensor<4x8x4x16x16xf32>
  %y4 = tensor.collapse_shape %y5 [[0], [1, 2], [3], [4]] : tensor<4x8x4x16x16xf32> into tensor<4x32x16x16xf32>
  %e3 = tensor.empty() : tensor<4x32x16x16xf32>
  %out = linalg.generic {indexing_maps = [#c4, #ch, #ch, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y4, %gamma, %beta : tensor<4x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>) outs(%e3 : tensor<4x32x16x16xf32>) {
  ^bb0(%v: f32, %g: f32, %b: f32, %o: f32):
    %m = arith.mulf %v, %g : f32
    %a = arith.addf %m, %b : f32
    linalg.yield %a : f32
  } -> tensor<4x32x16x16xf32>
  return %out : tensor<4x32x16x16xf32>
}
