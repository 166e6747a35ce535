func.func @product(%a: tensor<13x257xbf16>, %b: tensor<257x11xbf16>) -> tensor<13x11xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x11xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<13x11xf32>) -> tensor<13x11xf32>
  %r = linalg.matmul ins(%a, %b : tensor<13x257xbf16>, tensor<257x11xbf16>) outs(%f : tensor<13x11xf32>) -> tensor<13x11xf32>
  return %r : tensor<13x11xf32>
}
