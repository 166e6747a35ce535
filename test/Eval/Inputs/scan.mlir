// A cumulative sum and a cumulative product along rows of 4; a sum from
// the end, a sum of the elements before each, and a product of those after.
func.func @scans(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %s = egg.scan add %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %p = egg.scan mul %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %r = egg.scan add reverse %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %x1 = egg.scan add exclusive %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %rx = egg.scan mul reverse exclusive %x into %e : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %s, %p, %r, %x1, %rx : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}
