// 3x3 convolution with padding 1 (tensor.pad), NCHW, f32.
func.func @conv_padded(%x: tensor<4x32x32x32xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<4x32x32x32xf32> to tensor<4x32x34x34xf32>
  %e = tensor.empty() : tensor<4x64x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}
