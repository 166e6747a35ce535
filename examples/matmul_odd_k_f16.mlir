// C = A B in f16 (accumulated in f32) with K = 200, no multiple of the
// 64-deep K step of warpgroup MMA: the last K step is partial and its
// copies zero-fill past K (docs/pipeline.md).
func.func @matmul_odd_k_f16(%a: tensor<1024x200xf16>, %b: tensor<200x1024xf16>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x200xf16>, tensor<200x1024xf16>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
