// y = 3 x under the name of scale.mlir's function: a kernel that is wrong against scale.mlir's reference (reference-cache.test).
func.func @scale(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %two = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<1048576xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1048576xf32>) outs(%e : tensor<1048576xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %two : f32
    linalg.yield %y : f32
  } -> tensor<1048576xf32>
  return %r : tensor<1048576xf32>
}
