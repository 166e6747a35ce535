// A cumulative sum and a cumulative product along rows of 4.
func.func @scans(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %s = egg.scan add %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %p = egg.scan mul %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %s, %p : tensor<3x4xf32>, tensor<3x4xf32>
}
