// Sum over the rows (the non-contiguous axis) of a 1000x384 f32 matrix:
// 1000 rows is not a multiple of the rows in flight, so some threads fold
// one row more than others.
func.func @col_sum_odd(%x: tensor<1000x384xf32>) -> tensor<384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<384xf32>) -> tensor<384xf32>
  %r = linalg.reduce ins(%x : tensor<1000x384xf32>) outs(%acc : tensor<384xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<384xf32>
}
