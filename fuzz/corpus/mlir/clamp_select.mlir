// clamp(x, -1, 1) where y > 0 else min(x, y): select and clamp, f32.
#id = affine_map<(i, j) -> (i, j)>
func.func @clamp_select(%x: tensor<1024x2048xf32>, %y: tensor<1024x2048xf32>) -> tensor<1024x2048xf32> {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1024x2048xf32>, tensor<1024x2048xf32>) outs(%e : tensor<1024x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c0 = arith.maximumf %a, %lo : f32
    %c1 = arith.minimumf %c0, %hi : f32
    %m = arith.minimumf %a, %b : f32
    %pos = arith.cmpf ogt, %b, %zero : f32
    %s = arith.select %pos, %c1, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x2048xf32>
  return %r : tensor<1024x2048xf32>
}
