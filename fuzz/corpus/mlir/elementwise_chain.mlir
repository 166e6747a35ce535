// tanh(x * 2 + 1) * y - x, f32: one elementwise chain, one kernel.
#id = affine_map<(i, j) -> (i, j)>
func.func @elementwise_chain(%x: tensor<2048x2048xf32>, %y: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%e : tensor<2048x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %two : f32
    %1 = arith.addf %0, %one : f32
    %2 = math.tanh %1 : f32
    %3 = arith.mulf %2, %b : f32
    %4 = arith.subf %3, %a : f32
    linalg.yield %4 : f32
  } -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}
