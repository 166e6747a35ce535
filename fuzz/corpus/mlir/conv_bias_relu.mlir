// relu(conv(x, w) + bias[f]): fusion chain, NCHW, f32.
func.func @conv_bias_relu(%x: tensor<4x16x34x34xf32>, %w: tensor<32x16x3x3xf32>, %bias: tensor<32xf32>) -> tensor<4x32x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x32x32xf32>) -> tensor<4x32x32x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<4x32x32x32xf32>) -> tensor<4x32x32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<4x32x32x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x32x32x32xf32>
  return %r : tensor<4x32x32x32xf32>
}
