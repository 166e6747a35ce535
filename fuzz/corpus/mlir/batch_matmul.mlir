// Batched C[b] = A[b] B[b], f32.
func.func @batch_matmul(%a: tensor<8x256x128xf32>, %b: tensor<8x128x192xf32>) -> tensor<8x256x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x192xf32>) -> tensor<8x256x192xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<8x256x128xf32>, tensor<8x128x192xf32>) outs(%f : tensor<8x256x192xf32>) -> tensor<8x256x192xf32>
  return %r : tensor<8x256x192xf32>
}
