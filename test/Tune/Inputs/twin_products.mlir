func.func @twin_products(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>, %d: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  %e2 = tensor.empty() : tensor<512x512xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %n = linalg.matmul ins(%c, %d : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f2 : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %m, %n : tensor<512x512xf32>, tensor<512x512xf32>
}
