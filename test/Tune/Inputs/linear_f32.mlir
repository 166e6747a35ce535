// An f32 linear layer (x and W both contiguous along K).
func.func @linear(%x: tensor<1024x256xf32>, %w: tensor<4096x256xf32>) -> tensor<1024x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1024x256xf32>, tensor<4096x256xf32>) outs(%f : tensor<1024x4096xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024x4096xf32>
  return %y : tensor<1024x4096xf32>
}
