// 3x3 convolution, NHWC / HWCF, stride 1, padding 1 (tensor.pad on H and W), bf16 (f32 accumulation):
// the pad gathers 16-byte vectors of channels, then an implicit GEMM on tensor cores.
func.func @conv_nhwc_padded_bf16(%x: tensor<8x32x32x64xbf16>, %w: tensor<3x3x64x128xbf16>) -> tensor<8x32x32x128xbf16> {
  %pz = arith.constant 0.0 : bf16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pz : bf16
  } : tensor<8x32x32x64xbf16> to tensor<8x34x34x64xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32x32x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<8x34x34x64xbf16>, tensor<3x3x64x128xbf16>) outs(%f : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %e16 = tensor.empty() : tensor<8x32x32x128xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<8x32x32x128xf32>) outs(%e16 : tensor<8x32x32x128xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x32x32x128xbf16>
  return %r : tensor<8x32x32x128xbf16>
}
