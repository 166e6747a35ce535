// A linear layer over 20 rows (a few tokens), bf16, 2048 -> 1024 + bias:
// M = 20 is smaller than any tile, so one 32-row tile holds it, partial
// (docs/pipeline.md, "Partial tiles"), on mma.sync; the weights stream
// through shared memory once.
func.func @linear_skinny_bf16(%x: tensor<20x2048xbf16>, %w: tensor<1024x2048xbf16>,
                              %bias: tensor<1024xf32>) -> tensor<20x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<20x1024xf32>) -> tensor<20x1024xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<20x2048xbf16>, tensor<1024x2048xbf16>) outs(%acc : tensor<20x1024xf32>) {
  ^bb0(%xv: bf16, %wv: bf16, %a: f32):
    %xe = arith.extf %xv : bf16 to f32
    %we = arith.extf %wv : bf16 to f32
    %p = arith.mulf %xe, %we : f32
    %s = arith.addf %a, %p : f32
    linalg.yield %s : f32
  } -> tensor<20x1024xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<20x1024xf32>, tensor<1024xf32>) outs(%e : tensor<20x1024xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<20x1024xf32>
  return %r : tensor<20x1024xf32>
}
