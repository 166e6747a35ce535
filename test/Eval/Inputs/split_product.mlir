// A product with a bias epilogue split into 4 K slices.
func.func @product(%a: tensor<64x1024xf32>, %b: tensor<1024x128xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %r = egg.kernel @product_k0 ins(%a, %b, %bias : tensor<64x1024xf32>, tensor<1024x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 4>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%x: tensor<64x1024xf32>, %y: tensor<1024x128xf32>, %z: tensor<128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %p = linalg.matmul ins(%x, %y : tensor<64x1024xf32>, tensor<1024x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
    %e2 = tensor.empty() : tensor<64x128xf32>
    %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%p, %z : tensor<64x128xf32>, tensor<128xf32>) outs(%e2 : tensor<64x128xf32>) {
    ^bb0(%u: f32, %w: f32, %out: f32):
      %s = arith.addf %u, %w : f32
      linalg.yield %s : f32
    } -> tensor<64x128xf32>
    egg.yield %o : tensor<64x128xf32>
  }
  return %r : tensor<64x128xf32>
}
