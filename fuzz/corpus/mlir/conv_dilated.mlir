// 3x3 convolution with dilation 2, NCHW, f32.
func.func @conv_dilated(%x: tensor<2x16x36x36xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x32x32xf32>) -> tensor<2x32x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x16x36x36xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<2x32x32x32xf32>) -> tensor<2x32x32x32xf32>
  return %r : tensor<2x32x32x32xf32>
}
