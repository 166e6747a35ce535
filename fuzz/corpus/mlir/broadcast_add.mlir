// x + b broadcast over rows, with named ops (linalg.broadcast + linalg.add).
func.func @broadcast_add(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %bb = linalg.broadcast ins(%b : tensor<1024xf32>) outs(%e : tensor<1024x1024xf32>) dimensions = [0]
  %r = linalg.add ins(%x, %bb : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
