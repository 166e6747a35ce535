// C = A B with bf16 operands (f32 accumulate) whose M and N (1000) no tile
// of 64 divides: partial last tiles (docs/pipeline.md, "Partial tiles"),
// wgmma on sm_90a, with the copies and stores past the edge guarded.
func.func @matmul_odd_mn_bf16(%a: tensor<1000x2048xbf16>, %b: tensor<2048x1000xbf16>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<1000x2048xbf16>, tensor<2048x1000xbf16>) outs(%f : tensor<1000x1000xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}
