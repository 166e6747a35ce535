// Sum over the rows of a 16384 x 256 f32 matrix: 256 columns make 8 blocks
// of a column reduction, so the expert splits the rows into 16 slices
// (partial sums into a 16 x 256 workspace, then a kernel that adds them).
func.func @col_sum_narrow(%x: tensor<16384x256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.reduce ins(%x : tensor<16384x256xf32>) outs(%acc : tensor<256xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<256xf32>
}
