#x = affine_map<(g, d) -> (g, d)>
#row = affine_map<(g, d) -> (g)>
func.func @group_norm(%x: tensor<16x32768xf32>) -> tensor<16x32768xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32768xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<16x32768xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x32768xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<16x32768xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16x32768xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.mulf %d, %rs : f32
    linalg.yield %t : f32
  } -> tensor<16x32768xf32>
  return %y : tensor<16x32768xf32>
}
