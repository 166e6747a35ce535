// An f32 NCHW 3x3 convolution to 64 filters of 64 x 130 outputs: rows that
// no 128-position tile divides, though their product (n x oh x ow) is a
// multiple of 128.
func.func @forward(%x: tensor<8x64x66x132xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<8x64x64x130xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64x64x130xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64x64x130xf32>) -> tensor<8x64x64x130xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x64x66x132xf32>, tensor<64x64x3x3xf32>) outs(%f : tensor<8x64x64x130xf32>) -> tensor<8x64x64x130xf32>
  return %y : tensor<8x64x64x130xf32>
}
