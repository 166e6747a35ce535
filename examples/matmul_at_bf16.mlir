// C = A^T B in bf16 with A stored [K, M]: both operands are contiguous
// along their M/N dimension (the layouts ldmatrix must transpose).
func.func @matmul_at_bf16(%at: tensor<512x256xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %b : tensor<512x256xbf16>, tensor<512x384xbf16>) outs(%f : tensor<256x384xf32>) {
  ^bb0(%x: bf16, %y: bf16, %c: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}
