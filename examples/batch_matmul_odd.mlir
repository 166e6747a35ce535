// Batched C[b] = A[b] B[b], f32, with M = 500 and N = 129 that no
// shared-memory tile divides: direct tiles of 50 x 43 outputs per block
// (before session 15 the expert gave them 1075 threads, over the limit).
func.func @batch_matmul_odd(%a: tensor<2x500x512xf32>, %b: tensor<2x512x129xf32>) -> tensor<2x500x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x500x129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x500x129xf32>) -> tensor<2x500x129xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x500x512xf32>, tensor<2x512x129xf32>) outs(%f : tensor<2x500x129xf32>) -> tensor<2x500x129xf32>
  return %r : tensor<2x500x129xf32>
}
