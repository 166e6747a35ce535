// A column mean whose 512 rows the 2 blocks of a thread-block cluster share
// (tuning cluster = 2): partials combined over distributed shared memory.
func.func @columns(%a: tensor<512x128xf32>) -> tensor<128xf32> {
  %r = egg.kernel @columns_k0 ins(%a : tensor<512x128xf32>) -> tensor<128xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 2>} {
  ^bb0(%x: tensor<512x128xf32>):
    %zero = arith.constant 0.0 : f32
    %n = arith.constant 512.0 : f32
    %e = tensor.empty() : tensor<128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
    %s = linalg.reduce ins(%x : tensor<512x128xf32>) outs(%f : tensor<128xf32>) dimensions = [0]
      (%u: f32, %acc: f32) {
        %t = arith.addf %u, %acc : f32
        linalg.yield %t : f32
      }
    %e2 = tensor.empty() : tensor<128xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>], iterator_types = ["parallel"]}
        ins(%s : tensor<128xf32>) outs(%e2 : tensor<128xf32>) {
    ^bb0(%u: f32, %o: f32):
      %d = arith.divf %u, %n : f32
      linalg.yield %d : f32
    } -> tensor<128xf32>
    egg.yield %m : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}
