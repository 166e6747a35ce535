// 3x3 convolution, NCHW / FCHW, stride 1, no padding, f32.
func.func @conv_nchw(%x: tensor<4x32x34x34xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}
