// A column maximum that starts from its input's values (no fill), split
// into 8 row slices: each slice starts from -inf, the combining kernel
// takes the maximum of the input and the slices.
func.func @colmax(%a: tensor<1024x64xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %r = egg.kernel @colmax_k0 ins(%a, %c : tensor<1024x64xf32>, tensor<64xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 8>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
  ^bb0(%x: tensor<1024x64xf32>, %z: tensor<64xf32>):
    %m = linalg.reduce ins(%x : tensor<1024x64xf32>) outs(%z : tensor<64xf32>) dimensions = [0]
      (%u: f32, %v: f32) {
        %s = arith.maximumf %u, %v : f32
        linalg.yield %s : f32
      }
    egg.yield %m : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
