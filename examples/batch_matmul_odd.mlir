// Batched C[b] = A[b] B[b], f32, with M = 500 and N = 129 that no
// shared-memory tile divides: 32 x 32 tiles through shared memory with
// partial last tiles (docs/pipeline.md, "Partial tiles"); N = 129 takes
// single-element copies. (Until session 16 it took direct tiles of 50 x 43
// outputs: 0.32 ms on the H200 against cuBLAS's 0.023.)
func.func @batch_matmul_odd(%a: tensor<2x500x512xf32>, %b: tensor<2x512x129xf32>) -> tensor<2x500x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x500x129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x500x129xf32>) -> tensor<2x500x129xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x500x512xf32>, tensor<2x512x129xf32>) outs(%f : tensor<2x500x129xf32>) -> tensor<2x500x129xf32>
  return %r : tensor<2x500x129xf32>
}
