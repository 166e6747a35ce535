// An f16 linear layer as PyTorch stores it (weight [N, K], so both operands
// are contiguous along K), with bias and ReLU, accumulated in f32 and
// stored as f16.
func.func @linear_f16_relu(%x: tensor<512x1024xf16>, %w: tensor<768x1024xf16>,
                           %bias: tensor<768xf16>) -> tensor<512x768xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x768xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<512x768xf32>) -> tensor<512x768xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<512x1024xf16>, tensor<768x1024xf16>) outs(%acc : tensor<512x768xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x768xf32>
  %o = tensor.empty() : tensor<512x768xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<512x768xf32>, tensor<768xf16>) outs(%o : tensor<512x768xf16>) {
  ^bb0(%v: f32, %b0: f16, %out: f16):
    %bf = arith.extf %b0 : f16 to f32
    %s = arith.addf %v, %bf : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<512x768xf16>
  return %r : tensor<512x768xf16>
}
