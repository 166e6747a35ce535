// ReLU in f16.
func.func @relu_f16(%x: tensor<4096x1024xf16>) -> tensor<4096x1024xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x1024xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<4096x1024xf16>) -> tensor<4096x1024xf16>
  %r = linalg.max ins(%x, %z : tensor<4096x1024xf16>, tensor<4096x1024xf16>) outs(%e : tensor<4096x1024xf16>) -> tensor<4096x1024xf16>
  return %r : tensor<4096x1024xf16>
}
