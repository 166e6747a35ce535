// y = A x, f32.
func.func @matvec(%a: tensor<4096x2048xf32>, %x: tensor<2048xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.matvec ins(%a, %x : tensor<4096x2048xf32>, tensor<2048xf32>) outs(%f : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
