// Mean over the last axis of a bf16 tensor, accumulated in f32.
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
func.func @row_mean_bf16(%x: tensor<2048x2048xbf16>) -> tensor<2048xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 2048.0 : f32
  %e = tensor.empty() : tensor<2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2048x2048xbf16>) outs(%acc : tensor<2048xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %w = arith.extf %a : bf16 to f32
    %t = arith.addf %w, %b : f32
    linalg.yield %t : f32
  } -> tensor<2048xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%s : tensor<2048xf32>) outs(%e : tensor<2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.divf %a, %n : f32
    linalg.yield %t : f32
  } -> tensor<2048xf32>
  return %m : tensor<2048xf32>
}
