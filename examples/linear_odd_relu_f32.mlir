// A linear layer in f32, 1024 -> 1000 features over 500 rows, + bias and
// ReLU: x w^T with M = 500 and N = 1000, which no shared-memory tile
// divides. FMA tiles with partial last tiles (docs/pipeline.md, "Partial
// tiles"): the epilogue's bias loads and the stores past the edge are
// guarded.
func.func @linear_odd_relu_f32(%x: tensor<500x1024xf32>, %w: tensor<1000x1024xf32>,
                               %bias: tensor<1000xf32>) -> tensor<500x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<500x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<500x1000xf32>) -> tensor<500x1000xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<500x1024xf32>, tensor<1000x1024xf32>) outs(%acc : tensor<500x1000xf32>) {
  ^bb0(%xv: f32, %wv: f32, %a: f32):
    %p = arith.mulf %xv, %wv : f32
    %s = arith.addf %a, %p : f32
    linalg.yield %s : f32
  } -> tensor<500x1000xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<500x1000xf32>, tensor<1000xf32>) outs(%e : tensor<500x1000xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %relu = arith.maximumf %s, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<500x1000xf32>
  return %r : tensor<500x1000xf32>
}
