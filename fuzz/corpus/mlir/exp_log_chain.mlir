// log(1 + exp(x)) (softplus) then sigmoid-like x / (1 + exp(-x)): chain, f32.
#id = affine_map<(i) -> (i)>
func.func @exp_log_chain(%x: tensor<4194304xf32>) -> tensor<4194304xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4194304xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4194304xf32>) outs(%e : tensor<4194304xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    %p = arith.addf %ex, %one : f32
    %sp = math.log %p : f32
    %n = arith.negf %sp : f32
    %en = math.exp %n : f32
    %q = arith.addf %en, %one : f32
    %y = arith.divf %sp, %q : f32
    linalg.yield %y : f32
  } -> tensor<4194304xf32>
  return %r : tensor<4194304xf32>
}
