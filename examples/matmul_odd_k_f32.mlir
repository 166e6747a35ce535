// C = A B in f32 (FMA tiles, TF32 off) with K = 100, no multiple of the
// 16-deep K step: the last K step is partial and its copies zero-fill past
// K (docs/pipeline.md); A, stored K-contiguous, is copied transposed an
// element at a time.
func.func @matmul_odd_k_f32(%a: tensor<512x100xf32>, %b: tensor<100x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x100xf32>, tensor<100x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
