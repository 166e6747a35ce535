// A softmax (several legal structures: stage 1 asks) and an exp.
func.func @g(%x: tensor<64x1024xf32>) -> (tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %e = tensor.empty() : tensor<64x1024xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %a = linalg.exp ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %s, %a : tensor<64x1024xf32>, tensor<64x1024xf32>
}
