// The expert's 32-deep K steps loaded a step ahead for 128x128 FMA tiles
// (docs/principles/tuning.md, principle 9): taken where an operand is
// copied in 16-byte pieces along M/N (B row-major; A column-major), not
// where both are transposed element by element into the M/N-major tiles
// (A row-major times B stored N x K), nor for the smaller tiles of an
// uneven product. Two stages of 32 x (128 + 4) f32 values of A and of B
// are 67584 bytes of dynamic shared memory; replay gives the same module.
// On sm_90, without warpgroup MMA: on sm_90a the K-contiguous pair (abt)
// takes split TF32 products instead (test/Pipeline/tf32-gemm.mlir).
// RUN: egg-opt %s --egg-pipeline="chip=sm_90 split-k=false record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=EXPERT --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="chip=sm_90 split-k=false agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// EXPERT: "name": "ab_k0"
// EXPERT: "tuning": "#egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [32], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>"
// EXPERT: "name": "abt_k0"
// EXPERT: "tuning": "#egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>"
// EXPERT: "name": "atbt_k0"
// EXPERT: "tuning": "#egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [32], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>"
// EXPERT: "name": "uneven_k0"
// EXPERT: "tuning": "#egg.tuning<threads = [16, 8], block = [64, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>"
// MANIFEST: "name": "ab"
// MANIFEST: "shared_bytes": 67584
// MANIFEST: "name": "abt"
// MANIFEST: "shared_bytes": 0
// MANIFEST: "name": "atbt"
// MANIFEST: "shared_bytes": 67584

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#loops = ["parallel", "parallel", "reduction"]

func.func @ab(%a: tensor<2048x1024xf32>, %b: tensor<1024x2048xf32>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2048x1024xf32>, tensor<1024x2048xf32>) outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

func.func @abt(%a: tensor<2048x1024xf32>, %b: tensor<2048x1024xf32>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = #loops} ins(%a, %b : tensor<2048x1024xf32>, tensor<2048x1024xf32>) outs(%c : tensor<2048x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

func.func @atbt(%a: tensor<1024x2048xf32>, %b: tensor<2048x1024xf32>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = linalg.generic {indexing_maps = [#at, #bt, #c], iterator_types = #loops} ins(%a, %b : tensor<1024x2048xf32>, tensor<2048x1024xf32>) outs(%c : tensor<2048x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

func.func @uneven(%a: tensor<3000x1024xf32>, %b: tensor<1024x1000xf32>, %c: tensor<3000x1000xf32>) -> tensor<3000x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<3000x1024xf32>, tensor<1024x1000xf32>) outs(%c : tensor<3000x1000xf32>) -> tensor<3000x1000xf32>
  return %r : tensor<3000x1000xf32>
}
