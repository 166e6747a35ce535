// C = A B in f32 (no TF32).
func.func @matmul_f32(%a: tensor<512x1024xf32>, %b: tensor<1024x256xf32>) -> tensor<512x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x1024xf32>, tensor<1024x256xf32>) outs(%f : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}
