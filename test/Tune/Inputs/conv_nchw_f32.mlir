// An f32 NCHW 3x3 convolution to 128 filters of 128 x 128 outputs.
func.func @forward(%x: tensor<8x64x130x130xf32>, %w: tensor<128x64x3x3xf32>) -> tensor<8x128x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128x128x128xf32>) -> tensor<8x128x128x128xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x64x130x130xf32>, tensor<128x64x3x3xf32>) outs(%f : tensor<8x128x128x128xf32>) -> tensor<8x128x128x128xf32>
  return %y : tensor<8x128x128x128xf32>
}
