// 3x3 convolution, NHWC / HWCF, stride 1, no padding, f16 (f32 accumulation): an implicit GEMM on tensor cores.
func.func @conv_nhwc_f16(%x: tensor<8x34x34x64xf16>, %w: tensor<3x3x64x128xf16>) -> tensor<8x32x32x128xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32x32x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x34x34x64xf16>, tensor<3x3x64x128xf16>) outs(%f : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %e16 = tensor.empty() : tensor<8x32x32x128xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<8x32x32x128xf32>) outs(%e16 : tensor<8x32x32x128xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x32x32x128xf16>
  return %r : tensor<8x32x32x128xf16>
}
