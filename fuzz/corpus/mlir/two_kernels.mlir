func.func @f(%x: tensor<64x1024xf32>, %w: tensor<1024x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x1024xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x1024xf32>
  %a = linalg.exp ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x1024xf32>, tensor<1024x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a, %m : tensor<64x1024xf32>, tensor<64x64xf32>
}
