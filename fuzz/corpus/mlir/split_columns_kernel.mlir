// A batch of column reductions (rows in the middle loop) that accumulates
// into an input and reads a broadcast one, split into 4 row slices.
func.func @columns(%a: tensor<2x512x128xf32>, %w: tensor<128xf32>, %c: tensor<2x128xf32>) -> tensor<2x128xf32> {
  %r = egg.kernel @columns_k0 ins(%a, %w, %c : tensor<2x512x128xf32>, tensor<128xf32>, tensor<2x128xf32>) -> tensor<2x128xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 4>,
                  tuning = #egg.tuning<threads = [8, 64], block = [1, 32], vector = 4>} {
  ^bb0(%x: tensor<2x512x128xf32>, %y: tensor<128xf32>, %z: tensor<2x128xf32>):
    %s = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (c)>, affine_map<(b, r, c) -> (b, c)>],
                         iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%x, %y : tensor<2x512x128xf32>, tensor<128xf32>) outs(%z : tensor<2x128xf32>) {
    ^bb0(%u: f32, %v: f32, %acc: f32):
      %d = arith.subf %u, %v : f32
      %t = arith.addf %acc, %d : f32
      linalg.yield %t : f32
    } -> tensor<2x128xf32>
    %e = tensor.empty() : tensor<2x128xf32>
    %h = linalg.generic {indexing_maps = [affine_map<(b, c) -> (b, c)>, affine_map<(b, c) -> (b, c)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<2x128xf32>) outs(%e : tensor<2x128xf32>) {
    ^bb0(%u: f32, %o: f32):
      %half = arith.constant 0.5 : f32
      %m = arith.mulf %u, %half : f32
      linalg.yield %m : f32
    } -> tensor<2x128xf32>
    egg.yield %h : tensor<2x128xf32>
  }
  return %r : tensor<2x128xf32>
}
