// 3x3 convolution, NHWC / HWCF, stride 2, f32.
func.func @conv_nhwc_stride2(%x: tensor<4x65x65x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<4x32x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<4x65x65x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  return %r : tensor<4x32x32x64xf32>
}
