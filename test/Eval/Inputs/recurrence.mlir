// A GRU layer (r, z, n gates; PyTorch's cell) over 5 steps of 2 rows of 3
// units, reversed.
func.func @gru(%x: tensor<5x2x9xf32>, %w: tensor<3x9xf32>, %b: tensor<9xf32>, %h0: tensor<2x3xf32>) -> (tensor<5x2x3xf32>, tensor<2x3xf32>) {
  %s = tensor.empty() : tensor<5x2x3xf32>
  %f = tensor.empty() : tensor<2x3xf32>
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x9xf32>, tensor<3x9xf32>, tensor<9xf32>, tensor<2x3xf32>)
      outs(%s, %f : tensor<5x2x3xf32>, tensor<2x3xf32>) attributes {reverse} {
  ^bb0(%xr: f32, %xz: f32, %xn: f32, %hr: f32, %hz: f32, %hn: f32, %h: f32):
    %one = arith.constant 1.0 : f32
    %ar = arith.addf %xr, %hr : f32
    %nr = arith.negf %ar : f32
    %er = math.exp %nr : f32
    %dr = arith.addf %one, %er : f32
    %r = arith.divf %one, %dr : f32
    %az = arith.addf %xz, %hz : f32
    %nz = arith.negf %az : f32
    %ez = math.exp %nz : f32
    %dz = arith.addf %one, %ez : f32
    %z = arith.divf %one, %dz : f32
    %rh = arith.mulf %r, %hn : f32
    %an = arith.addf %xn, %rh : f32
    %n = math.tanh %an : f32
    %omz = arith.subf %one, %z : f32
    %a = arith.mulf %omz, %n : f32
    %c = arith.mulf %z, %h : f32
    %h2 = arith.addf %a, %c : f32
    egg.yield %h2 : f32
  } -> tensor<5x2x3xf32>, tensor<2x3xf32>
  return %r#0, %r#1 : tensor<5x2x3xf32>, tensor<2x3xf32>
}
