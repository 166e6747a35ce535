// Layer norm without affine over rows of 24 f32 (shorter than a warp):
// a warp owns several rows, each on a cluster of lanes; the per-row mean
// and inverse deviation are per-row scalars computed between the passes.
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#r1 = affine_map<(i) -> (i)>
func.func @short_rows_norm(%in: tensor<16384x24xf32>) -> tensor<16384x24xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 24.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16384xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16384xf32>) -> tensor<16384xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in : tensor<16384x24xf32>) outs(%acc : tensor<16384xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16384xf32>
  %e2 = tensor.empty() : tensor<16384xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%sum : tensor<16384xf32>) outs(%e2 : tensor<16384xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<16384xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16384xf32>) -> tensor<16384xf32>
  %ss = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in, %mean : tensor<16384x24xf32>, tensor<16384xf32>) outs(%acc2 : tensor<16384xf32>) {
  ^bb0(%a: f32, %m: f32, %b: f32):
    %d = arith.subf %a, %m : f32
    %sq = arith.mulf %d, %d : f32
    %t = arith.addf %sq, %b : f32
    linalg.yield %t : f32
  } -> tensor<16384xf32>
  %e3 = tensor.empty() : tensor<16384x24xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in, %mean, %ss : tensor<16384x24xf32>, tensor<16384xf32>, tensor<16384xf32>) outs(%e3 : tensor<16384x24xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    %d = arith.subf %a, %m : f32
    %t = arith.mulf %d, %r : f32
    linalg.yield %t : f32
  } -> tensor<16384x24xf32>
  return %y : tensor<16384x24xf32>
}
