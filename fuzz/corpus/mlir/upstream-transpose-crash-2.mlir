// A 2-D transpose, f32.
func.func @transpose(%x: tensor<1024x2048xf32>) -> tensor<2048x1024xf32> {
  %e = tensor.empty() : tensor<2048x1024xf32>
  %r = linalg.transpose ins(%x : tensor<1024x2048xf32>) outs(%e : tensor<2048x1024xf32>) permutation= [ ,1 0]
  return %r : tensor<1024x1024xf32>
}
