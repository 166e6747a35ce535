// erf over f16 (egg-expand-erf's clamped polynomial, computed in f32): the
// trials' inputs (up to uniform(-8,8) and normal(1,3)) reach the clamp.
#id = affine_map<(i, j) -> (i, j)>
func.func @erf_f16(%x: tensor<2048x2048xf16>) -> tensor<2048x2048xf16> {
  %e = tensor.empty() : tensor<2048x2048xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2048x2048xf16>) outs(%e : tensor<2048x2048xf16>) {
  ^bb0(%a: f16, %o: f16):
    %y = math.erf %a : f16
    linalg.yield %y : f16
  } -> tensor<2048x2048xf16>
  return %r : tensor<2048x2048xf16>
}
