// 3x3 depthwise convolution, NHWC / HWC, stride 1, f32.
func.func @depthwise_conv(%x: tensor<4x34x34x64xf32>, %w: tensor<3x3x64xf32>) -> tensor<4x32x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x34x34x64xf32>, tensor<3x3x64xf32>) outs(%f : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  return %r : tensor<4x32x32x64xf32>
}
