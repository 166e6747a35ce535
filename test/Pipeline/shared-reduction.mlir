// A scan of 32-element chunks (a reduction whose terms past the position
// are zero) whose last element a consumer in the same kernel reads. The
// expert gives it a thread per output (every output along the position
// reads the same chunk), which compiles:
// RUN: egg-opt %s --egg-pipeline="chip=sm_90a agent=expert record=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=EXPERT --input-file=%t.json
// EXPERT: "structure": "#egg.structure<reduce_serial>"
// A warp per row is refused: the row lowering cannot share the rows among
// lanes, and lanes running the reduction as it is would all add into the
// same elements.
// RUN: sed -e 's/reduce_serial/reduce_row_per_warp/' -e 's/"tuning": ".*"/"tuning": "#egg.tuning<threads = [256], block = [1, 64], warp = [1, 8], vector = 4>"/' %t.json > %t.warp.json
// RUN: not egg-opt %s --egg-pipeline="chip=sm_90a agent=replay decisions=%t.warp.json" -o /dev/null 2>&1 | FileCheck %s
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
