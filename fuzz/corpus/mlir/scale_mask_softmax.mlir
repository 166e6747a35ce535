// softmax(x * 0.125 + mask): fusion chain, f32.
#id = affine_map<(i, j) -> (i, j)>
func.func @scale_mask_softmax(%x: tensor<1024x1024xf32>, %mask: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %s = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mask : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %s : f32
    %1 = arith.addf %0, %b : f32
    linalg.yield %1 : f32
  } -> tensor<1024x1024xf32>
  %r = linalg.softmax dimension(1) ins(%m : tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
