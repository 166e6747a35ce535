// Max over the first (non-contiguous) axis, f32.
func.func @col_max(%x: tensor<1024x4096xf32>) -> tensor<4096xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.reduce ins(%x : tensor<1024x4096xf32>) outs(%acc : tensor<4096xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4096xf32>
}
