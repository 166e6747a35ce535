// x - mean(x) over rows: a reduction with an elementwise epilogue, f32.
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @center_rows(%in: tensor<4096x512xf32>) -> tensor<4096x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %e1 = tensor.empty() : tensor<4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4096xf32>) -> tensor<4096xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%in : tensor<4096x512xf32>) outs(%acc : tensor<4096xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4096xf32>
  %e2 = tensor.empty() : tensor<4096x512xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in, %sum : tensor<4096x512xf32>, tensor<4096xf32>) outs(%e2 : tensor<4096x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    linalg.yield %d : f32
  } -> tensor<4096x512xf32>
  return %y : tensor<4096x512xf32>
}
