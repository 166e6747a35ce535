// GEMM + bias + ReLU in f32, as a front end would write it.
func.func @gemm_bias_relu(%a: tensor<1024x512xf32>, %b: tensor<512x256xf32>,
                          %bias: tensor<256xf32>) -> tensor<1024x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x256xf32>) -> tensor<1024x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1024x512xf32>, tensor<512x256xf32>)
                      outs(%acc : tensor<1024x256xf32>) -> tensor<1024x256xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<1024x256xf32>, tensor<256xf32>)
      outs(%e : tensor<1024x256xf32>) {
  ^bb0(%x: f32, %b0: f32, %o: f32):
    %s = arith.addf %x, %b0 : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1024x256xf32>
  return %r : tensor<1024x256xf32>
}
