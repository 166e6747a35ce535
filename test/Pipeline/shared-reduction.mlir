// RUN: not egg-opt %s --egg-pipeline="chip=sm_90a agent=expert" -o /dev/null 2>&1 | FileCheck %s
// A scan of 32-element chunks (a reduction whose terms past the position
// are zero) whose last element a consumer in the same kernel reads: the
// row lowering cannot share the rows among lanes, and lanes running the
// reduction as it is would all add into the same elements.
// CHECK: error: 'linalg.generic' op reduces into memory that every thread of the block shares
func.func @forward(%x: tensor<4096x64x32xf32>) -> (tensor<4096x64x32xf32>, tensor<4096x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x64x32xf32>) -> tensor<4096x64x32xf32>
  %scan = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<4096x64x32xf32>) outs(%f : tensor<4096x64x32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi ule, %j, %i : index
    %term = arith.select %keep, %in, %zero : f32
    %s = arith.addf %acc, %term : f32
    linalg.yield %s : f32
  } -> tensor<4096x64x32xf32>
  %e2 = tensor.empty() : tensor<4096x64xf32>
  %last = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1, 31)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%scan : tensor<4096x64x32xf32>) outs(%e2 : tensor<4096x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4096x64xf32>
  return %scan, %last : tensor<4096x64x32xf32>, tensor<4096x64xf32>
}
