// Rows of %src at the float-held integer positions in %index: a gather
// whose source the payload reads with tensor.extract.
func.func @gather(%src: tensor<4x3xf32>, %index: tensor<5xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%index : tensor<5xf32>) outs(%e : tensor<5x3xf32>) {
  ^bb0(%at: f32, %acc: f32):
    %n = arith.fptosi %at : f32 to i64
    %i = arith.index_cast %n : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %src[%i, %j] : tensor<4x3xf32>
    linalg.yield %v : f32
  } -> tensor<5x3xf32>
  return %g : tensor<5x3xf32>
}
