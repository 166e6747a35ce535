// gelu(x + b) with erf, f32: an elementwise chain with a broadcast operand.
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @gelu_bias(%x: tensor<2048x1024xf32>, %b: tensor<1024xf32>) -> tensor<2048x1024xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2048x1024xf32>, tensor<1024xf32>) outs(%e : tensor<2048x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %er = math.erf %s : f32
    %p = arith.addf %er, %one : f32
    %h = arith.mulf %v, %half : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<2048x1024xf32>
  return %r : tensor<2048x1024xf32>
}
