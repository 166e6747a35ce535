// layer_norm(x + residual): fusion chain, f32.
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @residual_layernorm(%x: tensor<1024x768xf32>, %res: tensor<1024x768xf32>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<1024x768xf32> {
  %e0 = tensor.empty() : tensor<1024x768xf32>
  %in = linalg.add ins(%x, %res : tensor<1024x768xf32>, tensor<1024x768xf32>) outs(%e0 : tensor<1024x768xf32>) -> tensor<1024x768xf32>

  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1024xf32>) -> tensor<1024xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in : tensor<1024x768xf32>) outs(%acc : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<1024xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in, %sum : tensor<1024x768xf32>, tensor<1024xf32>) outs(%acc : tensor<1024xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<1024xf32>
  %e2 = tensor.empty() : tensor<1024x768xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #col, #col, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in, %sum, %sq, %gamma, %beta : tensor<1024x768xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<768xf32>, tensor<768xf32>) outs(%e2 : tensor<1024x768xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %g: f32, %bt: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.mulf %d, %rs : f32
    %u = arith.mulf %t, %g : f32
    %v = arith.addf %u, %bt : f32
    linalg.yield %v : f32
  } -> tensor<1024x768xf32>
  return %y : tensor<1024x768xf32>
}
